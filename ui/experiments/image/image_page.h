#pragma once

#include <QTableWidget>
#include <QWidget>

#include "ui/experiments/image/image_types.h"

class QComboBox;
class QCustomPlot;
class QLabel;
class QScrollArea;

namespace lcs::ui {

class ConfusionPlot;
class EvidencePanel;
class EpochCurvePlot;
class GalleryView;
class SummaryPlot;
class TrainingTimePlot;
class RiskCoveragePlot;
class ReliabilityView;
class SideBySideOrTabs;

/// The central page of the image experiments: live curves, cost and accuracy vs rate or
/// referral cost, confusion matrices, training time vs number of cost functions, and the
/// gallery of changed decisions, with selectors for the run and the comparison shown.
class ImageResultsPage : public QWidget {
    Q_OBJECT
public:
    explicit ImageResultsPage(QWidget* parent = nullptr);

    /// Clears every view for a new run of `experiment`.
    void startRun(const QString& experiment);
    /// Shows the views `experiment` fills, and only those.
    void showViewsOf(const QString& experiment);
    /// Drops the previous re-correction's curve before a new one trains.
    void startRecorrection();

    EpochCurvePlot* curves() const { return m_curves; }
    ConfusionPlot* confusion() const { return m_confusion; }
    EvidencePanel* evidence() const { return m_evidence; }
    GalleryView* gallery() const { return m_gallery; }
    SummaryPlot* summary() const { return m_summary; }
    TrainingTimePlot* trainingTime() const { return m_time; }
    ReliabilityView* reliability() const { return m_reliability; }
    QList<QCustomPlot*> plots() const;
    const QVector<ComparisonView>& comparisons() const { return m_comparisons; }

public Q_SLOTS:
    void addEpochPoints(const QVector<lcs::ui::EpochPoint>& points);
    void addTrainingPoints(const QVector<lcs::ui::TrainingPoint>& points);
    /// A re-correction replaces the earlier re-correction of the same run; the newest
    /// comparison is shown.
    void addComparison(const lcs::ui::ComparisonView& view);
    void setSummary(const lcs::ui::SummaryView& view);
    void setTrainingTime(const lcs::ui::TrainingTimeView& view);
    void setRiskCoverage(const lcs::ui::RiskCoverageView& view);

private:
    void showComparison(int index);

    QString m_experiment;
    EpochCurvePlot* m_curves = nullptr;
    ConfusionPlot* m_confusion = nullptr;
    EvidencePanel* m_evidence = nullptr;
    GalleryView* m_gallery = nullptr;
    QScrollArea* m_galleryScroll = nullptr;
    SummaryPlot* m_summary = nullptr;
    TrainingTimePlot* m_time = nullptr;
    RiskCoveragePlot* m_riskCoverage = nullptr;
    ReliabilityView* m_reliability = nullptr;
    SideBySideOrTabs* m_bottom = nullptr;  ///< the decisions' views, some of them selective classification's
    QComboBox* m_runBox = nullptr;
    QComboBox* m_comparisonBox = nullptr;
    QVector<ComparisonView> m_comparisons;
};

/// The image experiments' summary as a table (method, rate or r, cost, accuracy,
/// referral rate, mean ± std), for the results dock.
class ImageSummaryTable : public QTableWidget {
    Q_OBJECT
public:
    explicit ImageSummaryTable(QWidget* parent = nullptr);
    void setSummary(const SummaryView& view);
    void clearRows();
};

} // namespace lcs::ui
