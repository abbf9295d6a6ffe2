#pragma once

#include <QFont>
#include <QList>
#include <QStringList>
#include <QWidget>

class QCPAxisRect;
class QCPLegend;
class QCustomPlot;
class QSplitter;
class QTabWidget;

/// Building blocks shared by the image and CamVid views, so every plot of the window has
/// the same fonts, legend style and export menu.
namespace lcs::ui {

/// A QCustomPlot filling `owner`, with an empty layout (the view lays out its own axis
/// rects and legends) and the PNG/SVG/PDF export menu.
QCustomPlot* makePlot(QWidget* owner, const QString& objectName, int minimumHeight);

/// A view that is one plot (makePlot's, with the export menu): the base of the window's
/// plots, each of which lays out its own axis rects, legends and titles in it.
class PlotView : public QWidget {
    Q_OBJECT
public:
    QCustomPlot* plot() const { return m_plot; }
    /// The names of the plot's graphs, in the order drawn (what its legend lists).
    QStringList graphNames() const;

protected:
    PlotView(const QString& objectName, int minimumHeight, QWidget* parent);

    QCustomPlot* const m_plot;
};

/// The font of a plot's title where a view shows several plots (sans 9, bold).
QFont plotTitleFont();

/// An axis rect with the window's small tick and label fonts.
QCPAxisRect* makeRect(QCustomPlot* plot);

/// A compact legend in its own row of `plot`'s layout, inserted at `row` (between a title
/// and the axis rects it explains): outside every axis rect, it never covers data. Its
/// items fill `columns` columns before wrapping to the next line. Clear its items before
/// the plottables they name (QCustomPlot only forgets those of its default legend).
QCPLegend* makeLegend(QCustomPlot* plot, int row, int columns = 3);

/// Views side by side in a splitter when the widget is at least `wideFrom` pixels wide,
/// else all in one tab widget: a small screen keeps each view at a readable size, a
/// large one shows them all at once. Views of the same column share a tab widget when
/// side by side (its tab bar hides when the column has one view).
class SideBySideOrTabs : public QWidget {
    Q_OBJECT
public:
    explicit SideBySideOrTabs(int wideFrom, QWidget* parent = nullptr);

    /// Adds `view` (taking it) under `title`, in splitter column `column`; a column's
    /// width share is `share` (the first view of a column sets it).
    void addView(QWidget* view, const QString& title, int column, int share = 1);
    /// Shows or hides `view` with its tab (a view the current experiment does not fill);
    /// a column with no view shown is hidden.
    void setViewShown(QWidget* view, bool shown);
    bool sideBySide() const { return m_wide; }
    /// Renames `view`'s tab, in `colour` (invalid: the palette's), in either arrangement.
    void setViewTitle(QWidget* view, const QString& title, const QColor& colour = QColor());
    /// Brings `view` to the front of the tab widget holding it.
    void bringToFront(QWidget* view);

    /// As narrow as the widest view: the tabs are the fallback.
    QSize minimumSizeHint() const override;
    QSize sizeHint() const override;

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void arrange(bool wide);
    /// Puts every shown view in the tab widget of the arrangement in use, in the order
    /// added, `front` (when shown) in front of its tab widget.
    void place(QWidget* front);

    int m_wideFrom = 0;
    bool m_wide = false;
    QSplitter* m_split = nullptr;
    QTabWidget* m_tabs = nullptr;
    QList<QTabWidget*> m_columns;
    QList<int> m_shares;
    QList<QWidget*> m_views;
    QStringList m_titles;
    QList<QColor> m_titleColours;
    QList<int> m_viewColumns;
    QList<bool> m_shown;
};

} // namespace lcs::ui
