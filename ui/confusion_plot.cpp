#include "ui/confusion_plot.h"

#include <algorithm>
#include <cmath>

#include "ui/qcustomplot_compat.h"

#include "engine/experiments/experiment_names.h"
#include "ui/plot_export.h"
#include "ui/plot_parts.h"

namespace lcs::ui {

QString ComparisonView::title() const
{
    // The synthetic and tabular experiments have replicates, not an in-run setting.
    if (experiment != QLatin1String(kSelectiveExperiment) && experiment != QLatin1String(kCorruptionExperiment))
        return QObject::tr("replicate %1").arg(trial);
    const QString at = experiment == QLatin1String(kSelectiveExperiment) ? QObject::tr("r %1").arg(value)
                                                                : QObject::tr("rate %1").arg(value);
    return QObject::tr("%1, trial %2%3").arg(at).arg(trial).arg(recorrected ? QObject::tr(", re-corrected") : QString());
}

ConfusionCells confusionCells(const ComparisonView& view)
{
    ConfusionCells c;
    c.rows = view.classes();
    c.columns = view.decisions();
    const int n = c.rows * c.columns;
    if (n <= 0 || view.before.size() != n || view.after.size() != n)
        return ConfusionCells{};
    c.uncorrected.resize(n);
    c.corrected.resize(n);
    c.difference.resize(n);
    for (int i = 0; i < n; ++i) {
        c.uncorrected[i] = static_cast<double>(view.before[i]);
        c.corrected[i] = static_cast<double>(view.after[i]);
        c.difference[i] = c.corrected[i] - c.uncorrected[i];
    }
    return c;
}

namespace {

QCPColorGradient rgbGradient(std::initializer_list<std::pair<double, QColor>> stops)
{
    QCPColorGradient g;
    g.setColorInterpolation(QCPColorGradient::ciRGB);
    for (const auto& [at, colour] : stops)
        g.setColorStopAt(at, colour);
    return g;
}

/// White to blue (ColorBrewer Blues), steep near zero so that a single count shows.
QCPColorGradient countGradient()
{
    return rgbGradient({{0.0, QColor(255, 255, 255)}, {0.03, QColor(222, 235, 247)}, {0.25, QColor(107, 174, 214)},
                        {1.0, QColor(8, 48, 107)}});
}

/// Red (fewer) through white to blue (more): ColorBrewer RdBu.
QCPColorGradient differenceGradient()
{
    return rgbGradient({{0.0, QColor(178, 24, 43)}, {0.5, QColor(255, 255, 255)}, {1.0, QColor(33, 102, 172)}});
}

QSharedPointer<QCPAxisTickerText> textTicker(const QStringList& labels)
{
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    for (int i = 0; i < labels.size(); ++i)
        ticker->addTick(i, labels[i]);
    return ticker;
}

QString percent(double v)
{
    return std::isfinite(v) ? QString::number(100.0 * v, 'f', 1) + "%" : QStringLiteral("n/a");
}

} // namespace

ConfusionPlot::ConfusionPlot(QWidget* parent) : PlotView(QStringLiteral("confusion_matrices"), 240, parent)
{
    m_header = new QCPTextElement(m_plot, tr("Confusion matrices (test set): run an image experiment"), plotTitleFont());
    m_plot->plotLayout()->addElement(0, 0, m_header);
    auto* grid = new QCPLayoutGrid;
    m_plot->plotLayout()->addElement(1, 0, grid);
    m_plot->plotLayout()->setRowStretchFactor(0, 0.001);
    auto* group = new QCPMarginGroup(m_plot);
    for (int i = 0; i < 3; ++i) {
        m_rects[i] = makeRect(m_plot);
        m_titles[i] = new QCPTextElement(m_plot, QString(), QFont("sans", 8));
        grid->addElement(0, i, m_titles[i]);
        grid->addElement(1, i, m_rects[i]);
        m_rects[i]->setMarginGroup(QCP::msTop | QCP::msBottom, group);
        auto* x = m_rects[i]->axis(QCPAxis::atBottom);
        auto* y = m_rects[i]->axis(QCPAxis::atLeft);
        y->setRangeReversed(true);  // true class 0 on top, as a matrix is read
        // Rotated to end at their tick: a label running right past the widget's edge
        // would not be drawn at all (the last class of the right-most panel).
        x->setTickLabelRotation(-60);
        x->setSubTicks(false);
        y->setSubTicks(false);
        x->grid()->setVisible(false);
        y->grid()->setVisible(false);
        x->setLabel(tr("decision"));
        if (i == 0)
            y->setLabel(tr("true class"));
        else
            y->setTickLabels(false);
        m_maps[i] = new QCPColorMap(x, y);
        m_maps[i]->setInterpolate(false);
        m_maps[i]->setTightBoundary(false);
        m_maps[i]->setGradient(i == 2 ? differenceGradient() : countGradient());
    }
    grid->setRowStretchFactor(0, 0.001);
    grid->setColumnStretchFactor(0, 1.25);  // the first panel also holds the class names
}

void ConfusionPlot::clear()
{
    for (auto* map : m_maps)
        map->data()->clear();
    m_plot->clearItems();
    m_header->setText(tr("Confusion matrices (test set): run an image experiment"));
    for (auto* t : m_titles)
        t->setText(QString());
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void ConfusionPlot::setComparison(const ComparisonView& view)
{
    const ConfusionCells cells = confusionCells(view);
    m_plot->clearItems();
    if (cells.rows == 0) {
        clear();
        return;
    }
    m_header->setText(tr("Confusion matrices on the test set, %1: %2 of %3 decisions changed%4")
                          .arg(view.title())
                          .arg(view.changedCount)
                          .arg(view.testCount)
                          .arg(view.collapsed ? tr(" (q collapsed to one class)") : QString()));
    const bool referral = view.decisions() > view.classes();
    auto figures = [&](const QString& label, double cost, double accuracy, double referred) {
        return tr("%1\ncost %2 · acc. %3%4")
            .arg(label)
            .arg(cost, 0, 'f', 4)
            .arg(percent(accuracy))
            .arg(referral ? tr(" · referred %1").arg(percent(referred)) : QString());
    };
    m_titles[0]->setText(figures(view.uncorrectedLabel, view.costBefore, view.accuracyBefore, view.referralBefore));
    m_titles[1]->setText(figures(view.correctedLabel, view.costAfter, view.accuracyAfter, view.referralAfter));
    m_titles[2]->setText(tr("difference\ncorrected − uncorrected"));
    const QVector<double>* values[3] = {&cells.uncorrected, &cells.corrected, &cells.difference};
    double countMax = 1, diffMax = 1;
    for (int i = 0; i < cells.uncorrected.size(); ++i) {
        countMax = std::max({countMax, cells.uncorrected[i], cells.corrected[i]});
        diffMax = std::max(diffMax, std::abs(cells.difference[i]));
    }
    const int fontSize = cells.columns > 8 ? 6 : 8;
    for (int panel = 0; panel < 3; ++panel) {
        auto* map = m_maps[panel];
        map->data()->setSize(cells.columns, cells.rows);
        map->data()->setRange(QCPRange(0, cells.columns - 1), QCPRange(0, cells.rows - 1));
        const double limit = panel == 2 ? diffMax : countMax;
        map->setDataRange(panel == 2 ? QCPRange(-limit, limit) : QCPRange(0, limit));
        auto* x = m_rects[panel]->axis(QCPAxis::atBottom);
        auto* y = m_rects[panel]->axis(QCPAxis::atLeft);
        for (int row = 0; row < cells.rows; ++row)
            for (int col = 0; col < cells.columns; ++col) {
                const double v = (*values[panel])[row * cells.columns + col];
                map->data()->setCell(col, row, v);
                if (v == 0)
                    continue;  // zeros would only clutter the matrix
                auto* text = new QCPItemText(m_plot);
                text->setClipAxisRect(m_rects[panel]);
                text->position->setAxes(x, y);
                text->position->setCoords(col, row);
                text->setText(panel == 2 && v > 0 ? "+" + QString::number(v) : QString::number(v));
                text->setFont(QFont("sans", fontSize));
                const bool dark = panel == 2 ? std::abs(v) > 0.6 * limit : v > 0.45 * limit;
                text->setColor(dark ? Qt::white : QColor(30, 30, 30));
            }
        x->setTicker(textTicker(view.decisionNames));
        y->setTicker(textTicker(view.classNames));
        x->setRange(-0.5, cells.columns - 0.5);
        y->setRange(-0.5, cells.rows - 0.5);
    }
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

double ConfusionPlot::shownCell(int panel, int trueClass, int decision) const
{
    return m_maps[panel]->data()->cell(decision, trueClass);
}

QStringList ConfusionPlot::decisionLabels(int panel) const
{
    auto ticker = m_rects[panel]->axis(QCPAxis::atBottom)->ticker().dynamicCast<QCPAxisTickerText>();
    return ticker ? QStringList(ticker->ticks().values()) : QStringList();
}

QStringList ConfusionPlot::classLabels() const
{
    auto ticker = m_rects[0]->axis(QCPAxis::atLeft)->ticker().dynamicCast<QCPAxisTickerText>();
    return ticker ? QStringList(ticker->ticks().values()) : QStringList();
}

} // namespace lcs::ui
