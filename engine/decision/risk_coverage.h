#pragma once

#include <vector>

#include <ATen/core/Tensor.h>

/// Risk against coverage for selective classification (Geifman and El-Yaniv 2017): a
/// classifier that may abstain accepts its most confident inputs first. Inputs are
/// ordered by confidence, the largest class probability (ties by input order); at
/// coverage k/N the selective risk is the error rate of the argmax class on the k most
/// confident inputs. The area under the curve (AURC) is the mean of the risks over
/// k = 1..N: lower is better, and a classifier whose confidence ranks every error after
/// every correct input attains the least possible area for its error rate.
namespace lcs {

struct RiskCoverage {
    std::vector<double> coverage;  ///< at most `points` distinct levels, increasing, ending at 1
    std::vector<double> risk;      ///< selective risk at each coverage
    double aurc = 0;               ///< over every k = 1..N, not only the levels kept
};

/// probs [N, C] class probabilities (a referral column, if any, excluded by the caller),
/// labels [N]. The curve keeps the coverage levels c = 1/points, 2/points, ..., 1 (each at
/// k = ceil(c N) inputs; a level falling on the previous one's k is left out).
RiskCoverage riskCoverage(const at::Tensor& probs, const at::Tensor& labels, int points = 100);

} // namespace lcs
