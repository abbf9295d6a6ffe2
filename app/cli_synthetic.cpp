// lcstudio-cli synthetic and tabular: the paper's 2-D experiment (Table 2) and its
// methods on a user's CSV table, with the networks saved on request.
#include <cstdio>
#include <optional>
#include <thread>

#include "cli_commands.h"
#include "cli_flags.h"
#include "cli_support.h"
#include "core/atomic_file.h"
#include "core/threads.h"
#include "experiments/experiment.h"
#include "experiments/synthetic_experiment.h"
#include "experiments/synthetic_report.h"
#include "experiments/synthetic_settings.h"
#include "io/model_io.h"

namespace cli {
namespace {

/// The synthetic command's help: its settings' lines come from their declarations.
std::string syntheticHelp()
{
    const auto& experiment = lcs::ExperimentRegistry::global().get(lcs::kSyntheticExperiment);
    return experimentIntro(experiment) + "\nOptions (the experiment's settings):\n" +
           lcs::settingsHelp(experiment.settings()) + "\n" +
           filesAndOutputHelp(
               lcs::helpEntry("  --costs FILE", "cost matrix (.json or Weka .cost, 2 classes); default: the paper's") +
                   lcs::helpEntry("  --preset NAME", "a named preset instead of --costs (see \"lcstudio-cli presets\")") +
                   writeSessionHelp(),
               lcs::syntheticCommandOutputs());
}

/// The tabular command's help: the experiment's, with the synthetic command's outputs.
std::string tabularHelp()
{
    const auto& experiment = lcs::ExperimentRegistry::global().get(lcs::kTabularExperiment);
    return experimentIntro(experiment) + "\nOptions (the experiment's settings):\n" +
           lcs::settingsHelp(experiment.settings()) + "\n" +
           filesAndOutputHelp(lcs::helpEntry("  --costs FILE", "cost matrix (.json or Weka .cost) over the table's "
                                                               "classes (ordered by value when all are integers, "
                                                               "else by text); default 0/1") +
                                  writeSessionHelp(),
                              lcs::syntheticCommandOutputs());
}

void saveRunModels(const std::string& dir, const lcs::SyntheticConfig& config, const lcs::ReplicateOutcome& o,
                   const lcs::SyntheticPredictive& p, const lcs::SyntheticCorrection& c)
{
    const std::string stem = dir + "/" + lcs::methodName(o.method) + "_r" + std::to_string(o.replicate);
    const auto infos = lcs::syntheticModelInfos(config, config.costs, p, c);
    lcs::saveModel(c.q, infos.q, stem + "_q.pt");
    if (infos.network)
        lcs::saveModel(lcs::Mlp(std::dynamic_pointer_cast<lcs::MlpImpl>(p.model)), *infos.network,
                       stem + "_" + infos.network->role + ".pt");
}

/// Runs a synthetic or tabular config: the table, the saved models, the results files.
int executeSynthetic(const lcs::SyntheticConfig& config, const CommandOutputs& outputs, bool quiet)
{
    // The models go into a staging folder that is moved into place once the run has
    // finished: all of them, or none.
    std::optional<lcs::StagedFolder> models;
    if (!outputs.path("save_models").empty())
        models.emplace(outputs.path("save_models"));
    const std::string modelDir = models ? models->path() : std::string();
    // Tiny networks: parallelism across tasks beats intra-op threads, which would only
    // fight over the same cores.
    lcs::configureThreads(1);
    ProgressPrinter printer(quiet);
    lcs::JobContext ctx{[&](const lcs::Progress& p) { printer(p); }, &g_cancel};
    ctx.plan = printer.planSink();
    ctx.declarePlan(lcs::syntheticPlan(config), lcs::PlanProgress::Order::Parallel);
    lcs::ReplicateCallback onReplicate;
    if (!modelDir.empty())
        onReplicate = [&](const lcs::ReplicateOutcome& o, const lcs::SyntheticPredictive& p,
                          const lcs::SyntheticCorrection& c) { saveRunModels(modelDir, config, o, p, c); };
    const auto result = lcs::runSynthetic(config, ctx, onReplicate);
    printer.finish();
    std::fputs(lcs::syntheticTable(result).c_str(), stdout);
    if (models)
        models->commit();
    outputs.writeResults(lcs::syntheticJson(result), lcs::syntheticCsv(result));
    return kExitOk;
}

} // namespace

int runSyntheticCommand(int argc, char** argv)
{
    const auto& settings = lcs::syntheticSettings();
    auto own = outputFlagSpecs(lcs::syntheticCommandOutputs());
    own.insert(own.end(), {{"--costs", true}, {"--preset", true}, {"--quiet", false}, kWriteSessionFlag});
    const auto parsed = parseFlags(argc, argv, 2, lcs::kSyntheticExperiment, lcs::specsOf(settings), own);
    if (parsed.help) {
        std::fputs(syntheticHelp().c_str(), stdout);
        return kExitOk;
    }
    lcs::SyntheticConfig config;
    config.threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    lcs::applySettings(settings, parsed.settings, config);
    if (parsed.settings.contains("device"))
        checkDeviceFlag(config.device);
    auto given = [&](const char* flag) {
        const auto it = parsed.values.find(flag);
        return it == parsed.values.end() ? std::string() : it->second;
    };
    const std::string costsPath = given("--costs"), presetName = given("--preset");
    const bool quiet = parsed.switches.count("--quiet") > 0;
    if (!costsPath.empty() && !presetName.empty())
        throw UsageError("give --costs or --preset, not both");
    try {
        if (!costsPath.empty())
            config.costs = lcs::loadCostMatrix(costsPath);
        else if (!presetName.empty())
            config.costs = lcs::costPreset(presetName);
        config.costs.validateFor(2);
    } catch (const lcs::CostMatrixError& e) {
        throw UsageError(e.what());
    }
    if (writeSessionInstead(lcs::ExperimentRegistry::global().get(lcs::kSyntheticExperiment), parsed.values,
                            parsed.settings, config.costs, {{"--costs", costsPath, lcs::PathKind::File}}))
        return kExitOk;
    const CommandOutputs outputs(lcs::syntheticCommandOutputs(), parsed.values,
                                 {{"--costs", costsPath, lcs::PathKind::File}});
    return executeSynthetic(config, outputs, quiet);
}

int runTabularCommand(int argc, char** argv)
{
    const auto& experiment = lcs::ExperimentRegistry::global().get(lcs::kTabularExperiment);
    const auto line = parseExperimentCommandLine(experiment, argc, argv, 2, lcs::syntheticCommandOutputs(), tabularHelp());
    if (!line)
        return kExitOk;
    lcs::SyntheticConfig config;
    try {
        config = lcs::tabularConfigFrom(line->settings, line->costs);
    } catch (const lcs::CostMatrixError& e) {
        throw UsageError("--costs: " + line->costsPath + ": " + e.what());
    }
    return executeSynthetic(config, line->outputs, line->quiet);
}

} // namespace cli
