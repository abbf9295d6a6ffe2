#pragma once

#include "engine/experiments/experiment_names.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/decision/cost_matrix.h"
#include "engine/experiments/results_document.h"
#include "base/inference/method_catalog.h"
#include "base/io/observations.h"
#include "datasets/image_data.h"
#include "engine/calibration/image_training.h"
#include "engine/core/job.h"
#include "engine/decision/correction_evidence.h"
#include "engine/decision/decisions.h"
#include "engine/experiments/image/image_run_choices.h"
#include "engine/experiments/run_record.h"
#include "engine/models/classifier.h"

/// The paper's label-corruption experiment (section "Decision-making under label
/// corruption", Fig. 4): a fraction of training labels replaced by uniform random ones;
/// SGLD with a distilled student S, LC-SGLD, CW-SGD and our correction q on S compared
/// by decision cost, accuracy and NLL on the clean test set, mean ± std over trials.
namespace lcs {

/// Progress phase of the per-epoch test-set figures: detail = "METHOD, rate R, trial T",
/// step = epoch, and Progress::test holds cost / accuracy / NLL. (The training phases
/// report Progress::training.)
inline constexpr const char* kEpochMetricsPhase = "epoch_metrics";

struct DecisionComparison;
/// Receives a comparison of S and q and the test images its indices refer to.
using ComparisonSink = std::function<void(const DecisionComparison&, const at::Tensor& testImages)>;

/// A network a run has just finished training (--save-models, the window's Export
/// Model). Valid during the call only; called on the job's thread.
struct TrainedNetwork {
    std::string network;   ///< "map", the student "sgld_s" / "sghmc_s", q "ours" / "ours_no_s", "cw_sgd"
    const char* settingName = "rate";  ///< "rate" or "r" (referral cost)
    double setting = 0;    ///< the rate or referral cost (the MAP and S serve every r of a trial)
    bool perSetting = true;
    int trial = 0;
    const ClassifierImpl* model = nullptr;
    const ModelSpec* spec = nullptr;
    const CostMatrix* costs = nullptr;  ///< the matrix it decides for (q), or the run's
    bool collapsed = false;

    /// The file stem: "ours_rate0.5_trial0", "map_trial1".
    std::string stem() const;
};
using NetworkSink = std::function<void(const TrainedNetwork&)>;

/// What both image experiments' configs hold.
struct ImageRunConfig {
    int trials = 1;
    uint64_t seed = 0;
    std::vector<ImageMethod> methods;
    ModelSpec model;
    /// The declared settings this config came from (the experiment's configFor:
    /// settingValues of the choices), recorded as the results' run.settings so that the
    /// file replays as a session; empty for a config built in code.
    nlohmann::json declaredSettings = nlohmann::json::object();
    SgdConfig map;                  ///< the MAP network the chains start from
    std::string device = "cpu";
    /// Called on the job's thread as soon as a comparison of S and q exists, with the
    /// test images it indexes (live views); the result holds the same comparisons.
    ComparisonSink onComparison;
    /// Called with every network the run trains, once it is trained.
    NetworkSink onNetwork;
};

struct CorruptionConfig : ImageRunConfig {
    CorruptionConfig() { methods = {ImageMethod::SgldS, ImageMethod::LcSgld, ImageMethod::CwSgd, ImageMethod::Ours}; }

    std::vector<double> rates{0.3, 0.5, 0.7};
    SgldDistillationConfig sgld;    ///< SGLD + S (and LC-SGLD with lossCalibration set)
    SgdConfig cwSgd;                ///< classWeights filled from the cost matrix when empty
    double cwWeight = 1.4;          ///< weight of the important classes in CW-SGD
    CorrectionConfig correction;
    CostMatrix costs;

    /// Settings for `data` (an MLP for 1-channel images, ResNet-18 for colour ones):
    /// "cpu" finishes a rate in minutes here; "paper" is the appendix's.
    static CorruptionConfig preset(const std::string& name, const ImageDataset& data);
};

/// One method's figures on the test set for one setting and trial, in both image
/// experiments.
struct ImageRunRow {
    double setting = 0;    ///< the corruption rate, or the referral cost
    int trial = 0;
    ImageMethod method = ImageMethod::SgldS;
    DecisionMetrics metrics;
    double seconds = 0;    ///< training time attributable to this setting
    bool collapsed = false;
};
using CorruptionRow = ImageRunRow;

struct CorruptionSummary {
    ImageMethod method = ImageMethod::SgldS;
    double rate = 0;
    MeanStd cost, accuracy, nll;
    int collapsed = 0;
};

/// A test image whose decision the correction changed (for the window's gallery).
struct ChangedDecision {
    int64_t index = 0;            ///< row of the test set
    int64_t label = 0;
    int64_t before = 0, after = 0;  ///< decisions under S and under q
    std::vector<float> probsBefore, probsAfter;
};

/// Both decision rules on the test set of one run, for confusion matrices and galleries,
/// and the held-out evidence on them.
struct DecisionComparison {
    double rate = 0;
    int trial = 0;
    CostMatrix costs;             ///< the matrix both rules decide under
    DecisionMetrics uncorrected;  ///< SGLD + S
    DecisionMetrics corrected;    ///< ours
    /// The test images split in two by a seeded permutation: temperature, class offsets
    /// and the choice between q and S (rule `clear`) fitted on one half, every rule
    /// scored on the other with paired intervals. P in it is S's predictive.
    CorrectionEvidence evidence;
    std::vector<ChangedDecision> changed;  ///< at most kMaxChangedDecisions, in test order
    int64_t changedCount = 0;
};
inline constexpr size_t kMaxChangedDecisions = 64;

/// Where two decision rules disagree on the test set: metrics of both, the first
/// kMaxChangedDecisions disagreements with their probabilities, and the held-out
/// evidence (its split and bootstrap drawn from `evidenceSeed`).
DecisionComparison compareDecisions(const at::Tensor& probsBefore, const at::Tensor& probsAfter,
                                    const at::Tensor& labels, const CostMatrix& costs, uint64_t evidenceSeed);

/// The image experiments' evidence section: one line per run (setting, trial) with S's
/// and q's cost on the scored half, the change with its interval and verdict, the
/// baselines' costs and the rule the evidence keeps; the verdict sentence of every run
/// where q or a baseline is worse; how often a baseline costs less than q; and, with
/// three or more trials, q against S over trials per setting. `settingName` is "rate"
/// or "r".
std::string imageEvidenceText(const std::vector<DecisionComparison>& comparisons, const std::string& settingName);
nlohmann::json imageEvidenceJson(const std::vector<DecisionComparison>& comparisons, const std::string& settingName);

/// What re-running only the correction needs after a cost edit: the student S of the
/// last run, D' and the test set. Kept by the job's owner (the window's worker); never
/// crosses threads.
struct CorrectionCache {
    ModelSpec spec;
    Classifier student;
    at::Tensor calibrationInputs;   ///< D' (clean; the correction adds its own noise)
    at::Tensor testImages, testLabels;
    at::Tensor studentTestProbs;    ///< S on the test set
    CorrectionConfig correction;
    uint64_t correctionSeed = 0;    ///< the stream q was trained with in that run
    double rate = 0;                ///< corruption rate or referral cost of that run
    int trial = 0;
};

/// Trains a fresh q (warm-started from the cached S) for `costs` and compares its test
/// decisions with S's.
struct Recorrection {
    DecisionComparison comparison;
    Classifier q;          ///< the new q, for saving
    double seconds = 0;
    bool collapsed = false;
};
Recorrection recorrect(const CorrectionCache& cache, const CostMatrix& costs, const JobContext& ctx);

/// The preset for `data` with the user's choices applied (the CLI and the window alike).
CorruptionConfig corruptionConfigFor(const ImageRunChoices& choices, const ImageDataset& data);

/// The networks a run trains, in order, each weighted by its share of the work (epochs,
/// x2 where a student trains alongside), for one progress fraction over the whole run.
TaskPlan corruptionPlan(const CorruptionConfig& config);

struct CorruptionResult {
    RunRecord record;           ///< costs, settings and seed of the run, for the results file
    std::string dataset;
    std::string model;
    std::vector<CorruptionRow> rows;
    std::vector<CorruptionSummary> summary;  ///< per (rate, method), in config order
    int trials = 0;
    uint64_t seed = 0;
    double seconds = 0;
    double distillationSecondsPerEpoch = 0;  ///< SGLD + S, mean over runs
    std::vector<DecisionComparison> comparisons;  ///< one per run that trained q
    std::shared_ptr<const CorrectionCache> cache; ///< the last run's S (null without one)
};

CorruptionResult runCorruptionExperiment(const ImageDataset& data, const CorruptionConfig& config,
                                         const JobContext& ctx);

std::string corruptionTable(const CorruptionResult& result);
/// The results: the run record, the long table (CSV: one row per (rate, trial, method)),
/// "dataset", "model", "trials", "seed", "summary" (mean ± std per rate and method),
/// "runs", the held-out evidence, the table and every run's reliability diagram.
ExperimentOutput corruptionOutput(const CorruptionResult& result);

} // namespace lcs
