#pragma once

#include <memory>

#include <QString>
#include <QTimer>
#include <QWidget>

class QComboBox;
class QCustomPlot;
class QLabel;
class QTableWidget;

namespace lcs::ui {

/// A sweep folder (lcstudio-cli sweep plan): each cell's state (done, running, failed,
/// missing) and the merged table's figure, a metric against the swept setting with the
/// standard error as error bars, one graph per method (and decision rule) in the method's
/// catalogue colour. Refreshes while cells are unfinished, so a running sweep shows its
/// progress. Reads files only: runs nothing.
class SweepView : public QWidget {
    Q_OBJECT
public:
    explicit SweepView(QWidget* parent = nullptr);

    /// Opens the sweep in `dir`; returns the problem (nothing shown changes) or empty.
    QString open(const QString& dir);
    /// Reads the cells' states and results again.
    void refresh();

    QString folder() const { return m_dir; }
    QTableWidget* cellTable() const { return m_cells; }
    QCustomPlot* plot() const { return m_plot; }
    QComboBox* metricChooser() const { return m_metric; }
    /// What the plot's x axis shows ("rate", "referral_cost", a swept setting, or "method").
    QString xAxisName() const { return m_xName; }
    /// The last problem reading results (a results file that is not one), or empty.
    QString resultsProblem() const { return m_problem; }

private:
    void plotMetric();

    QString m_dir;
    QString m_experiment;
    QString m_xName;
    QString m_problem;
    QLabel* m_summary = nullptr;
    QTableWidget* m_cells = nullptr;
    QComboBox* m_metric = nullptr;
    QCustomPlot* m_plot = nullptr;
    QTimer m_refresh;  ///< re-reads the folder while cells run
    struct Data;
    std::shared_ptr<Data> m_data;
};

} // namespace lcs::ui
