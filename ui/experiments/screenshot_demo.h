#pragma once

#include <QString>

class QWidget;

namespace lcs::ui {

class ExperimentPage;

/// Screenshot mode: runs `page`'s demo (its whole pipeline), prints the largest
/// event-loop delay while it ran, saves a PNG of `window` and quits the application
/// with 0; with 1 and a message on stderr on failure, or with the page's code (2 when
/// the experiment finds no data).
void runScreenshotDemo(QWidget* window, ExperimentPage* page, const QString& pngPath);

} // namespace lcs::ui
