// lcstudio-cli selective: the paper's selective-classification experiment (Fig. 3).
#include <cmath>
#include <cstdio>
#include <thread>

#include <ATen/Parallel.h>

#include "cli_commands.h"
#include "core/threads.h"
#include "cli_support.h"
#include "core/atomic_file.h"
#include "core/number_format.h"
#include "experiments/image_run_settings.h"
#include "experiments/selective_experiment.h"
#include "image_data.h"

namespace cli {
int runSelectiveCommand(int argc, char** argv)
{
    ImageRunOptions o;
    if (!parseImageRun(argc, argv, lcs::kSelectiveExperiment, lcs::selectiveSettings(), o))
        return kExitOk;
    return executeSelective(o);
}

int executeSelective(const ImageRunOptions& o)
{
    // A session's referral costs come here without the flag's checks.
    const auto& r = o.choices.values;
    for (size_t i = 0; i < r.size(); ++i) {
        if (r[i] < 0)
            throw UsageError("--referral-costs: " + lcs::formatNumber(r[i]) + " is negative");
        for (size_t j = 0; j < i; ++j)
            if (r[i] == r[j])
                throw UsageError("--referral-costs: " + lcs::formatNumber(r[i]) + " is listed twice");
    }
    const auto data = lcs::loadChosenData(o.choices);
    auto config = lcs::selectiveConfigFor(o.choices, data);
    if (o.costs) {
        if (o.costs->numClasses() != data.classes())
            throw UsageError(o.costsSource + " has " + std::to_string(o.costs->numClasses()) + " classes but " +
                             o.choices.data + " has " + std::to_string(data.classes()));
        config.baseCosts = *o.costs;
        if (o.costs->hasReferral())
            std::fprintf(stderr,
                         "lcstudio-cli: warning: the referral column of %s (%s) is not used: selective decides under "
                         "each of --referral-costs in turn\n",
                         o.costsSource.c_str(), lcs::formatNumber(*o.costs->referralCost()).c_str());
        config.baseCosts.setReferral(std::nullopt);
    }
    // The physical cores unless asked (configureThreads). Two threads used to run several
    // times slower here: OpenBLAS's own pool spun against LibTorch's; with BLAS
    // single-threaded the MLP's epoch takes the same time on one or two (bench distill).
    const int threads = o.threads > 0 ? o.threads : lcs::physicalCores();
    lcs::configureThreads(threads);
    if (!o.quiet)
        std::fprintf(stderr, "%s: %lld training, %lld test images; %s; %zu referral cost(s) x %d trial(s)\n",
                     data.name.c_str(), static_cast<long long>(data.train.size()),
                     static_cast<long long>(data.test.size()), config.model.describe().c_str(),
                     config.referralCosts.size(), config.trials);
    ImageNetworkSaver networks(o.outputs.path("save_models"), lcs::kSelectiveExperiment, data, config.seed);
    config.onNetwork = networks.sink();
    ProgressLines lines(o.quiet);
    auto result = lcs::runSelectiveExperiment(data, config, lines.context(lcs::selectivePlan(config)));
    lines.finish();
    networks.commit();
    const auto preview = lcs::notePreview(o.choices, result.seconds, data.train.size(), data.test.size(), result.record);
    std::fputs((lcs::selectiveTable(result) + preview).c_str(), stdout);
    for (const auto& s : result.summary)
        if (s.collapsed > 0)
            std::fprintf(stdout, "warning: %s at r = %s: q collapsed to one class in %d trial(s)\n",
                         lcs::imageMethodLabel(s.method).c_str(), lcs::formatNumber(s.referralCost).c_str(),
                         s.collapsed);
    o.outputs.writeResults(lcs::selectiveJson(result), lcs::selectiveCsv(result));
    if (!o.outputs.path("risk_coverage").empty())
        lcs::writeFileAtomically(o.outputs.path("risk_coverage"), lcs::riskCoverageCsv(result));
    return kExitOk;
}

} // namespace cli
