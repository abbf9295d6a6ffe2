#pragma once

#include <QList>
#include <QPair>
#include <QString>

class QWidget;

namespace lcs::ui {

class ExperimentPage;
class MainWindow;

/// The window's command line: the current experiment takes the demo's quick settings
/// (when `demo`), then each (name, value) of `assignments` as a declared setting parsed
/// as its lcstudio-cli flag would be. Returns an error naming the setting (nothing
/// applied), or empty.
QString applyCommandLineSettings(MainWindow& window, bool demo, const QList<QPair<QString, QString>>& assignments);

/// The problem with writing the screenshot to `pngPath`, or empty: the window's output
/// policy against what the window reads (an opened session, the current settings' data),
/// checked before the demo runs. Only .png names are taken (the file is a PNG).
QString screenshotPathProblem(MainWindow& window, const QString& pngPath);

/// Screenshot mode: runs `page`'s demo (its whole pipeline), prints the largest
/// event-loop delay while it ran, saves a PNG of `window` and quits the application
/// with 0; with 1 and a message on stderr on failure, or with the page's code (2 when
/// the experiment finds no data).
/// With `plotsDir`, every plot of the page is also exported there (PNG, SVG, PDF; all or
/// none), as File > Export Plots writes them. With `tab`, the page's tab of that title
/// (any case, without its & shortcut) is shown before the PNG; no such tab exits with 2,
/// listing the titles.
void runScreenshotDemo(QWidget* window, ExperimentPage* page, const QString& pngPath,
                       const QString& plotsDir = QString(), const QString& tab = QString());

/// Shows the tab titled `title` (case and & ignored) of the first tab widget under
/// `page` that has one; "" when shown, else the titles there are.
QString showTabTitled(QWidget* page, const QString& title);

} // namespace lcs::ui
