#include "ui/curve_view.h"

#include <QVBoxLayout>

#include "ui/qcustomplot_compat.h"

#include "ui/plot_export.h"
#include "ui/plot_parts.h"

namespace lcs::ui {

CurveView::CurveView(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_plot = new QCustomPlot(this);
    m_plot->setObjectName("correction_curves");
    m_plot->setMinimumHeight(180);
    layout->addWidget(m_plot);
    m_plot->plotLayout()->insertRow(0);
    m_plot->plotLayout()->addElement(0, 0, new QCPTextElement(m_plot, tr("Correction"), QFont("sans", 10, QFont::Bold)));
    auto* legend = makeLegend(m_plot, 1);
    legend->setFont(QFont("sans", 8));
    m_plot->setAutoAddPlottableToLegend(false);
    const QColor colors[] = {QColor(40, 40, 40), QColor(44, 160, 44), QColor(214, 39, 40)};
    const QString names[] = {tr("total loss"), tr("KL(q || p)"), tr("expected cost under q")};
    for (int i = 0; i < 3; ++i) {
        auto* g = m_plot->addGraph();
        g->setPen(QPen(colors[i], 1.6));
        g->setName(names[i]);
        g->addToLegend(legend);
    }
    m_plot->xAxis->setLabel(tr("step"));
    m_plot->yAxis->setLabel(tr("value (log scale)"));
    m_plot->yAxis->setScaleType(QCPAxis::stLogarithmic);
    m_plot->yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
    installExportMenu(m_plot, this);
}

void CurveView::setCurve(const std::vector<CurvePoint>& curve, const QString& title)
{
    QVector<double> steps, loss, kl, cost;
    steps.reserve(curve.size());
    for (const auto& p : curve) {
        steps << p.step;
        // A log axis cannot show 0; the floor keeps an exact zero visible at the bottom.
        loss << std::max(p.loss, 1e-6);
        kl << std::max(p.kl, 1e-6);
        cost << std::max(p.expectedCost, 1e-6);
    }
    m_plot->graph(0)->setData(steps, loss, /*alreadySorted=*/true);
    m_plot->graph(1)->setData(steps, kl, true);
    m_plot->graph(2)->setData(steps, cost, true);
    if (auto* t = qobject_cast<QCPTextElement*>(m_plot->plotLayout()->element(0, 0)))
        t->setText(title);
    m_plot->rescaleAxes();
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void CurveView::clear()
{
    for (int i = 0; i < m_plot->graphCount(); ++i)
        m_plot->graph(i)->data()->clear();
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

} // namespace lcs::ui
