#pragma once

#include <QMap>
#include <QPen>
#include <QSharedPointer>
#include <QWidget>

#include "ui/confusion_plot.h"
#include "ui/experiments/image/image_types.h"
#include "ui/plot_parts.h"

class QCustomPlot;
class QCPAxisRect;
class QCPColorMap;
class QCPErrorBars;
class QCPAxisTicker;
class QCPGraph;
class QCPLegend;
class QCPTextElement;
class QPainter;

/// The image experiments' views. Each is a small controller around one QCustomPlot (or,
/// for the gallery, a painted widget): data arrives through setters on the GUI thread
/// and is drawn with a queued replot; every view exports to PNG / SVG / PDF from its
/// right-click menu.
namespace lcs::ui {

/// Curves while a run trains. Label corruption: the test set's decision cost, accuracy
/// and NLL of every network after each epoch (one line per network), and the training
/// losses the phases report. Selective classification (no per-epoch test figures): the
/// training NLL of MAP, SGHMC and the student, and the correction's KL, expected cost
/// and loss on D' for every referral cost.
class EpochCurvePlot : public PlotView {
    Q_OBJECT
public:
    explicit EpochCurvePlot(QWidget* parent = nullptr);

    enum Panel { TopLeft, TopRight, BottomLeft, BottomRight };
    void setExperiment(const QString& experiment);
    void clear();
    void addEpochPoints(const QVector<EpochPoint>& points);
    void addTrainingPoints(const QVector<TrainingPoint>& points);
    /// Forgets a series in every run (a re-correction replaces the previous one's curve).
    void removeSeries(const QString& series);
    /// Runs seen so far ("rate 0.5, trial 1"), in order of arrival.
    QStringList runs() const { return m_runs; }
    /// Shows one run ("" = follow the latest).
    void showRun(const QString& run);
    QString shownRun() const;

    /// The graph of `series` in `panel` for the shown run; null when absent.
    QCPGraph* graph(Panel panel, const QString& series) const;

Q_SIGNALS:
    void runsChanged(const QStringList& runs);

private:
    struct Series {
        QVector<double> x, y;
    };
    using RunData = QMap<QString, Series>;  ///< key: series name
    /// Panel of a training scalar in the current experiment, or -1 when not shown.
    int panelOf(const TrainingPoint& p) const;
    void noteRun(const QString& run);
    void rebuild();
    QPen penFor(const QString& series, const QString& name);

    QCPLegend* m_legend = nullptr;
    QCPAxisRect* m_rects[4] = {};
    QCPTextElement* m_titles[4] = {};
    QSharedPointer<QCPAxisTicker> m_epochTicker, m_stepTicker;
    QString m_experiment;
    QMap<QString, QPen> m_pens;          ///< by display name, so every panel agrees
    QMap<QString, int> m_phases;         ///< per method: line styles handed out so far
    QStringList m_runs;
    QString m_chosenRun;  ///< empty: follow the latest
    QMap<QString, RunData> m_data[4];  ///< per panel: run -> series -> points
    QMap<QString, QCPGraph*> m_graphs[4];
};

/// Test images whose decision the correction changed: the image, its true class, both
/// decisions, and the two probability vectors as small bar charts (uncorrected grey,
/// corrected orange; the true class's bars outlined). A green frame marks a decision
/// the correction made right, a red one a decision it made wrong.
class GalleryView : public QWidget {
    Q_OBJECT
public:
    explicit GalleryView(QWidget* parent = nullptr);
    void setComparison(const ComparisonView& view);
    void clear();

    const QVector<GalleryItem>& items() const { return m_view.changed; }
    /// "#12 true Sandal: SGLD + S Sneaker -> Ours Sandal"
    QString caption(int item) const;
    QString header() const;
    /// Paints the whole gallery at `width` (for export) and the height it needs.
    void paintGallery(QPainter& painter, int width) const;
    int heightForWidth(int width) const override;
    bool hasHeightForWidth() const override { return true; }
    QSize sizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    int columnsFor(int width) const;
    /// The header's height at `width`: as many lines as its words need.
    int headerHeightFor(int width) const;
    static QFont headerFont();
    ComparisonView m_view;
};

/// Decision cost and accuracy against the corruption rate or referral cost, one line per
/// method, mean ± std over trials as error bars.
class SummaryPlot : public PlotView {
    Q_OBJECT
public:
    explicit SummaryPlot(QWidget* parent = nullptr);
    void setSummary(const SummaryView& view);
    void clear();

    /// panel 0 = cost, 1 = accuracy; null when the method is absent.
    QCPGraph* graph(int panel, const QString& method) const;
    QCPErrorBars* errorBars(int panel, const QString& method) const;

private:
    QCPAxisRect* m_rects[2] = {};
    QCPTextElement* m_title = nullptr;
    QCPLegend* m_legend = nullptr;
    QMap<QString, QCPGraph*> m_graphs[2];
    QMap<QString, QCPErrorBars*> m_bars[2];
};

/// A plot of one axis rect with a legend that says in the rect's middle why it is empty
/// (the view belongs to the other experiment; nothing has run yet).
class NotedPlot : public PlotView {
    Q_OBJECT
public:
    /// Empties the plot and its legend and shows `note` (none when empty).
    virtual void clear(const QString& note = QString());

protected:
    /// `title` above the rect, the legend below it (`legendColumns` wide), the note inside.
    NotedPlot(const QString& name, const QString& title, int legendColumns, QWidget* parent);
    QCPAxisRect* rect() const;
    QCPTextElement* m_title = nullptr;
    QCPLegend* m_legend = nullptr;
    QCPTextElement* m_note = nullptr;
};

/// Cumulative training time against the number of cost functions: ours (S once, q per
/// cost), ours without S, and LC-SGHMC (a new chain per cost).
class TrainingTimePlot : public NotedPlot {
    Q_OBJECT
public:
    explicit TrainingTimePlot(QWidget* parent = nullptr);
    void setTimes(const TrainingTimeView& view);
};

/// Risk against coverage (selective classification): each method's error rate on its
/// most confident inputs, as coverage grows; the legend gives each curve's area (AURC).
class RiskCoveragePlot : public NotedPlot {
    Q_OBJECT
public:
    explicit RiskCoveragePlot(QWidget* parent = nullptr);
    void setCurves(const RiskCoverageView& view);
    void clear(const QString& note = QString()) override;
};

} // namespace lcs::ui
