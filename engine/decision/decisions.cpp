#include "decision/decisions.h"

#include <cmath>
#include <limits>
#include <stdexcept>

#include <ATen/ATen.h>

#include "core/input_error.h"

namespace lcs {

at::Tensor costTensor(const CostMatrix& costs, at::ScalarType dtype, at::Device device)
{
    costs.validate();
    auto t = at::tensor(costs.values(), at::TensorOptions().dtype(at::kDouble))
                 .reshape({costs.numClasses(), costs.numDecisions()});
    return t.to(device, dtype);
}

at::Tensor expectedCosts(const at::Tensor& probs, const at::Tensor& costs)
{
    TORCH_CHECK(probs.dim() == 2 && costs.dim() == 2 && probs.size(1) == costs.size(0),
                "expectedCosts: probs [N, C] and costs [C, D] do not match: ", probs.sizes(), " vs ",
                costs.sizes());
    return probs.matmul(costs.to(probs.scalar_type()));
}

at::Tensor bayesDecisions(const at::Tensor& probs, const at::Tensor& costs)
{
    // at::argmin does not promise which of several equal minima it returns, so ties are
    // broken explicitly: the first column whose risk equals the row minimum.
    const auto risk = expectedCosts(probs, costs);
    const auto best = std::get<0>(risk.min(1, /*keepdim=*/true));
    const auto isMin = risk <= best;
    const auto d = risk.size(1);
    const auto order = at::arange(d, 0, -1, probs.options().dtype(at::kLong));  // d, d-1, ..., 1
    return (isMin.to(at::kLong) * order).argmax(1);
}

DecisionMetrics evaluateDecisions(const at::Tensor& probsIn, const at::Tensor& decisionsIn,
                                  const at::Tensor& labelsIn, const CostMatrix& costs,
                                  int64_t ignoreLabel)
{
    const int C = costs.numClasses();
    const int D = costs.numDecisions();
    auto probs = probsIn.detach().to(at::kCPU, at::kDouble).contiguous();
    auto decisions = decisionsIn.detach().to(at::kCPU, at::kLong).contiguous();
    auto labels = labelsIn.detach().to(at::kCPU, at::kLong).contiguous();
    TORCH_CHECK(probs.dim() == 2 && probs.size(1) == C, "evaluateDecisions: probs must be [N, ", C, "], got ",
                probs.sizes());
    TORCH_CHECK(decisions.numel() == probs.size(0) && labels.numel() == probs.size(0),
                "evaluateDecisions: probs, decisions and labels disagree on N");

    DecisionMetrics m;
    m.numClasses = C;
    m.numDecisions = D;
    m.confusion.assign(static_cast<size_t>(C) * D, 0);

    const auto* p = probs.data_ptr<double>();
    const auto* dec = decisions.data_ptr<int64_t>();
    const auto* lab = labels.data_ptr<int64_t>();
    const int64_t n = probs.size(0);
    double totalCost = 0, expectedCostSum = 0, nllSum = 0;
    int64_t decided = 0, correct = 0, referred = 0;
    for (int64_t i = 0; i < n; ++i) {
        const int64_t y = lab[i];
        if (y == ignoreLabel)
            continue;
        const int64_t d = dec[i];
        if (y < 0 || y >= C)
            throw std::out_of_range("evaluateDecisions: label " + std::to_string(y) + " at point "
                                    + std::to_string(i) + " outside 0.." + std::to_string(C - 1));
        if (d < 0 || d >= D)
            throw std::out_of_range("evaluateDecisions: decision " + std::to_string(d) + " at point "
                                    + std::to_string(i) + " outside 0.." + std::to_string(D - 1));
        ++m.count;
        totalCost += costs.at(static_cast<int>(y), static_cast<int>(d));
        for (int c = 0; c < C; ++c)
            expectedCostSum += p[i * C + c] * costs.at(c, static_cast<int>(d));
        ++m.confusion[static_cast<size_t>(y * D + d)];
        if (costs.hasReferral() && d == C) {
            ++referred;
            continue;
        }
        ++decided;
        correct += (d == y);
        nllSum -= std::log(std::max(p[i * C + y], 1e-12));
    }
    const double nan = std::numeric_limits<double>::quiet_NaN();
    m.averageCost = m.count ? totalCost / m.count : nan;
    m.expectedCost = m.count ? expectedCostSum / m.count : nan;
    m.accuracy = decided ? static_cast<double>(correct) / decided : nan;
    m.nll = decided ? nllSum / decided : nan;
    m.referralRate = m.count ? static_cast<double>(referred) / m.count : nan;

    m.perClassIoU.assign(C, nan);
    double iouSum = 0;
    int iouCount = 0;
    for (int c = 0; c < C; ++c) {
        const int64_t tp = m.confusion[static_cast<size_t>(c * D + c)];
        int64_t fp = 0, fn = 0;
        for (int y = 0; y < C; ++y)
            if (y != c)
                fp += m.confusion[static_cast<size_t>(y * D + c)];
        for (int d = 0; d < D; ++d)
            if (d != c)
                fn += m.confusion[static_cast<size_t>(c * D + d)];
        if (tp + fp + fn > 0) {
            m.perClassIoU[c] = static_cast<double>(tp) / static_cast<double>(tp + fp + fn);
            iouSum += m.perClassIoU[c];
            ++iouCount;
        }
    }
    m.meanIoU = iouCount ? iouSum / iouCount : nan;
    requireFiniteMetrics(m);
    return m;
}

void requireFiniteMetrics(const DecisionMetrics& m)
{
    const auto require = [](double v, const char* name) {
        if (!std::isfinite(v))
            throw ResultError(std::string("the ") + name + " is " + (std::isnan(v) ? "nan" : "infinite") +
                              ": the probabilities the decisions were made from are not finite");
    };
    if (m.count == 0)
        return;
    require(m.averageCost, "average decision cost");
    require(m.expectedCost, "expected decision cost");
    // Accuracy is a ratio of counts: finite exactly when some point was decided.
    if (std::isfinite(m.accuracy))
        require(m.nll, "negative log-likelihood");
}

} // namespace lcs
