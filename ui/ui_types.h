#pragma once

#include <QMetaType>
#include <QPointF>
#include <QString>
#include <QStringList>
#include <QVector>

#include <limits>
#include <vector>

#include "base/decision/cost_matrix.h"
#include "engine/decision/correction_evidence.h"

/// Plain data that crosses from the job thread to the GUI thread. No tensors, no
/// engine objects with shared state: everything here is copied by value.
namespace lcs::ui {

struct JobProgress {
    QString phase;      ///< "sampling", "correcting", or an engine phase name
    QString detail;     ///< "replicate 3, bbvi"
    qint64 step = 0;    ///< within the current engine phase
    qint64 total = 0;
    double fraction = 0;  ///< of the whole job, 0..1
    QVector<QPair<QString, double>> figures;  ///< training figures of the latest report, for the status bar
};

/// Decisions over a regular grid, row-major, y outer.
struct RegionGrid {
    int resolution = 0;
    double xMin = 0, xMax = 0, yMin = 0, yMax = 0;
    int numDecisions = 0;  ///< the classes, plus 1 where the last decision is "refer"
    QVector<int> decisions;
    bool isValid() const { return resolution > 0 && decisions.size() == resolution * resolution; }
};

struct CurvePoint {
    int step = 0;
    double loss = 0, kl = 0, expectedCost = 0;
};

/// Everything needed to draw one (replicate, method): data, both decision rules on the
/// grid and on the test points, and the correction's curve so far.
struct TaskView {
    int replicate = 0;
    QString method;
    int numClasses = 2;  ///< decisions beyond the classes are "refer"
    QString xName = QStringLiteral("x1"), yName = QStringLiteral("x2");  ///< the plane's axes (a table's columns)
    QVector<QPointF> train, calibration, test;
    QVector<int> trainLabels, testLabels;
    QVector<int> testDecisionsUncorrected, testDecisionsCorrected;
    RegionGrid uncorrected, corrected;
    QVector<CurvePoint> curve;
    bool correctionDone = false;
    /// The test rows whose decision q changed (the first kShownChangedRows): the row of
    /// the test split, its features as the data gives them, P's and q's probabilities.
    struct ChangedRow {
        int row = 0;
        QVector<double> features, before, after;
    };
    static constexpr int kShownChangedRows = 500;
    QStringList featureNames;
    QVector<ChangedRow> changedRows;
    int changedCount = 0;  ///< all changed rows, shown or not
    /// On the test rows, where they have labels: P's and q's reliability diagrams and ECE.
    std::vector<ReliabilityBin> reliabilityUncorrected, reliabilityCorrected;
    double eceUncorrected = std::numeric_limits<double>::quiet_NaN();
    double eceCorrected = std::numeric_limits<double>::quiet_NaN();
};

/// One finished (replicate, method): the numbers of the paper's Table 2.
struct ResultRow {
    int replicate = 0;
    QString method;
    double uncorrectedCost = 0, correctedCost = 0;
    bool collapsed = false;  ///< q collapsed to one class: shown, but marked
    /// Held-out evidence, where the run had labels: the verdict sentence, and whether the
    /// interval says q is worse (shown in red, never hidden).
    QString verdict;
    bool worse = false;
};

} // namespace lcs::ui

Q_DECLARE_METATYPE(lcs::ui::JobProgress)
Q_DECLARE_METATYPE(lcs::ui::TaskView)
Q_DECLARE_METATYPE(lcs::ui::ResultRow)
Q_DECLARE_METATYPE(lcs::CostMatrix)
Q_DECLARE_METATYPE(lcs::CorrectionEvidence)
