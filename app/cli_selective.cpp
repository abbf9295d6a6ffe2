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
  --map-epochs N        epochs of the MAP network the chain starts from (default: preset's)
  --width W             ResNet-18 width multiplier (64 = the paper's; default: preset's)
  --seed S              base seed (default 0)
  --threads T           intra-op threads (default 1; more only on an otherwise idle machine)
  --device D            cpu (default) or cuda[:N] when this LibTorch build has CUDA
  --json FILE           write results as JSON (atomically)
  --csv FILE            write one row per (r, trial, method) as CSV (atomically)
  --quiet               no progress on stderr
  -h, --help            this text
)";

} // namespace

int runSelectiveCommand(int argc, char** argv)
{
    ImageRunOptions o;
    auto flags = imageRunFlags();
    flags.push_back({"--referral-costs", true});
    flags.push_back({"--copies", true});
    Args args(argc, argv, 2, "selective", flags, kSelectiveHelp);
    std::string flag, value;
    while (args.next(flag, value)) {
        if (flag == "--help") {
            std::fputs(kSelectiveHelp, stdout);
            return kExitOk;
        } else if (flag == "--referral-costs") {
            o.sweep = parseNumbers("--referral-costs", value);
        } else if (flag == "--copies") {
            o.copies = static_cast<int>(parseIntegerFlag(flag, value, 1, 100));
        } else {
            applyImageRunFlag(flag, value, o);
        }
    }
    if (o.data.empty())
        throw UsageError("selective: --data is required (a CIFAR-10 folder or cifar10)");
    return executeSelective(o);
}

int executeSelective(const ImageRunOptions& o)
{
    for (size_t i = 0; i < o.sweep.size(); ++i) {
        if (o.sweep[i] < 0)
            throw UsageError("--referral-costs: " + lcs::formatNumber(o.sweep[i]) + " is negative");
        for (size_t j = 0; j < i; ++j)
            if (o.sweep[i] == o.sweep[j])
                throw UsageError("--referral-costs: " + lcs::formatNumber(o.sweep[i]) + " is listed twice");
    }
    const auto choices = imageRunChoices(o, "selective");
    auto limits = o.limits;
    limits.subsetSeed = o.seed;
    const auto data = lcs::loadImageDataset(o.data, limits);
    auto config = lcs::selectiveConfigFor(choices, data);
    if (o.costs) {
        if (o.costs->numClasses() != data.classes())
            throw UsageError(o.costsSource + " has " + std::to_string(o.costs->numClasses()) + " classes but " +
                             o.data + " has " + std::to_string(data.classes()));
        config.baseCosts = *o.costs;
        config.baseCosts.setReferral(std::nullopt);
    }
    // One intra-op thread unless asked: on this 2-core machine two threads made ResNet-18
    // runs 5x slower as soon as anything else ran, and the MLP's small matrices lose
    // even on an idle machine.
    const int threads = o.threads > 0 ? o.threads : 1;
    at::set_num_threads(threads);
    if (!o.quiet)
        std::fprintf(stderr, "%s: %lld training, %lld test images; %s; %zu referral cost(s) x %d trial(s)\n",
                     data.name.c_str(), static_cast<long long>(data.train.size()),
                     static_cast<long long>(data.test.size()), config.model.describe().c_str(),
                     config.referralCosts.size(), config.trials);
    ProgressLines lines(o.quiet);
    lcs::JobContext ctx{[&](const lcs::Progress& p) { lines(p); }, &g_cancel};
    const auto result = lcs::runSelectiveExperiment(data, config, ctx);
    lines.finish();
    std::fputs(lcs::selectiveTable(result).c_str(), stdout);
    for (const auto& s : result.summary)
        if (s.collapsed > 0)
            std::fprintf(stdout, "warning: %s at r = %s: q collapsed to one class in %d trial(s)\n",
                         lcs::imageMethodLabel(s.method).c_str(), lcs::formatNumber(s.referralCost).c_str(),
                         s.collapsed);
    o.outputs.write(lcs::selectiveJson(result), lcs::selectiveCsv(result));
    return kExitOk;
}

} // namespace cli
