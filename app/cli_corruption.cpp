// lcstudio-cli corruption: the paper's label-corruption experiment (Fig. 4).
#include <cstdio>
#include <thread>

#include <ATen/Parallel.h>

#include "cli_commands.h"
#include "core/threads.h"
#include "cli_flags.h"
#include "cli_support.h"
#include "core/atomic_file.h"
#include "core/number_format.h"
#include "experiments/corruption_experiment.h"
#include "experiments/experiment.h"
#include "experiments/image_run_settings.h"
#include "image_data.h"

namespace cli {
namespace {

std::string imageRunFilesHelp(const lcs::Experiment& experiment)
{
    return filesAndOutputHelp(
        lcs::helpEntry("  --costs FILE", "cost matrix (.json or .cost) with as many classes as the data; default: "
                                         "the paper's (mnist preset for 1-channel data, cifar10 for colour)") +
            lcs::helpEntry("  --threads T", "intra-op threads (default: the physical cores; BLAS stays "
                                            "single-threaded, so no idle thread spins)") +
            writeSessionHelp(),
        imageCommandOutputs(experiment));
}

} // namespace

std::vector<lcs::OutputSpec> imageCommandOutputs(const lcs::Experiment& experiment)
{
    auto outputs = experiment.outputs();
    outputs.push_back({"save_models", "DIR", lcs::PathKind::Folder,
                       "save every network the run trains (MAP, S, q, CW-SGD) as TorchScript with a JSON sidecar, "
                       "NETWORK_SETTING_trialT.pt; all of them once the run ends, or none"});
    // Selective classification's own view: risk against coverage per run.
    if (experiment.name() == lcs::kSelectiveExperiment)
        outputs.push_back({"risk_coverage", "FILE", lcs::PathKind::File,
                           "write every run's risk-coverage curve as CSV (referral cost, trial, method, AURC, "
                           "coverage, risk; atomically)"});
    return outputs;
}

ImageNetworkSaver::ImageNetworkSaver(const std::string& dir, const std::string& experiment,
                                     const lcs::ImageDataset& data, uint64_t seed)
    : m_writer(experiment, data, seed)
{
    if (!dir.empty())
        m_staged.emplace(dir);
}

lcs::NetworkSink ImageNetworkSaver::sink()
{
    if (!m_staged)
        return {};
    return [this](const lcs::TrainedNetwork& n) { m_writer.write(n, m_staged->path()); };
}

void ImageNetworkSaver::commit()
{
    if (m_staged)
        m_staged->commit();
}

bool parseImageRun(int argc, char** argv, const std::string& command,
                   const std::vector<lcs::BoundSetting<lcs::ImageRunChoices>>& settings, ImageRunOptions& o)
{
    const auto& experiment = lcs::ExperimentRegistry::global().get(command);
    auto own = outputFlagSpecs(imageCommandOutputs(experiment));
    own.insert(own.end(), {{"--costs", true}, {"--threads", true}, {"--quiet", false}, kWriteSessionFlag});
    const auto parsed = parseFlags(argc, argv, 2, command, lcs::specsOf(settings), own);
    if (parsed.help) {
        std::printf("%s\nOptions (the experiment's settings):\n%s\n%s", experimentIntro(experiment).c_str(),
                    lcs::settingsHelp(lcs::specsOf(settings)).c_str(), imageRunFilesHelp(experiment).c_str());
        return false;
    }
    lcs::applySettings(settings, parsed.settings, o.choices);
    if (parsed.settings.contains("device"))
        checkDeviceFlag(o.choices.device);
    std::string costsPath;
    for (const auto& [flag, value] : parsed.values) {
        if (flag == "--threads")
            o.threads = static_cast<int>(parseIntegerFlag(flag, value, 1, 256));
        else if (flag == "--costs") {
            o.costs = lcs::loadCostMatrix(value);  // before the data: a bad file fails fast
            o.costsSource = "--costs: " + value;
            costsPath = value;
        }
    }
    o.quiet = parsed.switches.count("--quiet") > 0;
    if (o.choices.data.empty())
        throw UsageError(command + ": --data is required (a folder, fashion-mnist, mnist or cifar10)");
    const std::vector<lcs::CommandPath> inputs{
        {"--data", experiment.inputFolder(o.choices.data), lcs::PathKind::Folder}, {"--costs", costsPath}};
    // The session keeps the matrix as the run takes it (a selective run drops a referral column).
    if (writeSessionInstead(experiment, parsed.values, parsed.settings, o.costs, inputs))
        return false;
    o.outputs = CommandOutputs(imageCommandOutputs(experiment), parsed.values, inputs);
    return true;
}

int runCorruptionCommand(int argc, char** argv)
{
    ImageRunOptions o;
    if (!parseImageRun(argc, argv, lcs::kCorruptionExperiment, lcs::corruptionSettings(), o))
        return kExitOk;
    return executeCorruption(o);
}

int executeCorruption(const ImageRunOptions& o)
{
    const auto data = lcs::loadChosenData(o.choices);
    auto config = lcs::corruptionConfigFor(o.choices, data);
    // The physical cores unless asked (configureThreads). Two threads used to run several
    // times slower here: OpenBLAS's own pool spun against LibTorch's; with BLAS
    // single-threaded the MLP's epoch takes the same time on one or two (bench distill).
    const int threads = o.threads > 0 ? o.threads : lcs::physicalCores();
    lcs::configureThreads(threads);
    if (o.costs) {
        if (o.costs->numClasses() != data.classes())
            throw UsageError(o.costsSource + " has " + std::to_string(o.costs->numClasses()) + " classes but " +
                             o.choices.data + " has " + std::to_string(data.classes()));
        if (o.costs->hasReferral())
            throw UsageError(o.costsSource + " has a referral column; label corruption decides classes only");
        config.costs = *o.costs;
    }
    if (!o.quiet)
        std::fprintf(stderr, "%s: %lld training, %lld test images; %s; %zu rate(s) x %d trial(s)\n", data.name.c_str(),
                     static_cast<long long>(data.train.size()), static_cast<long long>(data.test.size()),
                     config.model.describe().c_str(), config.rates.size(), config.trials);
    ImageNetworkSaver networks(o.outputs.path("save_models"), lcs::kCorruptionExperiment, data, config.seed);
    config.onNetwork = networks.sink();
    ProgressLines lines(o.quiet);
    auto result = lcs::runCorruptionExperiment(data, config, lines.context(lcs::corruptionPlan(config)));
    lines.finish();
    networks.commit();
    const auto preview = lcs::notePreview(o.choices, result.seconds, data.train.size(), data.test.size(), result.record);
    std::fputs((lcs::corruptionTable(result) + preview).c_str(), stdout);
    for (const auto& s : result.summary)
        if (s.collapsed > 0)
            std::fprintf(stdout, "warning: %s at rate %s: q collapsed to one class in %d trial(s)\n",
                         lcs::imageMethodLabel(s.method).c_str(), lcs::formatNumber(s.rate).c_str(), s.collapsed);
    o.outputs.writeResults(lcs::corruptionJson(result), lcs::corruptionCsv(result));
    return kExitOk;
}

} // namespace cli
