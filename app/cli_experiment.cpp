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
        lcs::helpEntry("  --costs FILE", "cost matrix (.json or Weka .cost); default: the experiment's") +
            writeSessionHelp(),
        experiment.outputs());
}

} // namespace

std::string writeSessionHelp()
{
    return lcs::helpEntry("  --write-session FILE", "write these settings (and costs) as a session file, for "
                                                    "lcstudio-cli run or sweep plan, and exit without running");
}

bool writeSessionInstead(const lcs::Experiment& experiment, const std::map<std::string, std::string>& given,
                         const nlohmann::json& settings, const std::optional<lcs::CostMatrix>& costs,
                         const std::vector<lcs::CommandPath>& inputs)
{
    const auto it = given.find(kWriteSessionFlag.name);
    if (it == given.end())
        return false;
    const std::string& path = it->second;
    lcs::checkOutputPolicy({{kWriteSessionFlag.name, path, lcs::PathKind::File}}, inputs);
    lcs::SessionData session;
    session.experiment = experiment.name();
    session.settings = lcs::checkedSettings(experiment.settings(), settings, experiment.command());
    try {
        session.costs = experiment.acceptedCosts(costs ? *costs : experiment.defaultCosts(session.settings));
    } catch (const lcs::CostMatrixError& e) {
        throw UsageError("--costs: " + std::string(e.what()));
    }
    lcs::saveSessionFile(session, path);
    std::printf("wrote %s (%s session); run it with lcstudio-cli run %s, or sweep it with lcstudio-cli sweep plan\n",
                path.c_str(), experiment.name().c_str(), path.c_str());
    return true;
}

std::string experimentIntro(const lcs::Experiment& experiment)
{
    return "lcstudio-cli " + experiment.command() + " - " + experiment.title() + "\n\n" + experiment.description();
}

std::optional<ExperimentCommandLine> parseExperimentCommandLine(const lcs::Experiment& experiment, int argc,
                                                                char** argv, int first,
                                                                const std::vector<lcs::OutputSpec>& outputs,
                                                                const std::string& help)
{
    const auto specs = experiment.settings();
    auto own = outputFlagSpecs(outputs);
    own.push_back({"--costs", true});
    own.push_back({"--quiet", false});
    own.push_back(kWriteSessionFlag);
    const auto parsed = parseFlags(argc, argv, first, experiment.command(), specs, own);
    if (parsed.help) {
        std::fputs(help.c_str(), stdout);
        return std::nullopt;
    }
    ExperimentCommandLine out;
    if (parsed.values.count("--costs")) {
        out.costsPath = parsed.values.at("--costs");
        out.costs = lcs::loadCostMatrix(out.costsPath);
    }
    out.settings = lcs::checkedSettings(specs, parsed.settings, experiment.name());
    if (parsed.settings.contains("device"))
        checkDeviceFlag(out.settings.at("device").get<std::string>());
    auto inputs = experiment.inputPaths(out.settings);
    inputs.push_back({"--costs", out.costsPath, lcs::PathKind::File});
    if (writeSessionInstead(experiment, parsed.values, out.settings, out.costs, inputs))
        return std::nullopt;
    out.outputs = CommandOutputs(outputs, parsed.values, inputs);
    out.quiet = parsed.switches.count("--quiet") > 0;
    return out;
}

int runExperimentCommand(const lcs::Experiment& experiment, int argc, char** argv, int first)
{
    const std::string help = experimentIntro(experiment) + "\nOptions (the experiment's settings):\n" +
                             lcs::settingsHelp(experiment.settings()) + "\n" + filesHelp(experiment);
    auto line = parseExperimentCommandLine(experiment, argc, argv, first, experiment.outputs(), help);
    if (!line)
        return kExitOk;
    if (line->costs) {
        // The matrix must fit the experiment: said here, naming the file, before any work
        // (a class count that depends on the data is checked once the data is read).
        try {
            line->costs = experiment.acceptedCosts(*line->costs);
        } catch (const std::exception& e) {
            throw UsageError("--costs: " + line->costsPath + ": " + e.what());
        }
    }
    return executeExperiment(experiment, line->settings, line->costs, line->outputs, line->quiet);
}

int executeExperiment(const lcs::Experiment& experiment, const nlohmann::json& settings,
                      const std::optional<lcs::CostMatrix>& costs, const CommandOutputs& outputs, bool quiet)
{
    // A registered experiment runs one intra-op thread and a single-threaded BLAS; one
    // that wants more runs its tasks in parallel (the synthetic one does). The image and
    // CamVid commands still choose their threads themselves (--threads, default the
    // physical cores), so `run SESSION` of an image session can be slower than the command.
    lcs::configureThreads(1);
    ProgressLines lines(quiet);
    std::mutex linesMutex;  // an experiment may report from several threads
    lcs::JobContext ctx{[&](const lcs::Progress& p) {
                            std::lock_guard<std::mutex> lock(linesMutex);
                            lines(p);
                        },
                        &g_cancel};
    ctx.plan = lines.planSink();
    const auto run = experiment.run(settings, costs, ctx);
    lines.finish();
    std::fputs(run.output.table.c_str(), stdout);
    outputs.writeResults(run.output.json, run.output.csv);
    return kExitOk;
}

} // namespace cli
