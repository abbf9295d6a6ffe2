#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include <ATen/core/Tensor.h>

#include "base/decision/cost_matrix.h"
#include "engine/decision/evidence.h"

namespace lcs {

/// Probabilities [N, C] as the plain rows the held-out evidence reads (double, row-major).
ClassProbabilities toClassProbabilities(const at::Tensor& probs);

/// The rows back as a float tensor [N, C] on the CPU (a calibration's output, scored by
/// the tensor metrics).
at::Tensor probabilitiesTensor(const ClassProbabilities& p);

/// L as a [C, D] tensor of the given dtype on the given device.
at::Tensor costTensor(const CostMatrix& costs, at::ScalarType dtype = at::kFloat,
                      at::Device device = at::kCPU);

/// R(d) = sum_y probs[n, y] L[y, d] for every row: probs [N, C], costs [C, D] -> [N, D].
at::Tensor expectedCosts(const at::Tensor& probs, const at::Tensor& costs);

/// Bayes decisions argmin_d R(d), [N] int64. Ties go to the lowest decision index, so a
/// class decision is preferred to referral (the last column) at equal expected cost.
at::Tensor bayesDecisions(const at::Tensor& probs, const at::Tensor& costs);

/// Bayes decisions straight from a network's logits [N, C, ...] (class dimension
/// second, e.g. [N, C, H, W] per pixel): the same decisions as bayesDecisions on the
/// softmax's class rows, ties included, as [N, ...] int64. On the CPU it works in the
/// logits' own layout, one class plane at a time: no softmax over a strided dimension,
/// no copy into rows and no per-element reductions over 11 columns, which cost a CamVid
/// frame more than a quarter of its forward pass (`lcstudio-cli camvid fps`).
at::Tensor bayesDecisionsFromLogits(const at::Tensor& logits, const at::Tensor& costs);

/// Everything the paper reports about a set of decisions on labelled points.
struct DecisionMetrics {
    int64_t count = 0;            ///< points evaluated
    double averageCost = 0;       ///< mean_n L[y_n, d_n], referrals included at their cost
    /// mean_n sum_y p_n(y) L[y, d_n]: the cost the deciding distribution expects to pay.
    /// Far below averageCost means the distribution is overconfident where it decides.
    double expectedCost = 0;
    double accuracy = 0;          ///< on non-referred points (NaN when all are referred)
    double nll = 0;               ///< -mean log p(y_n) on non-referred points (NaN if none)
    double referralRate = 0;      ///< fraction of points referred
    int numClasses = 0;
    int numDecisions = 0;
    std::vector<int64_t> confusion;   ///< [C x D] row-major counts, rows = truth
    std::vector<double> perClassIoU;  ///< TP/(TP+FP+FN); NaN for a class absent from both
    double meanIoU = 0;               ///< mean over classes with a defined IoU
    /// Calibration of the distribution itself, whatever was decided (referred points
    /// included): kReliabilityBins bins of top-label confidence, and the expected
    /// calibration error ECE = sum_b (n_b / N) |accuracy_b - confidence_b|
    /// (ReliabilityCounter, the one place both are computed).
    std::vector<ReliabilityBin> reliability;
    double ece = std::numeric_limits<double>::quiet_NaN();  ///< NaN where not computed (no rows)
};

/// probs [N, C] (the distribution the decisions were made from, used for NLL),
/// decisions [N] in [0, D), labels [N] in [0, C). A referral counts as a miss (FN) for
/// IoU. Points whose label equals `ignoreLabel` (if >= 0) are left out entirely.
DecisionMetrics evaluateDecisions(const at::Tensor& probs, const at::Tensor& decisions,
                                  const at::Tensor& labels, const CostMatrix& costs,
                                  int64_t ignoreLabel = -1);

/// Throws ResultError naming the metric when one that is defined is not finite: the
/// costs and the expected cost whenever a point was evaluated, the NLL whenever one was
/// decided (accuracy, NLL and IoU are undefined, NaN, only for want of points). A NaN there
/// means the probabilities were not finite; the run stops rather than report it.
void requireFiniteMetrics(const DecisionMetrics& m);

} // namespace lcs
