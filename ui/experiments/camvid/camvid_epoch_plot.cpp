#include "ui/experiments/camvid/camvid_views.h"

#include <algorithm>

#include "ui/qcustomplot_compat.h"

#include "ui/method_style.h"
#include "ui/plot_parts.h"

/// The CamVid experiment's live curves: validation mIoU and decision cost per epoch of
/// every network.
namespace lcs::ui {

namespace {


} // namespace

namespace {

/// S and q start after CW-SGD (S's chain from its weights, q on S) and count their own
/// epochs: their curves get axes of their own, never CW-SGD's epoch axis.
bool afterTheChainStart(const QString& series)
{
    return series == QLatin1String("sghmc_s") || series.startsWith(QLatin1String("ours"));
}

} // namespace

CamvidEpochPlot::CamvidEpochPlot(QWidget* parent) : PlotView(QStringLiteral("camvid_epochs"), 200, parent)
{
    m_legend = makeLegend(m_plot, 0, 3);
    auto* grid = new QCPLayoutGrid;
    m_plot->plotLayout()->addElement(1, 0, grid);
    grid->addElement(0, 0, new QCPTextElement(m_plot, tr("Validation mIoU per epoch"), plotTitleFont()));
    grid->addElement(0, 1, new QCPTextElement(m_plot, tr("Validation decision cost per epoch"), plotTitleFont()));
    grid->setRowStretchFactor(0, 0.001);
    // Short: each label spans one of two panels side by side (under 200 px on 1920).
    const QString xLabels[2] = {tr("epoch (CW-SGD, MC dropout)"), tr("S and q epoch, after CW-SGD")};
    for (int row = 0; row < 2; ++row)
        for (int i = 0; i < 2; ++i) {
            auto* rect = makeRect(m_plot);
            m_rects[row][i] = rect;
            grid->addElement(1 + row, i, rect);
            rect->axis(QCPAxis::atBottom)->setLabel(xLabels[row]);
            rect->axis(QCPAxis::atLeft)->setLabel(i == 0 ? tr("mIoU") : tr("cost"));
        }
    clear();
}

QCPAxisRect* CamvidEpochPlot::rectFor(int panel, const QString& series) const
{
    return m_rects[afterTheChainStart(series) ? 1 : 0][panel];
}

void CamvidEpochPlot::clear()
{
    m_legend->clearItems();
    m_plot->clearPlottables();
    m_graphs[0].clear();
    m_graphs[1].clear();
    rescale();
}

QCPGraph* CamvidEpochPlot::graphFor(int panel, const QString& series)
{
    if (auto* g = m_graphs[panel].value(series))
        return g;
    auto* rect = rectFor(panel, series);
    auto* g = m_plot->addGraph(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
    const QColor colour = camvidSeriesColour(series);
    markMethod(g, camvidSeriesMethod(series));
    // A re-correction is q again under new costs: ours' colour, dashed.
    g->setPen(QPen(colour, 1.6, series == QLatin1String(kRecorrectedSeries) ? Qt::DashLine : Qt::SolidLine));
    g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, colour, 4));
    g->setName(camvidSeriesLabel(series));
    if (panel == 0)
        g->addToLegend(m_legend);
    m_graphs[panel].insert(series, g);
    return g;
}

void CamvidEpochPlot::addEpochPoints(const QVector<CamvidEpochPoint>& points)
{
    for (const auto& p : points) {
        graphFor(0, p.series)->addData(p.epoch, p.meanIou);
        graphFor(1, p.series)->addData(p.epoch, p.cost);
    }
    rescale();
}

void CamvidEpochPlot::removeSeries(const QString& series)
{
    for (auto& graphs : m_graphs)
        if (auto* g = graphs.take(series)) {
            g->removeFromLegend(m_legend);
            m_plot->removeGraph(g);
        }
    rescale();
}

void CamvidEpochPlot::rescale()
{
    for (int row = 0; row < 2; ++row)
        for (int i = 0; i < 2; ++i) {
            auto* rect = m_rects[row][i];
            double maxEpoch = 1, maxY = 0.1;
            for (auto* g : std::as_const(m_graphs[i]))
                if (g->keyAxis() == rect->axis(QCPAxis::atBottom))
                    for (auto it = g->data()->constBegin(); it != g->data()->constEnd(); ++it) {
                        maxEpoch = std::max(maxEpoch, it->key);
                        maxY = std::max(maxY, it->value);
                    }
            rect->axis(QCPAxis::atBottom)->setRange(0.5, maxEpoch + 0.5);
            rect->axis(QCPAxis::atLeft)->setRange(0, maxY * 1.1);
        }
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

} // namespace lcs::ui
