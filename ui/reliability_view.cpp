#include "ui/reliability_view.h"

#include <cmath>

#include "ui/qcustomplot_compat.h"


namespace lcs::ui {

namespace {

/// The bins that hold rows, as (confidence, accuracy) points in confidence order.
void binPoints(const std::vector<ReliabilityBin>& bins, QVector<double>& x, QVector<double>& y)
{
    for (const auto& b : bins)
        if (b.count > 0 && std::isfinite(b.confidence) && std::isfinite(b.accuracy)) {
            x << b.confidence;
            y << b.accuracy;
        }
}

} // namespace

ReliabilityView::ReliabilityView(QWidget* parent) : PlotView(QStringLiteral("reliability_diagram"), 220, parent)
{
    m_plot->plotLayout()->addElement(
        0, 0, new QCPTextElement(m_plot, tr("Reliability on the test rows"), QFont("sans", 10, QFont::Bold)));
    auto* legend = makeLegend(m_plot, 1, 3);
    legend->setFont(QFont("sans", 8));
    auto* rect = makeRect(m_plot);
    m_plot->plotLayout()->addElement(2, 0, rect);
    auto* x = rect->axis(QCPAxis::atBottom);
    auto* y = rect->axis(QCPAxis::atLeft);
    auto* diagonal = new QCPGraph(x, y);
    diagonal->setPen(QPen(QColor(150, 150, 150), 1, Qt::DotLine));
    diagonal->setName(tr("calibrated (accuracy = confidence)"));
    diagonal->setData({0, 1}, {0, 1});
    legend->addItem(new QCPPlottableLegendItem(legend, diagonal));
    for (int i = 0; i < 2; ++i) {
        auto* g = new QCPGraph(x, y);
        legend->addItem(new QCPPlottableLegendItem(legend, g));
    }
    x->setLabel(tr("confidence (top-label probability; bins of 1/%1)").arg(kReliabilityBins));
    y->setLabel(tr("accuracy of the top label"));
    x->setRange(0, 1);
    y->setRange(0, 1.02);
    clear();
}

void ReliabilityView::setDiagrams(const std::vector<ReliabilityBin>& uncorrected, double eceUncorrected,
                                  const std::vector<ReliabilityBin>& corrected, double eceCorrected,
                                  const QColor& colour, const QString& title)
{
    const auto show = [&](int graph, const std::vector<ReliabilityBin>& bins, double ece, const QString& name,
                          Qt::PenStyle style, QCPScatterStyle::ScatterShape shape) {
        QVector<double> x, y;
        binPoints(bins, x, y);
        auto* g = m_plot->graph(graph);
        g->setData(x, y, /*alreadySorted=*/true);
        g->setPen(QPen(colour, 1.6, style));
        g->setScatterStyle(QCPScatterStyle(shape, colour, Qt::white, 7));
        g->setName(std::isfinite(ece) ? tr("%1 (ECE %2)").arg(name).arg(ece, 0, 'f', 3) : name);
        g->setVisible(!x.isEmpty());
    };
    show(1, uncorrected, eceUncorrected, tr("P, uncorrected"), Qt::DashLine, QCPScatterStyle::ssCircle);
    show(2, corrected, eceCorrected, tr("q, corrected"), Qt::SolidLine, QCPScatterStyle::ssSquare);
    if (auto* t = qobject_cast<QCPTextElement*>(m_plot->plotLayout()->element(0, 0)))
        t->setText(title);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void ReliabilityView::clear()
{
    for (int i = 1; i < m_plot->graphCount(); ++i) {
        m_plot->graph(i)->data()->clear();
        m_plot->graph(i)->setName(i == 1 ? tr("P, uncorrected") : tr("q, corrected"));
    }
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

} // namespace lcs::ui
