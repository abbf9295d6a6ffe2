#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/decision/cost_matrix.h"
#include "engine/experiments/cost_benefit_curve.h"
#include "engine/decision/correction_evidence.h"
#include "engine/experiments/synthetic/synthetic_experiment.h"

/// What a decision maker gives up as one cost moves (Weka's cost/benefit panel, Orange's
/// ROC analysis): the realised test cost and referral rate of the uncorrected predictive
/// P, of q re-trained for each matrix on the cached posterior, and of the baselines, as
/// the referral cost moves (a matrix with a referral decision) or, for two classes, the
/// ratio of the two errors' costs.
namespace lcs {

/// The axis for `costs` with `points` values (2 to 50) besides the current one: with a
/// referral decision, referral costs evenly from largest/points to the largest class
/// cost (from there on nothing is referred); without one, for two classes with both
/// errors costing more than 0, ratios from a tenth to ten times the current one, evenly
/// on a log scale. Throws InputError naming the matrix otherwise.
CostBenefitAxis costBenefitAxis(const CostMatrix& costs, int points);

/// `base` moved to `value` along `setting`: the referral column set to `value`, or
/// L[0][1] set to value * L[1][0]. An explicit M below the new largest cost is dropped
/// (M = the largest cost).
CostMatrix costsAt(const CostMatrix& base, const std::string& setting, double value);


/// The curve's rows of one re-trained q from its held-out evidence, for `method` and
/// `replicate`: P ("uncorrected"), the decisions the run keeps ("corrected": q's, or P's
/// where the evidence's choice kept P) and the baselines (their costs only).
void addEvidenceRows(CostBenefit& curve, double value, const std::string& method, int replicate,
                     const CorrectionEvidence& evidence);

} // namespace lcs
