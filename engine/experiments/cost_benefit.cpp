#include "engine/experiments/cost_benefit.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "base/core/input_error.h"
#include "base/core/number_format.h"
#include "engine/experiments/report_json.h"

namespace lcs {

CostBenefitAxis costBenefitAxis(const CostMatrix& costs, int points)
{
    if (points < 2 || points > 50)
        throw InputError("cost-benefit points: " + std::to_string(points) + " is not 2 to 50");
    CostBenefitAxis axis;
    const int c = costs.numClasses();
    if (costs.hasReferral()) {
        double largest = 0;
        for (int y = 0; y < c; ++y)
            for (int d = 0; d < c; ++d)
                largest = std::max(largest, costs.at(y, d));
        if (largest <= 0)
            throw InputError("cost-benefit: the matrix's class costs are all 0; there is nothing to refer");
        axis.setting = kReferralCostAxis;
        axis.current = *costs.referralCost();
        for (int k = 1; k <= points; ++k)
            axis.values.push_back(largest * k / points);
    } else if (c == 2) {
        const double falseAlarm = costs.at(0, 1), miss = costs.at(1, 0);
        if (falseAlarm <= 0 || miss <= 0)
            throw InputError("cost-benefit: the cost ratio needs both errors to cost more than 0 (L[0][1] = " +
                             formatNumber(falseAlarm) + ", L[1][0] = " + formatNumber(miss) + ")");
        axis.setting = kCostRatioAxis;
        axis.current = falseAlarm / miss;
        for (int k = 0; k < points; ++k)
            axis.values.push_back(axis.current * std::pow(10.0, -1.0 + 2.0 * k / (points - 1)));
    } else {
        throw InputError("cost-benefit: a " + std::to_string(c) +
                         "-class matrix without a referral decision has no single cost to move (give it a referral "
                         "decision, --referral R, or use two classes)");
    }
    axis.values.push_back(axis.current);
    std::sort(axis.values.begin(), axis.values.end());
    // A grid value within rounding of the current one is the current one.
    axis.values.erase(std::unique(axis.values.begin(), axis.values.end(),
                                  [](double a, double b) { return std::abs(a - b) <= 1e-12 * std::max(1.0, std::abs(b)); }),
                      axis.values.end());
    for (auto& v : axis.values)
        if (std::abs(v - axis.current) <= 1e-12 * std::max(1.0, std::abs(axis.current)))
            v = axis.current;
    return axis;
}

CostMatrix costsAt(const CostMatrix& base, const std::string& setting, double value)
{
    CostMatrix out = base;
    if (setting == kReferralCostAxis)
        out.setReferral(value);
    else if (setting == kCostRatioAxis)
        out.set(0, 1, value * base.at(1, 0));
    else
        throw InputError("cost-benefit: no axis called \"" + setting + "\"");
    if (out.utilityConstantSetting() && *out.utilityConstantSetting() < out.maxCost())
        out.setUtilityConstant(std::nullopt);
    return out;
}

void addEvidenceRows(CostBenefit& curve, double value, const std::string& method, int replicate,
                     const CorrectionEvidence& evidence)
{
    const RuleScore* p = evidence.rule("P");
    const RuleScore* kept = evidence.rule(evidence.kept);
    if (!p || !kept)
        throw ResultError("cost-benefit: the evidence at " + formatNumber(value) + " has no P or no kept rule (" +
                          evidence.kept + ")");
    curve.rows.push_back({value, method, replicate, "uncorrected", p->cost, p->referralRate});
    curve.rows.push_back({value, method, replicate, "corrected", kept->cost, kept->referralRate});
    for (const auto& calibration : evidence.calibrations)
        if (const RuleScore* b = evidence.rule(calibration.name()))
            curve.rows.push_back({value, method, replicate, b->rule, b->cost, b->referralRate});
}

} // namespace lcs
