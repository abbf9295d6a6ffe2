// lcstudio: the desktop application.
#include <cstdio>
#include <cstring>

#include <QApplication>
#include <QCommandLineParser>
#include <QSize>
#include <QTimer>

#include "core/threads.h"
#include "core/version.h"
#include "experiments/screenshot_demo.h"
#include "file_dialogs.h"
#include "main_window.h"
#include "plot_export.h"
#include "qcustomplot_compat.h"
#include "sweep/sweep_view.h"

int main(int argc, char** argv)
{
    // The synthetic experiment's networks are tiny: jobs parallelise across tasks, and
    // intra-op threads would only compete with them and with the GUI thread. (Image
    // jobs set their own thread count on their worker thread: 1 for the MLP.)
    lcs::configureThreads(1);

    QCommandLineParser parser;
    parser.setApplicationDescription("LC Studio: post-hoc loss calibration of Bayesian neural networks");
    parser.addHelpOption();
    parser.addVersionOption();
    QCommandLineOption demo("demo",
                            "Run the named experiment's pipeline at start-up with settings that finish in about a "
                            "minute here: synthetic, corruption (rate 0.5, 1 trial, 10000 training / 2000 test "
                            "images, cpu preset), selective (referral costs 0.1 and 0.2, otherwise the same), "
                            "camvid (the demo preset: light SegNet at 90x120 on 60 training and 24 validation "
                            "frames), or any other experiment the window lists.",
                            "experiment");
    QCommandLineOption screenshot("screenshot", "With --demo: save a PNG of the window when the run ends, then exit.",
                                  "file");
    QCommandLineOption exportPlots("export-plots",
                                   "With --screenshot: also export every plot of the experiment's page into this "
                                   "folder (PNG, SVG and PDF, as File > Export Plots).",
                                   "folder");
    QCommandLineOption set("set",
                           "Set a setting of the current experiment (the demo's, or the session's), as its "
                           "lcstudio-cli flag takes it: --set seed=3, --set rates=0.3,0.5. Repeatable.",
                           "name=value");
    // Shorthands for --set of common settings (replicates, data, max_train, max_test).
    QCommandLineOption replicates("replicates", "Shorthand for --set replicates=N (synthetic).", "n");
    QCommandLineOption data("data",
                            "Shorthand for --set data=D: image data for the corruption and selective demos (a "
                            "folder or fashion-mnist, mnist, cifar10; default: the folder the window last used, "
                            "else fashion-mnist), a CamVid folder for the camvid demo (default: $LCS_CAMVID_DIR).",
                            "folder");
    QCommandLineOption maxTrain("max-train", "Shorthand for --set max_train=N (image demos; default 10000).", "n");
    QCommandLineOption maxTest("max-test", "Shorthand for --set max_test=N (image demos; default 2000).", "n");
    QCommandLineOption size("size",
                            "With --screenshot: the window's size in pixels, as WIDTHxHEIGHT (default 1800x1100 "
                            "for the image and CamVid demos, else the last window's size).",
                            "size");
    QCommandLineOption sweep("sweep",
                             "Open this sweep folder (lcstudio-cli sweep plan) in the sweep window; with "
                             "--screenshot, save a PNG of that window (at --size) and exit.",
                             "dir");
    parser.addOptions({demo, screenshot, exportPlots, set, replicates, data, maxTrain, maxTest, size, sweep});
    // Positional, not --session: QGuiApplication takes -session for X11 session management.
    parser.addPositionalArgument("session", "A session file (.lcsession) to open at start-up.", "[session]");
    const auto named = [] {
        QCoreApplication::setApplicationName("LC Studio");
        QCoreApplication::setOrganizationName("LCStudio");
        QCoreApplication::setApplicationVersion(QString::fromLatin1(lcs::programVersion()));
    };
    // Help and version need no display: answered before the window system is opened.
    for (int i = 1; i < argc; ++i)
        for (const char* informational : {"-h", "--help", "--help-all", "-v", "--version"})
            if (std::strcmp(argv[i], informational) == 0) {
                QCoreApplication core(argc, argv);
                named();
                parser.process(core);  // prints and exits
                return 0;
            }
    QApplication app(argc, argv);
    named();
    parser.process(app);

    const QString demoName = parser.value(demo);
    if (parser.isSet(screenshot) && parser.isSet(demo) == parser.isSet(sweep)) {
        std::fprintf(stderr, "lcstudio: --screenshot needs --demo EXPERIMENT or --sweep DIR (one of them)\n");
        return 2;
    }
    if (parser.isSet(sweep) && parser.isSet(exportPlots)) {
        std::fprintf(stderr, "lcstudio: --export-plots is for --demo\n");
        return 2;
    }
    QSize windowSize;
    if (parser.isSet(size)) {
        const QStringList parts = parser.value(size).split('x');
        bool okW = false, okH = false;
        if (parts.size() == 2)
            windowSize = QSize(parts[0].toInt(&okW), parts[1].toInt(&okH));
        if (!parser.isSet(screenshot) || !okW || !okH || windowSize.width() < 200 || windowSize.height() < 200
            || windowSize.width() > 10000 || windowSize.height() > 10000) {
            std::fprintf(stderr, "lcstudio: --size needs --screenshot and WIDTHxHEIGHT in 200..10000, as 1366x768\n");
            return 2;
        }
    }
    lcs::ui::MainWindow window;
    if (parser.isSet(demo) && !window.experiments().contains(demoName)) {
        std::fprintf(stderr, "lcstudio: unknown demo \"%s\" (available: %s)\n", qPrintable(demoName),
                     qPrintable(window.experiments().join(", ")));
        return 2;
    }
    const QStringList positional = parser.positionalArguments();
    if (positional.size() > 1) {
        std::fprintf(stderr, "lcstudio: one session file at most\n");
        return 2;
    }
    if (!positional.isEmpty() && !window.openSessionFile(positional.front())) {
        std::fprintf(stderr, "lcstudio: %s\n", qPrintable(window.lastError()));
        return 1;
    }
    if (!positional.isEmpty())
        lcs::ui::noteWindowInput(QStringLiteral("the session"), positional.front(), false);
    // The demo's quick settings, then the settings given on the command line: each
    // --NAME shorthand and --set NAME=VALUE is the current experiment's declared setting,
    // parsed as its flag would be.
    if (parser.isSet(demo))
        window.setExperiment(demoName);
    QList<QPair<QString, QString>> assignments;
    for (const auto* option : {&data, &maxTrain, &maxTest, &replicates})
        if (parser.isSet(*option))
            assignments.append({option->names().front().replace(QLatin1Char('-'), QLatin1Char('_')),
                                parser.value(*option).trimmed()});
    for (const QString& item : parser.values(set)) {
        const auto eq = item.indexOf(QLatin1Char('='));
        if (eq <= 0) {
            std::fprintf(stderr, "lcstudio: --set: \"%s\" is not NAME=VALUE\n", qPrintable(item.left(60)));
            return 2;
        }
        assignments.append({item.left(eq).trimmed(), item.mid(eq + 1).trimmed()});
    }
    if (parser.isSet(demo) || !assignments.isEmpty()) {
        const QString error = lcs::ui::applyCommandLineSettings(window, parser.isSet(demo), assignments);
        if (!error.isEmpty()) {
            std::fprintf(stderr, "lcstudio: %s\n", qPrintable(error));
            return 2;
        }
    }
    if (parser.isSet(exportPlots) && !parser.isSet(screenshot)) {
        std::fprintf(stderr, "lcstudio: --export-plots needs --screenshot\n");
        return 2;
    }
    if (parser.isSet(screenshot)) {
        QString problem = lcs::ui::screenshotPathProblem(window, parser.value(screenshot));
        if (problem.isEmpty() && parser.isSet(exportPlots))
            problem = lcs::ui::windowOutputProblem(QStringLiteral("--export-plots"), parser.value(exportPlots), true);
        if (!problem.isEmpty()) {
            std::fprintf(stderr, "lcstudio: %s\n", qPrintable(problem));
            return 2;
        }
    }
    // Room for every view, whatever geometry was saved (--size overrides).
    if (parser.isSet(screenshot))
        window.resize(1800, 1100);
    if (windowSize.isValid())
        window.resize(windowSize);
    window.show();
    if (parser.isSet(sweep)) {
        if (!window.openSweepFolder(parser.value(sweep))) {
            std::fprintf(stderr, "lcstudio: --sweep: %s\n", qPrintable(window.lastError()));
            return 2;
        }
        if (parser.isSet(screenshot)) {
            // The sweep window alone, at --size: what File > Open Sweep shows.
            auto* view = window.sweepView();
            view->resize(windowSize.isValid() ? windowSize : QSize(1366, 768));
            const QString pngPath = parser.value(screenshot);
            QTimer::singleShot(500, view, [view, pngPath] {
                for (auto* plot : view->findChildren<QCustomPlot*>())
                    plot->replot();
                const QString error = lcs::ui::saveImageAtomically(view->grab().toImage(), pngPath);
                if (!error.isEmpty())
                    std::fprintf(stderr, "lcstudio: cannot write screenshot: %s\n", qPrintable(error));
                else
                    std::fprintf(stdout, "lcstudio: screenshot written to %s\n", qPrintable(pngPath));
                QApplication::exit(error.isEmpty() ? 0 : 1);
            });
        }
        return QApplication::exec();
    }
    if (parser.isSet(screenshot))
        window.runDemoAndScreenshot(parser.value(screenshot), parser.value(exportPlots));
    else if (parser.isSet(demo))
        window.runAll();
    return QApplication::exec();
}
