#pragma once

#include <QImage>
#include <QMetaType>
#include <QPair>
#include <QString>
#include <QStringList>
#include <QVector>

#include <nlohmann/json.hpp>

#include "base/decision/cost_matrix.h"
#include "engine/decision/correction_evidence.h"
#include "engine/experiments/experiment_names.h"

/// Plain data of the image experiments (label corruption, selective classification)
/// that crosses from the job thread to the GUI thread: copied by value, no tensors, and
/// every QImage owns its pixels (never a view of a tensor's memory).
namespace lcs::ui {

/// An image run as the window asks for it: the experiment (kCorruptionExperiment or
/// kSelectiveExperiment) and its declared settings, checked (name -> value).
struct ImageRunRequest {
    QString experiment;
    nlohmann::json settings;

    bool isSelective() const { return experiment == QLatin1String(kSelectiveExperiment); }
};

/// An exported image classifier to decide the test images of the data `data` names with
/// (File > Open Model).
struct ImageModelRequest {
    QString path;          ///< the model file (.pt, its sidecar beside it)
    ImageRunRequest data;  ///< the page's experiment and settings: the data as a run loads it
};

/// What the worker loaded, and the cost matrix the run decides with (class names from
/// the data; for selective classification the base C x C matrix).
struct ImageDataInfo {
    QString experiment;
    QString name;
    QStringList classNames;
    QString inputShape;  ///< "1 x 28 x 28"
    qint64 trainCount = 0, testCount = 0;
    QString model;       ///< "mlp 784-200-10"
    CostMatrix costs;
};

/// Curve name of the q that a re-correction trains (it joins the cached run's curves).
inline constexpr const char* kRecorrectedSeries = "ours, re-corrected";

/// The test set's decision cost, accuracy and NLL of one network after an epoch
/// (engine Progress::test).
struct EpochPoint {
    QString run;     ///< "rate 0.5, trial 1"
    QString series;  ///< the network: "map", "sgld_s", "ours", "lc_sgld", "cw_sgd", ...
    int epoch = 0;
    double cost = 0, accuracy = 0, nll = 0;
};

/// A training-phase figure as the engine reports it (every 50 steps).
struct TrainingPoint {
    QString run;     ///< "rate 0.5, trial 1" or "trial 1"
    QString series;  ///< the phase within the run: "map", "sgld + S", "ours, r 0.1", ...
    QString scalar;  ///< "loss", "nll", "student", "kl", "expected_cost"
    qint64 step = 0;
    double value = 0;
};

/// One test image whose decision the correction changed.
struct GalleryItem {
    qint64 index = 0;         ///< row of the test set
    int label = 0;
    int before = 0, after = 0;  ///< decisions without / with the correction
    QVector<float> probsBefore, probsAfter;
    QImage image;             ///< un-standardised, owns its pixels; null when unavailable
};

/// Both decision rules on the test set of one run: confusion matrices and the changed
/// decisions.
struct ComparisonView {
    QString experiment;          ///< kCorruptionExperiment or kSelectiveExperiment
    double value = 0;            ///< corruption rate or referral cost
    int trial = 0;
    bool recorrected = false;    ///< from a re-correction after a cost edit
    QString uncorrectedLabel;    ///< "SGLD + S", "SGHMC", "S (student)"
    QString uncorrectedMethod;   ///< its catalogue id ("sgld_s", "sghmc"): the colour it is drawn in
    QString correctedLabel;      ///< "Ours (q on S)"
    QStringList classNames;      ///< C rows
    QStringList decisionNames;   ///< D columns (C, or C + 1 with "refer")
    QVector<qint64> before, after;  ///< [C x D] row-major counts, rows = true class
    double costBefore = 0, costAfter = 0;
    double accuracyBefore = 0, accuracyAfter = 0;
    double referralBefore = 0, referralAfter = 0;
    qint64 testCount = 0;
    qint64 changedCount = 0;     ///< all changed decisions; `changed` holds the first ones
    QVector<GalleryItem> changed;
    double seconds = 0;          ///< the re-correction's training time
    bool collapsed = false;
    /// The held-out evidence on the test set's scored half (P = the uncorrected rule),
    /// under `costs`; no rules when the test set was too small to split.
    CorrectionEvidence evidence;
    CostMatrix costs;
    /// Both rules' reliability diagrams and ECE on the whole test set.
    std::vector<ReliabilityBin> reliabilityBefore, reliabilityAfter;
    double eceBefore = 0, eceAfter = 0;

    int classes() const { return static_cast<int>(classNames.size()); }
    int decisions() const { return static_cast<int>(decisionNames.size()); }
    /// "rate 0.5, trial 1" / "r 0.1, trial 1"; for another experiment "replicate 0"
    QString title() const;
};

/// Mean ± std over trials of one method at one rate or referral cost.
struct SummaryPoint {
    QString method;  ///< engine name
    double x = 0;    ///< rate or referral cost
    double costMean = 0, costStd = 0;
    double accuracyMean = 0, accuracyStd = 0;
    double referralMean = 0, referralStd = 0;  ///< selective only
    int trials = 0;
    int collapsed = 0;
};

struct SummaryView {
    QString experiment;
    QString xLabel;  ///< "corruption rate" / "referral cost r"
    QVector<SummaryPoint> points;
};

/// Cumulative training seconds after k cost functions (selective classification).
struct CostFunctionTime {
    int costFunctions = 0;
    double ours = 0, oursNoS = 0, lcSghmc = 0;  ///< 0 when the method did not run
};
using TrainingTimeView = QVector<CostFunctionTime>;

/// Risk against coverage of every method of one run (selective classification).
struct RiskCoverageCurve {
    QString method;
    QVector<double> coverage, risk;
    double aurc = 0;
};
struct RiskCoverageView {
    double referralCost = 0;
    int trial = 0;
    QVector<RiskCoverageCurve> curves;
};

/// Display label of an image method or of the MAP network ("map"): "SGLD + S", ...
QString imageSeriesLabel(const QString& series);

} // namespace lcs::ui

Q_DECLARE_METATYPE(lcs::ui::ImageRunRequest)
Q_DECLARE_METATYPE(lcs::ui::ImageModelRequest)
Q_DECLARE_METATYPE(lcs::ui::ImageDataInfo)
Q_DECLARE_METATYPE(lcs::ui::EpochPoint)
Q_DECLARE_METATYPE(lcs::ui::TrainingPoint)
Q_DECLARE_METATYPE(lcs::ui::ComparisonView)
Q_DECLARE_METATYPE(lcs::ui::SummaryView)
Q_DECLARE_METATYPE(lcs::ui::CostFunctionTime)
Q_DECLARE_METATYPE(lcs::ui::RiskCoverageView)
