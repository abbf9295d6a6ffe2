// The CamVid page's plots: per-class IoU of each method, frames per second against the
// ensemble size (the overlay viewer is camvid_views.cpp).
#include "ui/experiments/camvid/camvid_views.h"

#include <algorithm>
#include <cmath>

#include "ui/qcustomplot_compat.h"

#include "datasets/camvid_reader.h"
#include "ui/method_style.h"
#include "ui/plot_export.h"
#include "ui/plot_parts.h"

namespace lcs::ui {

namespace {

constexpr int kScoredClasses = kCamvidClasses - 1;  ///< void (last) is never decided or scored

} // namespace

QString camvidSeriesLabel(const QString& series)
{
    if (series == QLatin1String(kRecorrectedSeries))
        return QObject::tr("Ours, re-corrected");
    return methodLabelOf(series);
}

QString camvidSeriesMethod(const QString& series)
{
    // A re-correction is q again under new costs: the same method, drawn dashed.
    return series == QLatin1String(kRecorrectedSeries) ? QStringLiteral("ours") : series;
}

QColor camvidSeriesColour(const QString& series)
{
    return methodColourOf(camvidSeriesMethod(series));
}

CamvidIouPlot::CamvidIouPlot(QWidget* parent) : PlotView(QStringLiteral("camvid_iou"), 200, parent)
{
    m_title = new QCPTextElement(m_plot, tr("Per-class IoU on the validation frames"), plotTitleFont());
    m_plot->plotLayout()->addElement(0, 0, m_title);
    m_rect = makeRect(m_plot);
    m_plot->plotLayout()->addElement(1, 0, m_rect);
    m_plot->plotLayout()->setRowStretchFactor(0, 0.001);
    auto* legend = makeLegend(m_plot, 1, 2);
    m_rect->axis(QCPAxis::atLeft)->setLabel(tr("IoU"));
    m_rect->axis(QCPAxis::atLeft)->setRange(0, 1);
    auto* group = new QCPBarsGroup(m_plot);
    group->setSpacingType(QCPBarsGroup::stAbsolute);
    group->setSpacing(1);
    for (int rule = 0; rule < 2; ++rule) {
        auto* bars = new QCPBars(m_rect->axis(QCPAxis::atBottom), m_rect->axis(QCPAxis::atLeft));
        bars->setWidth(0.38);
        bars->setBarsGroup(group);
        // S and q in their colours in every plot (the epoch curves name them too).
        const QString method = rule == 0 ? QStringLiteral("sghmc_s") : QStringLiteral("ours");
        markMethod(bars, method);
        bars->setPen(QPen(methodColourOf(method).darker(130)));
        bars->setBrush(methodColourOf(method));
        bars->setName(rule == 0 ? tr("uncorrected (S)") : tr("corrected (q)"));
        bars->addToLegend(legend);
        m_bars[rule] = bars;
    }
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    const auto names = camvidClassNameList();
    for (int c = 0; c < kScoredClasses; ++c)
        ticker->addTick(c, names[c]);
    m_rect->axis(QCPAxis::atBottom)->setTicker(ticker);
    // Each label ends at its tick: one running right past the widget's edge would not be
    // drawn at all (the last class, "Bicyclist").
    m_rect->axis(QCPAxis::atBottom)->setTickLabelRotation(-35);
    m_rect->axis(QCPAxis::atBottom)->setRange(-0.6, kScoredClasses - 0.4);
    clear();
}

void CamvidIouPlot::clear()
{
    for (auto* b : m_bars)
        b->data()->clear();
    m_title->setText(tr("Per-class IoU on the validation frames"));
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void CamvidIouPlot::setComparison(const CamvidIouView& view)
{
    for (int rule = 0; rule < 2; ++rule) {
        const auto& iou = rule == 0 ? view.before.iou : view.after.iou;
        QVector<double> keys, values;
        for (int c = 0; c < iou.size(); ++c)
            if (std::isfinite(iou[c])) {  // a class neither truth nor decisions hold has no IoU
                keys << c;
                values << iou[c];
            }
        m_bars[rule]->setData(keys, values, /*alreadySorted=*/true);
    }
    if (!view.classNames.isEmpty()) {
        QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
        for (int c = 0; c < view.classNames.size(); ++c)
            ticker->addTick(c, view.classNames[c]);
        m_rect->axis(QCPAxis::atBottom)->setTicker(ticker);
    }
    // Short lines: the panel is about a fifth of the window wide (under 300 px at 1800).
    m_title->setText(tr("IoU per class, %1 frames\nS → q: mIoU %2 → %3\ncost %4 → %5%6")
                         .arg(view.frames)
                         .arg(view.before.meanIou, 0, 'f', 3).arg(view.after.meanIou, 0, 'f', 3)
                         .arg(view.before.cost, 0, 'f', 3).arg(view.after.cost, 0, 'f', 3)
                         .arg(view.recorrected ? tr(" (re-corrected)") : QString()));
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

QString CamvidIouPlot::title() const
{
    return m_title->text();
}

CamvidFpsPlot::CamvidFpsPlot(QWidget* parent) : PlotView(QStringLiteral("camvid_fps"), 200, parent)
{
    m_title = new QCPTextElement(m_plot, tr("Frames per second vs ensemble size"), plotTitleFont());
    m_plot->plotLayout()->addElement(0, 0, m_title);
    m_rect = makeRect(m_plot);
    m_plot->plotLayout()->addElement(1, 0, m_rect);
    m_plot->plotLayout()->setRowStretchFactor(0, 0.001);
    for (auto type : {QCPAxis::atBottom, QCPAxis::atLeft}) {
        auto* axis = m_rect->axis(type);
        axis->setScaleType(QCPAxis::stLogarithmic);
        QSharedPointer<QCPAxisTickerLog> ticker(new QCPAxisTickerLog);
        ticker->setSubTickCount(8);
        axis->setTicker(ticker);
    }
    m_rect->axis(QCPAxis::atBottom)->setLabel(tr("ensemble size k (passes per frame)"));
    m_rect->axis(QCPAxis::atLeft)->setLabel(tr("frames / s"));
    auto* legend = makeLegend(m_plot, 1, 1);  // long entries, one a line
    m_ensemble = m_plot->addGraph(m_rect->axis(QCPAxis::atBottom), m_rect->axis(QCPAxis::atLeft));
    m_ensemble->setName(tr("ensemble / MC dropout"));
    m_ensemble->addToLegend(legend);
    m_q = m_plot->addGraph(m_rect->axis(QCPAxis::atBottom), m_rect->axis(QCPAxis::atLeft));
    markMethod(m_q, QStringLiteral("ours"));
    m_q->setPen(QPen(camvidSeriesColour("ours"), 1.8, Qt::DashLine));
    m_q->setName(tr("q (one pass + Bayes decision)"));
    m_q->addToLegend(legend);
    clear();
}

void CamvidFpsPlot::showEnsembleMethod(const QString& method)
{
    markMethod(m_ensemble, method);
    m_ensemble->setPen(QPen(camvidSeriesColour(method), 1.8));
    m_ensemble->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, camvidSeriesColour(method), 6));
}

void CamvidFpsPlot::clear()
{
    showEnsembleMethod(QStringLiteral("sghmc_s"));
    m_ensemble->data()->clear();
    m_q->data()->clear();
    m_rect->axis(QCPAxis::atBottom)->setRange(0.8, 40);
    m_rect->axis(QCPAxis::atLeft)->setRange(1, 1000);
    m_title->setText(tr("Frames per second vs ensemble size"));
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void CamvidFpsPlot::setFps(const CamvidFpsView& view)
{
    QVector<double> k, fps;
    double lo = view.qFps, hi = view.qFps;
    for (int i = 0; i < view.ensembles.size(); ++i) {
        k << view.ensembles[i];
        fps << view.ensembleFps[i];
        lo = std::min(lo, view.ensembleFps[i]);
        hi = std::max(hi, view.ensembleFps[i]);
    }
    m_ensemble->setData(k, fps, /*alreadySorted=*/true);
    showEnsembleMethod(view.ensembleMethod);
    m_ensemble->setName(view.ensembleLabel.isEmpty() ? tr("ensemble / MC dropout") : view.ensembleLabel);
    const double kMax = k.isEmpty() ? 30 : k.back();
    // q does one pass whatever k the ensemble needs: a horizontal line.
    m_q->setData(QVector<double>{0.8, kMax * 1.3}, QVector<double>{view.qFps, view.qFps}, /*alreadySorted=*/true);
    m_rect->axis(QCPAxis::atBottom)->setRange(0.8, kMax * 1.3);
    if (lo > 0)
        m_rect->axis(QCPAxis::atLeft)->setRange(lo / 1.6, hi * 1.6);
    m_title->setText(tr("Frames per second at %1x%2\nq %3 · k = %4 passes: %5")
                         .arg(view.width).arg(view.height).arg(view.qFps, 0, 'f', 1)
                         .arg(k.isEmpty() ? 0 : int(k.back())).arg(fps.isEmpty() ? 0.0 : fps.back(), 0, 'f', 1));
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

} // namespace lcs::ui
