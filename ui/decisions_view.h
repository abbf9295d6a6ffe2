#pragma once

#include <QWidget>

#include "base/decision/cost_matrix.h"
#include "ui/ui_types.h"

class QLabel;
class QTableWidget;

namespace lcs::ui {

class ConfusionPlot;

/// What q changed on the test rows of one (replicate, method), for data of any number of
/// features: the confusion matrices before, after and their difference (the image
/// pages' view), the mean cost per true class before and after, and the changed rows as a
/// table (test row, truth, both decisions, both probability vectors, the features).
class DecisionsView : public QWidget {
    Q_OBJECT
public:
    explicit DecisionsView(QWidget* parent = nullptr);
    /// `decisionNames`: the classes, then "refer" where the matrix has it; `costs` the
    /// matrix both rules decided under. A task without labels or decisions clears it.
    void setTask(const TaskView& view, const QString& methodLabel, const QStringList& decisionNames,
                 const CostMatrix& costs);
    void clear();

    ConfusionPlot* confusion() const { return m_confusion; }
    QTableWidget* changedTable() const { return m_changed; }
    QLabel* costPerClass() const { return m_costPerClass; }

private:
    void showChangedRows(const TaskView& view, const QStringList& decisionNames, const CostMatrix& costs);

    ConfusionPlot* m_confusion = nullptr;
    QLabel* m_costPerClass = nullptr;
    QTableWidget* m_changed = nullptr;
};

} // namespace lcs::ui
