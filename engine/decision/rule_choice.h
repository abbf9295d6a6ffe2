#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/decision/cost_matrix.h"
#include "engine/decision/calibrations.h"
#include "engine/decision/evidence.h"

/// The choice of the decision rule a run keeps, by k-fold cross-validation on the
/// labelled rows no network trained on: P, the q variants and every calibration of P
/// compete on the realised cost of rows each rule was not fitted on. One validation split
/// of 100 rows is too noisy to choose by (a q that helped was dropped in every replicate of
/// Table 2's SGHMC); the folds use every labelled row both to fit and to score.
namespace lcs {

/// The folds when none are asked for: five, fewer where a class has fewer labelled rows.
inline constexpr int kDefaultFolds = 5;

/// A rule that needs no fitting on the labels: its decisions on the labelled rows.
struct FixedRule {
    std::string name;               ///< "P", "q", ...
    std::vector<int64_t> decisions;
    /// Whether the guard counts the unseen row (kUnseenRows) for this rule, as it does
    /// for every calibration. Off for q: its departures from P are bounded by the KL term
    /// it trains with, a calibration's are not (a temperature at its bound decides by
    /// argmax everywhere). Measured both ways: docs/decisions-benchmark.md.
    bool guardUnseenRow = true;
};

/// One candidate's cross-validated cost: the mean realised cost over every labelled row,
/// each decided by the rule as fitted on the other folds. NaN where it could not be fitted.
struct CandidateCost {
    std::string rule;
    double cost = 0;
    std::vector<double> rowCosts;  ///< each labelled row's out-of-fold cost (empty where not fitted)
    std::vector<int64_t> decisions;  ///< each labelled row's out-of-fold decision (empty where not fitted)
    /// Against the first rule offered (P): the mean paired difference and its standard
    /// error over the rows (NaN for the first itself, or where not fitted).
    double changeVsFirst = 0, standardError = 0;
    /// The dearest change one more row could bring: the largest C(y, rule) - C(y, first)
    /// over every class y and every row where the two decide differently (0 where they
    /// never do). The guard counts it as one unseen row (kUnseenRows).
    double dearestChange = 0;
};

struct RuleChoice {
    std::string kept;                       ///< the candidate with the lowest cost
    int folds = 0;
    int64_t rows = 0;
    std::vector<CandidateCost> candidates;  ///< in the order offered
    std::string reason;                     ///< one sentence: how it was chosen and among what
};

/// The folds to use. `requested` 0: kDefaultFolds, lowered to the fewest labelled rows of
/// any class present (at least 2). `requested` k >= 2: refused (InputError, bad input
/// to show as it is: the class and how many rows it lacks) where a class present has
/// fewer than k rows; any k where the labels hold one class only.
int foldsFor(const std::vector<int64_t>& labels, const CostMatrix& costs, int requested);

/// Row i's fold in [0, folds), stratified by class: each class's rows shuffled from
/// `seed` and dealt round the folds in turn, continuing from class to class.
std::vector<int> stratifiedFolds(const std::vector<int64_t>& labels, int folds, uint64_t seed);

/// How many standard errors of the paired per-row difference a rule must beat the first
/// rule offered (P) by in cross-validation before the run moves off it (select cv). With
/// the plain lowest cost (0, select cv-min) the choice among seven rules on 18-216
/// validation rows followed noise: on the decisions benchmark the kept rule cost more than
/// P on average (0.2468 against 0.2350) and more than P beyond the interval in 2 runs.
inline constexpr double kSelectionGuard = 1.0;

/// Rows the guard adds to a calibration's paired differences at its dearest change
/// (CandidateCost::dearestChange): the next row could be the mistake the validation rows
/// happened not to hold. Without it the standard error cannot see a rare dear mistake that
/// never occurred: a temperature fitted at its bound (argmax decisions) saved 11 false
/// alarms on 68 rows with no tumour missed, a change of -0.16 with a standard error of
/// 0.04, and on the test rows missed 8 tumours (cost 0.50 against P's 0.21). One row at
/// +10 (a tumour missed where P referred it for treatment) turns that change into -0.01
/// with a standard error of 0.15.
inline constexpr int kUnseenRows = 1;

/// Row i's fold in [0, folds) where the rows come in groups that are not independent (the
/// pixels of one frame): every row of a group in one fold, the groups (in order of first
/// appearance) shuffled from `seed` and dealt round the folds in turn.
std::vector<int> groupedFolds(const std::vector<int64_t>& groups, int folds, uint64_t seed);

/// Chooses among the fixed rules (their decisions scored as they are) and the
/// calibrations of `p` (each fitted on k - 1 folds, scored on the last) by the lowest
/// cross-validated cost. With `guard` > 0 only rules whose mean paired difference from
/// the first rule offered (for a calibration, or a fixed rule with guardUnseenRow,
/// counting kUnseenRows more rows at its dearest change) lies below zero by more than
/// `guard` standard errors compete, and the first is kept
/// where none does; 0: the lowest cost, a tie keeping the rule
/// offered first (offer P first).
///
/// `groups` (empty: every row its own) names each row's group where rows are not
/// independent: the folds then keep each group whole (groupedFolds), and the standard
/// error of a paired difference is the cluster-robust one, sqrt(G / (G - 1) sum_g e_g^2) / n
/// with e_g the sum of group g's deviations from the mean over G groups (the unseen row
/// its own group). With one row per group it is the plain standard error.
RuleChoice chooseRuleByCrossValidation(const ClassProbabilities& p, const std::vector<FixedRule>& fixed,
                                       const std::vector<int64_t>& labels, const CostMatrix& costs,
                                       const std::vector<CalibrationKind>& calibrations, int folds, uint64_t seed,
                                       double guard = 0, const std::vector<int64_t>& groups = {});

} // namespace lcs
