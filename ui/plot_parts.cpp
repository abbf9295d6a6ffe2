#include "plot_parts.h"

#include <QResizeEvent>
#include <QSplitter>
#include <QTabBar>
#include <QTabWidget>
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

namespace {

/// What a layout grants `w` at least: its explicit minimum where set, else its hint.
QSize effectiveMinimum(const QWidget* w)
{
    QSize s = w->minimumSizeHint().expandedTo(QSize(0, 0));
    if (w->minimumWidth() > 0)
        s.setWidth(w->minimumWidth());
    if (w->minimumHeight() > 0)
        s.setHeight(w->minimumHeight());
    return s;
}

QTabWidget* makeTabs(QWidget* parent)
{
    auto* tabs = new QTabWidget(parent);
    tabs->setDocumentMode(true);
    return tabs;
}

} // namespace

SideBySideOrTabs::SideBySideOrTabs(int wideFrom, QWidget* parent) : QWidget(parent), m_wideFrom(wideFrom)
{
    // No layout: the two arrangements would add their minimums up; resizeEvent places
    // the one in use.
    m_split = new QSplitter(Qt::Horizontal, this);
    m_split->setChildrenCollapsible(false);
    m_split->hide();
    m_tabs = makeTabs(this);
}

void SideBySideOrTabs::addView(QWidget* view, const QString& title, int column, int share)
{
    while (m_columns.size() <= column) {
        auto* tabs = makeTabs(m_split);
        tabs->setTabBarAutoHide(true);
        m_split->addWidget(tabs);
        m_columns << tabs;
        m_shares << share;
    }
    m_views << view;
    m_titles << title;
    m_viewColumns << column;
    (m_wide ? m_columns[column] : m_tabs)->addTab(view, title);
    QList<int> sizes;
    for (int share : std::as_const(m_shares))
        sizes << 100 * share;  // weights, not pixels
    m_split->setSizes(sizes);
    updateGeometry();
}

QSize SideBySideOrTabs::minimumSizeHint() const
{
    QSize s;
    for (const QWidget* view : m_views)
        s = s.expandedTo(effectiveMinimum(view));
    return s + QSize(0, m_tabs->tabBar()->sizeHint().height());
}

QSize SideBySideOrTabs::sizeHint() const
{
    return m_wide ? m_split->sizeHint() : m_tabs->sizeHint();
}

void SideBySideOrTabs::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    arrange(width() >= m_wideFrom);
    (m_wide ? static_cast<QWidget*>(m_split) : m_tabs)->setGeometry(rect());
}

void SideBySideOrTabs::arrange(bool wide)
{
    if (wide == m_wide)
        return;
    m_wide = wide;
    // Going to tabs, the first column's view in front stays in front.
    QWidget* current = m_columns.isEmpty() ? nullptr : m_columns.front()->currentWidget();
    for (int i = 0; i < m_views.size(); ++i) {
        QTabWidget* from = wide ? m_tabs : m_columns[m_viewColumns[i]];
        from->removeTab(from->indexOf(m_views[i]));
        (wide ? m_columns[m_viewColumns[i]] : m_tabs)->addTab(m_views[i], m_titles[i]);
    }
    if (!wide && current)
        m_tabs->setCurrentWidget(current);
    m_split->setVisible(wide);
    m_tabs->setVisible(!wide);
}

} // namespace lcs::ui
