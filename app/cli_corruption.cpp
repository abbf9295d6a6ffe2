// lcstudio-cli corruption: the paper's label-corruption experiment (Fig. 4).
#include <cstdio>
#include <thread>

#include <ATen/Parallel.h>

#include "cli_commands.h"
#include "cli_flags.h"
#include "cli_support.h"
#include "core/atomic_file.h"
#include "core/number_format.h"
#include "experiments/corruption_experiment.h"
#include "experiments/image_run_settings.h"
#include "image_data.h"

namespace cli {
namespace {

const char* kCorruptionIntro = R"(lcstudio-cli corruption - decisions under label corruption (paper Fig. 4)

For each corruption rate and trial: replace that fraction of training labels by uniform
random ones (seeded), then train and compare on the clean test set
  sgld_s   SGLD from a MAP network with a student S distilled online (decisions from S)
  sgld     the same chain's Monte Carlo predictive (no S)
  lc_sgld  loss-calibrated SGLD (utility-scaled posterior)
  cw_sgd   SGD with class weights 1.4 on the classes the cost matrix favours
  ours     the correction q, warm-started from S and trained on D' against S
Prints decision cost, accuracy and NLL per method and rate, mean ± std over trials.
)";

const char* kImageRunFiles = R"(Options (data, files and output):
  --data D            an MNIST-like IDX folder or CIFAR-10 binary folder, or a name:
                      fashion-mnist (Debian's dataset-fashion-mnist), mnist, cifar10
                      ($LCS_MNIST_DIR / $LCS_CIFAR10_DIR)   (required)
  --costs FILE        cost matrix (.json or .cost) with as many classes as the data;
                      default: the paper's (mnist preset for 1-channel data, cifar10 for colour)
  --max-train N       use a seeded random subset of N training images (default: all)
  --max-test N        the same for the test set
  --threads T         intra-op threads (default 1: the MLP's small matrices run 3-4x
                      slower split across threads, and ResNet-18 on 2 shared cores 5x)
  --json FILE         write results as JSON (atomically)
  --csv FILE          write one row per (setting, trial, method) as CSV (atomically)
  --quiet             no progress on stderr
  -h, --help          this text
)";

} // namespace

bool parseImageRun(int argc, char** argv, const std::string& command,
                   const std::vector<lcs::BoundSetting<lcs::ImageRunChoices>>& settings, const char* intro,
                   ImageRunOptions& o)
{
    const auto parsed = parseFlags(argc, argv, 2, command, lcs::specsOf(settings),
                                   {{"--data", true}, {"--costs", true}, {"--max-train", true}, {"--max-test", true},
                                    {"--threads", true}, {"--json", true}, {"--csv", true}, {"--quiet", false}});
    if (parsed.help) {
        std::printf("%s\nOptions (the experiment's settings):\n%s\n%s", intro,
                    lcs::settingsHelp(lcs::specsOf(settings)).c_str(), kImageRunFiles);
        return false;
    }
    lcs::applySettings(settings, parsed.settings, o.choices);
    if (parsed.settings.contains("device"))
        checkDeviceFlag(o.choices.device);
    for (const auto& [flag, value] : parsed.values) {
        if (flag == "--data")
            o.data = value;
        else if (flag == "--max-train")
            o.limits.maxTrain = parseIntegerFlag(flag, value, 1, 100000000);
        else if (flag == "--max-test")
            o.limits.maxTest = parseIntegerFlag(flag, value, 1, 100000000);
        else if (flag == "--threads")
            o.threads = static_cast<int>(parseIntegerFlag(flag, value, 1, 256));
        else if (flag == "--costs") {
            o.costs = lcs::loadCostMatrix(value);  // before the data: a bad file fails fast
            o.costsSource = "--costs: " + value;
        } else
            o.outputs.take(flag, value);
    }
    o.quiet = parsed.switches.count("--quiet") > 0;
    if (o.data.empty())
        throw UsageError(command + ": --data is required (a folder, fashion-mnist, mnist or cifar10)");
    return true;
}

int runCorruptionCommand(int argc, char** argv)
{
    ImageRunOptions o;
    if (!parseImageRun(argc, argv, "corruption", lcs::corruptionSettings(), kCorruptionIntro, o))
        return kExitOk;
    return executeCorruption(o);
}

int executeCorruption(const ImageRunOptions& o)
{
    auto limits = o.limits;
    limits.subsetSeed = o.choices.seed;
    const auto data = lcs::loadImageDataset(o.data, limits);
    auto config = lcs::corruptionConfigFor(o.choices, data);
    // One intra-op thread unless asked: on this 2-core machine two threads made ResNet-18
    // runs 5x slower as soon as anything else ran, and the MLP's small matrices lose
    // even on an idle machine.
    const int threads = o.threads > 0 ? o.threads : 1;
    at::set_num_threads(threads);
    if (o.costs) {
        if (o.costs->numClasses() != data.classes())
            throw UsageError(o.costsSource + " has " + std::to_string(o.costs->numClasses()) + " classes but " +
                             o.data + " has " + std::to_string(data.classes()));
        if (o.costs->hasReferral())
            throw UsageError(o.costsSource + " has a referral column; label corruption decides classes only");
        config.costs = *o.costs;
    }
    if (!o.quiet)
        std::fprintf(stderr, "%s: %lld training, %lld test images; %s; %zu rate(s) x %d trial(s)\n", data.name.c_str(),
                     static_cast<long long>(data.train.size()), static_cast<long long>(data.test.size()),
                     config.model.describe().c_str(), config.rates.size(), config.trials);
    ProgressLines lines(o.quiet);
    lcs::JobContext ctx{[&](const lcs::Progress& p) { lines(p); }, &g_cancel};
    const auto result = lcs::runCorruptionExperiment(data, config, ctx);
    lines.finish();
    std::fputs(lcs::corruptionTable(result).c_str(), stdout);
    for (const auto& s : result.summary)
        if (s.collapsed > 0)
            std::fprintf(stdout, "warning: %s at rate %s: q collapsed to one class in %d trial(s)\n",
                         lcs::imageMethodLabel(s.method).c_str(), lcs::formatNumber(s.rate).c_str(), s.collapsed);
    o.outputs.write(lcs::corruptionJson(result), lcs::corruptionCsv(result));
    return kExitOk;
}

} // namespace cli
