#pragma once

#include <cstdint>
#include <vector>

#include <ATen/core/Tensor.h>

#include "base/decision/cost_matrix.h"
#include "engine/decision/decisions.h"

/// Decision metrics accumulated batch by batch (frames of a segmentation split, say),
/// so that no split's probabilities are ever held at once. Vectorised: the confusion
/// matrix is a bincount of y * D + d; cost, accuracy, referral rate and IoU all follow
/// from it; only the NLL needs the probabilities, gathered at the true class.
namespace lcs {

class MetricsAccumulator {
public:
    explicit MetricsAccumulator(const CostMatrix& costs, int64_t ignoreLabel = -1);

    /// probs [N, C] or [N, C, H, W]; decisions and labels [N] or [N, H, W]. Labels equal
    /// to the ignore label are left out; any other label outside 0..C-1, or a decision
    /// outside 0..D-1, throws std::out_of_range. Returns these points' own confusion
    /// counts ([C x D], rows = truth), for evidence that resamples whole frames.
    std::vector<int64_t> add(const at::Tensor& probs, const at::Tensor& decisions, const at::Tensor& labels);

    /// The same fields as evaluateDecisions (per-class IoU, mean IoU, pixel accuracy on
    /// non-referred points as `accuracy`).
    DecisionMetrics result() const;

private:
    CostMatrix m_costs;
    int64_t m_ignore;
    at::Tensor m_confusion;  ///< [C * D] int64 counts
    at::Tensor m_costTable;  ///< [C, D] double, for the expected cost
    double m_nllSum = 0;
    double m_expectedCostSum = 0;
};

/// One kind of change between two sets of decisions on the same labelled points.
struct DecisionChange {
    int from = 0, to = 0;     ///< decision before -> after
    int64_t count = 0;        ///< points changed this way
    double costChange = 0;    ///< sum over them of L[y, to] - L[y, from], divided by all points
};

struct DecisionChanges {
    int64_t points = 0;               ///< labelled points compared
    int64_t changed = 0;              ///< of which the decision differs
    double costChange = 0;            ///< mean cost after - mean cost before (sum of the changes)
    std::vector<DecisionChange> kinds;  ///< every (from, to) with count > 0, largest |costChange| first
};

/// Where decisions `after` (e.g. q's) depart from `before` (e.g. S's) and what each kind of
/// change gained or lost on the labels: a single bincount over (label, before, after),
/// so frames stream through it like MetricsAccumulator.
class DecisionChangeAccumulator {
public:
    explicit DecisionChangeAccumulator(const CostMatrix& costs, int64_t ignoreLabel = -1);
    /// before, after and labels of the same shape; labels equal to the ignore label are
    /// left out, any other outside 0..C-1 (or a decision outside 0..D-1) throws std::out_of_range.
    void add(const at::Tensor& before, const at::Tensor& after, const at::Tensor& labels);
    DecisionChanges result() const;

private:
    CostMatrix m_costs;
    int64_t m_ignore;
    at::Tensor m_counts;  ///< [C * D * D] int64: (label, before, after)
};

} // namespace lcs
