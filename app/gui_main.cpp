// lcstudio: the desktop application.
#include <cstdio>

#include <QApplication>
#include <QCommandLineParser>
#include <QSize>

#include "camvid_panel.h"
#include "core/threads.h"
#include "core/version.h"
#include "image_panel.h"
#include "main_window.h"

int main(int argc, char** argv)
{
    // The synthetic experiment's networks are tiny: jobs parallelise across tasks, and
    // intra-op threads would only compete with them and with the GUI thread. (Image
    // jobs set their own thread count on their worker thread: 1 for the MLP.)
    lcs::configureThreads(1);

    QApplication app(argc, argv);
    QApplication::setApplicationName("LC Studio");
    QApplication::setOrganizationName("LCStudio");
    QApplication::setApplicationVersion(QString::fromLatin1(lcs::programVersion()));

    QCommandLineParser parser;
    parser.setApplicationDescription("LC Studio: post-hoc loss calibration of Bayesian neural networks");
    parser.addHelpOption();
    parser.addVersionOption();
    QCommandLineOption demo("demo",
                            "Run the named experiment's default pipeline at start-up: synthetic, corruption "
                            "(label corruption 0.5, 1 trial, 10000 training / 2000 test images, CPU preset), "
                            "selective (referral costs 0.1 and 0.2, otherwise the same) or camvid (the demo preset: "
                            "light SegNet at 90x120 on 60 training and 24 validation frames).",
                            "experiment");
    QCommandLineOption screenshot("screenshot", "With --demo: save a PNG of the window when the run ends, then exit.",
                                  "file");
    QCommandLineOption replicates("replicates", "Override the number of replicates (synthetic).", "n");
    QCommandLineOption data("data",
                            "Image data for the corruption and selective demos: a folder or fashion-mnist, mnist, "
                            "cifar10 (default: the folder the window last used, else fashion-mnist). For the camvid "
                            "demo: a CamVid folder (default: $LCS_CAMVID_DIR).",
                            "folder");
    QCommandLineOption maxTrain("max-train", "Image demos: use a seeded random subset of n training images (default 10000).",
                                "n");
    QCommandLineOption maxTest("max-test", "Image demos: the same for the test set (default 2000).", "n");
    QCommandLineOption size("size",
                            "With --screenshot: the window's size in pixels, as WIDTHxHEIGHT (default 1800x1100 "
                            "for the image and CamVid demos, else the last window's size).",
                            "size");
    parser.addOptions({demo, screenshot, replicates, data, maxTrain, maxTest, size});
    // Positional, not --session: QGuiApplication takes -session for X11 session management.
    parser.addPositionalArgument("session", "A session file (.lcsession) to open at start-up.", "[session]");
    parser.process(app);

    const QString demoName = parser.value(demo);
    const bool imageDemo = demoName == "corruption" || demoName == "selective";
    const bool camvidDemo = demoName == "camvid";
    if (parser.isSet(screenshot) && !parser.isSet(demo)) {
        std::fprintf(stderr, "lcstudio: --screenshot needs --demo synthetic, corruption, selective or camvid\n");
        return 2;
    }
    if (parser.isSet(demo) && demoName != "synthetic" && !imageDemo && !camvidDemo) {
        std::fprintf(stderr, "lcstudio: unknown demo \"%s\" (available: synthetic, corruption, selective, camvid)\n",
                     qPrintable(demoName));
        return 2;
    }
    if (parser.isSet(data) && parser.value(data).trimmed().isEmpty()) {
        std::fprintf(stderr, "lcstudio: --data: give a folder or one of fashion-mnist, mnist, cifar10\n");
        return 2;
    }
    auto count = [&](const QCommandLineOption& option, qint64 fallback, qint64& out) {
        if (!parser.isSet(option)) {
            out = fallback;
            return true;
        }
        bool ok = false;
        out = parser.value(option).toLongLong(&ok);
        if (!ok || out < 1 || out > 100000000) {
            std::fprintf(stderr, "lcstudio: --%s: \"%s\" is not an integer in 1..100000000\n",
                         qPrintable(option.names().front()), qPrintable(parser.value(option)));
            return false;
        }
        if (!imageDemo) {
            std::fprintf(stderr, "lcstudio: --%s needs --demo corruption or selective\n",
                         qPrintable(option.names().front()));
            return false;
        }
        return true;
    };
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
    qint64 trainImages = 0, testImages = 0;
    if (!count(maxTrain, 10000, trainImages) || !count(maxTest, 2000, testImages))
        return 2;
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
    if (imageDemo) {
        // A CPU preset small enough to finish in about a minute here.
        lcs::ui::ImageExperimentSettings s;
        s.experiment = demoName;
        s.data = parser.isSet(data) ? parser.value(data).trimmed() : lcs::ui::ImageExperimentPanel::rememberedData();
        s.preset = "cpu";
        s.values = demoName == "selective" ? QVector<double>{0.1, 0.2} : QVector<double>{0.5};
        s.trials = 1;
        s.maxTrain = trainImages;
        s.maxTest = testImages;
        window.setExperiment(demoName);
        window.imagePanel()->applySettings(s);
        if (parser.isSet(screenshot))
            window.resize(1800, 1100);  // room for every view, whatever geometry was saved (--size overrides)
    } else if (camvidDemo) {
        // The demo preset: about a minute of training on one core here.
        lcs::ui::CamvidSettings s;
        s.data = parser.isSet(data) ? parser.value(data).trimmed() : qEnvironmentVariable("LCS_CAMVID_DIR");
        s.preset = "demo";
        window.setExperiment("camvid");
        window.camvidPanel()->applySettings(s);
        if (s.data.isEmpty()) {
            std::fprintf(stderr, "lcstudio: no CamVid data for the demo: pass --data DIR (a folder with train/, "
                                 "trainannot/, val/, valannot/) or set LCS_CAMVID_DIR\n");
            return 2;
        }
        if (parser.isSet(screenshot))
            window.resize(1800, 1100);
    } else if (parser.isSet(data)) {
        auto s = window.imagePanel()->settings();
        s.data = parser.value(data).trimmed();
        window.imagePanel()->applySettings(s);
    }
    if (windowSize.isValid())
        window.resize(windowSize);
    window.show();
    if (parser.isSet(screenshot))
        window.runDemoAndScreenshot(parser.value(screenshot));
    else if (parser.isSet(demo))
        window.runAll();
    return QApplication::exec();
}
