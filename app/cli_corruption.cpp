// lcstudio-cli corruption: the paper's label-corruption experiment (Fig. 4).
#include <cstdio>
#include <thread>

#include <ATen/Parallel.h>

#include "cli_commands.h"
#include "cli_support.h"
#include "core/atomic_file.h"
#include "core/number_format.h"
#include "experiments/corruption_experiment.h"
#include "image_data.h"

namespace cli {
namespace {

const char* kCorruptionHelp = R"(lcstudio-cli corruption - decisions under label corruption (paper Fig. 4)

For each corruption rate and trial: replace that fraction of training labels by uniform
random ones (seeded), then train and compare on the clean test set
  sgld_s   SGLD from a MAP network with a student S distilled online (decisions from S)
  sgld     the same chain's Monte Carlo predictive (no S)
  lc_sgld  loss-calibrated SGLD (utility-scaled posterior)
  cw_sgd   SGD with class weights 1.4 on the classes the cost matrix favours
  ours     the correction q, warm-started from S and trained on D' against S
Prints decision cost, accuracy and NLL per method and rate, mean ± std over trials.

Options:
  --data D            an MNIST-like IDX folder or CIFAR-10 binary folder, or a name:
                      fashion-mnist (Debian's dataset-fashion-mnist), mnist, cifar10
                      ($LCS_MNIST_DIR / $LCS_CIFAR10_DIR)   (required)
  --rates LIST        corruption rates in [0, 1] (default 0.3,0.5,0.7)
  --trials N          trials per rate (default 1; the paper uses 5)
  --methods LIST      from sgld_s, sgld, lc_sgld, cw_sgd, ours (default sgld_s,lc_sgld,cw_sgd,ours)
  --preset P          cpu (default: minutes here) or paper (the appendix's settings)
  --costs FILE        cost matrix (.json or .cost) with as many classes as the data;
                      default: the paper's (mnist preset for 1-channel data, cifar10 for colour)
  --max-train N       use a seeded random subset of N training images (default: all)
  --max-test N        the same for the test set
  --epochs N          SGLD + S epochs (default: the preset's)
  --map-epochs N      epochs of the MAP network the chains start from (default: preset's)
  --width W           ResNet-18 width multiplier, colour data only (64 = the paper's;
                      default: the preset's)
  --seed S            base seed (default 0)
  --threads T         intra-op threads (default 1: the MLP's small matrices run 3-4x
                      slower split across threads, and ResNet-18 on 2 shared cores 5x)
  --device D          cpu (default) or cuda[:N] when this LibTorch build has CUDA
  --json FILE         write results as JSON (atomically)
  --csv FILE          write one row per (rate, trial, method) as CSV (atomically)
  --quiet             no progress on stderr
  -h, --help          this text
)";

} // namespace

std::vector<FlagSpec> imageRunFlags()
{
    return {{"--data", true}, {"--trials", true}, {"--methods", true}, {"--preset", true}, {"--max-train", true},
            {"--max-test", true}, {"--epochs", true}, {"--map-epochs", true},
            {"--width", true}, {"--seed", true}, {"--threads", true}, {"--device", true},
            {"--json", true}, {"--csv", true}, {"--quiet", false}};
}

bool applyImageRunFlag(const std::string& flag, const std::string& value, ImageRunOptions& o)
{
    if (flag == "--data") {
        o.data = value;
    } else if (flag == "--trials") {
        o.trials = static_cast<int>(parseIntegerFlag(flag, value, 1, 1000));
    } else if (flag == "--methods") {
        o.methods = splitNames(value);
    } else if (flag == "--preset") {
        if (value != "cpu" && value != "paper")
            throw UsageError("--preset: \"" + value.substr(0, 40) + "\" is not cpu or paper");
        o.preset = value;
    } else if (flag == "--max-train") {
        o.limits.maxTrain = parseIntegerFlag(flag, value, 1, 100000000);
    } else if (flag == "--max-test") {
        o.limits.maxTest = parseIntegerFlag(flag, value, 1, 100000000);
    } else if (flag == "--epochs") {
        o.epochs = static_cast<int>(parseIntegerFlag(flag, value, 1, 100000));
    } else if (flag == "--map-epochs") {
        o.mapEpochs = static_cast<int>(parseIntegerFlag(flag, value, 1, 100000));
    } else if (flag == "--width") {
        o.width = static_cast<int>(parseIntegerFlag(flag, value, 1, 512));
    } else if (flag == "--seed") {
        o.seed = static_cast<uint64_t>(parseIntegerFlag(flag, value, 0, std::numeric_limits<long long>::max()));
    } else if (flag == "--threads") {
        o.threads = static_cast<int>(parseIntegerFlag(flag, value, 1, 256));
    } else if (flag == "--device") {
        o.device = value;
        checkDeviceFlag(value);
    } else if (o.outputs.take(flag, value)) {
    } else if (flag == "--quiet") {
        o.quiet = true;
    } else {
        return false;
    }
    return true;
}

lcs::ImageRunChoices imageRunChoices(const ImageRunOptions& o, const std::string& experiment)
{
    lcs::ImageRunChoices c;
    c.preset = o.preset;
    c.values = o.sweep;
    if (!o.methods.empty())
        c.methods = lcs::parseImageMethodList(o.methods, "--methods", lcs::imageMethodsFor(experiment));
    c.trials = o.trials;
    c.seed = o.seed;
    c.device = o.device;
    c.epochs = o.epochs;
    c.mapEpochs = o.mapEpochs;
    c.width = o.width;
    c.copies = o.copies;
    return c;
}

int runCorruptionCommand(int argc, char** argv)
{
    ImageRunOptions o;
    std::string costsPath;
    auto flags = imageRunFlags();
    flags.push_back({"--rates", true});
    flags.push_back({"--costs", true});
    Args args(argc, argv, 2, "corruption", flags, kCorruptionHelp);
    std::string flag, value;
    while (args.next(flag, value)) {
        if (flag == "--help") {
            std::fputs(kCorruptionHelp, stdout);
            return kExitOk;
        } else if (flag == "--rates") {
            o.sweep = parseNumbers("--rates", value);
            for (double r : o.sweep)
                if (r < 0 || r > 1)
                    throw UsageError("--rates: " + lcs::formatNumber(r) + " is outside [0, 1]");
        } else if (flag == "--costs") {
            costsPath = value;
        } else {
            applyImageRunFlag(flag, value, o);
        }
    }
    if (o.data.empty())
        throw UsageError("corruption: --data is required (a folder, fashion-mnist, mnist or cifar10)");
    if (!costsPath.empty()) {
        o.costs = lcs::loadCostMatrix(costsPath);  // before the data: a bad file fails fast
        o.costsSource = "--costs: " + costsPath;
    }
    return executeCorruption(o);
}

int executeCorruption(const ImageRunOptions& o)
{
    const auto choices = imageRunChoices(o, "corruption");
    auto limits = o.limits;
    limits.subsetSeed = o.seed;
    const auto data = lcs::loadImageDataset(o.data, limits);
    auto config = lcs::corruptionConfigFor(choices, data);
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
