#pragma once

#include <cstdint>
#include <vector>

#include "base/decision/cost_matrix.h"

/// What follows from a confusion matrix alone, in one place: every scorer (a test set in
/// memory, frames streamed through an accumulator, a bootstrap resample of frames) counts
/// (truth, decision) pairs and reads its figures here. Plain C++.
namespace lcs {

struct ConfusionFigures {
    int64_t count = 0;               ///< points counted
    int64_t referred = 0;            ///< of which referred (decision C, with a referral column)
    double averageCost = 0;          ///< mean L[y, d], referrals at their cost (NaN without points)
    double accuracy = 0;             ///< on points not referred (NaN when none)
    double referralRate = 0;         ///< NaN without points
    /// TP / (TP + FP + FN) per class, a referral counting as a miss; NaN for a class that
    /// is neither present nor decided.
    std::vector<double> perClassIoU;
    double meanIoU = 0;              ///< over classes with a defined IoU (NaN when none)
};

/// `confusion` is [C x D] row-major counts (rows = truth) for `costs`' C classes and D
/// decisions; throws std::invalid_argument when its size is not C * D.
ConfusionFigures confusionFigures(const std::vector<int64_t>& confusion, const CostMatrix& costs);

} // namespace lcs
