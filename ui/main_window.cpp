#include "main_window.h"

#include <QLabel>
#include <QStatusBar>

namespace lcs::ui {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent)
{
    setWindowTitle(tr("LC Studio"));
    auto* label = new QLabel(tr("LC Studio: post-hoc loss calibration. The synthetic experiment is ready to run."), this);
    label->setAlignment(Qt::AlignCenter);
    setCentralWidget(label);
    statusBar()->showMessage(tr("Ready"));
    resize(1200, 800);
}

} // namespace lcs::ui
