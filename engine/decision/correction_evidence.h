#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "decision/baselines.h"
#include "decision/evidence.h"

/// The held-out evidence every correction run shows where labels allow: on validation
/// rows the correction did not train on, the baselines are fitted and the run chooses
/// between q and the uncorrected decisions; on test rows nothing was fitted or chosen
/// on, every rule is scored against P with a paired interval and a verdict.
namespace lcs {

/// How a run chooses between q's decisions and P's on validation rows q never trained on.
/// Validation: q unless its mean validation cost is above P's (a tie keeps q). Clear: q
/// only where the paired bootstrap interval of q - P over the validation rows lies below
/// zero (the verdict "better"). None: q, always.
enum class Selection { Validation, Clear, None };

/// "validation", "clear", "none": the settings' spelling, one place.
const char* selectionName(Selection s);
/// The names above, in order; throws std::invalid_argument for any other.
Selection selectionFromName(const std::string& name);
const std::vector<std::string>& selectionNames();

/// The rule's choice from the rows' costs under P and under q on the validation rows
/// (RuleScore::rowCosts; the bootstrap of Clear draws from `seed`). True: keep q.
bool selectionKeepsQ(Selection s, const RuleScore& validationP, const RuleScore& validationQ, uint64_t seed);

struct CorrectionEvidence {
    std::string setName = "test";     ///< what the test rows are, in sentences
    /// The rules on the test rows. [0] is P; then q, temperature, offsets, each compared
    /// with P (comparisons[k - 1] belongs to rules[k]).
    std::vector<RuleScore> rules;
    std::vector<Comparison> comparisons;
    RuleScore validationP, validationQ;  ///< the same two on the validation rows
    double temperature = 1;
    std::vector<double> offsets;
    std::string kept = "q";           ///< "q" or "P": the rule the run's decisions use
    std::string keptReason;
};

/// P's and q's probabilities on the validation and test rows with their labels.
/// Temperature and offsets are fitted on the validation rows; with Selection::Validation
/// P's decisions replace q's when q's mean validation cost is above P's (a tie keeps q:
/// measured over the decisions benchmark, dropping q on ties gave away more of its gains
/// than it saved). Bootstrap draws come from `seed`.
CorrectionEvidence gatherCorrectionEvidence(const ClassProbabilities& validationP, const ClassProbabilities& validationQ,
                                            const std::vector<int64_t>& validationLabels,
                                            const ClassProbabilities& testP, const ClassProbabilities& testQ,
                                            const std::vector<int64_t>& testLabels, const CostMatrix& costs,
                                            Selection selection, uint64_t seed);

/// The evidence as a text block: the rules' table (cost, accuracy, referral rate, ECE, the
/// paired change against P with its interval and the verdict), P's and the kept rule's
/// confusion on the test rows, which rule was kept and why, and the verdict sentence.
std::string correctionEvidenceText(const CorrectionEvidence& e, const CostMatrix& costs);

/// The evidence for results files: per rule its test cost, accuracy, referral rate, ECE,
/// confusion and (but for P) the paired change against P with its interval and verdict;
/// the fitted temperature and offsets, the validation costs, the kept rule and why.
nlohmann::json correctionEvidenceJson(const CorrectionEvidence& e, const CostMatrix& costs);

} // namespace lcs
