#pragma once

#include <cstdint>

#include <ATen/core/Tensor.h>

/// The paper's synthetic 2-D experiment: two isotropic Gaussians with class imbalance.
namespace lcs {

struct SyntheticDataConfig {
    int trainNegative = 90;   ///< class 0 ~ N((-1,-1), I)
    int trainPositive = 10;   ///< class 1 ~ N((+1,+1), I)
    int testNegative = 90;
    int testPositive = 10;
    int calibration = 500;    ///< unlabelled, uniform over the box
    /// Labelled validation points drawn as the test set is (90/10 by default): not in the
    /// paper; a run chooses there between q and the uncorrected decisions. 0 and 0: none.
    int validationNegative = 90;
    int validationPositive = 10;
    double boxMin = -4.0;     ///< box [boxMin, boxMax]^2 covers both classes (3 sd)
    double boxMax = 4.0;
};

struct SyntheticData {
    at::Tensor trainX, trainY;  ///< [N, 2] float, [N] int64
    at::Tensor testX, testY;
    at::Tensor calibrationX;    ///< [M, 2] float
    /// A table's validation rows, on which a run chooses between q and the uncorrected
    /// decisions (undefined for generated data, and for a table without them).
    at::Tensor validationX, validationY;
};

/// Replicate r of the experiment, fully determined by (seed, r) and independent of the
/// platform's <random> distributions (own Box-Muller over mt19937_64).
SyntheticData makeSyntheticData(const SyntheticDataConfig& config, uint64_t seed, int replicate);

/// A regular grid of resolution^2 points over the box (row-major, y outer), for
/// decision-region plots.
at::Tensor syntheticGrid(const SyntheticDataConfig& config, int resolution);

} // namespace lcs
