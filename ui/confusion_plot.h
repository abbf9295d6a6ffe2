#pragma once

#include <QVector>

#include "ui/comparison_view.h"
#include "ui/plot_parts.h"

class QCPAxisRect;
class QCPColorMap;
class QCPTextElement;

/// The confusion matrices of two decision rules on the same rows and their difference:
/// the image pages' comparison view and the decisions view of the tables' pages.
namespace lcs::ui {

/// Confusion-matrix cells as the heat maps show them: rows = true class, columns =
/// decision, row-major; `difference` = corrected - uncorrected.
struct ConfusionCells {
    int rows = 0, columns = 0;
    QVector<double> uncorrected, corrected, difference;
};
/// Throws nothing; a view whose counts do not fill rows x columns gives empty cells.
ConfusionCells confusionCells(const ComparisonView& view);

/// Confusion matrices uncorrected | corrected | difference as heat maps with the class
/// names on the axes and each cell's count written in it.
class ConfusionPlot : public PlotView {
    Q_OBJECT
public:
    explicit ConfusionPlot(QWidget* parent = nullptr);
    void setComparison(const ComparisonView& view);
    void clear();

    QCPColorMap* map(int panel) const { return m_maps[panel]; }
    /// The value drawn at (true class, decision) of panel 0 (uncorrected), 1
    /// (corrected) or 2 (difference), read back from the colour map.
    double shownCell(int panel, int trueClass, int decision) const;
    /// Tick labels of a panel's x axis (decisions) and of the first panel's y axis (classes).
    QStringList decisionLabels(int panel) const;
    QStringList classLabels() const;

private:
    QCPAxisRect* m_rects[3] = {};
    QCPColorMap* m_maps[3] = {};
    QCPTextElement* m_titles[3] = {};
    QCPTextElement* m_header = nullptr;
};

} // namespace lcs::ui
