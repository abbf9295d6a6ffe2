#include "ui/experiments/camvid/camvid_page.h"

#include <cmath>

#include <QHeaderView>
#include <QSplitter>
#include <QVBoxLayout>

#include "ui/qcustomplot_compat.h"

#include "ui/experiments/camvid/camvid_views.h"
#include "ui/method_style.h"
#include "ui/plot_parts.h"
#include "ui/results_table.h"

namespace lcs::ui {

CamvidResultsPage::CamvidResultsPage(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->setChildrenCollapsible(false);
    m_viewer = new CamvidOverlayViewer(splitter);
    // The IoU bars beside the live curves (frames per second, read once at the end, in a
    // tab with them); all three as tabs where the page is too narrow for two plots
    // with readable titles.
    auto* plots = new SideBySideOrTabs(760, splitter);
    plots->setObjectName(QStringLiteral("camvidPlotViews"));
    m_iou = new CamvidIouPlot;
    m_epochs = new CamvidEpochPlot;
    m_fps = new CamvidFpsPlot;
    plots->addView(m_iou, tr("IoU per class"), 0);
    plots->addView(m_epochs, tr("mIoU and cost per epoch"), 1);
    plots->addView(m_fps, tr("Frames per second"), 1);
    splitter->addWidget(m_viewer);
    splitter->addWidget(plots);
    splitter->setSizes({500, 500});  // weights, not pixels
    layout->addWidget(splitter);
}

QList<QCustomPlot*> CamvidResultsPage::plots() const
{
    return {m_iou->plot(), m_epochs->plot(), m_fps->plot()};
}

void CamvidResultsPage::startRun()
{
    m_viewer->clear();
    m_iou->clear();
    m_epochs->clear();
    m_fps->clear();
}

void CamvidResultsPage::startRecorrection()
{
    m_epochs->removeSeries(QStringLiteral("ours, re-corrected"));
}

void CamvidResultsPage::addEpochPoints(const QVector<CamvidEpochPoint>& points)
{
    m_epochs->addEpochPoints(points);
}

void CamvidResultsPage::startEvaluation(int frames)
{
    m_viewer->clear(frames);
}

void CamvidResultsPage::addFrames(const QVector<CamvidFrameView>& frames)
{
    m_viewer->addFrames(frames);
}

void CamvidResultsPage::setPreview(const CamvidPreviewView& preview)
{
    m_viewer->setPreview(preview);
}

void CamvidResultsPage::setComparison(const CamvidIouView& view)
{
    m_iou->setComparison(view);
}

void CamvidResultsPage::setFps(const CamvidFpsView& view)
{
    m_fps->setFps(view);
}

CamvidIouTable::CamvidIouTable(QWidget* parent) : QTableWidget(parent)
{
    setObjectName("camvidIouTable");
    setColumnCount(4);
    setHorizontalHeaderLabels({tr("class"), QString(), QString(), tr("q - S")});
    // S and q with their colours' swatches, as in the IoU bars and the epoch curves.
    setHorizontalHeaderItem(1, methodItem(QStringLiteral("sghmc_s"), tr("IoU S")));
    setHorizontalHeaderItem(2, methodItem(QStringLiteral("ours"), tr("IoU q")));
    fitColumnsToContents(this);
    verticalHeader()->setVisible(false);
    setEditTriggers(QAbstractItemView::NoEditTriggers);
}

void CamvidIouTable::clearRows()
{
    setRowCount(0);
}

void CamvidIouTable::setComparison(const CamvidIouView& v)
{
    auto number = [](double x, int digits) {
        return std::isfinite(x) ? QString::number(x, 'f', digits) : QStringLiteral("–");
    };
    clearSpans();
    const bool kept = !v.keptRule.isEmpty();
    setRowCount(static_cast<int>(v.classNames.size()) + 5 + (kept ? 1 : 0));
    int row = 0;
    if (kept) {
        // The decisions to use come first, on the frames the choice did not see.
        // Short enough for the dock at 1366 x 768; the frames and the reason in the tooltip.
        auto* item = new QTableWidgetItem(
            tr("kept: %1, cost %2 (S %3)").arg(v.keptRule, number(v.keptCost, 4), number(v.keptReferenceCost, 4)));
        QFont bold = item->font();
        bold.setBold(true);
        item->setFont(bold);
        item->setToolTip(tr("Costs on the %1 frames the choice did not see.\n%2").arg(v.keptScoredFrames).arg(v.keptReason));
        setItem(row, 0, item);
        for (int c = 1; c < 4; ++c)
            setItem(row, c, new QTableWidgetItem);
        setSpan(row, 0, 1, 4);
        ++row;
    }
    auto put = [&](const QString& name, double before, double after, int digits, const QString& tip = {}) {
        setItem(row, 0, new QTableWidgetItem(name));
        setItem(row, 1, new QTableWidgetItem(number(before, digits)));
        setItem(row, 2, new QTableWidgetItem(number(after, digits)));
        setItem(row, 3, new QTableWidgetItem(number(after - before, digits)));
        for (int c = 0; c < 4 && !tip.isEmpty(); ++c)
            item(row, c)->setToolTip(tip);
        ++row;
    };
    put(tr("decision cost"), v.before.cost, v.after.cost, 4);
    put(tr("expected cost"), v.before.expected, v.after.expected, 4,
        tr("The cost each network expects to pay under its own predictive; far below the decision cost "
           "means it is overconfident."));
    put(tr("cost at q's optimum"), v.costAtOptimum, v.after.cost, 4,
        tr("S column: S decided as the correction objective's pointwise optimum would (Bayes under the costs "
           "1 - exp(-L/M)). It separates what the objective asks for from what the network q learned."));
    put(tr("decisions changed %"), NAN, 100.0 * v.changedShare, 2,
        tr("Share of the scored pixels where q decides differently from S."));
    put(tr("mIoU"), v.before.meanIou, v.after.meanIou, 4);
    for (int c = 0; c < v.classNames.size(); ++c)
        put(v.classNames[c], v.before.iou.value(c, NAN), v.after.iou.value(c, NAN), 3);
}

} // namespace lcs::ui
