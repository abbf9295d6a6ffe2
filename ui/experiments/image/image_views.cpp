#include "ui/experiments/image/image_views.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

#include <QEvent>
#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>
#include <QVBoxLayout>

#include "ui/qcustomplot_compat.h"

#include "base/inference/method_catalog.h"
#include "ui/method_style.h"
#include "ui/plot_export.h"
#include "ui/plot_parts.h"

namespace lcs::ui {

namespace {


/// The network a training phase trains ("sgld + S" -> "sgld_s", "ours, r 0.1" -> "ours").
QString baseSeries(const QString& series)
{
    static const QList<QPair<QString, QString>> prefixes{
        {QStringLiteral("sgld + S"), QStringLiteral("sgld_s")}, {QStringLiteral("sghmc + S"), QStringLiteral("sghmc_s")},
        {QStringLiteral("ours (no S)"), QStringLiteral("ours_no_s")}, {QStringLiteral("lc-sgld"), QStringLiteral("lc_sgld")},
        {QStringLiteral("lc-sghmc"), QStringLiteral("lc_sghmc")}, {QStringLiteral("cw-sgd"), QStringLiteral("cw_sgd")},
        {QStringLiteral("ours"), QStringLiteral("ours")}, {QStringLiteral("map"), QStringLiteral("map")}};
    for (auto m : allImageMethods())
        if (series == QString::fromStdString(imageMethodName(m)))
            return series;  // a method's own name ("ours_no_s" is not a phase of "ours")
    for (const auto& [prefix, base] : prefixes)
        if (series.startsWith(prefix))
            return base;
    return series;
}

/// The catalogue method whose label and colour a series of `experiment` takes.
QString seriesMethod(const QString& series, const QString& experiment)
{
    return methodIn(baseSeries(series), experiment);
}

/// "sgld + S" -> "SGLD + S", "ours, r 0.1" -> "Ours (q on S), r 0.1": the method's label
/// and what the phase adds to its name.
QString displayName(const QString& series, const QString& experiment)
{
    static const QStringList prefixes{QStringLiteral("sgld + S"), QStringLiteral("sghmc + S"),
                                      QStringLiteral("ours (no S)"), QStringLiteral("lc-sgld"),
                                      QStringLiteral("lc-sghmc"), QStringLiteral("cw-sgd"), QStringLiteral("ours"),
                                      QStringLiteral("map")};
    const QString method = seriesMethod(series, experiment);
    for (const QString& prefix : prefixes)
        if (series.startsWith(prefix) && series != method)
            return imageSeriesLabel(method) + series.mid(prefix.size());
    return imageSeriesLabel(method);
}

/// A method's line in its one colour; `style` tells its phases apart.
QPen methodPen(QObject* drawn, const QString& method, Qt::PenStyle style = Qt::SolidLine)
{
    markMethod(drawn, method);
    return QPen(methodColourOf(method), 1.8, style);
}

} // namespace

QString imageSeriesLabel(const QString& series)
{
    return methodLabelOf(series);
}


// ---------------------------------------------------------------------------------------
// Curves

EpochCurvePlot::EpochCurvePlot(QWidget* parent) : PlotView(QStringLiteral("image_curves"), 220, parent)
{
    // One legend row above the four panels: a series has the same pen in every panel.
    m_legend = makeLegend(m_plot, 0, 4);
    auto* grid = new QCPLayoutGrid;
    m_plot->plotLayout()->addElement(1, 0, grid);
    QSharedPointer<QCPAxisTickerFixed> integers(new QCPAxisTickerFixed);
    integers->setTickStep(1);
    integers->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
    m_epochTicker = integers;
    m_stepTicker.reset(new QCPAxisTicker);
    for (int i = 0; i < 4; ++i) {
        m_rects[i] = makeRect(m_plot);
        m_titles[i] = new QCPTextElement(m_plot, QString(), plotTitleFont());
        grid->addElement(2 * (i / 2), i % 2, m_titles[i]);
        grid->addElement(2 * (i / 2) + 1, i % 2, m_rects[i]);
    }
    for (int row : {0, 2})
        grid->setRowStretchFactor(row, 0.001);
    setExperiment(QString::fromLatin1(kCorruptionExperiment));
}

void EpochCurvePlot::setExperiment(const QString& experiment)
{
    m_experiment = experiment;
    const bool selective = experiment == QLatin1String(kSelectiveExperiment);
    // Both experiments report test figures after every epoch of every network they
    // train; selective classification scores accuracy and NLL on the decided points only.
    const QString titles[4] = {tr("Test decision cost per epoch"),
                               selective ? tr("Test accuracy, decided points") : tr("Test accuracy per epoch"),
                               selective ? tr("Test NLL, decided points") : tr("Test NLL per epoch"),
                               tr("Training loss (per step)")};
    for (int i = 0; i < 4; ++i) {
        m_titles[i]->setText(titles[i]);
        const bool perEpoch = i < 3;
        auto* x = m_rects[i]->axis(QCPAxis::atBottom);
        x->setLabel(perEpoch ? tr("epoch") : tr("step within the phase"));
        x->setTicker(perEpoch ? m_epochTicker : m_stepTicker);
    }
    clear();
}

void EpochCurvePlot::clear()
{
    for (int i = 0; i < 4; ++i) {
        m_data[i].clear();
        m_graphs[i].clear();
    }
    m_runs.clear();
    m_chosenRun.clear();
    m_pens.clear();
    m_phases.clear();
    m_legend->clearItems();
    m_plot->clearPlottables();
    for (auto* rect : m_rects) {
        rect->axis(QCPAxis::atBottom)->setRange(0, 1);
        rect->axis(QCPAxis::atLeft)->setRange(0, 1);
    }
    Q_EMIT runsChanged(m_runs);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

int EpochCurvePlot::panelOf(const TrainingPoint& p) const
{
    // The correction's KL and expected cost are parts of its loss, not training losses.
    if (p.scalar == QLatin1String("kl") || p.scalar == QLatin1String("expected_cost"))
        return -1;
    return BottomRight;
}

void EpochCurvePlot::noteRun(const QString& run)
{
    if (m_runs.contains(run))
        return;
    m_runs << run;
    Q_EMIT runsChanged(m_runs);
}

void EpochCurvePlot::addEpochPoints(const QVector<EpochPoint>& points)
{
    for (const auto& p : points) {
        noteRun(p.run);
        const double values[3] = {p.cost, p.accuracy, p.nll};
        for (int i = 0; i < 3; ++i) {
            auto& s = m_data[i][p.run][p.series];
            s.x << p.epoch;
            s.y << values[i];
        }
    }
    rebuild();
}

void EpochCurvePlot::addTrainingPoints(const QVector<TrainingPoint>& points)
{
    for (const auto& p : points) {
        const int panel = panelOf(p);
        if (panel < 0)
            continue;
        noteRun(p.run);
        const QString key = p.scalar == QLatin1String("student") ? p.series + tr(" (student)") : p.series;
        auto& s = m_data[panel][p.run][key];
        s.x << static_cast<double>(p.step);
        s.y << p.value;
    }
    rebuild();
}

QPen EpochCurvePlot::penFor(const QString& series, const QString& name)
{
    const auto known = m_pens.constFind(name);
    if (known != m_pens.constEnd())
        return *known;
    // A method keeps its one colour in every phase: a student's loss is dashed, and the
    // phases of one method (one per referral cost, a re-correction) take the next line
    // style in order of appearance (lighter shades would pass for another method's).
    static const Qt::PenStyle kPhaseStyles[] = {Qt::SolidLine, Qt::DotLine, Qt::DashDotLine, Qt::DashDotDotLine};
    const QString method = seriesMethod(series, m_experiment);
    const Qt::PenStyle style = series.endsWith(tr(" (student)"))
                                   ? Qt::DashLine
                                   : kPhaseStyles[m_phases[method]++ % std::size(kPhaseStyles)];
    const QPen pen(methodColourOf(method), 1.6, style);
    m_pens.insert(name, pen);
    return pen;
}

void EpochCurvePlot::removeSeries(const QString& series)
{
    for (auto& panel : m_data)
        for (auto& run : panel)
            run.remove(series);
    rebuild();
}

void EpochCurvePlot::showRun(const QString& run)
{
    m_chosenRun = run;
    rebuild();
}

QString EpochCurvePlot::shownRun() const
{
    if (!m_chosenRun.isEmpty() && m_runs.contains(m_chosenRun))
        return m_chosenRun;
    return m_runs.isEmpty() ? QString() : m_runs.last();
}

QCPGraph* EpochCurvePlot::graph(Panel panel, const QString& series) const
{
    return m_graphs[panel].value(series, nullptr);
}

void EpochCurvePlot::rebuild()
{
    const QString run = shownRun();
    for (int i = 0; i < 4; ++i) {
        const RunData data = m_data[i].value(run);
        auto& graphs = m_graphs[i];
        // Drop the graphs of another run.
        for (auto it = graphs.begin(); it != graphs.end();) {
            if (!data.contains(it.key())) {
                m_plot->removePlottable(it.value());
                it = graphs.erase(it);
            } else {
                ++it;
            }
        }
        for (auto it = data.begin(); it != data.end(); ++it) {
            QCPGraph* g = graphs.value(it.key(), nullptr);
            if (!g) {
                g = m_plot->addGraph(m_rects[i]->axis(QCPAxis::atBottom), m_rects[i]->axis(QCPAxis::atLeft));
                const QString name = displayName(it.key(), m_experiment);
                markMethod(g, seriesMethod(it.key(), m_experiment));
                g->setPen(penFor(it.key(), name));
                g->setName(name);
                g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 4));
                graphs.insert(it.key(), g);
            }
            g->setData(it->x, it->y, /*alreadySorted=*/true);
        }
        if (graphs.isEmpty())
            continue;
        m_rects[i]->axis(QCPAxis::atBottom)->rescale();
        m_rects[i]->axis(QCPAxis::atLeft)->rescale();
        auto* x = m_rects[i]->axis(QCPAxis::atBottom);
        if (x->range().size() < 1)
            x->setRange(x->range().lower - 0.5, x->range().upper + 0.5);
        auto* y = m_rects[i]->axis(QCPAxis::atLeft);
        const double pad = std::max(1e-3, y->range().size() * 0.08);
        y->setRange(y->range().lower - pad, y->range().upper + pad);
    }
    // One legend entry per name (the same series appears in several panels).
    m_legend->clearItems();
    QStringList named;
    for (int i = 0; i < 4; ++i)
        for (auto* g : std::as_const(m_graphs[i]))
            if (!named.contains(g->name())) {
                named << g->name();
                g->addToLegend(m_legend);
            }
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

// ---------------------------------------------------------------------------------------
// Summary: cost and accuracy vs rate / referral cost

SummaryPlot::SummaryPlot(QWidget* parent) : PlotView(QStringLiteral("image_summary"), 200, parent)
{
    m_title = new QCPTextElement(m_plot, tr("Cost and accuracy vs corruption rate / referral cost"), plotTitleFont());
    m_plot->plotLayout()->addElement(0, 0, m_title);
    auto* grid = new QCPLayoutGrid;
    m_plot->plotLayout()->addElement(1, 0, grid);
    m_plot->plotLayout()->setRowStretchFactor(0, 0.001);
    m_legend = makeLegend(m_plot, 1);  // one legend for both panels
    for (int i = 0; i < 2; ++i) {
        m_rects[i] = makeRect(m_plot);
        grid->addElement(0, i, m_rects[i]);
        m_rects[i]->axis(QCPAxis::atLeft)->setLabel(i == 0 ? tr("test decision cost") : tr("test accuracy"));
    }
}

void SummaryPlot::clear()
{
    m_legend->clearItems();
    m_plot->clearPlottables();
    for (int i = 0; i < 2; ++i) {
        m_graphs[i].clear();
        m_bars[i].clear();
    }
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void SummaryPlot::setSummary(const SummaryView& view)
{
    clear();
    const bool selective = view.experiment == QLatin1String(kSelectiveExperiment);
    int trials = 0;
    QStringList methods;
    for (const auto& p : view.points) {
        if (!methods.contains(p.method))
            methods << p.method;
        trials = std::max(trials, p.trials);
    }
    m_title->setText(tr("Test cost and accuracy vs %1 (mean ± std, %2 trial%3)")
                         .arg(selective ? tr("r") : tr("rate"))
                         .arg(trials)
                         .arg(trials == 1 ? QString() : QStringLiteral("s")));
    m_rects[1]->axis(QCPAxis::atLeft)->setLabel(selective ? tr("accuracy (non-referred)") : tr("test accuracy"));
    double xMin = 1e300, xMax = -1e300;
    double yMin[2] = {1e300, 1e300}, yMax[2] = {-1e300, -1e300};  // over mean ± std
    for (const QString& method : methods) {
        // Sorted by x here: the error bars are matched to the graph's points by index.
        QVector<SummaryPoint> points;
        for (const auto& p : view.points)
            if (p.method == method)
                points << p;
        std::stable_sort(points.begin(), points.end(),
                         [](const SummaryPoint& a, const SummaryPoint& b) { return a.x < b.x; });
        QVector<double> x, y[2], e[2];
        for (const auto& p : points) {
            x << p.x;
            y[0] << p.costMean;
            e[0] << p.costStd;
            y[1] << p.accuracyMean;
            e[1] << p.accuracyStd;
            xMin = std::min(xMin, p.x);
            xMax = std::max(xMax, p.x);
            for (int i = 0; i < 2; ++i)
                if (std::isfinite(y[i].last())) {
                    const double e2 = std::isfinite(e[i].last()) ? e[i].last() : 0.0;
                    yMin[i] = std::min(yMin[i], y[i].last() - e2);
                    yMax[i] = std::max(yMax[i], y[i].last() + e2);
                }
        }
        for (int i = 0; i < 2; ++i) {
            auto* g = m_plot->addGraph(m_rects[i]->axis(QCPAxis::atBottom), m_rects[i]->axis(QCPAxis::atLeft));
            const QColor colour = methodColourOf(method);
            g->setPen(methodPen(g, method));
            g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, colour, 6));
            g->setName(imageSeriesLabel(method));
            g->setData(x, y[i], /*alreadySorted=*/true);
            g->removeFromLegend();
            auto* bars = new QCPErrorBars(m_rects[i]->axis(QCPAxis::atBottom), m_rects[i]->axis(QCPAxis::atLeft));
            bars->setName(imageSeriesLabel(method) + tr(" ± std"));
            bars->setDataPlottable(g);
            bars->setData(e[i]);
            markMethod(bars, method);
            bars->setPen(QPen(colour, 1.2));
            bars->setWhiskerWidth(8);
            bars->removeFromLegend();
            m_graphs[i].insert(method, g);
            m_bars[i].insert(method, bars);
        }
    }
    for (int i = 0; i < 2; ++i) {
        m_rects[i]->axis(QCPAxis::atBottom)->setLabel(view.xLabel);
        if (yMax[i] >= yMin[i]) {
            const double pad = std::max(0.005, (yMax[i] - yMin[i]) * 0.12);
            m_rects[i]->axis(QCPAxis::atLeft)->setRange(yMin[i] - pad, yMax[i] + pad);
        }
        if (xMax >= xMin) {
            const double pad = xMax > xMin ? (xMax - xMin) * 0.08 : 0.1;
            m_rects[i]->axis(QCPAxis::atBottom)->setRange(xMin - pad, xMax + pad);
        }
    }
    for (const QString& m : methods)
        m_graphs[0].value(m)->addToLegend(m_legend);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

QCPGraph* SummaryPlot::graph(int panel, const QString& method) const
{
    return m_graphs[panel].value(method, nullptr);
}

QCPErrorBars* SummaryPlot::errorBars(int panel, const QString& method) const
{
    return m_bars[panel].value(method, nullptr);
}

// ---------------------------------------------------------------------------------------
// Training time vs number of cost functions

NotedPlot::NotedPlot(const QString& name, const QString& title, int legendColumns, QWidget* parent)
    : PlotView(name, 200, parent)
{
    m_title = new QCPTextElement(m_plot, title, plotTitleFont());
    m_plot->plotLayout()->addElement(0, 0, m_title);
    auto* axes = makeRect(m_plot);
    m_plot->plotLayout()->addElement(1, 0, axes);
    m_plot->plotLayout()->setRowStretchFactor(0, 0.001);
    m_legend = makeLegend(m_plot, 1, legendColumns);
    m_note = new QCPTextElement(m_plot, QString(), QFont("sans", 8));
    m_note->setTextColor(QColor(110, 110, 110));
    axes->insetLayout()->addElement(m_note, Qt::AlignCenter);
}

QCPAxisRect* NotedPlot::rect() const
{
    return m_plot->axisRect(0);
}

void NotedPlot::clear(const QString& note)
{
    m_legend->clearItems();
    m_plot->clearPlottables();
    m_note->setText(note);
    m_note->setVisible(!note.isEmpty());
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

TrainingTimePlot::TrainingTimePlot(QWidget* parent)
    : NotedPlot(QStringLiteral("training_time"), tr("Training time vs number of cost functions"), 3, parent)
{
    auto* rect = this->rect();
    rect->axis(QCPAxis::atBottom)->setLabel(tr("number of cost functions"));
    rect->axis(QCPAxis::atLeft)->setLabel(tr("cumulative training time (s)"));
    QSharedPointer<QCPAxisTickerFixed> ticker(new QCPAxisTickerFixed);
    ticker->setTickStep(1);
    ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
    rect->axis(QCPAxis::atBottom)->setTicker(ticker);
    clear(tr("selective classification only"));
}

void TrainingTimePlot::setTimes(const TrainingTimeView& view)
{
    clear(view.isEmpty() ? tr("selective classification only")
                         : QString());
    auto* rect = m_plot->axisRect(0);
    if (view.isEmpty())
        return;
    struct Line {
        QString series;
        double CostFunctionTime::*field;
    };
    const Line lines[] = {{QStringLiteral("ours"), &CostFunctionTime::ours},
                          {QStringLiteral("ours_no_s"), &CostFunctionTime::oursNoS},
                          {QStringLiteral("lc_sghmc"), &CostFunctionTime::lcSghmc}};
    double yMax = 0;
    for (const auto& line : lines) {
        QVector<double> x, y;
        for (const auto& p : view)
            if (p.*line.field > 0) {
                x << p.costFunctions;
                y << p.*line.field;
                yMax = std::max(yMax, p.*line.field);
            }
        if (x.isEmpty())
            continue;
        auto* g = m_plot->addGraph(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
        g->setPen(methodPen(g, line.series));
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, methodColourOf(line.series), 6));
        g->setName(imageSeriesLabel(line.series));
        g->setData(x, y, /*alreadySorted=*/true);
        g->removeFromLegend();
        g->addToLegend(m_legend);
    }
    rect->axis(QCPAxis::atBottom)->setRange(0.5, view.size() + 0.5);
    rect->axis(QCPAxis::atLeft)->setRange(0, std::max(1e-3, yMax * 1.12));
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

// ---------------------------------------------------------------------------------------
// Risk against coverage (selective classification)

RiskCoveragePlot::RiskCoveragePlot(QWidget* parent)
    : NotedPlot(QStringLiteral("risk_coverage"), tr("Risk vs coverage"), 2, parent)  // AURCs make long legend entries
{
    auto* rect = this->rect();
    rect->axis(QCPAxis::atBottom)->setLabel(tr("coverage (share of test inputs decided, most confident first)"));
    rect->axis(QCPAxis::atLeft)->setLabel(tr("selective risk (error rate)"));
    rect->axis(QCPAxis::atBottom)->setRange(0, 1);
    clear(tr("selective classification only"));
}

void RiskCoveragePlot::clear(const QString& note)
{
    m_title->setText(tr("Risk vs coverage"));
    NotedPlot::clear(note);
}

void RiskCoveragePlot::setCurves(const RiskCoverageView& view)
{
    clear(view.curves.isEmpty() ? tr("selective classification only") : QString());
    if (view.curves.isEmpty())
        return;
    m_title->setText(tr("Risk vs coverage at r = %1, trial %2 (legend: area under the curve)")
                         .arg(view.referralCost)
                         .arg(view.trial));
    auto* rect = m_plot->axisRect(0);
    double yMax = 0;
    for (const auto& curve : view.curves) {
        auto* g = m_plot->addGraph(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
        g->setPen(methodPen(g, curve.method));
        g->setName(tr("%1 (%2)").arg(imageSeriesLabel(curve.method)).arg(curve.aurc, 0, 'f', 4));
        g->setData(curve.coverage, curve.risk, /*alreadySorted=*/true);
        g->removeFromLegend();
        g->addToLegend(m_legend);
        for (double r : curve.risk)
            yMax = std::max(yMax, r);
    }
    rect->axis(QCPAxis::atBottom)->setRange(0, 1.02);
    rect->axis(QCPAxis::atLeft)->setRange(0, std::max(0.05, yMax * 1.1));
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

} // namespace lcs::ui
