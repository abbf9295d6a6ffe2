#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>
#include <nlohmann/json.hpp>

#include "base/decision/cost_matrix.h"
#include "base/io/npy.h"
#include "engine/calibration/correction.h"
#include "engine/core/job.h"
#include "engine/decision/correction_evidence.h"

/// The correction on a predictive made anywhere (any BNN, any framework): the user gives
/// unlabelled inputs X [N, D] and their posterior predictive, as probabilities P [N, K]
/// or as T posterior samples' probabilities [T, N, K] (averaged here), and q is trained
/// on them exactly as the synthetic experiment trains it on its own predictive.
namespace lcs {

/// Tolerance on each row of P summing to 1.
inline constexpr double kRowSumTolerance = 1e-3;

struct OwnPredictive {
    at::Tensor features;       ///< [N, D] float
    at::Tensor probabilities;  ///< [N, K] float, rows summing to 1
    int64_t samples = 1;       ///< T when P came as samples
    /// How the files were read where a user could not guess it (a first line taken as
    /// pandas' header): printed with the run's summary.
    std::vector<std::string> readingNotes;
};

/// Checks X and P against each other and P's rows (non-negative, each summing to 1
/// within kRowSumTolerance, per sample), and averages samples. `featuresName` and
/// `predictiveName` name the files in messages. Throws InputError naming the file, row
/// (and sample) and value.
OwnPredictive ownPredictive(const NumericArray& features, const NumericArray& predictive,
                            const std::string& featuresName, const std::string& predictiveName);

/// What the run knows beyond X and P: labels for evidence and selection, and how q sees
/// its inputs. With labels of X's rows, X is split (from the seed) into rows q trains on,
/// validation rows (the baselines are fitted and q or P is chosen there) and test rows
/// (scored only), unless a separate labelled test set is given, which then is the test.
struct OwnEvidenceInputs {
    std::vector<int64_t> labels;          ///< of X's rows; empty: no labels
    OwnPredictive test;                   ///< a separate labelled set (features undefined: none)
    std::vector<int64_t> testLabels;
    double validationShare = 0.25;        ///< of X's rows, when labelled
    double testShare = 0.25;              ///< of X's rows, when labelled and no test set is given
    Selection selection = Selection::CrossValidation;  ///< OwnPredictiveChoices::select says why
    int folds = 0;                        ///< cross-validation folds (0 chooses; foldsFor)
    /// q on the calibrated P: with labels, the calibration of P with the lowest
    /// cross-validated cost on the validation rows (P itself where none beats it) is
    /// fitted first, and q trains on, and corrects, the calibrated P instead of P.
    bool qOnCalibrated = false;
    /// With labels: the term the rows q trains on add (CorrectionConfig::labelTerm).
    LabelTerm labelTerm = LabelTerm::None;
    double labelWeight = 1.0;
    /// q standardises its inputs with the mean and std of the rows it trains on (stored
    /// in the model file); off, it takes the features as they are.
    bool standardise = true;
};

/// How many of X's `rows` each part of the labelled split takes: test rows (0 with a
/// separate test set), validation rows, and the rest, which q trains on. Throws InputError
/// naming the shares where they add up to 1 or more, or leave a part empty (fewer than 2
/// rows to train on): what run and check refuse before any work.
struct SplitCounts {
    int64_t test = 0, validation = 0, fit = 0;
};
SplitCounts splitCounts(int64_t rows, const OwnEvidenceInputs& evidence);

struct OwnCorrectionResult {
    CorrectionOutput correction;     ///< q (an MLP on D standardised features), its curve, collapse
    InputStandardisation scaling; ///< what q applies to X first (empty: nothing)
    at::Tensor qProbabilities;       ///< [N, K]
    at::Tensor decisionsBefore;      ///< [N] Bayes decisions under P
    at::Tensor decisionsAfter;       ///< [N] Bayes decisions under q
    at::Tensor expectedCostBefore;   ///< [N] sum_y P(y) L[y, d_before]
    at::Tensor expectedCostAfter;    ///< [N] sum_y P(y) L[y, d_after]: what P expects q's decision to cost
    int64_t changed = 0;             ///< rows whose decision q changed
    /// Each row's part: "fit" (q trained on it), "validation", "test"; all "fit" without labels.
    std::vector<std::string> rowRole;
    std::vector<int64_t> labels;     ///< X's labels, when given
    /// With labels: the held-out evidence and the choice between q and P.
    bool hasEvidence = false;
    CorrectionEvidence evidence;
    /// With labels, the evidence's test rows (the held-out rows of X, or the separate test
    /// set): their features, P and q there, and their labels.
    at::Tensor testFeatures, testProbsBefore, testProbsAfter;
    std::vector<int64_t> testLabels;
    /// With labels: P's and q's reliability diagrams and ECE on those rows.
    std::vector<ReliabilityBin> reliabilityBefore, reliabilityAfter;
    double eceBefore = std::numeric_limits<double>::quiet_NaN();
    double eceAfter = std::numeric_limits<double>::quiet_NaN();
    at::Tensor decisionsKept;        ///< [N] the decisions the run stands by: the kept rule's (evidence.kept)
    /// With OwnEvidenceInputs::qOnCalibrated: the calibration q was trained on top of
    /// (absent where P itself won the cross-validation) and the choice that picked it.
    std::optional<FittedCalibration> qBase;
    RuleChoice qBaseChoice;
};

/// The generator the correction draws q's initialisation (and batches) from, for a run
/// seeded `seed`. The synthetic experiment's correction of a task uses the same with the
/// task's seed, so a predictive exported from it and corrected here gives its decisions.
at::Generator correctionGenerator(uint64_t seed);

/// Trains q on `own` under `costs` (K classes, a referral column allowed) with `config`
/// (config.hidden sets q's width), drawing from correctionGenerator(seed).
/// `observer` (may be empty) sees every step, as trainCorrection's.
OwnCorrectionResult correctOwnPredictive(const OwnPredictive& own, const CostMatrix& costs,
                                         const CorrectionConfig& config, uint64_t seed, const JobContext& ctx,
                                         const CorrectionObserver& observer = {},
                                         const OwnEvidenceInputs& evidence = {});

/// The correction's summary for the results file (rows, classes, changed decisions, q's
/// form and base, the kept rule, the training curve); the held-out evidence is the
/// caller's. And the per-row CSV: X's rows, then a separate labelled test set's (role
/// "test set", numbered from 1).
nlohmann::json ownCorrectionSummary(const OwnCorrectionResult& r, const CostMatrix& costs);
std::string ownCorrectionCsv(const OwnCorrectionResult& r, const CostMatrix& costs);

} // namespace lcs
