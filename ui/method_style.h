#pragma once

#include <QColor>
#include <QString>

/// How the window draws a method: its label and colour, both read from the engine's
/// method catalogue, so every plot, legend and table of every experiment agrees.
namespace lcs::ui {

/// The catalogue label of `id` ("sgld_s" -> "SGLD + S"); `id` itself when not a method.
QString methodLabelOf(const QString& id);
/// The catalogue colour of `id`; dark grey when not a method.
QColor methodColourOf(const QString& id);

} // namespace lcs::ui
