#pragma once

#include <functional>

#include <QSize>
#include <QString>

class QCustomPlot;
class QImage;
class QPainter;
class QWidget;

namespace lcs::ui {

/// The smallest size a plot is exported at (its on-screen size where larger).
inline constexpr int kMinimumExportWidth = 900;
inline constexpr int kMinimumExportHeight = 700;

/// Writes a plot as PNG, SVG or PDF, chosen by the file's extension (another is refused
/// naming the three); returns an empty string on success, otherwise the reason. Files are
/// written atomically, at least kMinimumExportWidth x kMinimumExportHeight.
QString exportPlot(QCustomPlot* plot, const QString& path);

/// Saves `image` as PNG, encoded in memory and written atomically (a full disk leaves
/// no truncated file); returns an empty string on success, otherwise the reason.
QString saveImageAtomically(const QImage& image, const QString& path);

/// Adds "Export as PNG / SVG / PDF..." to the plot's right-click menu.
void installExportMenu(QCustomPlot* plot, QWidget* dialogParent);

/// A widget that paints itself (such as the gallery of changed decisions) drawn by
/// `paint` into a `size` area and written as PNG, SVG or PDF like exportPlot.
using Painting = std::function<void(QPainter&)>;
QString exportPainting(const Painting& paint, const QSize& size, const QString& path, const QString& title);

/// The same right-click menu for a painted widget; `size` and `paint` are asked at export.
void installPaintingExportMenu(QWidget* widget, const std::function<QSize()>& size, const Painting& paint,
                               QWidget* dialogParent);

} // namespace lcs::ui
