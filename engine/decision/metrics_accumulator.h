#pragma once

#include <cstdint>

#include <ATen/core/Tensor.h>

#include "decision/cost_matrix.h"
#include "decision/decisions.h"

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
    /// outside 0..D-1, throws std::out_of_range.
    void add(const at::Tensor& probs, const at::Tensor& decisions, const at::Tensor& labels);

    /// The same fields as evaluateDecisions (per-class IoU, mean IoU, pixel accuracy on
    /// non-referred points as `accuracy`).
    DecisionMetrics result() const;

private:
    CostMatrix m_costs;
    int64_t m_ignore;
    at::Tensor m_confusion;  ///< [C * D] int64 counts
    double m_nllSum = 0;
};

} // namespace lcs
