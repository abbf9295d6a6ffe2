#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/decision/baselines.h"
#include "engine/decision/calibrations.h"
#include "engine/decision/evidence.h"
#include "engine/decision/rule_choice.h"

/// The held-out evidence every correction run shows where labels allow: on validation
/// rows the correction did not train on, the baselines are fitted and the run chooses
/// between q and the uncorrected decisions; on test rows nothing was fitted or chosen
/// on, every rule is scored against P with a paired interval and a verdict.
namespace lcs {

/// How a run chooses its decisions on validation rows q never trained on.
/// CrossValidation (the default): among P, q and every calibration of P (calibrationsFor),
/// the lowest cost in k-fold cross-validation on the validation rows of the rules that beat
/// P there by more than kSelectionGuard standard errors, else P (rule_choice.h);
/// CrossValidationMin: the lowest cost, unguarded.
/// The older rules choose between q and P only. Validation: q unless its mean validation
/// cost is above P's (a tie keeps q). Clear: q only where the paired bootstrap interval of
/// q - P over the validation rows lies below zero (the verdict "better"). None: q, always.
enum class Selection { CrossValidation, CrossValidationMin, Validation, Clear, None };

/// Whether the selection cross-validates among P, q and the calibrations, and the
/// guard it applies (kSelectionGuard for cv, 0 for cv-min: the plain lowest cost).
bool crossValidates(Selection s);
double selectionGuard(Selection s);

/// "cv", "cv-min", "validation", "clear", "none": the settings' spelling, one place.
const char* selectionName(Selection s);
/// The names above, in order; throws std::invalid_argument for any other.
Selection selectionFromName(const std::string& name);
const std::vector<std::string>& selectionNames();

/// The older rules' choice from the rows' costs under P and under q on the validation rows
/// (RuleScore::rowCosts; the bootstrap of Clear draws from `seed`). True: keep q.
/// CrossValidation, which needs the probabilities, reads here as Validation.
bool selectionKeepsQ(Selection s, const RuleScore& validationP, const RuleScore& validationQ, uint64_t seed);

struct CorrectionEvidence {
    std::string setName = "test";     ///< what the test rows are, in sentences
    /// The rules on the test rows. [0] is P, [1] q, then each calibration fitted (in
    /// calibrationsFor's order: temperature and offsets first), each compared with P
    /// (comparisons[k - 1] belongs to rules[k]).
    std::vector<RuleScore> rules;
    std::vector<Comparison> comparisons;
    RuleScore validationP, validationQ;  ///< the same two on the validation rows
    /// Every calibration of P fitted on all the validation rows (a rule whose fit failed,
    /// e.g. on labels of one class under an older selection rule, is left out).
    std::vector<FittedCalibration> calibrations;
    double temperature = 1;           ///< the temperature calibration's, for quick reading
    std::vector<double> offsets;      ///< the offsets calibration's
    std::string kept = "q";           ///< the rule the run's decisions use: "P", "q" or a calibration's name
    std::string keptReason;
    RuleChoice choice;                ///< the cross-validation behind `kept` (folds 0 under the older rules)

    /// The rule named `name` on the test rows, or null.
    const RuleScore* rule(const std::string& name) const;
    /// The comparison with P of the rule named `name`, or null (P has none).
    const Comparison* comparison(const std::string& name) const;
    /// The fitted calibration named `name`, or null (P and q are none).
    const FittedCalibration* calibration(const std::string& name) const;
};

/// P's and q's probabilities on the validation and test rows with their labels.
/// The calibrations are fitted on the validation rows; with Selection::CrossValidation
/// the kept rule is chosen among P, q and them in `folds`-fold cross-validation there
/// (foldsFor: 0 chooses; a class short of rows for the folds asked for, or validation
/// labels of one class, are refused with InputError). With Selection::Validation
/// P's decisions replace q's when q's mean validation cost is above P's (a tie keeps q:
/// measured over the decisions benchmark, dropping q on ties gave away more of its gains
/// than it saved). Bootstrap draws come from `seed`.
CorrectionEvidence gatherCorrectionEvidence(const ClassProbabilities& validationP, const ClassProbabilities& validationQ,
                                            const std::vector<int64_t>& validationLabels,
                                            const ClassProbabilities& testP, const ClassProbabilities& testQ,
                                            const std::vector<int64_t>& testLabels, const CostMatrix& costs,
                                            Selection selection, uint64_t seed, int folds = 0);

/// The evidence as a text block: the rules' table (cost, accuracy, referral rate, ECE, the
/// paired change against P with its interval and the verdict), P's and the kept rule's
/// confusion on the test rows, which rule was kept and why, and the verdict sentence.
std::string correctionEvidenceText(const CorrectionEvidence& e, const CostMatrix& costs);

/// The evidence for results files: per rule its test cost, accuracy, referral rate, ECE,
/// confusion and (but for P) the paired change against P with its interval and verdict;
/// the fitted temperature and offsets, the validation costs, the kept rule and why.
nlohmann::json correctionEvidenceJson(const CorrectionEvidence& e, const CostMatrix& costs);

} // namespace lcs
