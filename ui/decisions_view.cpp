#include "ui/decisions_view.h"

#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include "ui/comparison_view.h"
#include "ui/confusion_plot.h"

namespace lcs::ui {

namespace {

QString probabilities(const std::vector<double>& p)
{
    QStringList parts;
    for (double v : p)
        parts << QString::number(v, 'f', 3);
    return parts.join(QStringLiteral(", "));
}

} // namespace

DecisionsView::DecisionsView(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* split = new QSplitter(Qt::Vertical, this);
    m_confusion = new ConfusionPlot(split);
    auto* lower = new QWidget(split);
    auto* lowerLayout = new QVBoxLayout(lower);
    lowerLayout->setContentsMargins(4, 0, 4, 0);
    m_costPerClass = new QLabel(lower);
    m_costPerClass->setObjectName("cost_per_class");
    m_costPerClass->setWordWrap(true);
    m_changed = new QTableWidget(lower);
    m_changed->setObjectName("changed_decisions");
    m_changed->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_changed->verticalHeader()->setVisible(false);
    m_changed->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    lowerLayout->addWidget(m_costPerClass);
    lowerLayout->addWidget(m_changed, 1);
    split->addWidget(m_confusion);
    split->addWidget(lower);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    layout->addWidget(split);
    clear();
}

void DecisionsView::clear()
{
    m_confusion->clear();
    m_costPerClass->setText(tr("The test rows' decisions before and after q appear here when a task finishes."));
    m_changed->clear();
    m_changed->setRowCount(0);
    m_changed->setColumnCount(0);
}

void DecisionsView::setTask(const TaskView& view, const QString& methodLabel, const QStringList& decisionNames,
                            const CostMatrix& costs)
{
    const int n = static_cast<int>(view.testLabels.size());
    const int classes = view.numClasses, decisions = static_cast<int>(decisionNames.size());
    if (n == 0 || view.testDecisionsUncorrected.size() != size_t(n) || view.testDecisionsCorrected.size() != size_t(n) ||
        decisions < classes || costs.numClasses() != classes || costs.numDecisions() != decisions) {
        clear();
        return;
    }
    ComparisonView comparison;
    comparison.experiment = QStringLiteral("table");
    comparison.trial = view.replicate;
    comparison.uncorrectedLabel = tr("%1, uncorrected (P)").arg(methodLabel);
    comparison.correctedLabel = tr("%1, corrected (q)").arg(methodLabel);
    comparison.classNames = decisionNames.mid(0, classes);
    comparison.decisionNames = decisionNames;
    comparison.before.fill(0, classes * decisions);
    comparison.after.fill(0, classes * decisions);
    comparison.testCount = n;
    comparison.changedCount = view.changedCount;
    QVector<double> classCostBefore(classes, 0), classCostAfter(classes, 0), classRows(classes, 0);
    int rightBefore = 0, rightAfter = 0, decidedBefore = 0, decidedAfter = 0, referredBefore = 0, referredAfter = 0;
    for (int i = 0; i < n; ++i) {
        const int y = view.testLabels[i], b = view.testDecisionsUncorrected[i], a = view.testDecisionsCorrected[i];
        if (y < 0 || y >= classes || b < 0 || b >= decisions || a < 0 || a >= decisions) {
            clear();
            return;
        }
        ++comparison.before[y * decisions + b];
        ++comparison.after[y * decisions + a];
        classCostBefore[y] += costs.at(y, b);
        classCostAfter[y] += costs.at(y, a);
        ++classRows[y];
        comparison.costBefore += costs.at(y, b) / n;
        comparison.costAfter += costs.at(y, a) / n;
        (b < classes ? decidedBefore : referredBefore) += 1;
        (a < classes ? decidedAfter : referredAfter) += 1;
        rightBefore += b == y;
        rightAfter += a == y;
    }
    const double nan = std::numeric_limits<double>::quiet_NaN();
    comparison.accuracyBefore = decidedBefore ? double(rightBefore) / decidedBefore : nan;
    comparison.accuracyAfter = decidedAfter ? double(rightAfter) / decidedAfter : nan;
    comparison.referralBefore = double(referredBefore) / n;
    comparison.referralAfter = double(referredAfter) / n;
    m_confusion->setComparison(comparison);

    QStringList perClass;
    for (int y = 0; y < classes; ++y)
        if (classRows[y] > 0)
            perClass << tr("%1 %2 → %3 (%4 rows)")
                            .arg(comparison.classNames[y])
                            .arg(classCostBefore[y] / classRows[y], 0, 'f', 3)
                            .arg(classCostAfter[y] / classRows[y], 0, 'f', 3)
                            .arg(classRows[y]);
    m_costPerClass->setText(tr("Mean cost per true class, P → q: %1. Rows q decided differently: %2 of %3%4.")
                                .arg(perClass.join(QStringLiteral("; ")))
                                .arg(view.changedCount)
                                .arg(n)
                                .arg(view.changedCount > static_cast<int>(view.changedRows.size())
                                         ? tr(" (the first %1 listed)").arg(view.changedRows.size())
                                         : QString()));

    showChangedRows(view, decisionNames, costs);
}

/// The rows q decided differently: each with its truth, both decisions, both probability
/// vectors and its features; q's decision green where it is cheaper for that row, red
/// where it is dearer.
void DecisionsView::showChangedRows(const TaskView& view, const QStringList& decisionNames, const CostMatrix& costs)
{
    const int n = static_cast<int>(view.testLabels.size());
    QStringList headers{tr("test row"), tr("truth"), tr("P decides"), tr("q decides"), tr("P's probabilities"),
                        tr("q's probabilities")};
    for (const auto& name : view.featureNames)
        headers << QString::fromStdString(name);
    m_changed->clear();
    m_changed->setColumnCount(static_cast<int>(headers.size()));
    m_changed->setHorizontalHeaderLabels(headers);
    QVector<TaskView::ChangedRow> rows;
    for (const auto& row : view.changedRows)
        if (row.row >= 0 && row.row < n)
            rows << row;
    m_changed->setRowCount(static_cast<int>(rows.size()));
    const QColor better(0, 120, 60), worse(176, 0, 32);
    for (int r = 0; r < rows.size(); ++r) {
        const auto& row = rows[r];
        const int y = view.testLabels[row.row], b = view.testDecisionsUncorrected[row.row],
                  a = view.testDecisionsCorrected[row.row];
        const QStringList cells{QString::number(row.row), decisionNames[y], decisionNames[b], decisionNames[a],
                                probabilities(row.before), probabilities(row.after)};
        for (int c = 0; c < cells.size(); ++c)
            m_changed->setItem(r, c, new QTableWidgetItem(cells[c]));
        for (int j = 0; j < static_cast<int>(row.features.size()); ++j)
            m_changed->setItem(r, static_cast<int>(cells.size()) + j,
                               new QTableWidgetItem(QString::number(row.features[j], 'g', 6)));
        // q's decision cheaper than P's for this row: green; dearer: red.
        const double change = costs.at(y, a) - costs.at(y, b);
        if (change != 0)
            m_changed->item(r, 3)->setForeground(change < 0 ? better : worse);
        m_changed->item(r, 3)->setToolTip(tr("cost %1 → %2").arg(costs.at(y, b)).arg(costs.at(y, a)));
    }
}

} // namespace lcs::ui
