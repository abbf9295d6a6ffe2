#include "ui/plot_parts.h"

#include <QResizeEvent>
#include <QSplitter>
#include <QTabBar>
#include <QTabWidget>
#include <QVBoxLayout>

#include "ui/plot_export.h"
#include "ui/qcustomplot_compat.h"

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

PlotView::PlotView(const QString& objectName, int minimumHeight, QWidget* parent)
    : QWidget(parent), m_plot(makePlot(this, objectName, minimumHeight))
{
}

QStringList PlotView::graphNames() const
{
    QStringList names;
    for (int i = 0; i < m_plot->graphCount(); ++i)
        names << m_plot->graph(i)->name();
    return names;
}

QFont plotTitleFont()
{
    return QFont("sans", 9, QFont::Bold);
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

QCPLegend* makeLegend(QCustomPlot* plot, int row, int columns)
{
    auto* legend = new QCPLegend;
    auto* layout = plot->plotLayout();
    if (row < layout->rowCount())
        layout->insertRow(row);
    layout->addElement(row, 0, legend);
    layout->setRowStretchFactor(row, 0.001);  // as tall as its items: the axis rects get the rest
    legend->setLayer(QStringLiteral("legend"));
    legend->setFont(QFont("sans", 7));
    legend->setBorderPen(Qt::NoPen);
    legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    legend->setWrap(columns);
    legend->setIconSize(18, 8);
    legend->setRowSpacing(-2);
    legend->setColumnSpacing(10);
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
    m_titleColours << QColor();
    m_viewColumns << column;
    m_shown << true;
    (m_wide ? m_columns[column] : m_tabs)->addTab(view, title);
    QList<int> sizes;
    for (int share : std::as_const(m_shares))
        sizes << 100 * share;  // weights, not pixels
    m_split->setSizes(sizes);
    updateGeometry();
}

void SideBySideOrTabs::setViewShown(QWidget* view, bool shown)
{
    const int i = static_cast<int>(m_views.indexOf(view));
    if (i < 0 || m_shown[i] == shown)
        return;
    m_shown[i] = shown;
    place((m_wide ? m_columns.front() : m_tabs)->currentWidget());
}

QSize SideBySideOrTabs::minimumSizeHint() const
{
    QSize s;
    for (int i = 0; i < m_views.size(); ++i)
        if (m_shown[i])
            s = s.expandedTo(effectiveMinimum(m_views[i]));
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
    // Going to tabs, the first column's view in front stays in front.
    QWidget* current = m_columns.isEmpty() ? nullptr : m_columns.front()->currentWidget();
    m_wide = wide;
    place(wide ? nullptr : current);
    m_split->setVisible(wide);
    m_tabs->setVisible(!wide);
}

void SideBySideOrTabs::setViewTitle(QWidget* view, const QString& title, const QColor& colour)
{
    const int i = static_cast<int>(m_views.indexOf(view));
    if (i < 0)
        return;
    m_titles[i] = title;
    m_titleColours[i] = colour;
    QList<QTabWidget*> all = m_columns;
    all << m_tabs;
    for (auto* tabs : std::as_const(all)) {
        const int at = tabs->indexOf(view);
        if (at >= 0) {
            tabs->setTabText(at, title);
            tabs->tabBar()->setTabTextColor(at, colour);
        }
    }
}

void SideBySideOrTabs::bringToFront(QWidget* view)
{
    QList<QTabWidget*> all = m_columns;
    all << m_tabs;
    for (auto* tabs : std::as_const(all))
        if (tabs->indexOf(view) >= 0)
            tabs->setCurrentWidget(view);
}

void SideBySideOrTabs::place(QWidget* front)
{
    QList<QTabWidget*> all = m_columns;
    all << m_tabs;
    for (auto* tabs : std::as_const(all))
        while (tabs->count() > 0)
            tabs->removeTab(0);
    QList<bool> columnShown(m_columns.size(), false);
    for (int i = 0; i < m_views.size(); ++i) {
        if (!m_shown[i]) {
            m_views[i]->hide();
            continue;
        }
        columnShown[m_viewColumns[i]] = true;
        auto* tabs = m_wide ? m_columns[m_viewColumns[i]] : m_tabs;
        const int at = tabs->addTab(m_views[i], m_titles[i]);
        tabs->tabBar()->setTabTextColor(at, m_titleColours[i]);
    }
    for (int c = 0; c < m_columns.size(); ++c)
        m_columns[c]->setVisible(columnShown[c]);
    for (auto* tabs : std::as_const(all))
        if (front && tabs->indexOf(front) >= 0)
            tabs->setCurrentWidget(front);
    updateGeometry();
}

} // namespace lcs::ui
