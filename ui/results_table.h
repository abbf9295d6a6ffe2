#pragma once

#include <QTableWidget>

#include "ui/ui_types.h"

class QTableView;

namespace lcs::ui {

/// Every column of a results table as wide as its widest cell and its header, none
/// stretched or squeezed to the dock: a narrow dock scrolls the table sideways rather
/// than clip a number (a stretched last column got the header's minimum when the others
/// had taken the width).
void fitColumnsToContents(QTableView* table);

/// The paper's Table 2, filling in as (replicate, method) results arrive: per method,
/// mean ± std of the test decision cost without and with correction, the average paired
/// difference and its std, and how many replicates are in.
class ResultsTable : public QTableWidget {
    Q_OBJECT
public:
    explicit ResultsTable(QWidget* parent = nullptr);
    /// `labels` name rows whose method is not in the catalogue (a user's predictive).
    void reset(const QStringList& methods, int replicates, const QStringList& labels = {});
    void addRow(const ResultRow& row);
    const QVector<ResultRow>& rows() const { return m_rows; }
    const QStringList& methods() const { return m_methods; }
    const QStringList& labels() const { return m_labels; }

private:
    void refresh();
    QStringList m_methods, m_labels;
    int m_replicates = 0;
    QVector<ResultRow> m_rows;
};

} // namespace lcs::ui
