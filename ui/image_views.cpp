#include "image_views.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

#include <QEvent>
#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>
#include <QVBoxLayout>

#include "qcustomplot_compat.h"

#include "inference/method_catalog.h"
#include "method_style.h"
#include "plot_export.h"
#include "plot_parts.h"

namespace lcs::ui {

namespace {

const QFont kTitleFont("sans", 9, QFont::Bold);

/// The method whose colour a training phase borrows ("sgld + S" -> "sgld_s", ...).
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

/// "sgld + S" -> "SGLD + S", "ours, r 0.1" -> "Ours (q on S), r 0.1": the method's label
/// and what the phase adds to its name.
QString displayName(const QString& series)
{
    static const QStringList prefixes{QStringLiteral("sgld + S"), QStringLiteral("sghmc + S"),
                                      QStringLiteral("ours (no S)"), QStringLiteral("lc-sgld"),
                                      QStringLiteral("lc-sghmc"), QStringLiteral("cw-sgd"), QStringLiteral("ours"),
                                      QStringLiteral("map")};
    const QString base = baseSeries(series);
    for (const QString& prefix : prefixes)
        if (series.startsWith(prefix))
            return imageSeriesLabel(base) + series.mid(prefix.size());
    return imageSeriesLabel(series);
}

} // namespace

QString imageSeriesLabel(const QString& series)
{
    return methodLabelOf(series);
}

QString ComparisonView::title() const
{
    const QString at = experiment == QLatin1String("selective") ? QObject::tr("r %1").arg(value)
                                                                : QObject::tr("rate %1").arg(value);
    return QObject::tr("%1, trial %2%3").arg(at).arg(trial + 1).arg(recorrected ? QObject::tr(", re-corrected") : QString());
}

QColor imageSeriesColor(const QString& series)
{
    return methodColourOf(baseSeries(series));
}

// ---------------------------------------------------------------------------------------
// Curves

EpochCurvePlot::EpochCurvePlot(QWidget* parent) : QWidget(parent)
{
    m_plot = makePlot(this, QStringLiteral("image_curves"), 220);
    // One legend row above the four panels: a series has the same pen in every panel.
    m_legend = new QCPLegend;
    m_legend->setFont(QFont("sans", 7));
    m_legend->setBorderPen(Qt::NoPen);
    m_legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    m_legend->setWrap(4);
    m_legend->setIconSize(18, 8);
    m_legend->setRowSpacing(-2);
    m_legend->setColumnSpacing(10);
    m_plot->plotLayout()->addElement(0, 0, m_legend);
    m_legend->setLayer(QStringLiteral("legend"));
    auto* grid = new QCPLayoutGrid;
    m_plot->plotLayout()->addElement(1, 0, grid);
    m_plot->plotLayout()->setRowStretchFactor(0, 0.001);
    QSharedPointer<QCPAxisTickerFixed> integers(new QCPAxisTickerFixed);
    integers->setTickStep(1);
    integers->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
    m_epochTicker = integers;
    m_stepTicker.reset(new QCPAxisTicker);
    for (int i = 0; i < 4; ++i) {
        m_rects[i] = makeRect(m_plot);
        m_titles[i] = new QCPTextElement(m_plot, QString(), kTitleFont);
        grid->addElement(2 * (i / 2), i % 2, m_titles[i]);
        grid->addElement(2 * (i / 2) + 1, i % 2, m_rects[i]);
    }
    for (int row : {0, 2})
        grid->setRowStretchFactor(row, 0.001);
    setExperiment(QStringLiteral("corruption"));
}

void EpochCurvePlot::setExperiment(const QString& experiment)
{
    const bool selective = experiment == QLatin1String("selective");
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
    m_shades.clear();
    m_plot->clearPlottables();  // their legend items go with them
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
    // Phases that share a method's colour (one per referral cost, a re-correction) get
    // lighter shades of it, in order of appearance.
    QPen pen(imageSeriesColor(series), 1.6, Qt::DashLine);  // a student's loss: dashed
    if (!series.endsWith(tr(" (student)")))
        pen = QPen(imageSeriesColor(series).lighter(100 + 35 * m_shades[baseSeries(series)]++), 1.6);
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
                const QString name = displayName(it.key());
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
// Confusion matrices

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

QCPColorGradient countGradient()
{
    QCPColorGradient g;
    g.setColorInterpolation(QCPColorGradient::ciRGB);
    g.setColorStopAt(0.0, QColor(255, 255, 255));
    g.setColorStopAt(0.03, QColor(222, 235, 247));
    g.setColorStopAt(0.25, QColor(107, 174, 214));
    g.setColorStopAt(1.0, QColor(8, 48, 107));
    return g;
}

QCPColorGradient differenceGradient()
{
    QCPColorGradient g;
    g.setColorInterpolation(QCPColorGradient::ciRGB);
    g.setColorStopAt(0.0, QColor(178, 24, 43));
    g.setColorStopAt(0.5, QColor(255, 255, 255));
    g.setColorStopAt(1.0, QColor(33, 102, 172));
    return g;
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

ConfusionPlot::ConfusionPlot(QWidget* parent) : QWidget(parent)
{
    m_plot = makePlot(this, QStringLiteral("confusion_matrices"), 240);
    m_header = new QCPTextElement(m_plot, tr("Confusion matrices (test set): run an image experiment"), kTitleFont);
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
        x->setTickLabelRotation(60);
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

// ---------------------------------------------------------------------------------------
// Gallery

namespace {

constexpr int kTileWidth = 196;
constexpr int kTileHeight = 136;
constexpr int kHeaderHeight = 22;
constexpr int kSpacing = 6;
const QColor kBeforeColor(140, 140, 140);
const QColor kAfterColor(255, 127, 14);

QString nameOf(const QStringList& names, int i)
{
    return i >= 0 && i < names.size() ? names[i] : QString::number(i);
}

} // namespace

GalleryView::GalleryView(QWidget* parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("changed_decisions"));
    setAttribute(Qt::WA_OpaquePaintEvent);
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Preferred);
    setMinimumHeight(kHeaderHeight + kTileHeight);
    installPaintingExportMenu(
        this, [this] { return QSize(width(), heightForWidth(width())); },
        [this](QPainter& painter) { paintGallery(painter, width()); }, this);
}

void GalleryView::setComparison(const ComparisonView& view)
{
    m_view = view;
    setMinimumHeight(heightForWidth(std::max(width(), kTileWidth + 2 * kSpacing)));
    updateGeometry();
    update();
}

void GalleryView::clear()
{
    setComparison(ComparisonView{});
}

QString GalleryView::header() const
{
    if (m_view.classNames.isEmpty())
        return tr("Changed decisions: run an image experiment with \"ours\"");
    if (m_view.changed.isEmpty())
        return tr("%1: the correction changed no test decision").arg(m_view.title());
    return tr("%1: %2 of %3 test decisions changed (%4 shown) · grey bars %5, orange %6 · green frame: now right, "
              "red: now wrong")
        .arg(m_view.title())
        .arg(m_view.changedCount)
        .arg(m_view.testCount)
        .arg(m_view.changed.size())
        .arg(m_view.uncorrectedLabel, m_view.correctedLabel);
}

QString GalleryView::caption(int item) const
{
    const auto& it = m_view.changed.at(item);
    return tr("#%1 true %2: %3 %4 -> %5 %6")
        .arg(it.index)
        .arg(nameOf(m_view.classNames, it.label), m_view.uncorrectedLabel, nameOf(m_view.decisionNames, it.before),
             m_view.correctedLabel, nameOf(m_view.decisionNames, it.after));
}

int GalleryView::columnsFor(int width) const
{
    return std::max(1, (width - kSpacing) / (kTileWidth + kSpacing));
}

int GalleryView::heightForWidth(int width) const
{
    const int n = static_cast<int>(m_view.changed.size());
    const int rows = n == 0 ? 0 : (n + columnsFor(width) - 1) / columnsFor(width);
    return kHeaderHeight + rows * (kTileHeight + kSpacing) + kSpacing;
}

QSize GalleryView::sizeHint() const
{
    return QSize(4 * (kTileWidth + kSpacing) + kSpacing, heightForWidth(4 * (kTileWidth + kSpacing) + kSpacing));
}

void GalleryView::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    const int h = heightForWidth(width());
    if (minimumHeight() != h)
        setMinimumHeight(h);
}

void GalleryView::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    paintGallery(painter, width());
}

void GalleryView::paintGallery(QPainter& painter, int width) const
{
    painter.save();
    painter.fillRect(QRect(0, 0, width, heightForWidth(width)), Qt::white);
    painter.setRenderHint(QPainter::Antialiasing, false);
    QFont headerFont("sans", 8, QFont::Bold);
    painter.setFont(headerFont);
    painter.setPen(QColor(30, 30, 30));
    painter.drawText(QRect(kSpacing, 0, width - 2 * kSpacing, kHeaderHeight), Qt::AlignVCenter | Qt::AlignLeft,
                     painter.fontMetrics().elidedText(header(), Qt::ElideRight, width - 2 * kSpacing));
    const int columns = columnsFor(width);
    const QFont small("sans", 7);
    const QFont smallBold("sans", 7, QFont::Bold);
    for (int i = 0; i < m_view.changed.size(); ++i) {
        const auto& item = m_view.changed[i];
        const QRect tile(kSpacing + (i % columns) * (kTileWidth + kSpacing),
                         kHeaderHeight + (i / columns) * (kTileHeight + kSpacing), kTileWidth, kTileHeight);
        const bool nowRight = item.after == item.label, wasRight = item.before == item.label;
        const QColor frame = nowRight && !wasRight ? QColor(44, 160, 44)
                             : wasRight && !nowRight ? QColor(214, 39, 40)
                                                     : QColor(170, 170, 170);
        painter.setPen(QPen(frame, 2));
        painter.setBrush(QColor(250, 250, 250));
        painter.drawRect(tile.adjusted(1, 1, -1, -1));
        // The image, scaled by whole pixels so digits and garments stay crisp.
        const QRect imageRect(tile.left() + 6, tile.top() + 6, 64, 64);
        if (!item.image.isNull())
            painter.drawImage(imageRect, item.image.scaled(64, 64, Qt::KeepAspectRatio, Qt::FastTransformation));
        else
            painter.fillRect(imageRect, QColor(225, 225, 225));
        // Text: index, true class, both decisions with their probabilities.
        const int tx = imageRect.right() + 8, tw = tile.right() - tx - 4;
        auto prob = [](const QVector<float>& p, int k) { return k >= 0 && k < p.size() ? p[k] : -1.0f; };
        auto line = [&](int row, const QString& label, const QString& value, const QColor& colour, bool bold) {
            painter.setFont(small);
            painter.setPen(QColor(90, 90, 90));
            painter.drawText(QRect(tx, tile.top() + 6 + 15 * row, 32, 14), Qt::AlignLeft | Qt::AlignVCenter, label);
            painter.setFont(bold ? smallBold : small);
            painter.setPen(colour);
            painter.drawText(QRect(tx + 32, tile.top() + 6 + 15 * row, tw - 32, 14), Qt::AlignLeft | Qt::AlignVCenter,
                             painter.fontMetrics().elidedText(value, Qt::ElideRight, tw - 32));
        };
        auto withProb = [&](int decision, const QVector<float>& p) {
            const float v = prob(p, decision);
            return nameOf(m_view.decisionNames, decision) + (v >= 0 ? QStringLiteral("  %1").arg(v, 0, 'f', 2) : QString());
        };
        line(0, tr("test"), QStringLiteral("#%1").arg(item.index), QColor(90, 90, 90), false);
        line(1, tr("true"), nameOf(m_view.classNames, item.label), QColor(20, 20, 20), true);
        line(2, tr("before"), withProb(item.before, item.probsBefore), kBeforeColor.darker(150), false);
        line(3, tr("after"), withProb(item.after, item.probsAfter), kAfterColor.darker(130), true);
        // Probabilities of every class: grey (before) and orange (after) side by side.
        const int classes = static_cast<int>(std::max(item.probsBefore.size(), item.probsAfter.size()));
        if (classes == 0)
            continue;
        const QRect bars(tile.left() + 6, tile.top() + 76, tile.width() - 12, tile.height() - 82);
        painter.setPen(QColor(200, 200, 200));
        painter.drawLine(bars.bottomLeft(), bars.bottomRight());
        const double slot = double(bars.width()) / classes;
        for (int k = 0; k < classes; ++k) {
            const double x0 = bars.left() + k * slot;
            const double w = std::max(1.0, slot / 2 - 1);
            const double hb = bars.height() * std::clamp<double>(prob(item.probsBefore, k), 0, 1);
            const double ha = bars.height() * std::clamp<double>(prob(item.probsAfter, k), 0, 1);
            painter.fillRect(QRectF(x0 + 1, bars.bottom() - hb, w, hb), kBeforeColor);
            painter.fillRect(QRectF(x0 + 1 + w, bars.bottom() - ha, w, ha), kAfterColor);
            if (k == item.label) {
                painter.setPen(QPen(QColor(20, 20, 20), 1, Qt::DotLine));
                painter.setBrush(Qt::NoBrush);
                painter.drawRect(QRectF(x0, bars.top(), slot - 1, bars.height()));
            }
        }
    }
    painter.restore();
}

// ---------------------------------------------------------------------------------------
// Summary: cost and accuracy vs rate / referral cost

SummaryPlot::SummaryPlot(QWidget* parent) : QWidget(parent)
{
    m_plot = makePlot(this, QStringLiteral("image_summary"), 200);
    m_title = new QCPTextElement(m_plot, tr("Cost and accuracy vs corruption rate / referral cost"), kTitleFont);
    m_plot->plotLayout()->addElement(0, 0, m_title);
    auto* grid = new QCPLayoutGrid;
    m_plot->plotLayout()->addElement(1, 0, grid);
    m_plot->plotLayout()->setRowStretchFactor(0, 0.001);
    for (int i = 0; i < 2; ++i) {
        m_rects[i] = makeRect(m_plot);
        grid->addElement(0, i, m_rects[i]);
        m_rects[i]->axis(QCPAxis::atLeft)->setLabel(i == 0 ? tr("test decision cost") : tr("test accuracy"));
    }
}

void SummaryPlot::clear()
{
    m_plot->clearPlottables();
    for (int i = 0; i < 2; ++i) {
        m_graphs[i].clear();
        m_bars[i].clear();
        auto* inset = m_rects[i]->insetLayout();
        while (inset->elementCount() > 0)
            inset->removeAt(0);
    }
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void SummaryPlot::setSummary(const SummaryView& view)
{
    clear();
    const bool selective = view.experiment == QLatin1String("selective");
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
            const QColor colour = imageSeriesColor(method);
            g->setPen(QPen(colour, 1.8));
            g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, colour, 6));
            g->setName(imageSeriesLabel(method));
            g->setData(x, y[i], /*alreadySorted=*/true);
            g->removeFromLegend();
            auto* bars = new QCPErrorBars(m_rects[i]->axis(QCPAxis::atBottom), m_rects[i]->axis(QCPAxis::atLeft));
            bars->setName(imageSeriesLabel(method) + tr(" ± std"));
            bars->setDataPlottable(g);
            bars->setData(e[i]);
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
    if (!methods.isEmpty()) {
        auto* legend = makeLegend(m_rects[0], Qt::AlignTop | Qt::AlignLeft);
        for (const QString& m : methods)
            m_graphs[0].value(m)->addToLegend(legend);
    }
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

TrainingTimePlot::TrainingTimePlot(QWidget* parent) : QWidget(parent)
{
    m_plot = makePlot(this, QStringLiteral("training_time"), 200);
    m_plot->plotLayout()->addElement(0, 0, new QCPTextElement(m_plot, tr("Training time vs number of cost functions"),
                                                              kTitleFont));
    auto* rect = makeRect(m_plot);
    m_plot->plotLayout()->addElement(1, 0, rect);
    m_plot->plotLayout()->setRowStretchFactor(0, 0.001);
    rect->axis(QCPAxis::atBottom)->setLabel(tr("number of cost functions"));
    rect->axis(QCPAxis::atLeft)->setLabel(tr("cumulative training time (s)"));
    QSharedPointer<QCPAxisTickerFixed> ticker(new QCPAxisTickerFixed);
    ticker->setTickStep(1);
    ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
    rect->axis(QCPAxis::atBottom)->setTicker(ticker);
    m_note = new QCPTextElement(m_plot, QString(), QFont("sans", 8));
    m_note->setTextColor(QColor(110, 110, 110));
    rect->insetLayout()->addElement(m_note, Qt::AlignCenter);
    clear(tr("selective classification only"));
}

void TrainingTimePlot::clear(const QString& note)
{
    m_plot->clearPlottables();
    auto* inset = m_plot->axisRect(0)->insetLayout();
    while (inset->elementCount() > 1)  // element 0 is the note; the rest is the legend
        inset->removeAt(inset->elementCount() - 1);
    m_note->setText(note);
    m_note->setVisible(!note.isEmpty());
    m_plot->replot(QCustomPlot::rpQueuedReplot);
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
    auto* legend = makeLegend(rect, Qt::AlignTop | Qt::AlignLeft);
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
        const QColor colour = imageSeriesColor(line.series);
        g->setPen(QPen(colour, 1.8));
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, colour, 6));
        g->setName(imageSeriesLabel(line.series));
        g->setData(x, y, /*alreadySorted=*/true);
        g->removeFromLegend();
        g->addToLegend(legend);
    }
    rect->axis(QCPAxis::atBottom)->setRange(0.5, view.size() + 0.5);
    rect->axis(QCPAxis::atLeft)->setRange(0, std::max(1e-3, yMax * 1.12));
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

} // namespace lcs::ui
