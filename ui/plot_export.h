#pragma once

#include <QString>

class QCustomPlot;
class QImage;
class QWidget;

namespace lcs::ui {

/// Writes a plot as PNG, SVG or PDF, chosen by the file's extension; returns an empty
/// string on success, otherwise the reason. Files are written atomically.
QString exportPlot(QCustomPlot* plot, const QString& path);

/// Saves `image` as PNG, encoded in memory and written atomically (a full disk leaves
/// no truncated file); returns an empty string on success, otherwise the reason.
QString saveImageAtomically(const QImage& image, const QString& path);

/// Adds "Export as PNG / SVG / PDF..." to the plot's right-click menu.
void installExportMenu(QCustomPlot* plot, QWidget* dialogParent);

} // namespace lcs::ui
