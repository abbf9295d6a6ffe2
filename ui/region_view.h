#pragma once

#include <QWidget>

#include "ui/ui_types.h"

class QCustomPlot;
class QCPColorMap;
class QCPItemText;
class QCPLegend;
class QCPAbstractPlottable;
class QGridLayout;

namespace lcs::ui {

/// Decision regions over the 2-D plane: uncorrected | corrected | where they differ,
/// with training, calibration and test points drawn as in the paper's Figure 1 (edge
/// colour = true class, face colour = decision). A controller around three QCustomPlots;
/// data arrives through setTask and is drawn with a queued replot.
class RegionView : public QWidget {
    Q_OBJECT
public:
    explicit RegionView(QWidget* parent = nullptr);

    void setTask(const TaskView& view, const QStringList& decisionNames);
    /// Places `widget` in the free fourth cell of the two-by-two grid (bottom right).
    void setCornerWidget(QWidget* widget);
    void clear();
    QList<QCustomPlot*> plots() const;

    /// Colour of a decision's region / marker face, and of a true class (marker edge):
    /// one colour per class, and one for "refer" (decision == numClasses).
    static QColor decisionColor(int decision, int numClasses, bool region);
    /// Hides the three panels (data that has no plane to draw: a table of other than two
    /// features); the corner widget then has the whole view.
    void setPlaneShown(bool shown);
    /// The axes' names (a table's two columns); "x1" and "x2" by default.
    void setAxisNames(const QString& x, const QString& y);

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    struct Panel {
        QCustomPlot* plot = nullptr;
        QCPColorMap* map = nullptr;
        /// Under the title, outside the data: what each colour and marker means.
        QCPLegend* legend = nullptr;
        QList<QCPAbstractPlottable*> legendKeys;  ///< data-less plottables the legend shows
        /// Before any task is shown: what the panel will show, in the middle of its axes.
        QCPItemText* placeholder = nullptr;
    };
    /// Fills a panel's legend: each decision's region colour ("refer" included), or for
    /// the difference panel "decisions differ" / "same decision", then the markers.
    /// Without regions (points only) the decisions are the points' fill colours, and the
    /// difference panel lists only the points q decides otherwise.
    void updateLegend(Panel& panel, bool difference, bool hasRegions, int numClasses, int numDecisions,
                      const QStringList& decisionNames, bool hasTraining, bool hasTest, bool hasUnlabelled);
    /// Two legend columns where the panel is wide enough for the longest item twice, else
    /// one: an item cut mid-word says nothing.
    static void fitLegendColumns(Panel& panel);
    Panel makePanel(const QString& title, const QString& objectName);
    /// Shows [xMin, xMax] x [yMin, yMax] at equal scales (the longer side's axis widened).
    static void showBox(QCustomPlot* plot, double xMin, double xMax, double yMin, double yMax);
    void drawPoints(Panel& panel, const TaskView& view, const std::vector<int>& decisions, int numDecisions,
                    const QStringList& decisionNames);
    void drawRegions(Panel& panel, const RegionGrid& grid, const RegionGrid* other, int numClasses);

    QGridLayout* m_grid = nullptr;
    Panel m_uncorrected, m_corrected, m_difference;
    /// What is on screen, to skip redrawing the parts a new snapshot leaves unchanged.
    struct Shown {
        bool valid = false;
        int replicate = -1;
        std::string method;
        std::vector<int> uncorrected, testUncorrected, testCorrected;
        QStringList decisionNames;
    } m_shown;
};

} // namespace lcs::ui
