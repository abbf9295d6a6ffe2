#include "engine/decision/metrics_accumulator.h"

#include "engine/decision/confusion.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include <ATen/ATen.h>

namespace lcs {

MetricsAccumulator::MetricsAccumulator(const CostMatrix& costs, int64_t ignoreLabel)
    : m_costs(costs), m_ignore(ignoreLabel)
{
    m_confusion = at::zeros({static_cast<int64_t>(costs.numClasses()) * costs.numDecisions()}, at::kLong);
    m_costTable = at::tensor(costs.values(), at::kDouble).reshape({costs.numClasses(), costs.numDecisions()});
}

std::vector<int64_t> MetricsAccumulator::add(const at::Tensor& probsIn, const at::Tensor& decisionsIn, const at::Tensor& labelsIn)
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
        return std::vector<int64_t>(static_cast<size_t>(C * D), 0);
    if (y.min().item<int64_t>() < 0 || y.max().item<int64_t>() >= C)
        throw std::out_of_range("MetricsAccumulator: a label is outside 0.." + std::to_string(C - 1));
    if (d.min().item<int64_t>() < 0 || d.max().item<int64_t>() >= D)
        throw std::out_of_range("MetricsAccumulator: a decision is outside 0.." + std::to_string(D - 1));
    const auto counts = at::bincount(y * D + d, {}, C * D).to(at::kLong).contiguous();
    m_confusion += counts;
    // NLL on the points not referred.
    const auto decided = m_costs.hasReferral() ? d.ne(C) : at::ones_like(d, at::kBool);
    const auto kept = probs.index({keep});
    const auto pTrue = kept.gather(1, y.unsqueeze(1)).squeeze(1).masked_select(decided);
    m_nllSum -= pTrue.clamp_min(1e-12).log().sum().item<double>();
    m_expectedCostSum += (kept * m_costTable.t().index_select(0, d)).sum().item<double>();
    return {counts.data_ptr<int64_t>(), counts.data_ptr<int64_t>() + C * D};
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
    const auto f = confusionFigures(m.confusion, m_costs);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const int64_t decided = f.count - f.referred;
    m.count = f.count;
    m.averageCost = f.averageCost;
    m.expectedCost = m.count > 0 ? m_expectedCostSum / static_cast<double>(m.count) : nan;
    m.referralRate = f.referralRate;
    m.accuracy = f.accuracy;
    m.nll = decided > 0 ? m_nllSum / static_cast<double>(decided) : nan;
    m.perClassIoU = f.perClassIoU;
    m.meanIoU = f.meanIoU;
    requireFiniteMetrics(m);
    return m;
}

DecisionChangeAccumulator::DecisionChangeAccumulator(const CostMatrix& costs, int64_t ignoreLabel)
    : m_costs(costs), m_ignore(ignoreLabel)
{
    const int64_t D = costs.numDecisions();
    m_counts = at::zeros({static_cast<int64_t>(costs.numClasses()) * D * D}, at::kLong);
}

void DecisionChangeAccumulator::add(const at::Tensor& beforeIn, const at::Tensor& afterIn, const at::Tensor& labelsIn)
{
    const int64_t C = m_costs.numClasses();
    const int64_t D = m_costs.numDecisions();
    const auto before = beforeIn.detach().to(at::kCPU, at::kLong).reshape({-1});
    const auto after = afterIn.detach().to(at::kCPU, at::kLong).reshape({-1});
    const auto labels = labelsIn.detach().to(at::kCPU, at::kLong).reshape({-1});
    TORCH_CHECK(before.numel() == labels.numel() && after.numel() == labels.numel(),
                "DecisionChangeAccumulator: decisions and labels disagree on the number of points");
    const auto keep = labels.ne(m_ignore);
    const auto y = labels.masked_select(keep);
    if (y.numel() == 0)
        return;
    const auto a = before.masked_select(keep);
    const auto b = after.masked_select(keep);
    if (y.min().item<int64_t>() < 0 || y.max().item<int64_t>() >= C)
        throw std::out_of_range("DecisionChangeAccumulator: a label is outside 0.." + std::to_string(C - 1));
    if (at::minimum(a.min(), b.min()).item<int64_t>() < 0 || at::maximum(a.max(), b.max()).item<int64_t>() >= D)
        throw std::out_of_range("DecisionChangeAccumulator: a decision is outside 0.." + std::to_string(D - 1));
    m_counts += at::bincount((y * D + a) * D + b, {}, C * D * D);
}

DecisionChanges DecisionChangeAccumulator::result() const
{
    const int C = m_costs.numClasses();
    const int D = m_costs.numDecisions();
    const auto counts = m_counts.contiguous();
    const int64_t* n = counts.data_ptr<int64_t>();
    DecisionChanges out;
    std::vector<double> costSum(static_cast<size_t>(D) * D, 0.0);
    std::vector<int64_t> kindCount(static_cast<size_t>(D) * D, 0);
    for (int y = 0; y < C; ++y)
        for (int a = 0; a < D; ++a)
            for (int b = 0; b < D; ++b) {
                const int64_t k = n[(static_cast<int64_t>(y) * D + a) * D + b];
                out.points += k;
                if (a == b || k == 0)
                    continue;
                out.changed += k;
                kindCount[static_cast<size_t>(a * D + b)] += k;
                costSum[static_cast<size_t>(a * D + b)] +=
                    static_cast<double>(k) * (m_costs.at(y, b) - m_costs.at(y, a));
            }
    if (out.points == 0)
        return out;
    const double points = static_cast<double>(out.points);
    for (int a = 0; a < D; ++a)
        for (int b = 0; b < D; ++b) {
            const auto i = static_cast<size_t>(a * D + b);
            if (kindCount[i] == 0)
                continue;
            out.kinds.push_back({a, b, kindCount[i], costSum[i] / points});
            out.costChange += costSum[i] / points;
        }
    std::stable_sort(out.kinds.begin(), out.kinds.end(), [](const DecisionChange& l, const DecisionChange& r) {
        return std::abs(l.costChange) > std::abs(r.costChange);
    });
    return out;
}

} // namespace lcs
