#include "ui/sweep/sweep_view.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSignalBlocker>
#include <QSplitter>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>

#include "base/core/input_error.h"
#include "base/sweep/sweep_collect.h"
#include "base/sweep/sweep_runner.h"
#include "engine/experiments/experiment.h"
#include "ui/method_style.h"
#include "ui/plot_parts.h"
#include "ui/qcustomplot_compat.h"

namespace lcs::ui {

struct SweepView::Data {
    SweepManifest manifest;
    std::vector<CellStatus> cells;
    SweepTable table;
    bool locked = false;  ///< a `sweep run` holds the folder: "running" is believed
    std::string states;   ///< the cells' states when the table was last collected
};

namespace {

constexpr int kRefreshMs = 2000;

QString words(const std::string& name)
{
    return QString::fromStdString(name).replace(QLatin1Char('_'), QLatin1Char(' '));
}

/// A swept value as a number on an axis: a number, or a list of one (a rate of `rates`).
std::optional<double> axisNumber(const nlohmann::json& v)
{
    if (v.is_number())
        return v.get<double>();
    if (v.is_array() && v.size() == 1 && v[0].is_number())
        return v[0].get<double>();
    return std::nullopt;
}

QString stateText(const CellStatus& s, bool locked)
{
    switch (s.state) {
    case CellState::Done: return QStringLiteral("done");
    case CellState::Failed: return QStringLiteral("failed (exit %1)").arg(s.exitStatus);
    // A log without an end: running while a sweep run (or Slurm) holds it, else stopped.
    case CellState::Running: return locked ? QStringLiteral("running") : QStringLiteral("running or stopped");
    case CellState::Missing: return QStringLiteral("missing");
    }
    return {};
}

} // namespace

SweepView::SweepView(QWidget* parent) : QWidget(parent), m_data(std::make_shared<Data>())
{
    setObjectName(QStringLiteral("sweepView"));
    auto* layout = new QVBoxLayout(this);
    m_summary = new QLabel(this);
    m_summary->setObjectName(QStringLiteral("sweepSummary"));
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_summary);

    auto* split = new QSplitter(Qt::Horizontal, this);
    m_cells = new QTableWidget(split);
    m_cells->setObjectName(QStringLiteral("sweepCells"));
    m_cells->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_cells->verticalHeader()->hide();
    m_cells->horizontalHeader()->setStretchLastSection(true);

    auto* right = new QWidget(split);
    auto* rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(0, 0, 0, 0);
    auto* chooserRow = new QHBoxLayout;
    chooserRow->addWidget(new QLabel(tr("Metric (mean ± standard error):"), right));
    m_metric = new QComboBox(right);
    m_metric->setObjectName(QStringLiteral("sweepMetric"));
    chooserRow->addWidget(m_metric);
    chooserRow->addStretch(1);
    rightLayout->addLayout(chooserRow);
    auto* plotHolder = new QWidget(right);
    m_plot = makePlot(plotHolder, QStringLiteral("sweepPlot"), 260);
    rightLayout->addWidget(plotHolder, 1);
    split->addWidget(m_cells);
    split->addWidget(right);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 3);
    layout->addWidget(split, 1);

    connect(m_metric, &QComboBox::currentTextChanged, this, [this] { plotMetric(); });
    m_refresh.setInterval(kRefreshMs);
    connect(&m_refresh, &QTimer::timeout, this, &SweepView::refresh);
}

QString SweepView::open(const QString& dir)
{
    SweepManifest manifest;
    try {
        manifest = loadSweepManifest(dir.toStdString(), sessionCatalogue());
    } catch (const std::exception& e) {
        return QString::fromStdString(e.what());
    }
    m_dir = dir;
    m_experiment = QString::fromStdString(manifest.experiment);
    m_data->manifest = std::move(manifest);
    m_data->states.clear();
    refresh();
    return {};
}

void SweepView::refresh()
{
    auto& d = *m_data;
    const std::string dir = m_dir.toStdString();
    d.cells.clear();
    for (const auto& cell : d.manifest.cells)
        d.cells.push_back(cellStatus(dir, cell.id));
    d.locked = sweepIsLocked(dir);
    // The results are read again only when a cell's state changed: a running sweep's
    // refresh costs a look at each cell's files, not a parse of every results file.
    std::string states;
    for (const auto& c : d.cells)
        states += std::to_string(static_cast<int>(c.state)) + ":" + std::to_string(c.exitStatus) + ",";
    if (states != d.states) {
        d.states = states;
        m_problem.clear();
        try {
            d.table = collectSweep(dir, d.manifest);
        } catch (const std::exception& e) {
            m_problem = QString::fromStdString(e.what());
            d.table = SweepTable{};
        }
    }

    std::map<CellState, int> counts;
    for (const auto& c : d.cells)
        ++counts[c.state];
    QString axes;
    for (const auto& a : d.manifest.axes)
        axes += (axes.isEmpty() ? QString() : QStringLiteral(" x ")) +
                QStringLiteral("%1 %2").arg(a.values.size()).arg(QString::fromStdString(a.name));
    m_summary->setText(tr("Sweep %1: %2, %3 cells (%4). Done %5, running %6, failed %7, missing %8.%9")
                           .arg(m_dir, m_experiment)
                           .arg(d.cells.size())
                           .arg(axes)
                           .arg(counts[CellState::Done])
                           .arg(counts[CellState::Running])
                           .arg(counts[CellState::Failed])
                           .arg(counts[CellState::Missing])
                           .arg(m_problem.isEmpty() ? QString() : tr(" Results not merged: %1").arg(m_problem)));

    QStringList headers{tr("Cell")};
    for (const auto& a : d.manifest.axes)
        headers << QString::fromStdString(a.name);
    headers << tr("State") << tr("Log");
    m_cells->setColumnCount(headers.size());
    m_cells->setHorizontalHeaderLabels(headers);
    m_cells->setRowCount(static_cast<int>(d.cells.size()));
    for (size_t i = 0; i < d.cells.size(); ++i) {
        const auto& cell = d.manifest.cells[i];
        int column = 0;
        auto put = [&](const QString& text) { m_cells->setItem(static_cast<int>(i), column++, new QTableWidgetItem(text)); };
        put(QString::number(cell.id));
        for (const auto& a : d.manifest.axes)
            put(QString::fromStdString(sweepValueText(cell.values.at(a.name))));
        put(stateText(d.cells[i], d.locked));
        put(d.cells[i].state == CellState::Missing ? QString()
                                                   : QStringLiteral("logs/%1.log")
                                                         .arg(QString::fromStdString(sweep_paths::cellName(cell.id))));
    }
    m_cells->resizeColumnsToContents();

    QStringList metrics;
    for (const auto& row : d.table.rows)
        if (!metrics.contains(QString::fromStdString(row.metric)))
            metrics << QString::fromStdString(row.metric);
    const QString current = m_metric->currentText().isEmpty() ? QStringLiteral("cost") : m_metric->currentText();
    {
        const QSignalBlocker block(m_metric);
        m_metric->clear();
        m_metric->addItems(metrics);
        m_metric->setCurrentIndex(std::max<int>(0, static_cast<int>(metrics.indexOf(current))));
    }
    plotMetric();
    if (counts[CellState::Done] < static_cast<int>(d.cells.size()))
        m_refresh.start();
    else
        m_refresh.stop();
}

namespace {

/// One line of the sweep figure: a (method, rule, other swept values), its points
/// sorted by x.
struct SweepSeries {
    std::string method, rule;
    QString label;
    QString tick;  ///< the label on the x axis when the methods stand side by side
    QVector<double> keys, values, errors;
};

/// x: the setting a run varies inside itself, else the first numeric swept setting,
/// else none (the methods side by side).
std::string sweepXAxis(const SweepTable& table)
{
    if (!table.setting.empty() || table.rows.empty())
        return table.setting;
    for (const auto& axis : table.axes) {
        bool numeric = true;
        for (const auto& row : table.rows)
            numeric = numeric && axisNumber(row.axisValues.at(axis)).has_value();
        if (numeric)
            return axis;
    }
    return {};
}

/// The table's rows of `metric` as series against `x`.
std::vector<SweepSeries> sweepSeries(const SweepTable& table, const std::string& metric, const std::string& x)
{
    std::vector<SweepSeries> series;
    for (const auto& row : table.rows) {
        if (row.metric != metric)
            continue;
        // The other swept settings tell series apart ("SGLD + S, width 8").
        QString others;
        for (const auto& axis : table.axes)
            if (axis != x)
                others += QStringLiteral(", %1 %2").arg(words(axis), QString::fromStdString(sweepValueText(row.axisValues.at(axis))));
        const QString method = methodLabelOf(QString::fromStdString(row.method));
        const QString rule = QString::fromStdString(row.rule);
        const QString label = method + (rule.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(rule)) + others;
        auto it = std::find_if(series.begin(), series.end(), [&](const SweepSeries& s) { return s.label == label; });
        if (it == series.end()) {
            // The rule on a line of its own under the method: one method's rules side by side.
            const QString tick = method + (rule.isEmpty() ? QString() : QStringLiteral("\n") + rule) + others;
            series.push_back({row.method, row.rule, label, tick, {}, {}, {}});
            it = series.end() - 1;
        }
        double key = static_cast<double>(it - series.begin());
        if (x == table.setting && row.settingValue)
            key = *row.settingValue;
        else if (!x.empty())
            key = axisNumber(row.axisValues.at(x)).value_or(0);
        it->keys << key;
        it->values << row.stats.mean;
        it->errors << (std::isfinite(row.stats.standardError) ? row.stats.standardError : 0.0);
    }
    for (auto& s : series) {
        // Sorted by x, errors with their points.
        std::vector<int> order(static_cast<size_t>(s.keys.size()));
        for (size_t k = 0; k < order.size(); ++k)
            order[k] = static_cast<int>(k);
        std::sort(order.begin(), order.end(), [&](int a, int b) { return s.keys[a] < s.keys[b]; });
        QVector<double> keys, values, errors;
        for (int k : order) {
            keys << s.keys[k];
            values << s.values[k];
            errors << s.errors[k];
        }
        s.keys = keys;
        s.values = values;
        s.errors = errors;
    }
    return series;
}

} // namespace

void SweepView::plotMetric()
{
    const auto& table = m_data->table;
    const std::string metric = m_metric->currentText().toStdString();
    const std::string x = sweepXAxis(table);
    m_xName = x.empty() ? QStringLiteral("method") : QString::fromStdString(x);
    const auto series = sweepSeries(table, metric, x);

    m_plot->clearPlottables();
    m_plot->plotLayout()->clear();
    auto* legend = makeLegend(m_plot, 0, 4);
    legend->setFont(QFont("sans", 8));  // the axis labels' size: a legend is read as closely
    auto* rect = makeRect(m_plot);
    m_plot->plotLayout()->addElement(1, 0, rect);
    auto* xAxis = rect->axis(QCPAxis::atBottom);
    auto* yAxis = rect->axis(QCPAxis::atLeft);
    // The paired difference (uncorrected minus corrected, per run) is another quantity
    // than the cost itself: its own axis on the right, its own line style.
    auto* diffAxis = rect->axis(QCPAxis::atRight);
    xAxis->setLabel(x.empty() ? tr("method") : words(x));
    yAxis->setLabel(tr("%1 (mean ± s.e.)").arg(words(metric)));
    QSharedPointer<QCPAxisTickerText> methodTicks;
    if (x.empty()) {
        methodTicks.reset(new QCPAxisTickerText);
        xAxis->setTicker(methodTicks);
    }
    // A setting declared log-scaled (learning rates, widths) on a log axis.
    bool logX = false;
    if (!x.empty() && x != table.setting)
        if (const auto* experiment = ExperimentRegistry::global().find(m_experiment.toStdString()))
            for (const auto& spec : experiment->settings())
                logX |= spec.name == x && spec.logScale;
    struct Range {
        double lo = 1e300, hi = -1e300;
        void add(double v) { lo = std::min(lo, v), hi = std::max(hi, v); }
        bool empty() const { return lo > hi; }
    };
    Range keys, values, diffs;
    for (const auto& s : series)
        for (double k : s.keys)
            logX &= k > 0;
    for (size_t i = 0; i < series.size(); ++i) {
        const auto& s = series[i];
        const bool diff = s.rule == "paired_diff";
        for (int k = 0; k < s.keys.size(); ++k) {
            keys.add(s.keys[k]);
            (diff ? diffs : values).add(s.values[k] - s.errors[k]);
            (diff ? diffs : values).add(s.values[k] + s.errors[k]);
        }
        const QString method = QString::fromStdString(s.method);
        const QColor colour = methodColourOf(methodIn(method, m_experiment));
        auto* valueAxis = diff ? diffAxis : yAxis;
        auto* graph = new QCPGraph(xAxis, valueAxis);
        graph->setName(diff ? tr("%1 (right axis)").arg(s.label) : s.label);
        graph->setData(s.keys, s.values, /*alreadySorted=*/true);
        QPen pen(colour, 1.6);
        if (s.rule == "uncorrected")
            pen.setStyle(Qt::DashLine);
        if (diff)
            pen.setStyle(Qt::DotLine);
        graph->setPen(pen);
        graph->setLineStyle(x.empty() ? QCPGraph::lsNone : QCPGraph::lsLine);
        graph->setScatterStyle(diff ? QCPScatterStyle(QCPScatterStyle::ssTriangle, colour, Qt::white, 8)
                                    : QCPScatterStyle(QCPScatterStyle::ssDisc, colour, colour, 6));
        markMethod(graph, method);
        auto* bars = new QCPErrorBars(xAxis, valueAxis);
        bars->setDataPlottable(graph);
        bars->setData(s.errors);
        bars->setPen(QPen(colour, 1.2));
        bars->setWhiskerWidth(8);
        markMethod(bars, method);
        legend->addItem(new QCPPlottableLegendItem(legend, graph));
        if (methodTicks)
            methodTicks->addTick(static_cast<double>(i), s.tick);
    }
    diffAxis->setVisible(!diffs.empty());
    if (!diffs.empty()) {
        diffAxis->setLabel(tr("paired difference, uncorrected − corrected (right; ▵, dotted)"));
        diffs.add(0);  // zero, where the correction neither helps nor hurts, is always shown
        const double pad = diffs.hi > diffs.lo ? 0.08 * (diffs.hi - diffs.lo) : 0.01;
        diffAxis->setRange(diffs.lo - pad, diffs.hi + pad);
    }
    if (logX) {
        xAxis->setScaleType(QCPAxis::stLogarithmic);
        xAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
        xAxis->setLabel(tr("%1 (log scale)").arg(words(x)));
        const double factor = keys.hi > keys.lo ? std::pow(keys.hi / keys.lo, 0.06) : 2.0;
        xAxis->setRange(keys.lo / factor, keys.hi * factor);
    } else if (!keys.empty()) {
        const double xPad = keys.hi > keys.lo ? 0.06 * (keys.hi - keys.lo) : 0.5;
        xAxis->setRange(keys.lo - xPad, keys.hi + xPad);
    }
    if (!values.empty()) {
        const double yPad = values.hi > values.lo ? 0.08 * (values.hi - values.lo)
                                                  : std::max(0.01, std::abs(values.hi) * 0.1);
        yAxis->setRange(values.lo - yPad, values.hi + yPad);
    }
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

} // namespace lcs::ui
