// lcstudio: the desktop application.
#include <QApplication>

#include "main_window.h"

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    QApplication::setApplicationName("LC Studio");
    QApplication::setOrganizationName("LCStudio");
    QApplication::setApplicationVersion(LCS_VERSION);
    lcs::ui::MainWindow window;
    window.show();
    return QApplication::exec();
}
