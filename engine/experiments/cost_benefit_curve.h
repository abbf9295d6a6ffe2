#pragma once

#include <string>
#include <vector>

/// A cost-benefit curve as plain values: the axis a run moved one cost along, and the
/// realised cost of each rule at each point (cost_benefit.h computes it).
namespace lcs {

/// The setting a curve moves and the matrices it passes through.
struct CostBenefitAxis {
    std::string setting;          ///< kReferralCostAxis or kCostRatioAxis
    double current = 0;           ///< the run's own value, always among `values`
    std::vector<double> values;   ///< ascending
};
inline constexpr const char* kReferralCostAxis = "referral_cost";
/// L[0][1] / L[1][0]: the cost of deciding class 1 for a class-0 row over that of
/// deciding class 0 for a class-1 row (Weka's cost/benefit axis for two classes).
inline constexpr const char* kCostRatioAxis = "cost_ratio";

struct CostBenefitRow {
    double value = 0;          ///< along the axis
    std::string method;        ///< the method catalogue's id
    int replicate = 0;
    std::string rule;          ///< "uncorrected", "corrected", "temperature", "offsets"
    double cost = 0;           ///< realised mean cost on the test rows
    double referralRate = 0;   ///< NaN for the baselines (their cost only is kept)
};

struct CostBenefit {
    CostBenefitAxis axis;
    std::vector<CostBenefitRow> rows;  ///< by value, then as the run lists its tasks
};

} // namespace lcs
