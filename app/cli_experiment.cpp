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

const char* kExperimentFiles = R"(Options (files and output):
  --costs FILE        cost matrix (.json or Weka .cost); default: the experiment's
  --json FILE         write results as JSON (atomically)
  --csv FILE          write results as CSV (atomically)
  --quiet             no progress on stderr
  -h, --help          this text
)";

} // namespace

std::string experimentIntro(const lcs::Experiment& experiment)
{
    return "lcstudio-cli " + experiment.command() + " - " + experiment.title() + "\n\n" + experiment.description();
}

int runExperimentCommand(const lcs::Experiment& experiment, int argc, char** argv, int first)
{
    const auto specs = experiment.settings();
    const std::string command = experiment.command();
    const auto parsed = parseFlags(argc, argv, first, command, specs,
                                   {{"--costs", true}, {"--json", true}, {"--csv", true}, {"--quiet", false}});
    if (parsed.help) {
        std::printf("%s\nOptions (the experiment's settings):\n%s\n%s", experimentIntro(experiment).c_str(),
                    lcs::settingsHelp(specs).c_str(), kExperimentFiles);
        return kExitOk;
    }
    std::optional<lcs::CostMatrix> costs;
    std::string costsPath;
    ResultsOutputs outputs;
    for (const auto& [flag, value] : parsed.values) {
        if (flag == "--costs") {
            costs = lcs::loadCostMatrix(value);
            costsPath = value;
        } else {
            outputs.take(flag, value);
        }
    }
    const auto settings = lcs::checkedSettings(specs, parsed.settings, experiment.name());
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
                      const std::optional<lcs::CostMatrix>& costs, const ResultsOutputs& outputs, bool quiet)
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
    outputs.write(run.output.json, run.output.csv);
    return kExitOk;
}

} // namespace cli
