#include "ui/results_table.h"

#include <QColor>

#include <QHeaderView>

#include "engine/experiments/synthetic/synthetic_experiment.h"
#include "ui/evidence_panel.h"
#include "ui/method_style.h"

namespace lcs::ui {

void fitColumnsToContents(QTableView* table)
{
    table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table->horizontalHeader()->setStretchLastSection(false);
}

ResultsTable::ResultsTable(QWidget* parent) : QTableWidget(parent)
{
    setObjectName("results_table");
    setColumnCount(5);
    setHorizontalHeaderLabels({tr("method"), tr("P"), tr("kept"), tr("diff"), tr("n")});
    const QStringList tips{tr("Inference method"), tr("Test decision cost of P (no correction), mean ± std"),
                           tr("Test decision cost of the rule each replicate kept on its validation rows (q, P or a "
                              "calibration of P; q itself without validation rows), mean ± std"),
                           tr("Average paired difference uncorrected - corrected ± its std (> 0: the correction helped)"),
                           tr("Replicates finished / requested")};
    for (int i = 0; i < tips.size(); ++i)
        horizontalHeaderItem(i)->setToolTip(tips[i]);
    fitColumnsToContents(this);
    verticalHeader()->hide();
    // Mean above, ± std below: five columns fit a 1366-pixel screen's results dock.
    verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    setWordWrap(true);
    setMinimumWidth(220);  // a narrow dock scrolls the five columns rather than widening the window
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    setToolTip(tr("Test decision cost, mean ± sample std over replicates; paired diff = uncorrected - corrected"));
}

void ResultsTable::reset(const QStringList& methods, int replicates, const QStringList& labels)
{
    m_methods = methods;
    m_labels = labels;
    m_replicates = replicates;
    m_rows.clear();
    refresh();
}

void ResultsTable::addRow(const ResultRow& row)
{
    // A re-correction replaces the earlier result of the same task.
    for (auto& r : m_rows)
        if (r.replicate == row.replicate && r.method == row.method) {
            r = row;
            refresh();
            return;
        }
    m_rows.push_back(row);
    refresh();
}

void ResultsTable::refresh()
{
    setRowCount(m_methods.size());
    for (int i = 0; i < m_methods.size(); ++i) {
        std::vector<double> u, c, d;
        int collapsed = 0, worse = 0;
        QStringList verdicts;
        for (const auto& r : m_rows)
            if (QString::fromStdString(r.method) == m_methods[i]) {
                collapsed += r.collapsed ? 1 : 0;
                worse += r.worse ? 1 : 0;
                if (!r.verdict.empty())
                    verdicts << QString::fromStdString(r.verdict);
                u.push_back(r.uncorrectedCost);
                c.push_back(r.correctedCost);
                d.push_back(r.uncorrectedCost - r.correctedCost);
            }
        const auto method = parseMethod(m_methods[i].toStdString());
        const QString label = method ? QString() : i < m_labels.size() ? m_labels[i] : m_methods[i];
        // One value has no spread to show.
        auto cell = [single = u.size() < 2](const MeanStd& m, int digits) {
            return single ? QString::number(m.mean, 'f', digits)
                          : QString("%1\n± %2").arg(m.mean, 0, 'f', digits).arg(m.std, 0, 'f', digits);
        };
        const bool any = !u.empty();
        setItem(i, 0, methodItem(m_methods[i], label));
        setItem(i, 1, new QTableWidgetItem(any ? cell(meanStd(u), 3) : QStringLiteral("–")));
        setItem(i, 2, new QTableWidgetItem(any ? cell(meanStd(c), 3) : QStringLiteral("–")));
        setItem(i, 3, new QTableWidgetItem(any ? cell(meanStd(d), 4) : QStringLiteral("–")));
        auto* done = new QTableWidgetItem(QString("%1 / %2").arg(u.size()).arg(m_replicates));
        if (collapsed > 0) {
            // A collapsed q (one class everywhere) is counted but flagged, never hidden.
            done->setText(done->text() + tr(" (%1 collapsed)").arg(collapsed));
            done->setForeground(worseColour());
            done->setToolTip(tr("q collapsed to one class in %1 replicate(s); see the log").arg(collapsed));
        }
        if (!verdicts.isEmpty()) {
            // The held-out verdict travels with the row: a worse q is red and says so.
            done->setToolTip(verdicts.join("\n"));
            if (worse > 0) {
                done->setText(done->text() + tr(" (q worse)"));
                done->setForeground(worseColour());
            }
        }
        setItem(i, 4, done);
    }
}

} // namespace lcs::ui
