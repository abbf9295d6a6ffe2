// lcstudio-cli NAME: any experiment in the registry, its flags and --help derived from
// its declaration. The paper's experiments have commands of their own with a few more
// flags (saved models, intra-op threads); every other registered experiment runs here.
#include <cstdio>
#include <mutex>

#include "cli_commands.h"
#include "cli_flags.h"
#include "cli_support.h"
#include "core/threads.h"
#include "decision/cost_matrix.h"
#include "experiments/experiment.h"

namespace cli {

namespace {

/// The files-and-output help: --costs, the experiment's declared outputs, --quiet.
std::string filesHelp(const lcs::Experiment& experiment)
{
    return filesAndOutputHelp(
        lcs::helpEntry("  --costs FILE", "cost matrix (.json or Weka .cost); default: the experiment's"),
        experiment.outputs());
}

} // namespace

std::string experimentIntro(const lcs::Experiment& experiment)
{
    return "lcstudio-cli " + experiment.command() + " - " + experiment.title() + "\n\n" + experiment.description();
}

int runExperimentCommand(const lcs::Experiment& experiment, int argc, char** argv, int first)
{
    const auto specs = experiment.settings();
    const std::string command = experiment.command();
    auto own = outputFlagSpecs(experiment.outputs());
    own.push_back({"--costs", true});
    own.push_back({"--quiet", false});
    const auto parsed = parseFlags(argc, argv, first, command, specs, own);
    if (parsed.help) {
        std::printf("%s\nOptions (the experiment's settings):\n%s\n%s", experimentIntro(experiment).c_str(),
                    lcs::settingsHelp(specs).c_str(), filesHelp(experiment).c_str());
        return kExitOk;
    }
    std::optional<lcs::CostMatrix> costs;
    std::string costsPath;
    if (parsed.values.count("--costs")) {
        costsPath = parsed.values.at("--costs");
        costs = lcs::loadCostMatrix(costsPath);
    }
    const auto settings = lcs::checkedSettings(specs, parsed.settings, experiment.name());
    auto inputs = experiment.inputPaths(settings);
    inputs.push_back({"--costs", costsPath, lcs::PathKind::File});
    const CommandOutputs outputs(experiment.outputs(), parsed.values, inputs);
    if (costs) {
        // The matrix must fit the experiment: said here, naming the file, before any work
        // (a class count that depends on the data is checked once the data is read).
        try {
            costs = experiment.acceptedCosts(*costs);
        } catch (const std::exception& e) {
            throw UsageError("--costs: " + costsPath + ": " + e.what());
        }
    }
    return executeExperiment(experiment, settings, costs, outputs, parsed.switches.count("--quiet") > 0);
}

int executeExperiment(const lcs::Experiment& experiment, const nlohmann::json& settings,
                      const std::optional<lcs::CostMatrix>& costs, const CommandOutputs& outputs, bool quiet)
{
    // As every command: one intra-op thread and a single-threaded BLAS; an experiment
    // that wants more runs its tasks in parallel (the synthetic one does).
    lcs::configureThreads(1);
    ProgressLines lines(quiet);
    std::mutex linesMutex;  // an experiment may report from several threads
    lcs::JobContext ctx{[&](const lcs::Progress& p) {
                            std::lock_guard<std::mutex> lock(linesMutex);
                            lines(p);
                        },
                        &g_cancel};
    const auto run = experiment.run(settings, costs, ctx);
    lines.finish();
    std::fputs(run.output.table.c_str(), stdout);
    outputs.writeResults(run.output.json, run.output.csv);
    return kExitOk;
}

} // namespace cli
