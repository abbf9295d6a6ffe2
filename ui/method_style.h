#pragma once

#include <QColor>
#include <QString>

class QObject;
class QTableWidgetItem;

/// How the window draws a method: its label and colour, both read from the engine's
/// method catalogue, so every plot, legend and table of every experiment agrees.
namespace lcs::ui {

/// Curve name of the q that a re-correction trains, on every page (it joins the cached
/// run's curves, drawn dashed).
inline constexpr const char* kRecorrectedSeries = "ours, re-corrected";

/// The catalogue label of `id` ("sgld_s" -> "SGLD + S"); `id` itself when not a method.
QString methodLabelOf(const QString& id);
/// The catalogue colour of `id`; dark grey when not a method.
QColor methodColourOf(const QString& id);

/// The catalogue method a network `id` stands for in `experiment`: `id` itself, or X for
/// "X_s" (X with the student S) where the experiment offers X and not X_s. Selective
/// classification's SGHMC is trained with S and reports its epochs as "sghmc_s"; its
/// table row says "sghmc": both must be drawn as the one method the experiment offers.
QString methodIn(const QString& id, const QString& experiment);

/// Notes on a drawn thing (a plottable) which method it draws, for tests to read back
/// against methodColourOf.
void markMethod(QObject* drawn, const QString& id);
/// The method markMethod noted; empty when none.
QString markedMethod(const QObject* drawn);

/// The data role of a table cell that names a method: the method's id.
inline constexpr int kMethodRole = Qt::UserRole + 7;
/// A table cell naming method `id` by `label` (its catalogue label when empty), with a
/// swatch of the method's colour, the same colour its curves and bars have (no swatch
/// for an id outside the catalogue).
QTableWidgetItem* methodItem(const QString& id, const QString& label = QString());

} // namespace lcs::ui
