#pragma once

#include "engine/experiments/experiment_names.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <limits>
#include <vector>

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include "base/decision/cost_matrix.h"
#include "base/inference/method_catalog.h"
#include "base/io/model_info.h"
#include "base/io/observations.h"
#include "base/io/tabular_csv.h"
#include "datasets/synthetic.h"
#include "engine/calibration/correction.h"
#include "engine/core/job.h"
#include "engine/decision/correction_evidence.h"
#include "engine/decision/decisions.h"
#include "engine/experiments/experiment_names.h"
#include "engine/experiments/run_record.h"
#include "engine/inference/methods.h"

/// The paper's synthetic experiment (section "Synthetic Data Experiments", Table 2) as
/// plain functions: inference per (replicate, method), correction on the cached
/// predictive, and the whole table. The GUI calls the phases separately so that a new
/// cost matrix re-runs only the correction.
namespace lcs {

struct SyntheticConfig {
    int replicates = 10;
    std::vector<InferenceMethod> methods = paperMethods();
    uint64_t seed = 0;
    int threads = 1;                 ///< (replicate, method) tasks run in parallel
    std::vector<int64_t> hidden{50};
    SyntheticDataConfig data;
    SgmcmcConfig sghmc;              ///< momentum 0.5 (SGHMC); SGLD uses momentum 0
    BbviConfig bbvi;
    KfacConfig kfac;
    CorrectionConfig correction;
    CostMatrix costs = costPreset("synthetic");
    int gridResolution = 0;          ///< > 0: predictive and q also on a grid (for plots)
    /// "cpu" or "cuda[:N]": where networks train. Results and cached predictives are
    /// always returned on the CPU. Random draws come from per-task CPU generators (CUDA
    /// SGHMC noise from the device's generator), so CUDA runs are not bit-identical to CPU.
    std::string device = "cpu";
    /// A user's table instead of the generated data (the tabular experiment): each
    /// replicate splits its labelled rows into training and test sets (testFraction of
    /// them to test), and its unlabelled rows are the calibration set. Features and
    /// classes are the table's; the region grid covers its range when it has 2 features.
    std::shared_ptr<const TabularData> table;
    std::string tablePath, labelColumn;  ///< where the table came from (the tabular settings)
    /// A table's missing cells: imputed by default, as Weka's classifiers, Orange and
    /// scikit-learn's SimpleImputer take them (a number by the replicate's training rows'
    /// mean with a 0/1 "missing" feature, a category as its own level; both inside every
    /// saved model); drop leaves a row with any out; refuse stops at the first.
    MissingValues missingValues = MissingValues::Impute;
    double testFraction = 0.3;
    /// On a table, every network standardises its inputs with the mean and std of the
    /// replicate's training rows (q takes them over; saved models carry them).
    bool standardise = true;
    /// On a table, the share of the labelled rows each replicate holds out as validation
    /// rows (0: none): where q's cost there is above the uncorrected decisions'
    /// (selection), the replicate's decisions are P's.
    double validationFraction = 0.2;
    /// Cross-validation by default: the kept rule is the lowest-cost of P, q and every
    /// calibration of P in k-fold cross-validation on the validation rows (rule_choice.h).
    /// "clear" (q only where the validation rows show it lower beyond the interval) threw
    /// away a q that helped in all 10 replicates of Table 2's SGHMC, and kept P where
    /// class offsets cost a third less on public tables.
    Selection selection = Selection::CrossValidation;
    /// Cross-validation folds (0: five, fewer where a class has fewer validation rows).
    int folds = 0;
    /// > 0: after the run, the cost-benefit curve at this many further costs (q re-trained
    /// for each on the cached posterior; cost_benefit.h).
    int costBenefitPoints = 0;
    /// The experiment and settings the results record (the tabular experiment's own).
    std::string experiment = kSyntheticExperiment;
    nlohmann::json recordSettings;
};

/// The replicate's data: generated, or split from config.table.
/// `columns`, where given, receives the table's columns with the replicate's missing-value
/// fills (fitMissingFill on its training rows); untouched for generated data.
SyntheticData syntheticDataFor(const SyntheticConfig& config, int replicate,
                               std::vector<InputColumn>* columns = nullptr);
/// Features and classes the networks have: 2 and 2, or the table's.
int64_t featureCount(const SyntheticConfig& config);
int64_t classCount(const SyntheticConfig& config);
/// Whether the predictive and q are also evaluated on the region grid (2 features only).
bool hasRegionGrid(const SyntheticConfig& config);

/// Parses and checks config.device; throws std::invalid_argument naming the value when
/// the device is unknown or this LibTorch build cannot use it.
c10::Device resolveDevice(const std::string& device);

/// Everything inference produced for one (replicate, method): the cached posterior
/// predictive that corrections are trained against.
struct SyntheticPredictive {
    int replicate = 0;
    InferenceMethod method = InferenceMethod::Sghmc;
    SyntheticData data;
    /// A table's input columns with this replicate's missing-value fills (empty for
    /// generated data): what a saved model of this task encodes new rows with.
    std::vector<InputColumn> columns;
    at::Tensor calibrationProbs;  ///< [Ncal, 2]
    at::Tensor testProbs;         ///< [Ntest, 2]
    at::Tensor gridProbs;         ///< [res^2, 2] or undefined
    at::Tensor validationProbs;   ///< on data.validationX, or undefined
    std::shared_ptr<torch::nn::Module> model;  ///< MAP net (KFAC), BBVI net, last SGHMC sample (on the CPU)
    /// The inputs' standardisation every network of this task applies (a table's
    /// training rows'; empty: the features as they are). `model` takes standardised rows.
    InputStandardisation standardisation;
    double seconds = 0;
};

struct SyntheticCorrection {
    Mlp q{nullptr};
    at::Tensor testProbs;
    at::Tensor validationProbs;  ///< on data.validationX, or undefined
    bool residual = false;       ///< q is residual on the predictive (CorrectionConfig::residual)
    at::Tensor gridProbs;
    std::vector<CorrectionStep> curve;
    double seconds = 0;
    bool collapsed = false;  ///< see CorrectionOutput::collapsed
};

/// A calibration of P fitted on a replicate's validation rows, scored on its test rows.
struct BaselineOutcome {
    std::string rule;  ///< calibrationName
    DecisionMetrics metrics;
    FittedCalibration calibration;  ///< as fitted on the validation rows: what a saved kept rule holds
};

struct ReplicateOutcome {
    int replicate = 0;
    InferenceMethod method = InferenceMethod::Sghmc;
    DecisionMetrics uncorrected;
    /// The decisions the run stands by: the kept rule's (q's, P's or a calibration's).
    DecisionMetrics corrected;
    DecisionMetrics qAlone;           ///< q's own decisions on the test rows, kept or not
    bool keptUncorrected = false;     ///< kept == "P"
    bool selected = false;            ///< a validation choice was made
    std::string kept = "q";           ///< the rule whose decisions `corrected` holds
    double validationCostUncorrected = 0, validationCostQ = 0;
    /// Every calibration of P (calibrationsFor) fitted on the validation rows and scored on
    /// the test rows; empty without validation rows.
    std::vector<BaselineOutcome> baselines;
    /// The named baseline's test cost, NaN where it was not fitted.
    double baselineCost(const std::string& rule) const;
    /// The kept rule's fitted calibration; null where the run kept P or q.
    const FittedCalibration* keptCalibration() const;
    double inferenceSeconds = 0;
    double correctionSeconds = 0;
    bool collapsed = false;  ///< q collapsed to one class (its "corrected" row is still reported)
};


struct MethodSummary {
    InferenceMethod method = InferenceMethod::Sghmc;
    MeanStd uncorrected;
    MeanStd corrected;
    MeanStd pairedDiff;  ///< uncorrected - corrected per replicate: > 0 means the correction helped
    int collapsedReplicates = 0;
    std::vector<ReplicateOutcome> replicates;  ///< in replicate order
};

/// Where a table's q trained, in the run record's resolved values: the unlabelled rows,
/// or, for a table without any, kTrainingInputsCalibration.
inline constexpr const char* kCalibrationRowsKey = "q_trained_on";
/// In the record's resolved values: what the reader did with a table's missing cells (absent
/// when it had none).
inline constexpr const char* kMissingValuesKey = "missing_values";
/// In the record's resolved values: columns whose numbers had thousands separators.
inline constexpr const char* kNumberFormatsKey = "number_formats";
inline constexpr const char* kTrainingInputsCalibration =
    "each replicate's training rows' inputs, labels unused (the table has no unlabelled rows)";

struct SyntheticResult {
    RunRecord record;           ///< costs, settings and seed of the run, for the results file
    int replicates = 0;
    uint64_t seed = 0;
    BbviPrior::Kind bbviPrior = BbviPrior::Kind::FanIn;
    double seconds = 0;
    std::vector<MethodSummary> methods;  ///< in config order
};

/// The stages of a (replicate, method) task, as progress reports name them.
inline constexpr const char* kSamplingStage = "sampling";
inline constexpr const char* kCorrectionStage = "correction";

/// The (replicate, method) tasks of a run, sampling then correction, weighted by their
/// share of the work; tasks run in parallel (PlanProgress::Order::Parallel).
TaskPlan syntheticPlan(const SyntheticConfig& config);

/// Seed of the stream used by (replicate, method): results do not depend on threads.
uint64_t taskSeed(uint64_t seed, int replicate, InferenceMethod method);

SyntheticPredictive inferSynthetic(const SyntheticConfig& config, int replicate, InferenceMethod method,
                                   const JobContext& ctx);

/// Correction for a cached predictive under `costs` (validated for 2 classes).
SyntheticCorrection correctSynthetic(const SyntheticConfig& config, const SyntheticPredictive& predictive,
                                     const CostMatrix& costs, const JobContext& ctx,
                                     const CorrectionObserver& observer = {});

/// The sidecars of a (replicate, method)'s saved networks: q's, and the MAP network's
/// (KFAC-Laplace) or last posterior sample's where the method keeps one as an MLP. Both
/// record the run, the costs q was trained for and, for a table with categorical
/// columns, how its cells are encoded; the network's also its input standardisation.
struct SyntheticModelInfos {
    ModelInfo q;
    std::optional<ModelInfo> network;
};
SyntheticModelInfos syntheticModelInfos(const SyntheticConfig& config, const CostMatrix& costs,
                                        const SyntheticPredictive& predictive, const SyntheticCorrection& correction);

/// Test metrics of both decision rules.
/// Test metrics of both decision rules. With validation rows and a selection rule other
/// than None (its bootstrap drawn from `seed`),
/// "corrected" is the rule kept there (q only where its validation cost is lower).
ReplicateOutcome evaluateSynthetic(const SyntheticPredictive& predictive, const SyntheticCorrection& correction,
                                   const CostMatrix& costs, Selection selection = Selection::Validation,
                                   uint64_t seed = 0, int folds = 0);

MethodSummary summarise(InferenceMethod method, std::vector<ReplicateOutcome> outcomes);

/// Inference for every (replicate, method) of the config, in parallel (config.threads),
/// in replicate-major order: the cache that corrections are trained against.
std::vector<SyntheticPredictive> sampleAll(const SyntheticConfig& config, const JobContext& ctx);

/// Makes an observer for one task's correction (may return an empty function).
using ObserverFactory = std::function<CorrectionObserver(const SyntheticPredictive&)>;

/// Corrections for every cached predictive under `costs`, in parallel; the result is in
/// the order of `predictives`.
/// `onDone(i, correction)` runs on the worker thread that finished task i.
std::vector<SyntheticCorrection> correctAll(const SyntheticConfig& config,
                                            const std::vector<SyntheticPredictive>& predictives,
                                            const CostMatrix& costs, const JobContext& ctx,
                                            const ObserverFactory& observers = {},
                                            const std::function<void(size_t, const SyntheticCorrection&)>& onDone = {});

/// Groups outcomes by method (config order) into the table.
SyntheticResult tabulate(const SyntheticConfig& config, const std::vector<ReplicateOutcome>& outcomes,
                         double seconds);

/// Called once per finished (replicate, method), serialised (never concurrently).
using ReplicateCallback =
    std::function<void(const ReplicateOutcome&, const SyntheticPredictive&, const SyntheticCorrection&)>;

/// The whole table. Progress reports come from worker threads but are serialised.
SyntheticResult runSynthetic(const SyntheticConfig& config, const JobContext& ctx,
                             const ReplicateCallback& onReplicate = {});

} // namespace lcs
