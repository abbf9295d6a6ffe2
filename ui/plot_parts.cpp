#include "plot_parts.h"

#include <QVBoxLayout>

#include "plot_export.h"
#include "qcustomplot_compat.h"

namespace lcs::ui {

QCustomPlot* makePlot(QWidget* owner, const QString& objectName, int minimumHeight)
{
    auto* layout = new QVBoxLayout(owner);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* plot = new QCustomPlot(owner);
    plot->setObjectName(objectName);
    // An explicit minimum width: the plots' own hint adds up every axis rect's labels
    // and would widen the window past a small screen; side-by-side plots get more.
    plot->setMinimumSize(240, minimumHeight);
    plot->plotLayout()->clear();  // the views lay out their own axis rects (and legends)
    plot->setAutoAddPlottableToLegend(false);
    layout->addWidget(plot);
    installExportMenu(plot, owner);
    return plot;
}

QCPAxisRect* makeRect(QCustomPlot* plot)
{
    auto* rect = new QCPAxisRect(plot);
    for (auto* axis : rect->axes()) {
        axis->setTickLabelFont(QFont("sans", 7));
        axis->setLabelFont(QFont("sans", 8));
    }
    return rect;
}

QCPLegend* makeLegend(QCPAxisRect* rect, Qt::Alignment where)
{
    auto* legend = new QCPLegend;
    rect->insetLayout()->addElement(legend, where);
    legend->setLayer(QStringLiteral("legend"));
    legend->setFont(QFont("sans", 7));
    legend->setBrush(QColor(255, 255, 255, 210));
    legend->setBorderPen(QPen(QColor(180, 180, 180)));
    legend->setRowSpacing(-3);
    legend->setIconSize(18, 8);
    return legend;
}

} // namespace lcs::ui
