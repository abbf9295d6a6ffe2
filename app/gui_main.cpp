// lcstudio: the desktop application.
#include <cstdio>

#include <QApplication>
#include <QCommandLineParser>

#include "core/threads.h"
#include "main_window.h"

int main(int argc, char** argv)
{
    // The synthetic experiment's networks are tiny: jobs parallelise across tasks, and
    // intra-op threads would only compete with them and with the GUI thread.
    lcs::configureThreads(1);

    QApplication app(argc, argv);
    QApplication::setApplicationName("LC Studio");
    QApplication::setOrganizationName("LCStudio");
    QApplication::setApplicationVersion(LCS_VERSION);

    QCommandLineParser parser;
    parser.setApplicationDescription("LC Studio: post-hoc loss calibration of Bayesian neural networks");
    parser.addHelpOption();
    parser.addVersionOption();
    QCommandLineOption demo("demo", "Run the named experiment's default pipeline at start-up (synthetic).", "experiment");
    QCommandLineOption screenshot("screenshot", "With --demo: save a PNG of the window when the run ends, then exit.",
                                  "file");
    QCommandLineOption replicates("replicates", "Override the number of replicates.", "n");
    parser.addOptions({demo, screenshot, replicates});
    // Positional, not --session: QGuiApplication takes -session for X11 session management.
    parser.addPositionalArgument("session", "A session file (.lcsession) to open at start-up.", "[session]");
    parser.process(app);

    if (parser.isSet(screenshot) && !parser.isSet(demo)) {
        std::fprintf(stderr, "lcstudio: --screenshot needs --demo synthetic\n");
        return 2;
    }
    if (parser.isSet(demo) && parser.value(demo) != "synthetic") {
        std::fprintf(stderr, "lcstudio: unknown demo \"%s\" (available: synthetic)\n", qPrintable(parser.value(demo)));
        return 2;
    }
    lcs::ui::MainWindow window;
    const QStringList positional = parser.positionalArguments();
    if (positional.size() > 1) {
        std::fprintf(stderr, "lcstudio: one session file at most\n");
        return 2;
    }
    if (!positional.isEmpty() && !window.openSessionFile(positional.front())) {
        std::fprintf(stderr, "lcstudio: %s\n", qPrintable(window.lastError()));
        return 1;
    }
    if (parser.isSet(replicates)) {
        bool ok = false;
        const int n = parser.value(replicates).toInt(&ok);
        if (!ok || n < 1 || n > 1000) {
            std::fprintf(stderr, "lcstudio: --replicates: \"%s\" is not an integer in 1..1000\n",
                         qPrintable(parser.value(replicates)));
            return 2;
        }
        auto s = window.currentSession();
        s.settings.replicates = n;
        window.applySession(s);
    }
    window.show();
    if (parser.isSet(screenshot))
        window.runDemoAndScreenshot(parser.value(screenshot));
    else if (parser.isSet(demo))
        window.runAll();
    return QApplication::exec();
}
