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
#include "ui/comparison_view.h"

/// Plain data of the image experiments (label corruption, selective classification)
/// that crosses from the job thread to the GUI thread: copied by value, no tensors, and
/// every QImage owns its pixels (never a view of a tensor's memory).
namespace lcs::ui {

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

Q_DECLARE_METATYPE(lcs::ui::ImageDataInfo)
Q_DECLARE_METATYPE(lcs::ui::SummaryView)
Q_DECLARE_METATYPE(lcs::ui::RiskCoverageView)
