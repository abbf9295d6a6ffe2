#include "ui/experiments/screenshot_demo.h"

#include <cstdio>
#include <memory>

#include <QApplication>
#include <QElapsedTimer>
#include <QTabWidget>
#include <QTimer>
#include <QWidget>

#include "ui/qcustomplot_compat.h"

#include "base/core/input_error.h"
#include "engine/experiments/experiment.h"
#include "ui/experiments/experiment_page.h"
#include "ui/experiments/page_list.h"
#include "ui/file_dialogs.h"
#include "ui/main_window.h"
#include "ui/plot_export.h"

namespace lcs::ui {

namespace {
/// A setting's value as its flag would write it: text without JSON's quotes.
std::string sessionValueText(const nlohmann::json& value)
{
    return value.is_string() ? value.get<std::string>() : value.dump();
}
} // namespace

QString applyCommandLineSettings(MainWindow& window, bool demo, const QList<QPair<QString, QString>>& assignments)
{
    const QString name = window.experiment();
    const auto* experiment = ExperimentRegistry::global().find(name.toStdString());
    if (!experiment)
        return QObject::tr("%1 has no declared settings").arg(name);
    const auto specs = experiment->settings();
    try {
        Session session = window.currentSession();
        if (demo)
            session.settings.update(pageFor(window.pages(), name)->demoSettings(name));
        QStringList given;
        for (const auto& [setting, value] : assignments) {
            if (given.contains(setting))
                return QObject::tr("setting \"%1\" is given twice").arg(setting.left(40));
            given << setting;
            const auto* spec = findSetting(specs, setting.toStdString());
            if (!spec) {
                QStringList known;
                for (const auto& s : specs)
                    known << QString::fromStdString(s.name);
                return QObject::tr("%1 has no setting \"%2\" (its settings: %3)")
                    .arg(name, setting.left(40), known.join(QStringLiteral(", ")));
            }
            session.settings[spec->name] = parseSettingValue(*spec, value.toStdString());
        }
        // What a run will check: a demo without its data says so now, naming the setting.
        const auto checked = checkedSettings(specs, session.settings, name.toStdString());
        // A demo's matrix is the page's default, nobody's choice: data of other classes
        // (--set data=a 7-class table) takes its own 0/1 matrix, as File > Open Data does.
        if (demo)
            try {
                if (const auto fromData = experiment->defaultCosts(checked); !fitsClassesOf(session.costs, fromData))
                    session.costs = fromData;
            } catch (const std::exception&) {
                // the run says what is wrong with the data
            }
        window.applySession(session);
        // A value the form cannot hold (a device this build lacks: its list offers cpu
        // only) would be replaced without a word: refused instead, before any run.
        const auto taken = window.currentSession().settings;
        for (const auto& [setting, value] : assignments) {
            const auto key = setting.toStdString();
            if (taken.contains(key) && taken.at(key) != session.settings.at(key))
                return QObject::tr("setting \"%1\": \"%2\" cannot be chosen here (the window offers \"%3\"%4)")
                    .arg(setting.left(40), value.left(40), QString::fromStdString(sessionValueText(taken.at(key))).left(40),
                         key == "device" ? QObject::tr("; this LibTorch build has no CUDA support or no GPU is visible")
                                         : QString());
        }
    } catch (const InputError& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

QString screenshotPathProblem(MainWindow& window, const QString& pngPath)
{
    if (!pngPath.endsWith(QLatin1String(".png"), Qt::CaseInsensitive))
        return QObject::tr("--screenshot: %1 is not a .png name; the screenshot is a PNG image").arg(pngPath);
    if (const auto* experiment = ExperimentRegistry::global().find(window.experiment().toStdString()))
        for (const auto& input : experiment->inputPaths(window.currentSession().settings))
            noteWindowInput(QObject::tr("the data"), QString::fromStdString(input.path), true);
    return windowOutputProblem(QStringLiteral("--screenshot"), pngPath, false);
}

QString showTabTitled(QWidget* page, const QString& title)
{
    QStringList titles;
    const auto plain = [](QString text) { return text.remove(QLatin1Char('&')).trimmed(); };
    for (auto* tabs : page->findChildren<QTabWidget*>())
        for (int i = 0; i < tabs->count(); ++i) {
            if (plain(tabs->tabText(i)).compare(plain(title), Qt::CaseInsensitive) == 0) {
                tabs->setCurrentIndex(i);
                return {};
            }
            titles << QLatin1Char('"') + plain(tabs->tabText(i)) + QLatin1Char('"');
        }
    return QStringLiteral("--tab: no tab \"%1\" on this page (its tabs: %2)").arg(title, titles.join(QStringLiteral(", ")));
}

namespace {

/// The PNG (and the plots) of the window as it is now, then the application's exit.
void grabAndExit(QWidget* window, ExperimentPage* page, const QString& pngPath, const QString& plotsDir,
                 const QString& tab)
{
    if (!tab.isEmpty()) {
        const QString problem = showTabTitled(page->centralWidget(), tab);
        if (!problem.isEmpty()) {
            std::fprintf(stderr, "lcstudio: %s\n", qPrintable(problem));
            QApplication::exit(2);
            return;
        }
    }
    // Let the queued replots land before grabbing.
    QTimer::singleShot(300, window, [window, page, pngPath, plotsDir] {
        for (auto* plot : window->findChildren<QCustomPlot*>())
            plot->replot();
        const QString error = saveImageAtomically(window->grab().toImage(), pngPath);
        if (!error.isEmpty()) {
            std::fprintf(stderr, "lcstudio: cannot write screenshot: %s\n", qPrintable(error));
            QApplication::exit(1);
            return;
        }
        std::fprintf(stdout, "lcstudio: screenshot written to %s\n", qPrintable(pngPath));
        if (!plotsDir.isEmpty()) {
            const QString problem = page->exportPlotsStaged(plotsDir);
            if (!problem.isEmpty()) {
                std::fprintf(stderr, "lcstudio: --export-plots: %s\n", qPrintable(problem));
                QApplication::exit(1);
                return;
            }
            std::fprintf(stdout, "lcstudio: plots exported to %s\n", qPrintable(plotsDir));
        }
        QApplication::exit(0);
    });
}

/// The steps after the run: the model saved (waited for), then `done`.
void saveModelThen(ExperimentPage* page, const ScreenshotSteps& steps, const std::function<void()>& done)
{
    if (steps.modelPath.isEmpty()) {
        done();
        return;
    }
    auto connection = std::make_shared<QMetaObject::Connection>();
    *connection = QObject::connect(page, &ExperimentPage::modelSaved, page,
                                   [connection, done](const QString& paths, const QString& error) {
                                       QObject::disconnect(*connection);
                                       if (!error.isEmpty()) {
                                           std::fprintf(stderr, "lcstudio: --export-model: %s\n", qPrintable(error));
                                           QApplication::exit(1);
                                           return;
                                       }
                                       std::fprintf(stdout, "lcstudio: model saved: %s\n", qPrintable(paths));
                                       done();
                                   });
    if (!page->exportModelTo(steps.modelPath)) {
        QObject::disconnect(*connection);
        std::fprintf(stderr, "lcstudio: --export-model: this page has no model to save (File > Export Model is for "
                             "the synthetic, table and own-predictive pages)\n");
        QApplication::exit(2);
    }
}

/// The cost edits, the re-correction they start (waited for), then `done`.
void editCostsThen(ExperimentPage* page, const ScreenshotSteps& steps, const std::function<void()>& done)
{
    if (steps.edits.isEmpty()) {
        done();
        return;
    }
    auto started = std::make_shared<bool>(false);
    auto connections = std::make_shared<QList<QMetaObject::Connection>>();
    connections->append(QObject::connect(page, &ExperimentPage::jobStarted, page, [started] { *started = true; }));
    connections->append(QObject::connect(page, &ExperimentPage::jobEnded, page,
                                         [started, connections, done](const QString& status, bool complete) {
                                             if (!*started)
                                                 return;
                                             for (const auto& c : *connections)
                                                 QObject::disconnect(c);
                                             if (!complete) {
                                                 std::fprintf(stderr, "lcstudio: --edit-cost: the re-correction did "
                                                                      "not finish: %s\n", qPrintable(status));
                                                 QApplication::exit(1);
                                                 return;
                                             }
                                             std::fprintf(stdout, "lcstudio: re-corrected after the cost edit(s): %s\n",
                                                          qPrintable(status));
                                             done();
                                         }));
    // An edit re-corrects after the editor's short pause; a page that started nothing in
    // 10 s (it cannot re-correct) ends the run rather than waiting for ever.
    QTimer::singleShot(10000, page, [started, connections] {
        if (*started)
            return;
        for (const auto& c : *connections)
            QObject::disconnect(c);
        std::fprintf(stderr, "lcstudio: --edit-cost: the page did not re-correct after the edit\n");
        QApplication::exit(1);
    });
    for (const auto& edit : steps.edits) {
        const QString problem = steps.applyEdit(edit);
        if (!problem.isEmpty()) {
            for (const auto& c : *connections)
                QObject::disconnect(c);
            std::fprintf(stderr, "lcstudio: --edit-cost %s: %s\n", qPrintable(edit.text), qPrintable(problem));
            QApplication::exit(2);
            return;
        }
    }
}

} // namespace

void runScreenshotDemo(QWidget* window, ExperimentPage* page, const QString& pngPath, const QString& plotsDir,
                       const QString& tab, const ScreenshotSteps& steps)
{
    // Responsiveness probe: a 10 ms timer on the GUI thread; its largest lateness while
    // the pipeline runs (with live plots) is printed at the end.
    auto* probe = new QTimer(window);
    probe->setTimerType(Qt::PreciseTimer);
    probe->setInterval(10);
    auto clock = std::make_shared<QElapsedTimer>();
    auto worst = std::make_shared<qint64>(0);
    auto worstAt = std::make_shared<qint64>(0);
    auto last = std::make_shared<qint64>(0);
    QObject::connect(probe, &QTimer::timeout, window, [clock, worst, worstAt, last] {
        const qint64 now = clock->elapsed();
        if (*last >= 0 && now - *last - 10 > *worst) {  // the first tick only sets the origin
            *worst = now - *last - 10;
            *worstAt = now;
        }
        *last = now;
    });
    QObject::connect(page, &ExperimentPage::jobStarted, window, [probe, clock, last] {
        clock->start();
        *last = -1;
        probe->start();
    });
    QObject::connect(page, &ExperimentPage::demoDone, window, [window, page, pngPath, plotsDir, tab, probe, worst,
                                                               worstAt, clock, steps] {
        std::fprintf(stdout,
                     "lcstudio: largest event-loop delay while the pipeline ran: %lld ms (%.1f s into the run of %.1f s)\n",
                     static_cast<long long>(*worst), *worstAt / 1000.0, clock->elapsed() / 1000.0);
        probe->stop();
        editCostsThen(page, steps, [window, page, pngPath, plotsDir, tab, steps] {
            saveModelThen(page, steps, [window, page, pngPath, plotsDir, tab] {
                grabAndExit(window, page, pngPath, plotsDir, tab);
            });
        });
    });
    QObject::connect(page, &ExperimentPage::demoFailed, window, [](int exitCode, const QString& message) {
        std::fprintf(stderr, "lcstudio: %s\n", qPrintable(message));
        QApplication::exit(exitCode);
    });
    QTimer::singleShot(0, page, &ExperimentPage::startDemo);
}

} // namespace lcs::ui
