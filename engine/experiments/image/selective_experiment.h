#pragma once

#include "engine/experiments/experiment_names.h"

#include <cstdint>
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
#include "engine/decision/decisions.h"
#include "engine/decision/risk_coverage.h"
#include "engine/experiments/image/corruption_experiment.h"
#include "engine/models/classifier.h"

/// The paper's selective-classification experiment (Fig. 3): every image rotated by an
/// angle uniform in [-30, 30] degrees, a referral decision of cost r beside the C
/// classes, and for each r: SGHMC's Bayes decisions, LC-SGHMC (a new chain per cost),
/// and the correction q on S ("ours", S distilled once) or on the stored MC predictive
/// ("ours_no_s"). Also the training time as the number of cost functions grows.
namespace lcs {

/// Its test images are rotated as the training images are (this trial's rotations), and
/// onComparison receives those.
struct SelectiveConfig : ImageRunConfig {
    SelectiveConfig() { methods = {ImageMethod::Sghmc, ImageMethod::LcSghmc, ImageMethod::Ours, ImageMethod::OursNoS}; }

    std::vector<double> referralCosts{0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5};
    SgldDistillationConfig sghmc;          ///< momentum > 0: SGHMC, with online distillation
    CorrectionConfig correction;      ///< q on S (warm-started from S)
    CorrectionConfig correctionNoS;   ///< q on the stored predictive (warm-started from MAP)
    double maxRotationDegrees = 30.0;
    int calibrationCopies = 10;            ///< rotated copies of every training image in D'
    CostMatrix baseCosts;                  ///< C x C; the referral column is added per r

    static SelectiveConfig preset(const std::string& name, const ImageDataset& data);
};

/// setting: the referral cost.
struct SelectiveRow : ImageRunRow {
    RiskCoverage riskCoverage;  ///< of the method's class probabilities on the test set
};

struct SelectiveSummary {
    ImageMethod method = ImageMethod::Sghmc;
    double referralCost = 0;
    MeanStd cost, accuracy, referralRate, nll;
    int collapsed = 0;
    MeanStd aurc;  ///< area under the risk-coverage curve
};

/// Cumulative training time (first trial) after k cost functions, k = 1..K: ours
/// distils S once and trains one q per cost; ours_no_s samples once and trains q per
/// cost; LC-SGHMC samples a new chain per cost.
struct TrainingTimePoint {
    int costFunctions = 0;
    double ours = 0, oursNoS = 0, lcSghmc = 0;  ///< seconds; 0 when the method did not run
};

struct SelectiveResult {
    RunRecord record;           ///< costs (the base matrix), the swept referral costs, settings and seed
    std::string dataset;
    std::string model;
    std::vector<SelectiveRow> rows;
    std::vector<SelectiveSummary> summary;
    std::vector<TrainingTimePoint> trainingTime;
    int trials = 0;
    uint64_t seed = 0;
    double seconds = 0;
    double samplingSeconds = 0;   ///< SGHMC + S, first trial
    std::vector<DecisionComparison> comparisons;  ///< SGHMC vs ours, per (r, trial); rate = r
    std::shared_ptr<const CorrectionCache> cache; ///< the last trial's S, for re-correction
};

/// The cost matrix for referral cost r: baseCosts with a referral column of cost r.
CostMatrix selectiveCosts(const CostMatrix& base, double referralCost);

SelectiveResult runSelectiveExperiment(const ImageDataset& data, const SelectiveConfig& config, const JobContext& ctx);

std::string selectiveTable(const SelectiveResult& result);
/// The preset for `data` with the user's choices applied (the CLI and the window alike).
SelectiveConfig selectiveConfigFor(const ImageRunChoices& choices, const ImageDataset& data);

/// The networks a run trains, in order, each weighted by its share of the work, for one
/// progress fraction over the whole run.
TaskPlan selectivePlan(const SelectiveConfig& config);

/// The results: the run record, the long table (CSV: one row per (referral cost, trial,
/// method) with AURC), "summary", "runs", "training_time", "risk_coverage", the held-out
/// evidence, the table and every run's reliability diagram.
ExperimentOutput selectiveOutput(const SelectiveResult& result);
/// Every run's risk-coverage curve: one row per (referral cost, trial, method, coverage).
std::string riskCoverageCsv(const SelectiveResult& result);

} // namespace lcs
