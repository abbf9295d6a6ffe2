#pragma once

#include <functional>

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

/// What the screenshot mode does after the demo's run, as a user would in the window:
/// edit cells of the cost matrix (the page re-corrects, as after an edit in the cost
/// editor), then save the shown model as File > Export Model does. `applyEdit` sets one
/// cell and returns "" or why it could not.
struct ScreenshotSteps {
    struct CostEdit {
        int row = 0, column = 0;  ///< true class and decision, from 0
        double value = 0;
        QString text;             ///< as given, for messages
    };
    QList<CostEdit> edits;
    std::function<QString(const CostEdit&)> applyEdit;
    QString modelPath;  ///< empty: no model saved
};

/// Screenshot mode: runs `page`'s demo (its whole pipeline), prints the largest
/// event-loop delay while it ran, saves a PNG of `window` and quits the application
/// with 0; with 1 and a message on stderr on failure, or with the page's code (2 when
/// the experiment finds no data).
/// With `plotsDir`, every plot of the page is also exported there (PNG, SVG, PDF; all or
/// none), as File > Export Plots writes them. With `tab`, the page's tab of that title
/// (any case, without its & shortcut) is shown before the PNG; no such tab exits with 2,
/// listing the titles. `steps` run after the demo and before the PNG: the edits, the
/// re-correction they start (waited for), then the model saved; a step that fails exits
/// with 2 (an edit the matrix refuses, a page without a model to save) or 1 (the save).
void runScreenshotDemo(QWidget* window, ExperimentPage* page, const QString& pngPath,
                       const QString& plotsDir = QString(), const QString& tab = QString(),
                       const ScreenshotSteps& steps = {});

/// Shows the tab titled `title` (case and & ignored) of the first tab widget under
/// `page` that has one; "" when shown, else the titles there are.
QString showTabTitled(QWidget* page, const QString& title);

} // namespace lcs::ui
