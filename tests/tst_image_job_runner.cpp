// The image job runner: tiny corruption and selective jobs end to end (progress over the
// whole plan, live curves, comparisons, the cached S and a re-correction that trains only
// q), cancellation and missing data.
#include <cmath>

#include <QtTest/QtTest>

#include <torch/torch.h>

#include "core/threads.h"
#include "image_job_fixtures.h"
#include "image_job_runner.h"
#include "image_views.h"

using namespace lcs;
using namespace lcs::ui;

class TestImageJobRunner : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { configureThreads(1); }

    void tinyJobRunsThenRecorrectsOnly_data()
    {
        QTest::addColumn<QString>("experiment");
        QTest::newRow("corruption") << "corruption";
        QTest::newRow("selective") << "selective";
    }

    void tinyJobRunsThenRecorrectsOnly()
    {
        QFETCH(QString, experiment);
        const bool selective = experiment == "selective";
        ImageJobRunner runner(nullptr, tinyHooks());
        QSignalSpy started(&runner, &ImageJobRunner::started);
        QSignalSpy progress(&runner, &ImageJobRunner::progress);
        QSignalSpy epochs(&runner, &ImageJobRunner::epochPoints);
        QSignalSpy training(&runner, &ImageJobRunner::trainingPoints);
        QSignalSpy comparisons(&runner, &ImageJobRunner::comparison);
        QSignalSpy summaries(&runner, &ImageJobRunner::summary);
        QSignalSpy times(&runner, &ImageJobRunner::trainingTime);
        QSignalSpy caches(&runner, &ImageJobRunner::cacheReady);
        QSignalSpy finished(&runner, &ImageJobRunner::finished);
        QSignalSpy failed(&runner, &ImageJobRunner::failed);
        // The order in which views hear of things: a comparison must arrive while the run
        // goes on, before the networks trained after that q report their curves.
        QStringList events;
        connect(&runner, &ImageJobRunner::comparison, this, [&](const ComparisonView& v) {
            events << QString("comparison %1").arg(v.value);
        });
        connect(&runner, &ImageJobRunner::epochPoints, this, [&](const QVector<EpochPoint>& points) {
            for (const auto& p : points)
                events << "curve " + p.series;
        });
        const CostMatrix costs = CostMatrix::zeroOne(3);
        QVERIFY(startImageJob(runner, ImageJobRunner::Job::Run, tinySettings(experiment), costs));
        QVERIFY(runner.isBusy());
        QVERIFY(!startImageJob(runner, ImageJobRunner::Job::Run, tinySettings(experiment), costs));  // one at a time
        QVERIFY(finished.wait(120000));
        QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.first().at(1).toString()));
        QCOMPARE(started.count(), 1);
        QVERIFY(!runner.isBusy());
        QVERIFY(runner.hasCache());
        QCOMPARE(runner.cacheExperiment(), experiment);
        QCOMPARE(runner.runs(), 1);
        QVERIFY(finished.first().at(2).toString().contains(QString("\"experiment\": \"%1\"").arg(experiment)));

        // Progress maps the engine's phases onto the whole job.
        double lastFraction = 0;
        for (const auto& args : progress) {
            const double f = args.at(0).value<JobProgress>().fraction;
            QVERIFY(f >= lastFraction - 1e-12 && f <= 1.0 + 1e-9);
            lastFraction = f;
        }
        QVERIFY2(lastFraction > 0.9, qPrintable(QString::number(lastFraction)));
        // Live curves: per-epoch test figures of every network trained, and training figures.
        QStringList epochSeries;
        for (const auto& args : epochs)
            for (const auto& p : args.at(0).value<QVector<EpochPoint>>()) {
                QCOMPARE(p.run, QString(selective ? "trial 1" : "rate 0.2, trial 1"));
                // Accuracy and NLL are over the decided points: undefined (NaN, a gap in the
                // curve) when a selective network refers every probe image.
                const bool allReferred = selective && std::isnan(p.accuracy) && std::isnan(p.nll);
                const bool figuresOk = allReferred || (p.accuracy >= 0 && p.accuracy <= 1 && p.nll > 0);
                QVERIFY2(p.cost >= 0 && p.cost <= 1 && figuresOk,
                         qPrintable(QString("%1 epoch %2: cost %3 accuracy %4 nll %5")
                                        .arg(p.series).arg(p.epoch).arg(p.cost).arg(p.accuracy).arg(p.nll)));
                epochSeries << p.series;
            }
        const QStringList expectedCurves = selective ? QStringList{"map", "sghmc + S", "ours, r 0.3"}
                                                     : QStringList{"map", "sgld_s", "ours", "cw_sgd"};
        for (const QString& s : expectedCurves)
            QVERIFY2(epochSeries.contains(s), qPrintable(s + " not in " + epochSeries.join(" | ")));
        QStringList trainingSeries;
        for (const auto& args : training)
            for (const auto& p : args.at(0).value<QVector<TrainingPoint>>())
                trainingSeries << p.series;
        QVERIFY(trainingSeries.contains(selective ? "sghmc + S" : "sgld + S"));
        QVERIFY(trainingSeries.contains(selective ? "ours, r 0.3" : "ours"));

        // One comparison per run of ours; counts over the whole test set.
        QCOMPARE(comparisons.count(), selective ? 2 : 1);
        const int firstComparison = events.indexOf(selective ? "comparison 0.1" : "comparison 0.2");
        const int laterCurve = events.indexOf(selective ? "curve lc-sghmc, r 0.1" : "curve cw_sgd");
        QVERIFY2(firstComparison >= 0 && laterCurve > firstComparison, qPrintable(events.join(" | ").left(600)));
        const auto view = comparisons.last().at(0).value<ComparisonView>();
        QCOMPARE(view.classes(), 3);
        QCOMPARE(view.decisions(), selective ? 4 : 3);
        QCOMPARE(view.testCount, qint64(60));
        qint64 before = 0, after = 0;
        for (int i = 0; i < view.before.size(); ++i) {
            before += view.before[i];
            after += view.after[i];
        }
        QCOMPARE(before, qint64(60));
        QCOMPARE(after, qint64(60));
        QCOMPARE(view.changed.size(), int(std::min<qint64>(view.changedCount, kMaxChangedDecisions)));
        for (const auto& item : view.changed) {
            QCOMPARE(item.image.size(), QSize(4, 4));
            QCOMPARE(item.image.format(), QImage::Format_Grayscale8);
            QVERIFY(item.before != item.after);
        }
        const auto summary = summaries.last().at(0).value<SummaryView>();
        QCOMPARE(summary.points.size(), selective ? 8 : 3);
        const auto time = times.last().at(0).value<TrainingTimeView>();
        QCOMPARE(time.size(), selective ? 2 : 0);
        if (selective) {
            QVERIFY(time[0].ours > 0 && time[1].ours >= time[0].ours);
            QVERIFY(time[1].lcSghmc > time[0].lcSghmc);
        }
        const CostMatrix cached = caches.last().at(1).value<CostMatrix>();
        QCOMPARE(cached.numDecisions(), selective ? 4 : 3);

        // A cost edit: only q is re-trained, from the cached S.
        CostMatrix edited = cached;
        edited.set(0, 1, 4.0);
        edited.set(2, 0, 3.0);
        training.clear();
        QVERIFY(startImageJob(runner, ImageJobRunner::Job::Recorrect, tinySettings(experiment), edited));
        QVERIFY(finished.wait(60000));
        QCOMPARE(finished.last().at(0).value<ImageJobRunner::Job>(), ImageJobRunner::Job::Recorrect);
        QCOMPARE(runner.runs(), 1);
        QCOMPARE(runner.recorrections(), 1);
        QVERIFY(runner.hasCache());
        const auto recorrected = comparisons.last().at(0).value<ComparisonView>();
        QVERIFY(recorrected.recorrected);
        QVERIFY(recorrected.seconds > 0);
        // The decisions were scored with the edited matrix.
        for (const auto* side : {&recorrected.before, &recorrected.after}) {
            double total = 0;
            for (int y = 0; y < 3; ++y)
                for (int d = 0; d < recorrected.decisions(); ++d)
                    total += double((*side)[y * recorrected.decisions() + d]) * edited.at(y, d);
            const double shown = side == &recorrected.before ? recorrected.costBefore : recorrected.costAfter;
            QVERIFY2(std::abs(total / 60.0 - shown) < 1e-9, qPrintable(QString("%1 vs %2").arg(total / 60).arg(shown)));
        }
        // Its curve joins the cached run's.
        bool recorrectedCurve = false;
        for (const auto& args : training)
            for (const auto& p : args.at(0).value<QVector<TrainingPoint>>())
                recorrectedCurve |= p.series == kRecorrectedSeries && p.run == (selective ? "trial 1" : "rate 0.2, trial 1");
        QVERIFY(recorrectedCurve);

        // A cost matrix of another class count is refused with a message; the cache stays.
        QVERIFY(startImageJob(runner, ImageJobRunner::Job::Recorrect, tinySettings(experiment), CostMatrix::zeroOne(4)));
        QVERIFY(failed.wait(30000));
        QVERIFY(failed.last().at(1).toString().contains("classes"));
        QVERIFY(runner.hasCache());
    }

    // The window's progress follows every planned task whatever the rate's digits (a rate
    // of 0.125 once never found its row: the plan and the engine formatted it differently).
    void progressReachesTheEndForEveryRate_data()
    {
        QTest::addColumn<double>("rate");
        QTest::newRow("0.125") << 0.125;
        QTest::newRow("1/3") << 1.0 / 3.0;
    }

    void progressReachesTheEndForEveryRate()
    {
        QFETCH(double, rate);
        ImageJobRunner runner(nullptr, tinyHooks());
        QSignalSpy progress(&runner, &ImageJobRunner::progress);
        QSignalSpy finished(&runner, &ImageJobRunner::finished);
        const auto settings = tinySettings("corruption", {{"rates", {rate}}, {"methods", {"cw_sgd"}}});
        QVERIFY(startImageJob(runner, ImageJobRunner::Job::Run, settings, CostMatrix::zeroOne(3)));
        QVERIFY(finished.wait(120000));
        QVERIFY(!progress.isEmpty());
        const double last = progress.last().at(0).value<JobProgress>().fraction;
        QVERIFY2(last > 0.9, qPrintable(QString::number(last)));
    }

    void cancelStopsAnImageRun()
    {
        ImageJobRunner runner(nullptr, tinyHooks());
        QSignalSpy cancelled(&runner, &ImageJobRunner::cancelled);
        QSignalSpy finished(&runner, &ImageJobRunner::finished);
        QVERIFY(startImageJob(runner, ImageJobRunner::Job::Run, tinySettings("corruption"), CostMatrix::zeroOne(3)));
        runner.cancel();  // before the worker gets to the first minibatch
        QVERIFY(cancelled.wait(30000));
        QCOMPARE(finished.count(), 0);
        QVERIFY(!runner.isBusy());
        QVERIFY(!runner.hasCache());
        // Nothing cached, so nothing to re-correct.
        QSignalSpy failed(&runner, &ImageJobRunner::failed);
        QVERIFY(startImageJob(runner, ImageJobRunner::Job::Recorrect, tinySettings("corruption"), CostMatrix::zeroOne(3)));
        QVERIFY(failed.wait(30000));
        QVERIFY(failed.last().at(1).toString().contains("no student S cached"));
    }

    void runnerReportsMissingData()
    {
        ImageJobRunner runner;
        QSignalSpy failed(&runner, &ImageJobRunner::failed);
        const auto s = tinySettings("corruption", {{"data", (QDir::tempPath() + "/lcs-no-such-image-folder").toStdString()}});
        QVERIFY(startImageJob(runner, ImageJobRunner::Job::Run, s, CostMatrix::zeroOne(3)));
        QVERIFY(failed.wait(30000));
        QVERIFY(failed.first().at(2).toBool());  // data unavailable: the demo exits 2 for this
        QVERIFY(!runner.hasCache());
    }
};

QTEST_GUILESS_MAIN(TestImageJobRunner)
#include "tst_image_job_runner.moc"
