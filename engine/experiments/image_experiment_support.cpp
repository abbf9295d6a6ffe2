#include "experiments/image_experiment_support.h"

#include <algorithm>
#include <cstdio>

#include <torch/torch.h>

#include "experiments/corruption_experiment.h"
#include "models/classifier.h"

namespace lcs {

bool wantsMethod(const std::vector<ImageMethod>& methods, ImageMethod method)
{
    return std::find(methods.begin(), methods.end(), method) != methods.end();
}

DecisionMetrics bayesMetrics(const at::Tensor& probs, const at::Tensor& labels, const CostMatrix& costs)
{
    return evaluateDecisions(probs, bayesDecisions(probs, costTensor(costs)), labels, costs);
}

JobContext prefixedContext(const JobContext& ctx, const std::string& prefix, const std::string& what)
{
    if (!ctx.progress)
        return {{}, ctx.cancel};
    // Copies, not references: the context may outlive the caller's strings.
    return {[sink = ctx.progress, head = prefix + ", " + what](const Progress& p) {
                Progress q = p;
                q.detail = head + (p.detail.empty() ? "" : ", " + p.detail);
                sink(q);
            },
            ctx.cancel};
}

TestProbe TestProbe::firstOf(const at::Tensor& images, const at::Tensor& labels, int64_t maxImages)
{
    const int64_t n = std::min<int64_t>(images.size(0), maxImages);
    return {images.slice(0, 0, n), labels.slice(0, 0, n)};
}

EpochCallback testCurve(const JobContext& ctx, const TestProbe& probe, const CostMatrix& costs,
                        const std::string& model, const std::string& run)
{
    if (!ctx.progress)
        return {};
    return [sink = ctx.progress, probe, costs, model, run](int epoch, ClassifierImpl& net) {
        const auto m = bayesMetrics(predictClassProbabilities(net, probe.images), probe.labels, costs);
        auto p = Progress::at(kEpochMetricsPhase, model + ", " + run, epoch, 0);
        p.test = EpochTestFigures{model, epoch, m.averageCost, m.accuracy, m.nll, std::nullopt};
        sink(p);
    };
}

std::string meanStdText(const MeanStd& m)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.4f ± %.4f", m.mean, m.std);
    return buf;
}

std::string settingText(double value)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", value);
    return buf;
}

} // namespace lcs
