// lcstudio-cli selective: the paper's selective-classification experiment (Fig. 3).
#include <cmath>
#include <cstdio>
#include <thread>

#include <ATen/Parallel.h>

#include "cli_commands.h"
#include "cli_support.h"
#include "core/atomic_file.h"
#include "core/number_format.h"
#include "experiments/selective_experiment.h"
#include "image_data.h"

namespace cli {
namespace {

const char* kSelectiveHelp = R"(lcstudio-cli selective - selective classification with referral (paper Fig. 3)

Every image is rotated by an angle uniform in [-30, 30] degrees; the decisions are the
classes plus "refer" at cost r. For each referral cost r:
  sghmc      Bayes decisions under SGHMC's Monte Carlo predictive
  lc_sghmc   loss-calibrated SGHMC (a new chain for every r)
  ours       the correction q on the student S (S distilled once, q per r)
  ours_no_s  the correction q on the stored Monte Carlo predictive (no S)
Prints decision cost, accuracy on non-referred points and referral rate per method and
r, mean ± std over trials, and the training time vs the number of cost functions.

Options:
  --data D              a CIFAR-10 binary folder (or any image folder the corruption
                        command reads), or cifar10 ($LCS_CIFAR10_DIR)   (required)
  --referral-costs LIST referral costs r >= 0 (default 0.05,0.1,0.15,0.2,0.25,0.3,0.4,0.5)
  --methods LIST        from sghmc, lc_sghmc, ours, ours_no_s (default: all four)
  --trials N            trials (default 1)
  --preset P            cpu (default; ResNet-18 width 8, a few epochs) or paper
  --copies N            rotated copies of each training image in D' (default: preset's)
  --max-train N         a seeded random subset of N training images (default: all)
  --max-test N          the same for the test set
  --epochs N            SGHMC + S epochs (default: the preset's)
  --seed S              base seed (default 0)
  --threads T           intra-op threads (default 1 for the MLP, all cores for ResNet-18)
  --device D            cpu (default) or cuda[:N] when this LibTorch build has CUDA
  --json FILE           write results as JSON (atomically)
  --csv FILE            write one row per (r, trial, method) as CSV (atomically)
  --quiet               no progress on stderr
  -h, --help            this text
)";

} // namespace

int runSelectiveCommand(int argc, char** argv)
{
    std::string dataSpec, jsonPath, csvPath, preset = "cpu", device = "cpu";
    std::vector<double> referralCosts;
    std::vector<std::string> methodNames;
    int trials = 1, epochs = 0, threads = 0, copies = 0;
    uint64_t seed = 0;
    lcs::ImageDataLimits limits;
    bool quiet = false;
    Args args(argc, argv, 2, "selective",
              {{"--data", true}, {"--referral-costs", true}, {"--methods", true}, {"--trials", true},
               {"--preset", true}, {"--copies", true}, {"--max-train", true}, {"--max-test", true},
               {"--epochs", true}, {"--seed", true}, {"--threads", true}, {"--device", true}, {"--json", true},
               {"--csv", true}, {"--quiet", false}});
    std::string flag, value;
    while (args.next(flag, value)) {
        if (flag == "--help") {
            std::fputs(kSelectiveHelp, stdout);
            return kExitOk;
        } else if (flag == "--data") {
            dataSpec = value;
        } else if (flag == "--referral-costs") {
            referralCosts = parseNumbers("--referral-costs", value);
            for (double r : referralCosts)
                if (r < 0)
                    throw UsageError("--referral-costs: " + lcs::formatNumber(r) + " is negative");
            for (size_t i = 0; i < referralCosts.size(); ++i)
                for (size_t j = 0; j < i; ++j)
                    if (referralCosts[i] == referralCosts[j])
                        throw UsageError("--referral-costs: " + lcs::formatNumber(referralCosts[i]) +
                                         " is listed twice");
        } else if (flag == "--methods") {
            methodNames = splitNames(value);
        } else if (flag == "--trials") {
            trials = static_cast<int>(parseIntegerFlag(flag, value, 1, 1000));
        } else if (flag == "--preset") {
            if (value != "cpu" && value != "paper")
                throw UsageError("--preset: \"" + value.substr(0, 40) + "\" is not cpu or paper");
            preset = value;
        } else if (flag == "--copies") {
            copies = static_cast<int>(parseIntegerFlag(flag, value, 1, 100));
        } else if (flag == "--max-train") {
            limits.maxTrain = parseIntegerFlag(flag, value, 1, 100000000);
        } else if (flag == "--max-test") {
            limits.maxTest = parseIntegerFlag(flag, value, 1, 100000000);
        } else if (flag == "--epochs") {
            epochs = static_cast<int>(parseIntegerFlag(flag, value, 1, 100000));
        } else if (flag == "--seed") {
            seed = static_cast<uint64_t>(parseIntegerFlag(flag, value, 0, std::numeric_limits<long long>::max()));
        } else if (flag == "--threads") {
            threads = static_cast<int>(parseIntegerFlag(flag, value, 1, 256));
        } else if (flag == "--device") {
            device = value;
            checkDeviceFlag(value);
        } else if (flag == "--json") {
            checkOutputPath(flag, value);
            jsonPath = value;
        } else if (flag == "--csv") {
            checkOutputPath(flag, value);
            csvPath = value;
        } else if (flag == "--quiet") {
            quiet = true;
        }
    }
    if (dataSpec.empty())
        throw UsageError("selective: --data is required (a CIFAR-10 folder or cifar10)");
    std::vector<lcs::ImageMethod> methods;
    if (!methodNames.empty())
        methods = lcs::parseImageMethodList(methodNames, "--methods",
                                            {lcs::ImageMethod::Sghmc, lcs::ImageMethod::LcSghmc,
                                             lcs::ImageMethod::Ours, lcs::ImageMethod::OursNoS});
    limits.subsetSeed = seed;
    const auto data = lcs::loadImageDataset(dataSpec, limits);
    auto config = lcs::SelectiveConfig::preset(preset, data);
    if (!referralCosts.empty())
        config.referralCosts = referralCosts;
    if (!methods.empty())
        config.methods = methods;
    config.trials = trials;
    config.seed = seed;
    config.device = device;
    if (epochs > 0)
        config.sghmc.epochs = epochs;
    if (copies > 0)
        config.calibrationCopies = copies;
    if (threads == 0)
        threads = config.model.architecture == "mlp" ? 1
                                                     : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    at::set_num_threads(threads);
    if (!quiet)
        std::fprintf(stderr, "%s: %lld training, %lld test images; %s; %zu referral cost(s) x %d trial(s)\n",
                     data.name.c_str(), static_cast<long long>(data.train.size()),
                     static_cast<long long>(data.test.size()), config.model.describe().c_str(),
                     config.referralCosts.size(), config.trials);
    ProgressLines lines(quiet);
    lcs::JobContext ctx{[&](const lcs::Progress& p) { lines(p); }, &g_cancel};
    const auto result = lcs::runSelectiveExperiment(data, config, ctx);
    lines.finish();
    std::fputs(lcs::selectiveTable(result).c_str(), stdout);
    for (const auto& s : result.summary)
        if (s.collapsed > 0)
            std::fprintf(stdout, "warning: %s at r = %s: q collapsed to one class in %d trial(s)\n",
                         lcs::imageMethodLabel(s.method).c_str(), lcs::formatNumber(s.referralCost).c_str(),
                         s.collapsed);
    if (!jsonPath.empty())
        lcs::writeFileAtomically(jsonPath, lcs::selectiveJson(result));
    if (!csvPath.empty())
        lcs::writeFileAtomically(csvPath, lcs::selectiveCsv(result));
    return kExitOk;
}

} // namespace cli
