#pragma once

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/core/settings.h"
#include "base/decision/cost_matrix.h"
#include "base/io/model_info.h"
#include "base/io/observations.h"
#include "engine/calibration/own_predictive.h"
#include "engine/experiments/cost_benefit.h"
#include "engine/experiments/experiment.h"
#include "engine/experiments/synthetic/synthetic_experiment.h"

/// The correction on a predictive made anywhere, as a registered experiment ("correct"):
/// its settings (the two files and the correction's settings, shared with the synthetic
/// experiment), the files read with their caps, and the one results format that
/// `lcstudio-cli correct`, `lcstudio-cli run SESSION` and the window write.
namespace lcs {

inline constexpr const char* kOwnPredictiveExperiment = "correct";
inline constexpr const char* kFeaturesSetting = "features";
inline constexpr const char* kPredictiveSetting = "predictive";

struct OwnPredictiveChoices {
    std::string featuresPath;   ///< X: N x D (.npy or .csv)
    std::string predictivePath; ///< P: N x K, or T x N x K (.npy or .csv)
    /// The correction's settings (seed, iterations, learning rate, warm start) as the
    /// synthetic experiment declares and applies them: q trains here exactly as there.
    SyntheticConfig correction;
    /// Evidence (all optional): labels of X's rows, a separate labelled test set, the
    /// shares of X's rows held out when labelled, and how the run chooses its rule on the
    /// validation rows (selectionNames: "cv" among P, q and the calibrations by k-fold
    /// cross-validation with `folds` folds, 0 choosing).
    std::string labelsPath, testFeaturesPath, testPredictivePath, testLabelsPath;
    double validationShare = 0.25;
    double testShare = 0.25;
    /// "cv" by default: guarded by one standard error, a calibration also by one unseen
    /// row at its dearest change (rule_choice.h), the choice among P, q and every
    /// calibration kept decisions no worse than P beyond the interval in any of the
    /// decisions benchmark's 60 runs (mean cost 0.2274 against P's 0.2350); "validation"
    /// costs less on average (0.2205) and more than P on two tables (docs/decisions-benchmark.md).
    std::string select = "cv";
    int folds = 0;
    /// "p": q trains on P; "calibrated": on P calibrated first (OwnEvidenceInputs::qOnCalibrated).
    std::string qBase = "p";
    /// With labels, what the rows q trains on add to the paper's objective (LabelTerm):
    /// "log_loss" by default (measured on the decisions benchmark against "none" and
    /// "soft_cost", weight 1 fixed before the runs: the kept rule's mean cost 0.2228
    /// against 0.2274 and 0.2237, q alone 0.2144 against 0.2213 and 0.2284, no run worse
    /// than P; docs/decisions-benchmark.md). Without labels there is nothing to add.
    std::string labelTerm = "log_loss";
    double labelWeight = 1.0;
    bool noStandardise = false;
};

/// The labels and test set the choices name, read and checked against X, P and `costs`
/// (their classes and names); empty without labels. Throws InputError naming the flag,
/// the file, the row and the value.
OwnEvidenceInputs loadEvidenceInputs(const OwnPredictiveChoices& choices, const OwnPredictive& own,
                                     const CostMatrix& costs);

/// The experiment's settings, declared once: the command's flags, sessions and the
/// window's form derive from them.
const std::vector<BoundSetting<OwnPredictiveChoices>>& ownPredictiveSettings();

/// Reads and checks X and P (readNumericArray's caps, ownPredictive's checks); messages
/// name the files as the settings do ("--features X.npy").
OwnPredictive loadOwnPredictive(const OwnPredictiveChoices& choices);

/// The results: the run record (experiment, costs, settings, seed), the long table,
/// ownCorrectionSummary's fields, the held-out evidence (null without labels), the
/// per-row decisions as CSV and the reliability diagrams; the text table is the caller's.
ExperimentOutput ownPredictiveOutput(const OwnCorrectionResult& result, const CostMatrix& costs,
                                     const OwnPredictiveChoices& choices);
/// The run's long table (results' "observations", what `sweep collect` merges): method
/// "own", trial 0; P as "uncorrected" and q as "corrected" (their mean expected cost under
/// P, q's changed decisions and collapse), and with labels every rule's held-out cost,
/// accuracy, referral rate and ECE, each calibration under its name, the kept rule also
/// as "kept".
std::vector<Observation> ownObservations(const OwnCorrectionResult& result);
/// The text table a run prints: changed decisions and the mean expected cost under P.
/// With labels, the held-out evidence follows (correctionEvidenceText).
/// How X and P (and a test set, `testNotes`) were read where a user could not guess it
/// follows the first line ("note: ...").
std::string ownPredictiveTable(const OwnCorrectionResult& result, const CostMatrix& costs, const OwnPredictive& own,
                               const std::vector<std::string>& testNotes = {});
/// P's and q's reliability diagrams on the held-out rows (reliabilityCsv: method "own",
/// rules "uncorrected" and "corrected"); empty without labels.
std::string ownReliabilityCsv(const OwnCorrectionResult& result);
/// The method the curves and diagrams of a user's predictive are filed under.
inline constexpr const char* kOwnPredictiveMethod = "own";

/// The sidecar of q trained on a user's predictive under `costs` (the q.pt every route saves).
ModelInfo ownQInfo(const OwnCorrectionResult& result, const CostMatrix& costs, uint64_t seed);

/// The kept rule's file in `correct --out`'s folder.
inline constexpr const char* kKeptRuleFile = "kept_rule.pt";

/// What a run of the "correct" experiment leaves: X and P as read, and q as last trained
/// on them, so that a cost edit (or new settings for q) re-trains only q. Publishes the
/// correction's views (a TaskView as q trains, its ResultRow and evidence when done).
class OwnPredictiveState : public RecorrectionState {
public:
    /// `evidence` is what loadEvidenceInputs read for `choices` and `costs` (the run read it
    /// once, before any work; the state scores on those rows, not on a later read).
    OwnPredictiveState(OwnPredictiveChoices choices, OwnPredictive own, CostMatrix costs, OwnEvidenceInputs evidence);
    std::string describe() const override;
    CostMatrix costs() const override { return m_costs; }
    ExperimentOutput recorrect(const CostMatrix& costs, const JobContext& ctx) override;
    /// As recorrect(costs, ctx), with q's settings and the evidence files (labels, test
    /// set, shares) taken from `settings`, the experiment's settings checked. X and P stay
    /// the ones read by the run.
    ExperimentOutput recorrect(const CostMatrix& costs, const nlohmann::json& settings,
                               const JobContext& ctx) override;
    /// The state's one task: saveKeptRule at `path`, whatever the series and replicate.
    std::vector<std::string> saveModel(int replicate, const std::string& series,
                                       const std::string& path) const override;
    /// Trains q under the state's costs and scores it.
    ExperimentOutput correct(const JobContext& ctx);
    /// The cost-benefit curve of the state's costs with `points` values besides the
    /// current one (costBenefitAxis): q re-trained on X and P at each, scored on the held-out
    /// rows. Needs labels; leaves the state's q as it was.
    CostBenefit costBenefit(int points, const JobContext& ctx) const;
    const OwnPredictive& own() const { return m_own; }
    /// Saves the last q at `path` with its sidecar (ownQInfo); throws InputError before
    /// any correction.
    void saveQ(const std::string& path) const;
    /// Saves the rule the last run kept at `path` with its sidecar (saveKeptRule): what
    /// `decide --model PATH --predictive P` applies. Throws InputError before any correction.
    void saveKeptRule(const std::string& path) const;
    /// The rule the last run kept ("q" without labels; empty before any run).
    std::string keptRule() const { return !m_last ? std::string() : m_last->hasEvidence ? m_last->evidence.kept : "q"; }
    /// Writes the last correction's files into the existing `folder` (a staging folder
    /// of OutputFolder, which puts them in place all or none): results.json,
    /// decisions.csv, curve.csv, q.pt and kept_rule.pt, each model with its sidecar.
    void writeFiles(const std::string& folder) const;

private:
    /// Trains q with `choices` under `costs`, scored on `evidence`; the state takes them, with
    /// q, once q is trained.
    ExperimentOutput correctWith(OwnPredictiveChoices choices, CostMatrix costs, OwnEvidenceInputs evidence,
                                 const JobContext& ctx);
    /// The last correction's results document (ownPredictiveOutput and the text table).
    ExperimentOutput lastOutput() const;

    OwnPredictiveChoices m_choices;
    OwnPredictive m_own;
    CostMatrix m_costs;
    OwnEvidenceInputs m_evidence;  ///< the labels and test set of m_choices, read under m_costs
    std::optional<OwnCorrectionResult> m_last;
};

/// The correction of a user's own predictive (`correct`) as a registry entry.
std::shared_ptr<const Experiment> makeOwnPredictiveExperiment();

} // namespace lcs
