#pragma once

#include <Qt>

class QCPAxisRect;
class QCPLegend;
class QCustomPlot;
class QString;
class QWidget;

/// Building blocks shared by the image and CamVid views, so every plot of the window has
/// the same fonts, legend style and export menu.
namespace lcs::ui {

/// A QCustomPlot filling `owner`, with an empty layout (the view lays out its own axis
/// rects and legends) and the PNG/SVG/PDF export menu.
QCustomPlot* makePlot(QWidget* owner, const QString& objectName, int minimumHeight);

/// An axis rect with the window's small tick and label fonts.
QCPAxisRect* makeRect(QCustomPlot* plot);

/// A compact, semi-transparent legend inside `rect` at `where`.
QCPLegend* makeLegend(QCPAxisRect* rect, Qt::Alignment where);

} // namespace lcs::ui
