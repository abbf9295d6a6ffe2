// lcstudio: the desktop application.
#include <cstdio>
#include <cstring>

#include <QApplication>
#include <QCommandLineParser>
#include <QFileInfo>
#include <QSize>
#include <QTimer>

#include "base/core/version.h"
#include "engine/core/threads.h"
#include "ui/experiments/screenshot_demo.h"
#include "ui/file_dialogs.h"
#include "ui/main_window.h"
#include "ui/plot_export.h"
#include "ui/qcustomplot_compat.h"
#include "ui/sweep/sweep_view.h"

namespace {

/// The window's command line: every option, declared once.
struct GuiOptions {
    QCommandLineOption demo{"demo",
                            "Run the named experiment's pipeline at start-up with settings that finish in about a "
                            "minute here: synthetic, corruption (rate 0.5, 1 trial, 10000 training / 2000 test "
                            "images, cpu preset), selective (referral costs 0.1 and 0.2, otherwise the same), "
                            "camvid (the demo preset: light SegNet at 90x120 on 60 training and 24 validation "
                            "frames), or any other experiment the window lists.",
                            "experiment"};
    QCommandLineOption screenshot{"screenshot", "With --demo: save a PNG of the window when the run ends, then exit.",
                                  "file"};
    QCommandLineOption exportPlots{"export-plots",
                                   "With --screenshot: also export every plot of the experiment's page into this "
                                   "folder (PNG, SVG and PDF, as File > Export Plots).",
                                   "folder"};
    QCommandLineOption set{"set",
                           "Set a setting of the current experiment (the demo's, or the session's), as its "
                           "lcstudio-cli flag takes it: --set seed=3, --set rates=0.3,0.5. Repeatable.",
                           "name=value"};
    // Shorthands for --set of common settings (replicates, data, max_train, max_test).
    QCommandLineOption replicates{"replicates", "Shorthand for --set replicates=N (synthetic).", "n"};
    QCommandLineOption data{"data",
                            "Shorthand for --set data=D: image data for the corruption and selective demos (a "
                            "folder or fashion-mnist, mnist, cifar10; default: the folder the window last used, "
                            "else fashion-mnist), a CamVid folder for the camvid demo (default: $LCS_CAMVID_DIR).",
                            "folder"};
    QCommandLineOption maxTrain{"max-train", "Shorthand for --set max_train=N (image demos; default 10000).", "n"};
    QCommandLineOption maxTest{"max-test", "Shorthand for --set max_test=N (image demos; default 2000).", "n"};
    QCommandLineOption size{"size",
                            "With --screenshot: the window's size in pixels, as WIDTHxHEIGHT (default 1800x1100 "
                            "for the image and CamVid demos, else the last window's size).",
                            "size"};
    QCommandLineOption tab{"tab",
                           "With --screenshot: show the page's tab of this title (as Calibration, Cost-benefit, "
                           "Evidence) before the PNG is saved.",
                           "title"};
    QCommandLineOption editCost{"edit-cost",
                                "With --demo and --screenshot: after the run, set the cost of deciding COLUMN when "
                                "the truth is ROW (both counted from 0) to VALUE in the cost editor, as a click "
                                "would; the page re-corrects and the PNG shows the result. Repeatable.",
                                "row,column=value"};
    QCommandLineOption exportModel{"export-model",
                                   "With --demo and --screenshot: after the run (and any --edit-cost), save the shown "
                                   "method's model as File > Export Model does (on a user's predictive: the kept rule).",
                                   "file"};
    QCommandLineOption sweep{"sweep",
                             "Open this sweep folder (lcstudio-cli sweep plan) in the sweep window; with "
                             "--screenshot, save a PNG of that window (at --size) and exit.",
                             "dir"};

    void addTo(QCommandLineParser& parser) const
    {
        parser.setApplicationDescription("LC Studio: post-hoc loss calibration of Bayesian neural networks");
        parser.addHelpOption();
        parser.addVersionOption();
        parser.addOptions(
            {demo, screenshot, exportPlots, set, replicates, data, maxTrain, maxTest, size, tab, editCost, exportModel, sweep});
        // Positional, not --session: QGuiApplication takes -session for X11 session management.
        parser.addPositionalArgument("session", "A session file (.lcsession) to open at start-up.", "[session]");
    }
};

void nameApplication()
{
    QCoreApplication::setApplicationName("LC Studio");
    QCoreApplication::setOrganizationName("LCStudio");
    QCoreApplication::setApplicationVersion(QString::fromLatin1(lcs::programVersion()));
}

/// Prints `message` as the program's error and returns the usage status.
int usageError(const QString& message)
{
    std::fprintf(stderr, "lcstudio: %s\n", qPrintable(message));
    return 2;
}

/// --size WIDTHxHEIGHT, or an invalid size when not given; false on a bad value.
bool parseWindowSize(const QCommandLineParser& parser, const GuiOptions& o, QSize& windowSize)
{
    if (!parser.isSet(o.size))
        return true;
    const QStringList parts = parser.value(o.size).split('x');
    bool okW = false, okH = false;
    if (parts.size() == 2)
        windowSize = QSize(parts[0].toInt(&okW), parts[1].toInt(&okH));
    return parser.isSet(o.screenshot) && okW && okH && windowSize.width() >= 200 && windowSize.height() >= 200 &&
           windowSize.width() <= 10000 && windowSize.height() <= 10000;
}

/// The demo's quick settings, then the settings given on the command line: each --NAME
/// shorthand and --set NAME=VALUE is the current experiment's declared setting, parsed
/// as its flag would be. An empty string, or the error.
QString applyStartupSettings(lcs::ui::MainWindow& window, const QCommandLineParser& parser, const GuiOptions& o)
{
    if (parser.isSet(o.demo))
        window.setExperiment(parser.value(o.demo));
    QList<QPair<QString, QString>> assignments;
    for (const auto* option : {&o.data, &o.maxTrain, &o.maxTest, &o.replicates})
        if (parser.isSet(*option))
            assignments.append({option->names().front().replace(QLatin1Char('-'), QLatin1Char('_')),
                                parser.value(*option).trimmed()});
    for (const QString& item : parser.values(o.set)) {
        const auto eq = item.indexOf(QLatin1Char('='));
        if (eq <= 0)
            return QStringLiteral("--set: \"%1\" is not NAME=VALUE").arg(item.left(60));
        assignments.append({item.left(eq).trimmed(), item.mid(eq + 1).trimmed()});
    }
    if (parser.isSet(o.demo) || !assignments.isEmpty())
        return lcs::ui::applyCommandLineSettings(window, parser.isSet(o.demo), assignments);
    return {};
}

/// --sweep DIR: the sweep window, and with --screenshot its PNG at --size, then exit.
int showSweep(lcs::ui::MainWindow& window, const QCommandLineParser& parser, const GuiOptions& o,
              const QSize& windowSize)
{
    if (!window.openSweepFolder(parser.value(o.sweep)))
        return usageError(QStringLiteral("--sweep: ") + window.lastError());
    if (parser.isSet(o.screenshot)) {
        // The sweep window alone, at --size: what File > Open Sweep shows.
        auto* view = window.sweepView();
        view->resize(windowSize.isValid() ? windowSize : QSize(1366, 768));
        const QString pngPath = parser.value(o.screenshot);
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

} // namespace

int main(int argc, char** argv)
{
    // The GUI thread's own operations (drawing, small conversions) take one thread; every
    // job sets its threads on its worker thread by the one policy (configureRunThreads: all cores
    // but one, which stays with this thread).
    lcs::configureThreads(1);

    QCommandLineParser parser;
    const GuiOptions o;
    o.addTo(parser);
    // Help and version need no display: answered before the window system is opened.
    for (int i = 1; i < argc; ++i)
        for (const char* informational : {"-h", "--help", "--help-all", "-v", "--version"})
            if (std::strcmp(argv[i], informational) == 0) {
                QCoreApplication core(argc, argv);
                nameApplication();
                parser.process(core);  // prints and exits
                return 0;
            }
    QApplication app(argc, argv);
    nameApplication();
    parser.process(app);

    const QString demoName = parser.value(o.demo);
    if (parser.isSet(o.screenshot) && parser.isSet(o.demo) == parser.isSet(o.sweep))
        return usageError(QStringLiteral("--screenshot needs --demo EXPERIMENT or --sweep DIR (one of them)"));
    if (parser.isSet(o.sweep) && parser.isSet(o.exportPlots))
        return usageError(QStringLiteral("--export-plots is for --demo"));
    QSize windowSize;
    if (!parseWindowSize(parser, o, windowSize))
        return usageError(QStringLiteral("--size needs --screenshot and WIDTHxHEIGHT in 200..10000, as 1366x768"));
    lcs::ui::MainWindow window;
    if (parser.isSet(o.demo) && !window.experiments().contains(demoName))
        return usageError(QStringLiteral("unknown demo \"%1\" (available: %2)")
                              .arg(demoName, window.experiments().join(QStringLiteral(", "))));
    const QStringList positional = parser.positionalArguments();
    if (positional.size() > 1)
        return usageError(QStringLiteral("one session file at most"));
    if (!positional.isEmpty() && !window.openSessionFile(positional.front())) {
        std::fprintf(stderr, "lcstudio: %s\n", qPrintable(window.lastError()));
        return 1;
    }
    if (!positional.isEmpty())
        lcs::ui::noteWindowInput(QStringLiteral("the session"), positional.front(), false);
    if (const QString error = applyStartupSettings(window, parser, o); !error.isEmpty())
        return usageError(error);
    if (parser.isSet(o.tab) && (!parser.isSet(o.screenshot) || !parser.isSet(o.demo)))
        return usageError(QStringLiteral("--tab needs --screenshot and --demo"));
    if (parser.isSet(o.exportPlots) && !parser.isSet(o.screenshot))
        return usageError(QStringLiteral("--export-plots needs --screenshot"));
    if ((parser.isSet(o.editCost) || parser.isSet(o.exportModel)) && (!parser.isSet(o.screenshot) || !parser.isSet(o.demo)))
        return usageError(QStringLiteral("--edit-cost and --export-model need --screenshot and --demo"));
    QList<lcs::ui::ScreenshotSteps::CostEdit> edits;
    for (const QString& text : parser.values(o.editCost)) {
        // ROW,COLUMN=VALUE: two whole numbers, then a number.
        const auto eq = text.indexOf(QLatin1Char('='));
        const auto cells = text.left(eq).split(QLatin1Char(','));
        bool okRow = false, okColumn = false, okValue = false;
        lcs::ui::ScreenshotSteps::CostEdit edit;
        if (eq > 0 && cells.size() == 2) {
            edit.row = cells[0].trimmed().toInt(&okRow);
            edit.column = cells[1].trimmed().toInt(&okColumn);
            edit.value = text.mid(eq + 1).trimmed().toDouble(&okValue);
        }
        if (!okRow || !okColumn || !okValue)
            return usageError(QStringLiteral("--edit-cost: \"%1\" is not ROW,COLUMN=VALUE (as 1,0=5)").arg(text.left(60)));
        edit.text = text;
        edits.append(edit);
    }
    if (parser.isSet(o.screenshot)) {
        QString problem = lcs::ui::screenshotPathProblem(window, parser.value(o.screenshot));
        if (problem.isEmpty() && parser.isSet(o.exportPlots))
            problem = lcs::ui::windowOutputProblem(QStringLiteral("--export-plots"), parser.value(o.exportPlots), true);
        // Two outputs of one command never share a path: checked before the run, so
        // neither is written and then refused.
        if (problem.isEmpty() && parser.isSet(o.exportPlots) &&
            QFileInfo(parser.value(o.exportPlots)).absoluteFilePath() ==
                QFileInfo(parser.value(o.screenshot)).absoluteFilePath())
            problem = QStringLiteral("--export-plots %1 is the --screenshot path; give the plots their own folder")
                          .arg(parser.value(o.exportPlots));
        if (problem.isEmpty() && parser.isSet(o.exportModel)) {
            problem = lcs::ui::windowOutputProblem(QStringLiteral("--export-model"), parser.value(o.exportModel), false);
            for (const auto& other : {o.screenshot, o.exportPlots})
                if (problem.isEmpty() && parser.isSet(other) &&
                    QFileInfo(parser.value(o.exportModel)).absoluteFilePath() ==
                        QFileInfo(parser.value(other)).absoluteFilePath())
                    problem = QStringLiteral("--export-model %1 is the --%2 path; give the model its own name")
                                  .arg(parser.value(o.exportModel), other.names().front());
        }
        if (!problem.isEmpty())
            return usageError(problem);
    }
    // Room for every view, whatever geometry was saved (--size overrides).
    if (parser.isSet(o.screenshot))
        window.resize(1800, 1100);
    if (windowSize.isValid())
        window.resize(windowSize);
    window.show();
    if (parser.isSet(o.sweep))
        return showSweep(window, parser, o, windowSize);
    if (parser.isSet(o.screenshot))
        window.runDemoAndScreenshot(parser.value(o.screenshot), parser.value(o.exportPlots), parser.value(o.tab), edits,
                                    parser.value(o.exportModel));
    else if (parser.isSet(o.demo))
        window.runAll();
    return QApplication::exec();
}
