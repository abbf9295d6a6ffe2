#include "decision/metrics_accumulator.h"

#include <cmath>
#include <limits>
#include <stdexcept>

#include <ATen/ATen.h>

namespace lcs {

MetricsAccumulator::MetricsAccumulator(const CostMatrix& costs, int64_t ignoreLabel)
    : m_costs(costs), m_ignore(ignoreLabel)
{
    m_confusion = at::zeros({static_cast<int64_t>(costs.numClasses()) * costs.numDecisions()}, at::kLong);
}

void MetricsAccumulator::add(const at::Tensor& probsIn, const at::Tensor& decisionsIn, const at::Tensor& labelsIn)
{
    const int64_t C = m_costs.numClasses();
    const int64_t D = m_costs.numDecisions();
    TORCH_CHECK(probsIn.dim() >= 2 && probsIn.size(1) == C, "MetricsAccumulator: probs need ", C,
                " classes in dimension 1, got ", probsIn.sizes());
    // Classes last, then one row per point (pixel).
    const auto probs = probsIn.detach().to(at::kCPU, at::kDouble).movedim(1, -1).reshape({-1, C});
    const auto decisions = decisionsIn.detach().to(at::kCPU, at::kLong).reshape({-1});
    const auto labels = labelsIn.detach().to(at::kCPU, at::kLong).reshape({-1});
    TORCH_CHECK(decisions.numel() == probs.size(0) && labels.numel() == probs.size(0),
                "MetricsAccumulator: probs, decisions and labels disagree on the number of points");
    const auto keep = labels.ne(m_ignore);
    const auto y = labels.masked_select(keep);
    const auto d = decisions.masked_select(keep);
    if (y.numel() == 0)
        return;
    if (y.min().item<int64_t>() < 0 || y.max().item<int64_t>() >= C)
        throw std::out_of_range("MetricsAccumulator: a label is outside 0.." + std::to_string(C - 1));
    if (d.min().item<int64_t>() < 0 || d.max().item<int64_t>() >= D)
        throw std::out_of_range("MetricsAccumulator: a decision is outside 0.." + std::to_string(D - 1));
    m_confusion += at::bincount(y * D + d, {}, C * D);
    // NLL on the points not referred.
    const auto decided = m_costs.hasReferral() ? d.ne(C) : at::ones_like(d, at::kBool);
    const auto kept = probs.index({keep});
    const auto pTrue = kept.gather(1, y.unsqueeze(1)).squeeze(1).masked_select(decided);
    m_nllSum -= pTrue.clamp_min(1e-12).log().sum().item<double>();
}

DecisionMetrics MetricsAccumulator::result() const
{
    const int C = m_costs.numClasses();
    const int D = m_costs.numDecisions();
    DecisionMetrics m;
    m.numClasses = C;
    m.numDecisions = D;
    const auto counts = m_confusion.contiguous();
    const int64_t* conf = counts.data_ptr<int64_t>();
    m.confusion.assign(conf, conf + static_cast<size_t>(C) * D);
    double cost = 0;
    int64_t correct = 0, referred = 0;
    for (int y = 0; y < C; ++y)
        for (int d = 0; d < D; ++d) {
            const int64_t n = conf[y * D + d];
            m.count += n;
            cost += static_cast<double>(n) * m_costs.at(y, d);
            if (d == y)
                correct += n;
            if (m_costs.hasReferral() && d == C)
                referred += n;
        }
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const int64_t decided = m.count - referred;
    m.averageCost = m.count > 0 ? cost / static_cast<double>(m.count) : nan;
    m.referralRate = m.count > 0 ? static_cast<double>(referred) / static_cast<double>(m.count) : nan;
    m.accuracy = decided > 0 ? static_cast<double>(correct) / static_cast<double>(decided) : nan;
    m.nll = decided > 0 ? m_nllSum / static_cast<double>(decided) : nan;
    double iouSum = 0;
    int defined = 0;
    for (int c = 0; c < C; ++c) {
        const int64_t tp = conf[c * D + c];
        int64_t row = 0, column = 0;
        for (int d = 0; d < D; ++d)
            row += conf[c * D + d];  // includes referrals: a referred pixel of class c is a miss
        for (int y = 0; y < C; ++y)
            column += conf[y * D + c];
        const int64_t denominator = row + column - tp;
        if (denominator == 0) {
            m.perClassIoU.push_back(nan);
            continue;
        }
        m.perClassIoU.push_back(static_cast<double>(tp) / static_cast<double>(denominator));
        iouSum += m.perClassIoU.back();
        ++defined;
    }
    m.meanIoU = defined > 0 ? iouSum / defined : nan;
    return m;
}

} // namespace lcs
