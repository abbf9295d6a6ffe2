// The job bridge: signals while the synthetic pipeline runs on the worker thread,
// cancellation, the GUI thread's responsiveness, and re-correction without re-sampling.
#include <algorithm>

#include <QtTest/QtTest>

#include "engine/core/threads.h"
#include "engine/experiments/experiment.h"
#include "engine/io/model_io.h"
#include "tests/view_spy.h"
#include "ui/experiments/synthetic/synthetic_page.h"
#include "ui/job_runner.h"

using namespace lcs;
using namespace lcs::ui;

namespace {

/// The synthetic experiment's declared settings, checked as the window checks them.
nlohmann::json smallSettings(nlohmann::json changes = nlohmann::json::object())
{
    nlohmann::json s = {{"replicates", 1},
                        {"methods", {"kfac_laplace", "sghmc"}},
                        {"threads", 2},
                        {"correction_iterations", 150},
                        {"grid_resolution", 24}};
    s.update(changes);
    return checkedSettings(ExperimentRegistry::global().get("synthetic").settings(), s, "test");
}

/// A results CSV without its timing columns (inference_seconds, correction_seconds).
QStringList untimedRows(const QString& csv)
{
    QStringList rows;
    for (const auto& line : csv.split('\n', Qt::SkipEmptyParts)) {
        auto cells = line.split(',');
        cells.removeAt(12);
        cells.removeAt(11);
        rows << cells.join(',');
    }
    return rows;
}

/// The synthetic page's runner: its jobs, with the plane's views as they are.
class SyntheticRunner : public JobRunner {
public:
    SyntheticRunner()
        : JobRunner(SyntheticPage::jobNames(), SyntheticPage::viewAdapter(), "synthetic")
    {
    }
};

} // namespace

class TestJobRunner : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { configureThreads(1); }

    void runReportsProgressAndResults()
    {
        SyntheticRunner runner;
        QSignalSpy started(&runner, &JobRunner::started);
        QSignalSpy progress(&runner, &JobRunner::progress);
        ViewSpy<TaskView> tasks(&runner);
        ViewSpy<ResultRow> rows(&runner);
        QSignalSpy finished(&runner, &JobRunner::finished);
        QVERIFY(runner.start(JobRunner::Job::Run, smallSettings(), costPreset("synthetic")));
        QVERIFY(runner.isBusy());
        QVERIFY(!runner.start(JobRunner::Job::Sample, smallSettings(), costPreset("synthetic")));  // one at a time
        QVERIFY(finished.wait(120000));
        QCOMPARE(started.count(), 1);
        QVERIFY(!runner.isBusy());
        QVERIFY(runner.hasCache());
        QVERIFY(progress.count() > 0);
        double lastFraction = 0;
        for (const auto& args : progress) {
            const auto p = args.at(0).value<JobProgress>();
            QVERIFY(p.fraction >= 0 && p.fraction <= 1.0 + 1e-9);
            lastFraction = std::max(lastFraction, p.fraction);
        }
        QVERIFY(lastFraction > 0.9);
        QCOMPARE(rows.count(), 2);
        QCOMPARE(runner.predictivesSampled(), 2);
        // The last view of each task has both decision rules over the whole grid.
        TaskView last = tasks.last().at(0).value<TaskView>();
        QVERIFY(last.correctionDone);
        QCOMPARE(last.uncorrected.decisions.size(), 24 * 24);
        QCOMPARE(last.corrected.decisions.size(), 24 * 24);
        QCOMPARE(last.curve.size(), 150);
        QCOMPARE(last.test.size(), 100);
        const QString json = finished.first().at(2).toString();
        QVERIFY(json.contains("\"kfac_laplace\"") && json.contains("paired_diff"));
    }

    void recorrectionDoesNotResample()
    {
        SyntheticRunner runner;
        QSignalSpy finished(&runner, &JobRunner::finished);
        ViewSpy<ResultRow> rows(&runner);
        QVERIFY(runner.start(JobRunner::Job::Run, smallSettings(), costPreset("synthetic")));
        QVERIFY(finished.wait(120000));
        QCOMPARE(runner.predictivesSampled(), 2);
        const QList<QList<QVariant>> firstRows = rows;
        rows.clear();

        // The same matrix again: the cached posterior and q's own seeded stream give
        // exactly the first run's numbers.
        QVERIFY(runner.start(JobRunner::Job::Recorrect, smallSettings(), costPreset("synthetic")));
        QVERIFY(finished.wait(60000));
        QCOMPARE(runner.predictivesSampled(), 2);
        QCOMPARE(rows.count(), 2);
        for (const auto& before : firstRows) {
            const auto b = before.at(0).value<ResultRow>();
            bool matched = false;
            for (const auto& args : rows) {
                const auto a = args.at(0).value<ResultRow>();
                if (a.method == b.method && a.replicate == b.replicate) {
                    QCOMPARE(a.uncorrectedCost, b.uncorrectedCost);
                    QCOMPARE(a.correctedCost, b.correctedCost);
                    matched = true;
                }
            }
            QVERIFY(matched);
        }
        rows.clear();

        // A new matrix: only the correction runs.
        auto harsher = costPreset("synthetic");
        harsher.set(1, 0, 10.0);  // missing a positive now costs 10
        QVERIFY(runner.start(JobRunner::Job::Recorrect, smallSettings(), harsher));
        QVERIFY(finished.wait(60000));
        QCOMPARE(runner.predictivesSampled(), 2);  // the posterior was reused, not re-sampled
        QCOMPARE(rows.count(), 2);
        QVERIFY(finished.last().at(2).toString().contains("\"corrected\""));
    }

    void windowRunIsTheCommandsRun()
    {
        // The window's run is the registry's: its rows are those of runExperiment, as the
        // command line runs it, to the last digit.
        SyntheticRunner runner;
        QSignalSpy finished(&runner, &JobRunner::finished);
        QVERIFY(runner.start(JobRunner::Job::Run, smallSettings(), costPreset("synthetic")));
        QVERIFY(finished.wait(120000));
        const auto direct = lcs::runExperiment(ExperimentRegistry::global().get("synthetic"), smallSettings(),
                                               costPreset("synthetic"), JobContext{});
        QCOMPARE(untimedRows(finished.first().at(3).toString()), untimedRows(QString::fromStdString(lcs::resultsCsv(direct.output))));
    }

    void sampleThenCorrectIsTheRun()
    {
        SyntheticRunner whole, halves;
        QSignalSpy wholeDone(&whole, &JobRunner::finished);
        QVERIFY(whole.start(JobRunner::Job::Run, smallSettings(), costPreset("synthetic")));
        QVERIFY(wholeDone.wait(120000));

        // Sampling alone: the predictives cached, no q trained, no results yet.
        QSignalSpy done(&halves, &JobRunner::finished);
        ViewSpy<ResultRow> rows(&halves);
        ViewSpy<TaskView> tasks(&halves);
        QVERIFY(halves.start(JobRunner::Job::Sample, smallSettings(), costPreset("synthetic")));
        QVERIFY(done.wait(120000));
        QVERIFY(halves.hasCache());
        QCOMPARE(halves.predictivesSampled(), 2);
        QCOMPARE(rows.count(), 0);
        QCOMPARE(tasks.count(), 2);  // each task's predictive, drawn uncorrected
        QVERIFY(!tasks.first().at(0).value<TaskView>().correctionDone);
        QVERIFY(done.first().at(3).toString().isEmpty());

        // The correction on that cache gives the whole run's rows.
        QVERIFY(halves.start(JobRunner::Job::Recorrect, smallSettings(), costPreset("synthetic")));
        QVERIFY(done.wait(60000));
        QCOMPARE(halves.predictivesSampled(), 2);
        QCOMPARE(untimedRows(done.last().at(3).toString()), untimedRows(wholeDone.first().at(3).toString()));

        // New settings for q reach the re-correction (and its record); the cache stays.
        tasks.clear();
        QVERIFY(halves.start(JobRunner::Job::Recorrect, smallSettings({{"correction_iterations", 40}}),
                             costPreset("synthetic")));
        QVERIFY(done.wait(60000));
        QCOMPARE(halves.predictivesSampled(), 2);
        QCOMPARE(tasks.last().at(0).value<TaskView>().curve.size(), 40);
        const auto record = nlohmann::json::parse(done.last().at(2).toString().toStdString());
        QCOMPARE(record["run"]["settings"]["correction_iterations"].get<int>(), 40);
    }

    // A correction cancelled part-way changes nothing it had: after a Run cancelled in its
    // correction the posteriors are cached (a re-correction samples nothing); after a
    // re-correction cancelled, Save Model writes the last finished q with its own costs.
    void cancelledCorrectionKeepsWhatItHad()
    {
        SyntheticRunner runner;
        QSignalSpy finished(&runner, &JobRunner::finished);
        QSignalSpy cancelled(&runner, &JobRunner::cancelled);
        QSignalSpy saved(&runner, &JobRunner::modelsSaved);
        bool cancelOnCorrection = false;
        onView<TaskView>(&runner, this, [&](const TaskView& v) {
            if (cancelOnCorrection && !v.curve.empty() && !v.correctionDone) {
                cancelOnCorrection = false;
                runner.cancel();
            }
        });
        const auto slow = smallSettings({{"correction_iterations", 100000}});
        cancelOnCorrection = true;
        QVERIFY(runner.start(JobRunner::Job::Run, slow, costPreset("synthetic")));
        QVERIFY(cancelled.wait(120000));
        QVERIFY(runner.hasCache());
        QCOMPARE(runner.predictivesSampled(), 2);
        QVERIFY(runner.start(JobRunner::Job::Recorrect, smallSettings(), costPreset("synthetic")));
        QVERIFY(finished.wait(60000));
        QCOMPARE(runner.predictivesSampled(), 2);  // the cancelled run's posteriors, not new ones

        auto harsher = costPreset("synthetic");
        harsher.set(1, 0, 10.0);
        cancelOnCorrection = true;
        QVERIFY(runner.start(JobRunner::Job::Recorrect, slow, harsher));
        QVERIFY(cancelled.wait(60000));
        QTemporaryDir dir;
        QVERIFY(runner.saveModel(0, "kfac_laplace", dir.filePath("q.pt")));
        QVERIFY(saved.wait(10000));
        QVERIFY2(saved.last().at(2).toString().isEmpty(), qPrintable(saved.last().at(2).toString()));
        const auto q = loadMlp(dir.filePath("q.pt").toStdString());
        QCOMPARE(q.info.costs.at(1, 0), costPreset("synthetic").at(1, 0));  // the q saved is the one trained for it
    }

    void savedModelLoadsBackAndDecides()
    {
        SyntheticRunner runner;
        QSignalSpy finished(&runner, &JobRunner::finished);
        ViewSpy<TaskView> tasks(&runner);
        QSignalSpy saved(&runner, &JobRunner::modelsSaved);
        QVERIFY(runner.start(JobRunner::Job::Run, smallSettings(), costPreset("synthetic")));
        QVERIFY(finished.wait(120000));
        QTemporaryDir dir;
        const QString path = dir.path() + "/q.pt";
        QVERIFY(runner.saveModel(0, "kfac_laplace", path));
        QVERIFY(saved.wait(10000));
        QVERIFY2(saved.first().at(2).toString().isEmpty(), qPrintable(saved.first().at(2).toString()));
        QVERIFY(QFile::exists(path) && QFile::exists(path + ".json") && QFile::exists(dir.path() + "/q_map.pt"));
        const int runViews = tasks.count();
        auto opened = smallSettings();
        opened["model"] = path.toStdString();
        QVERIFY(runner.start(JobKind::Evaluate, JobRequest{"synthetic", opened, {}}, costPreset("synthetic")));
        QVERIFY(finished.wait(10000));
        QCOMPARE(tasks.count(), runViews + 1);  // the opened model's regions
        const auto view = tasks.last().at(0).value<TaskView>();
        tasks.removeLast();
        // The reloaded q decides exactly as the q of the run did.
        TaskView original;
        for (const auto& args : tasks) {
            const auto v = args.at(0).value<TaskView>();
            if (v.method == "kfac_laplace" && v.correctionDone)
                original = v;
        }
        QCOMPARE(view.corrected.decisions, original.corrected.decisions);
        // A task that does not exist is refused with a message.
        saved.clear();
        QVERIFY(runner.saveModel(5, "bbvi", dir.path() + "/none.pt"));
        QVERIFY(saved.wait(10000));
        QVERIFY(!saved.first().at(2).toString().isEmpty());
    }

    void correctionWithoutPosteriorFails()
    {
        SyntheticRunner runner;
        QSignalSpy failed(&runner, &JobRunner::failed);
        QVERIFY(runner.start(JobRunner::Job::Recorrect, smallSettings(), costPreset("synthetic")));
        QVERIFY(failed.wait(10000));
        QVERIFY(failed.first().at(1).toString().contains("nothing cached"));
        QVERIFY(!runner.isBusy());
    }

    void cancelIsPromptAndLeavesRunnerUsable()
    {
        SyntheticRunner runner;
        QSignalSpy cancelled(&runner, &JobRunner::cancelled);
        QSignalSpy progress(&runner, &JobRunner::progress);
        QSignalSpy finished(&runner, &JobRunner::finished);
        const auto big = smallSettings({{"replicates", 10}, {"methods", {"bbvi", "sghmc", "kfac_laplace"}}});
        QVERIFY(runner.start(JobRunner::Job::Run, big, costPreset("synthetic")));
        QVERIFY(progress.wait(20000));
        QElapsedTimer clock;
        clock.start();
        runner.cancel();
        QVERIFY(cancelled.wait(5000));
        const qint64 ms = clock.elapsed();
        qInfo("cancel took effect after %lld ms", ms);
        QVERIFY2(ms < 1000, qPrintable(QString("cancel took %1 ms").arg(ms)));
        QCOMPARE(finished.count(), 0);
        QVERIFY(!runner.isBusy());
        QVERIFY(!runner.hasCache());  // nothing half-sampled was cached
        QVERIFY(runner.start(JobRunner::Job::Run, smallSettings(), costPreset("synthetic")));
        QVERIFY(finished.wait(120000));
        QVERIFY(runner.hasCache());
    }

    void guiThreadStaysResponsive()
    {
        // Timers every 5 ms on this (GUI) thread while the pipeline runs; the largest
        // lateness is reported. Were the job run on this thread, the lateness would be the
        // job's whole duration (seconds); the bound only catches that kind of blocking.
        SyntheticRunner runner;
        QSignalSpy finished(&runner, &JobRunner::finished);
        QElapsedTimer clock;
        qint64 last = 0, worst = 0;
        int ticks = 0;
        QTimer timer;
        timer.setTimerType(Qt::PreciseTimer);
        timer.setInterval(5);
        connect(&timer, &QTimer::timeout, this, [&] {
            const qint64 now = clock.elapsed();
            worst = std::max(worst, now - last - 5);
            last = now;
            ++ticks;
        });
        const auto settings = smallSettings({{"replicates", 2}, {"methods", {"bbvi", "sghmc", "kfac_laplace"}}});
        clock.start();
        timer.start();
        QVERIFY(runner.start(JobRunner::Job::Run, settings, costPreset("synthetic")));
        QVERIFY(finished.wait(180000));
        timer.stop();
        qInfo("largest event-loop delay while the pipeline ran: %lld ms over %d ticks (%.1f s)", worst, ticks,
              clock.elapsed() / 1000.0);
        QVERIFY2(worst < 1500, qPrintable(QString("GUI thread blocked for %1 ms").arg(worst)));
    }
};

QTEST_MAIN(TestJobRunner)
#include "tst_job_runner.moc"
