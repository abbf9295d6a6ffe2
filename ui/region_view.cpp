#include "ui/region_view.h"

#include <algorithm>
#include <vector>

#include <iterator>

#include <QGridLayout>

#include "ui/qcustomplot_compat.h"

#include "ui/plot_export.h"
#include "ui/plot_parts.h"

namespace lcs::ui {

namespace {

// Distinct for readers with the common colour-vision deficiencies (after Okabe and Ito),
// the first two kept from the paper's figures; "refer" has its own.
const QColor kClassColors[] = {QColor(31, 119, 180), QColor(214, 39, 40),  QColor(0, 158, 115),
                               QColor(204, 121, 167), QColor(86, 180, 233), QColor(120, 120, 120),
                               QColor(140, 86, 75),   QColor(0, 0, 0)};
constexpr int kClassColorCount = static_cast<int>(std::size(kClassColors));
const QColor kReferColor(230, 184, 0);
/// The plane's box a panel shows (QRectF), kept on the plot for its layout handler.
constexpr const char* kBoxProperty = "lcsRegionBox";

QColor lighter(const QColor& c)
{
    return QColor::fromRgbF(0.72 + 0.28 * c.redF(), 0.72 + 0.28 * c.greenF(), 0.72 + 0.28 * c.blueF());
}

} // namespace

QColor RegionView::decisionColor(int decision, int numClasses, bool region)
{
    const bool referral = decision == numClasses;
    QColor c = referral ? kReferColor : kClassColors[std::max(decision, 0) % kClassColorCount];
    return region ? lighter(c) : c;
}

void RegionView::setPlaneShown(bool shown)
{
    for (auto* p : {&m_uncorrected, &m_corrected, &m_difference})
        p->plot->setVisible(shown);
}

RegionView::RegionView(QWidget* parent) : QWidget(parent)
{
    // Two by two (the fourth cell for setCornerWidget): square panels use a wide or a
    // small screen better than three in a row, which need ~800 px for a readable size.
    m_grid = new QGridLayout(this);
    m_grid->setContentsMargins(0, 0, 0, 0);
    m_uncorrected = makePanel(tr("Uncorrected (posterior predictive)"), "regions_uncorrected");
    m_corrected = makePanel(tr("Corrected (q)"), "regions_corrected");
    m_difference = makePanel(tr("Where they decide differently"), "regions_difference");
    m_grid->addWidget(m_uncorrected.plot, 0, 0);
    m_grid->addWidget(m_corrected.plot, 0, 1);
    m_grid->addWidget(m_difference.plot, 1, 0);
    for (int i = 0; i < 2; ++i) {
        m_grid->setRowStretch(i, 1);
        m_grid->setColumnStretch(i, 1);
    }
}

void RegionView::setCornerWidget(QWidget* widget)
{
    m_grid->addWidget(widget, 1, 1);
}

RegionView::Panel RegionView::makePanel(const QString& title, const QString& objectName)
{
    Panel panel;
    panel.plot = new QCustomPlot(this);
    panel.plot->setObjectName(objectName);
    panel.plot->setMinimumSize(200, 160);
    panel.plot->setNoAntialiasingOnDrag(true);
    // Hundreds of markers redrawn at 10 Hz: antialiasing them cost most of a core.
    panel.plot->setNotAntialiasedElements(QCP::aeScatters | QCP::aePlottables);
    panel.plot->plotLayout()->insertRow(0);
    panel.plot->plotLayout()->addElement(0, 0, new QCPTextElement(panel.plot, title, QFont("sans", 10, QFont::Bold)));
    // Two columns: a panel is a quarter of the page, and an item cut mid-word says nothing.
    panel.legend = makeLegend(panel.plot, 1, 2);
    panel.legend->setFont(QFont("sans", 8));
    panel.legend->setIconSize(10, 10);
    panel.plot->xAxis->setLabel("x1");
    panel.plot->yAxis->setLabel("x2");
    panel.map = new QCPColorMap(panel.plot->xAxis, panel.plot->yAxis);
    panel.map->setInterpolate(false);
    panel.map->setTightBoundary(true);
    // A new colour map holds 10 x 10 zeros, which its default gradient paints as one
    // navy block: empty until a task's regions arrive, with a line saying what will come.
    panel.map->data()->clear();
    panel.placeholder = new QCPItemText(panel.plot);
    panel.placeholder->position->setType(QCPItemPosition::ptAxisRectRatio);
    panel.placeholder->position->setCoords(0.5, 0.5);
    panel.placeholder->setColor(QColor(110, 110, 110));
    panel.placeholder->setText(objectName == QLatin1String("regions_difference")
                                   ? tr("Run (F5): where q decides otherwise than P")
                                   : tr("Run (F5): the decision for every point of the plane"));
    installExportMenu(panel.plot, this);
    // Equal scales on both axes, whatever the panel's shape: once the layout has sized
    // the axis rect, the box is shown whole and the longer side's axis widened.
    auto* plot = panel.plot;
    connect(plot, &QCustomPlot::afterLayout, plot, [plot] {
        const QRectF box = plot->property(kBoxProperty).toRectF();
        const QRect rect = plot->axisRect()->rect();
        if (box.isNull() || rect.width() <= 0 || rect.height() <= 0)
            return;
        plot->xAxis->setRange(box.left(), box.right());
        plot->yAxis->setRange(box.top(), box.bottom());
        if (rect.width() * box.height() > rect.height() * box.width())
            plot->xAxis->setScaleRatio(plot->yAxis, 1.0);
        else
            plot->yAxis->setScaleRatio(plot->xAxis, 1.0);
    });
    return panel;
}

void RegionView::setAxisNames(const QString& x, const QString& y)
{
    for (auto* p : {&m_uncorrected, &m_corrected, &m_difference}) {
        p->plot->xAxis->setLabel(x);
        p->plot->yAxis->setLabel(y);
    }
}

void RegionView::fitLegendColumns(Panel& panel)
{
    auto* legend = panel.legend;
    int widest = 0;
    for (int i = 0; i < legend->itemCount(); ++i)
        if (QCPLayoutElement* item = legend->item(i))  // a grid's empty cells count too
            widest = std::max(widest, item->minimumOuterSizeHint().width());
    // The legend's own margins and a little air either side of the panel.
    const int available = panel.plot->width() - legend->margins().left() - legend->margins().right() - 8;
    const int columns = widest > 0 && 2 * widest + legend->columnSpacing() > available ? 1 : 2;
    if (columns == legend->wrap())
        return;
    legend->setWrap(columns);
    legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, /*rearrange=*/true);
    panel.plot->replot(QCustomPlot::rpQueuedReplot);
}

void RegionView::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    for (auto* p : {&m_uncorrected, &m_corrected, &m_difference})
        fitLegendColumns(*p);
}

void RegionView::updateLegend(Panel& panel, bool difference, bool hasRegions, int numClasses, int numDecisions,
                              const QStringList& decisionNames, bool hasTraining, bool hasTest, bool hasUnlabelled)
{
    panel.legend->clearItems();
    for (auto* key : panel.legendKeys)
        panel.plot->removePlottable(key);
    panel.legendKeys.clear();
    const auto add = [&](const QString& name, const QCPScatterStyle& style) {
        auto* key = new QCPCurve(panel.plot->xAxis, panel.plot->yAxis);  // no data: drawn in the legend only
        key->setName(name);
        key->setLineStyle(QCPCurve::lsNone);
        key->setScatterStyle(style);
        key->setSelectable(QCP::stNone);
        panel.legend->addItem(new QCPPlottableLegendItem(panel.legend, key));
        panel.legendKeys << key;
    };
    const QPen edge(QColor(110, 110, 110), 1);
    if (difference) {
        if (hasRegions) {
            add(tr("decisions differ"), QCPScatterStyle(QCPScatterStyle::ssSquare, edge, QBrush(QColor(255, 140, 0)), 9));
            add(tr("same decision"), QCPScatterStyle(QCPScatterStyle::ssSquare, edge, QBrush(QColor(245, 245, 245)), 9));
        }
    } else {
        for (int d = 0; d < numDecisions; ++d) {
            const QString name = d < decisionNames.size() ? decisionNames[d] : QString::number(d);
            // Regions in their light colour; without regions, the points' fill.
            add(tr("decide %1").arg(name),
                hasRegions ? QCPScatterStyle(QCPScatterStyle::ssSquare, edge,
                                             QBrush(decisionColor(d, numClasses, true)), 9)
                           : QCPScatterStyle(QCPScatterStyle::ssDisc, decisionColor(d, numClasses, false), 8));
        }
    }
    const QColor ink(60, 60, 60);
    if (hasTraining)
        add(tr("training (□ class)"), QCPScatterStyle(QCPScatterStyle::ssSquare, ink, 6));
    if (hasTest)
        add(difference ? tr("test, q decides otherwise") : tr("test (○ truth, fill decision)"),
            QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(ink, 2.0), QBrush(Qt::white), 8));
    if (hasUnlabelled)
        add(tr("unlabelled"), QCPScatterStyle(QCPScatterStyle::ssDisc, QColor(90, 90, 90), 4));
    fitLegendColumns(panel);
}

void RegionView::showBox(QCustomPlot* plot, double xMin, double xMax, double yMin, double yMax)
{
    plot->setProperty(kBoxProperty, QRectF(QPointF(xMin, yMin), QPointF(xMax, yMax)));
    plot->xAxis->setRange(xMin, xMax);
    plot->yAxis->setRange(yMin, yMax);
}

QList<QCustomPlot*> RegionView::plots() const
{
    return {m_uncorrected.plot, m_corrected.plot, m_difference.plot};
}

void RegionView::clear()
{
    m_shown = {};
    for (auto* p : {&m_uncorrected, &m_corrected, &m_difference}) {
        p->map->data()->clear();
        p->placeholder->setVisible(true);
        p->plot->clearGraphs();
        p->plot->replot(QCustomPlot::rpQueuedReplot);
    }
}

void RegionView::drawRegions(Panel& panel, const RegionGrid& grid, const RegionGrid* other, int numClasses)
{
    if (!grid.isValid() || (other && !other->isValid())) {
        panel.map->data()->clear();
        return;
    }
    const int n = grid.resolution;
    panel.map->data()->setSize(n, n);
    panel.map->data()->setRange(QCPRange(grid.xMin, grid.xMax), QCPRange(grid.yMin, grid.yMax));
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) {
            const int k = j * n + i;
            const double v = other ? double(grid.decisions[k] != other->decisions[k]) : double(grid.decisions[k]);
            panel.map->data()->setCell(i, j, v);
        }
    QCPColorGradient gradient;
    gradient.setColorInterpolation(QCPColorGradient::ciRGB);
    if (other) {
        gradient.setColorStopAt(0, QColor(245, 245, 245));
        gradient.setColorStopAt(1, QColor(255, 140, 0));
        gradient.setLevelCount(2);
        panel.map->setDataRange(QCPRange(0, 1));
    } else {
        const int d = std::max(2, grid.numDecisions);
        for (int i = 0; i < d; ++i)
            gradient.setColorStopAt(double(i) / (d - 1), decisionColor(i, numClasses, true));
        gradient.setLevelCount(d);
        panel.map->setDataRange(QCPRange(0, d - 1));
    }
    panel.map->setGradient(gradient);
    showBox(panel.plot, grid.xMin, grid.xMax, grid.yMin, grid.yMax);
}

void RegionView::drawPoints(Panel& panel, const TaskView& view, const std::vector<int>& decisions, int numDecisions,
                            const QStringList& decisionNames)
{
    auto* plot = panel.plot;
    plot->clearGraphs();
    // Calibration points: small grey dots, unlabelled.
    auto* cal = plot->addGraph();
    cal->setName(tr("calibration (unlabelled)"));
    cal->setLineStyle(QCPGraph::lsNone);
    cal->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, QColor(90, 90, 90, 110), 2.5));
    cal->setAdaptiveSampling(false);
    QVector<double> cx, cy;
    for (const auto& p : view.calibration) {
        cx << p.x;
        cy << p.y;
    }
    cal->setData(cx, cy);
    const int classes = view.numClasses;
    const auto name = [&](int d) { return d < decisionNames.size() ? decisionNames[d] : QString::number(d); };
    // Training points: hollow squares in the class colour.
    for (int y = 0; y < classes; ++y) {
        auto* g = plot->addGraph();
        g->setName(tr("train, class %1").arg(name(y)));
        g->setLineStyle(QCPGraph::lsNone);
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssSquare, decisionColor(y, classes, false), 5));
        QVector<double> xs, ys;
        for (size_t i = 0; i < view.train.size(); ++i)
            if (view.trainLabels[i] == y) {
                xs << view.train[i].x;
                ys << view.train[i].y;
            }
        g->setData(xs, ys);
    }
    // Points without labels (a user's predictive): edge and face are the decision.
    if (decisions.size() == view.test.size() && view.testLabels.size() != view.test.size()) {
        for (int d = 0; d < numDecisions; ++d) {
            QVector<double> xs, ys;
            for (size_t i = 0; i < view.test.size(); ++i)
                if (decisions[i] == d) {
                    xs << view.test[i].x;
                    ys << view.test[i].y;
                }
            if (xs.isEmpty())
                continue;
            auto* g = plot->addGraph();
            g->setName(tr("decided %1").arg(name(d)));
            g->setLineStyle(QCPGraph::lsNone);
            g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, decisionColor(d, classes, false), 5));
            g->setData(xs, ys);
        }
        return;
    }
    // Test points: edge = true class, face = decision.
    if (decisions.size() == view.test.size()) {
        for (int y = 0; y < classes; ++y)
            for (int d = 0; d < numDecisions; ++d) {
                QVector<double> xs, ys;
                for (size_t i = 0; i < view.test.size(); ++i)
                    if (view.testLabels[i] == y && decisions[i] == d) {
                        xs << view.test[i].x;
                        ys << view.test[i].y;
                    }
                if (xs.isEmpty())
                    continue;
                auto* g = plot->addGraph();
                g->setName(tr("test: true %1, decided %2").arg(name(y), name(d)));
                g->setLineStyle(QCPGraph::lsNone);
                QCPScatterStyle style(QCPScatterStyle::ssCircle, QPen(decisionColor(y, classes, false), 2.0),
                                      QBrush(decisionColor(d, classes, false)), 8);
                g->setScatterStyle(style);
                g->setData(xs, ys);
            }
    }
}

void RegionView::setTask(const TaskView& view, const QStringList& decisionNames)
{
    const int d = std::max({view.numClasses, view.uncorrected.numDecisions, view.corrected.numDecisions});
    // While q trains only the corrected grid changes: redraw just what did, so that
    // 10 Hz snapshots stay cheap for the GUI thread.
    const bool sameBase = m_shown.valid && m_shown.replicate == view.replicate && m_shown.method == view.method
                          && m_shown.uncorrected == view.uncorrected.decisions && m_shown.decisionNames == decisionNames
                          && m_shown.testUncorrected == view.testDecisionsUncorrected;
    setAxisNames(QString::fromStdString(view.xName), QString::fromStdString(view.yName));
    for (auto* p : {&m_uncorrected, &m_corrected, &m_difference})
        p->placeholder->setVisible(false);
    if (!sameBase) {
        const bool training = !view.train.empty(), test = !view.test.empty(),
                   unlabelled = !view.calibration.empty();
        const bool regions = view.uncorrected.isValid() || view.corrected.isValid();
        updateLegend(m_uncorrected, false, regions, view.numClasses, d, decisionNames, training, test, unlabelled);
        updateLegend(m_corrected, false, regions, view.numClasses, d, decisionNames, training, test, unlabelled);
        updateLegend(m_difference, true, regions, view.numClasses, d, decisionNames, training, test, unlabelled);
        drawRegions(m_uncorrected, view.uncorrected, nullptr, view.numClasses);
        drawPoints(m_uncorrected, view, view.testDecisionsUncorrected, d, decisionNames);
        drawPoints(m_difference, view, {}, d, decisionNames);
        m_uncorrected.plot->replot(QCustomPlot::rpQueuedReplot);
    }
    drawRegions(m_corrected, view.corrected, nullptr, view.numClasses);
    drawRegions(m_difference, view.corrected, &view.uncorrected, view.numClasses);
    if (!sameBase || m_shown.testCorrected != view.testDecisionsCorrected)
        drawPoints(m_corrected, view, view.testDecisionsCorrected, d, decisionNames);
    const bool pointsOnly = !view.uncorrected.isValid() && !view.corrected.isValid() && !view.test.empty() &&
                            view.testDecisionsUncorrected.size() == view.test.size();
    if ((!view.uncorrected.isValid() && view.corrected.isValid()) || pointsOnly) {
        // A predictive known at its points only: no regions before q (and none after, for
        // a q built on that predictive), and the points q decides differently stand for
        // the difference.
        TaskView changed;
        changed.numClasses = view.numClasses;
        std::vector<int> after;
        if (view.testDecisionsCorrected.size() == view.test.size() &&
            view.testDecisionsUncorrected.size() == view.test.size())
            for (size_t i = 0; i < view.test.size(); ++i)
                if (view.testDecisionsCorrected[i] != view.testDecisionsUncorrected[i]) {
                    changed.test.push_back(view.test[i]);
                    after.push_back(view.testDecisionsCorrected[i]);
                }
        drawPoints(m_difference, changed, after, d, decisionNames);
        QRectF box(QPointF(view.corrected.xMin, view.corrected.yMin), QPointF(view.corrected.xMax, view.corrected.yMax));
        if (pointsOnly) {
            // The points' own square box, padded by a tenth, as the plane of regions is.
            double lo = view.test.front().x, hi = lo;
            for (const auto& pt : view.test) {
                lo = std::min({lo, pt.x, pt.y});
                hi = std::max({hi, pt.x, pt.y});
            }
            const double pad = std::max(1e-6, (hi - lo) * 0.1);
            box = QRectF(QPointF(lo - pad, lo - pad), QPointF(hi + pad, hi + pad));
        }
        for (auto* p : pointsOnly ? std::vector<Panel*>{&m_uncorrected, &m_corrected, &m_difference}
                                  : std::vector<Panel*>{&m_uncorrected, &m_difference})
            showBox(p->plot, box.left(), box.right(), box.top(), box.bottom());
        m_uncorrected.plot->replot(QCustomPlot::rpQueuedReplot);
    }
    m_corrected.plot->replot(QCustomPlot::rpQueuedReplot);
    m_difference.plot->replot(QCustomPlot::rpQueuedReplot);
    m_shown = {true, view.replicate, view.method, view.uncorrected.decisions, view.testDecisionsUncorrected,
               view.testDecisionsCorrected, decisionNames};
}

} // namespace lcs::ui
