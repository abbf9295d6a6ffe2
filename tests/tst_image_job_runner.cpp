// The image job runner: tiny corruption and selective jobs end to end (progress over the
// whole plan, live curves, comparisons, the cached S and a re-correction that trains only
// q), the run's networks saved as model files and an exported model opened to decide the
// test images, cancellation and missing data.
#include <algorithm>
#include <cmath>

#include <QPushButton>
#include <QTemporaryDir>
#include <QtTest/QtTest>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "engine/decision/decisions.h"
#include "engine/experiments/run_views.h"
#include "engine/io/model_io.h"
#include "tests/gui_test_setup.h"
#include "tests/image_job_fixtures.h"
#include "tests/view_spy.h"
#include "ui/method_style.h"
#include "tests/window_pages.h"
#include "ui/experiments/image/image_experiment_page.h"
#include "ui/experiments/image/image_views.h"
#include "ui/main_window.h"

using namespace lcs;
using namespace lcs::ui;

namespace {

/// The tiny data's test images as raw pixels: what a model file takes.
at::Tensor tinyRawTestImages()
{
    const auto data = tinyImages(40, 3);
    return data.test.images * data.channelStd[0] + data.channelMean[0];
}

/// The entries of `dir` (names), sorted.
QStringList entries(const QString& dir)
{
    auto list = QDir(dir).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden);
    list.sort();
    return list;
}

/// An MLP model file for `inputShape` images of 3 classes, untrained, with the tiny
/// data's standardisation and a 0/1 matrix in its sidecar.
QString writeMlpModel(const QString& path, std::vector<int64_t> inputShape, const std::string& architecture = "mlp")
{
    ModelSpec spec;
    spec.architecture = architecture;
    spec.inputShape = std::move(inputShape);
    spec.classes = architecture == "mlp" ? 3 : 11;
    spec.hidden = {8};
    auto g = makeGenerator(5);
    auto net = spec.build(g);
    ModelInfo info;
    info.experiment = architecture == "mlp" ? "corruption" : "camvid";
    info.method = architecture == "mlp" ? "cw_sgd" : "ours";
    info.role = "classifier";
    info.inputMean.assign(static_cast<size_t>(spec.inputShape[0]), 0.5);
    info.inputStd.assign(static_cast<size_t>(spec.inputShape[0]), 0.25);
    info.costs = CostMatrix::zeroOne(static_cast<int>(spec.classes));
    saveModel(*net, spec, info, path.toStdString());
    return path;
}

} // namespace

class TestImageJobRunner : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        isolateWindowTest();
        useImageProviders();
    }

    // The one run path publishes what the window draws, the same for every front end: the
    // data once, one comparison per trained q, each under the matrix that q decided for
    // (selective: the referral cost r of its run), the finished result; a re-correction
    // one more comparison, marked, under the new matrix, and its q replaces the saved one.
    void runPublishesItsViews()
    {
        const auto request = tinySettings("selective", {{"methods", {"sghmc", "ours"}}});  // r = 0.1, 0.3
        int started = 0, finished = 0;
        std::vector<std::pair<double, double>> rateAndReferral;  // per comparison: the run's r, the matrix's
        std::vector<bool> recorrected;
        std::vector<double> firstCost;  // per comparison: the matrix's cost of deciding 1 for class 0
        size_t comparisonsInResult = 0;
        RunViews views;
        views.show = viewHandlers([&](const ImageRunStarted& e) {
            ++started;
            QCOMPARE(e.classNames.size(), size_t(3));
            QCOMPARE(e.inputShape.size(), size_t(3));
            QVERIFY(e.trainImages > 0 && e.testImages > 0);
            QVERIFY(!e.costs.hasReferral());  // the base the referral costs are added to
        }, [&](const ComparisonShown& e) {
            rateAndReferral.emplace_back(e.comparison.rate, e.comparison.costs.referralCost().value_or(-1));
            recorrected.push_back(e.recorrected);
            firstCost.push_back(e.comparison.costs.at(0, 1));
            QCOMPARE(e.uncorrectedMethod, std::string(e.recorrected ? "sghmc_s" : "sghmc"));
            // One picture per changed decision, each the shape of the data's images.
            QCOMPARE(e.changedImages.size(), e.comparison.changed.size());
            for (const auto& image : e.changedImages)
                QVERIFY(!image.empty() && image.bytes.size() == size_t(image.width * image.height * image.channels));
        }, [&](const SelectiveResult& r) {
            ++finished;
            comparisonsInResult = r.comparisons.size();
        });
        JobContext ctx;
        ctx.views = &views;
        QTemporaryDir tmp;
        const std::string saved = tmp.path().toStdString() + "/networks";
        auto run = runExperiment(ExperimentRegistry::global().get("selective"), request.settings,
                                 CostMatrix::zeroOne(3), ctx, {{"save_models", saved}});
        QCOMPARE(started, 1);
        QCOMPARE(finished, 1);
        QCOMPARE(rateAndReferral.size(), size_t(2));
        QCOMPARE(comparisonsInResult, size_t(2));
        for (const auto& [rate, referral] : rateAndReferral)
            QCOMPARE(referral, rate);
        QCOMPARE(recorrected, (std::vector<bool>{false, false}));
        QVERIFY(run.cache);

        // The cached run is the last r's; its q file is replaced by the re-corrected one.
        const std::string qFile = saved + "/ours_r0.3_trial0.pt";
        QVERIFY(QFileInfo::exists(QString::fromStdString(qFile)));
        CostMatrix edited = run.cache->costs();
        QCOMPARE(*edited.referralCost(), 0.3);
        edited.set(0, 1, 4.0);
        run.cache->recorrect(edited, ctx);
        QCOMPARE(recorrected, (std::vector<bool>{false, false, true}));
        QCOMPARE(firstCost.back(), 4.0);
        QCOMPARE(rateAndReferral.back(), std::make_pair(0.3, 0.3));
        QCOMPARE(loadClassifier(qFile).info.costs.at(0, 1), 4.0);
    }

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
        ImageRunner runner;
        QSignalSpy started(&runner, &JobRunner::started);
        QSignalSpy progress(&runner, &JobRunner::progress);
        ViewSpy<QVector<EpochPoint>> epochs(&runner);
        ViewSpy<QVector<TrainingPoint>> training(&runner);
        ViewSpy<ComparisonView> comparisons(&runner);
        ViewSpy<SummaryView> summaries(&runner);
        ViewSpy<TrainingTimeView> times(&runner);
        QSignalSpy caches(&runner, &JobRunner::cacheReady);
        QSignalSpy finished(&runner, &JobRunner::finished);
        QSignalSpy failed(&runner, &JobRunner::failed);
        // The order in which views hear of things: a comparison must arrive while the run
        // goes on, before the networks trained after that q report their curves.
        QStringList events;
        onView<ComparisonView>(&runner, this, [&](const ComparisonView& v) {
            events << QString("comparison %1").arg(v.value);
        });
        onView<QVector<EpochPoint>>(&runner, this, [&](const QVector<EpochPoint>& points) {
            for (const auto& p : points)
                events << "curve " + p.series;
        });
        const CostMatrix costs = CostMatrix::zeroOne(3);
        QVERIFY(startImageJob(runner, JobRunner::Job::Run, tinySettings(experiment), costs));
        QVERIFY(runner.isBusy());
        QVERIFY(!startImageJob(runner, JobRunner::Job::Run, tinySettings(experiment), costs));  // one at a time
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
                QCOMPARE(p.run, QString(selective ? "trial 0" : "rate 0.2, trial 0"));
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
        QVERIFY(startImageJob(runner, JobRunner::Job::Recorrect, tinySettings(experiment), edited));
        QVERIFY(finished.wait(60000));
        QCOMPARE(finished.last().at(0).value<JobRunner::Job>(), JobRunner::Job::Recorrect);
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
                recorrectedCurve |= p.series == kRecorrectedSeries && p.run == (selective ? "trial 0" : "rate 0.2, trial 0");
        QVERIFY(recorrectedCurve);

        // A cost matrix of another class count is refused with a message; the cache stays.
        QVERIFY(startImageJob(runner, JobRunner::Job::Recorrect, tinySettings(experiment), CostMatrix::zeroOne(4)));
        QVERIFY(failed.wait(30000));
        QVERIFY(failed.last().at(1).toString().contains("classes"));
        QVERIFY(runner.hasCache());
    }

    void savedNetworksAreTheRunsAndReadBack_data()
    {
        QTest::addColumn<QString>("experiment");
        QTest::addColumn<QStringList>("expected");
        QTest::newRow("corruption") << "corruption"
                                    << QStringList{"cw_sgd_rate0.2_trial0.pt", "map_rate0.2_trial0.pt",
                                                   "ours_rate0.2_trial0.pt", "sgld_s_rate0.2_trial0.pt"};
        QTest::newRow("selective") << "selective"
                                   << QStringList{"map_trial0.pt", "ours_no_s_r0.1_trial0.pt", "ours_no_s_r0.3_trial0.pt",
                                                  "ours_r0.1_trial0.pt", "ours_r0.3_trial0.pt", "sghmc_s_trial0.pt"};
    }

    // File > Save Model: every network the run trained (what --save-models writes), each
    // loading back as the network the run decided with.
    void savedNetworksAreTheRunsAndReadBack()
    {
        QFETCH(QString, experiment);
        QFETCH(QStringList, expected);
        const bool selective = experiment == "selective";
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        ImageRunner runner;
        QSignalSpy finished(&runner, &JobRunner::finished);
        QSignalSpy failed(&runner, &JobRunner::failed);
        ViewSpy<ComparisonView> comparisons(&runner);
        QSignalSpy saved(&runner, &JobRunner::modelsSaved);
        const CostMatrix costs = CostMatrix::zeroOne(3);
        QVERIFY(startImageJob(runner, JobRunner::Job::Run, tinySettings(experiment), costs));
        QVERIFY(runner.keptFiles().isEmpty());
        QVERIFY(!runner.exportKept(tmp.path() + "/busy"));  // refused while a job runs
        QVERIFY(!openImageModel(runner, tmp.path() + "/x.pt", tinySettings(experiment), costs));
        QVERIFY(finished.wait(120000));
        QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.first().at(1).toString()));
        QCOMPARE(runner.keptExperiment(), experiment);
        auto files = runner.keptFiles();
        files.sort();
        QCOMPARE(files, expected);

        const QString dir = tmp.path() + "/networks";
        QVERIFY(runner.exportKept(dir));
        QVERIFY(saved.wait(30000));
        QCOMPARE(saved.first().at(2).toString(), QString());
        QStringList withSidecars;
        for (const auto& f : expected)
            withSidecars << f << f + ".json";
        withSidecars.sort();
        QCOMPARE(entries(dir), withSidecars);
        QCOMPARE(entries(tmp.path()), QStringList{"networks"});  // no staging folder left
        for (const auto& f : expected) {
            const auto loaded = loadClassifier((dir + "/" + f).toStdString());
            QCOMPARE(QString::fromStdString(loaded.info.experiment), experiment);
            QCOMPARE(loaded.info.replicate, 0);
            QCOMPARE(loaded.info.classNames, (std::vector<std::string>{"a", "b", "c"}));
            const QString role = QString::fromStdString(loaded.info.role);
            QCOMPARE(role, f.startsWith("map") ? QString("map")
                           : f.startsWith("sg")  ? QString("student")
                           : f.startsWith("cw")  ? QString("classifier")
                                                 : QString("q"));
            // q decides for its own matrix: the referral cost it was trained for.
            if (selective && role == "q")
                QCOMPARE(*loaded.info.costs.referralCost(), f.contains("r0.1") ? 0.1 : 0.3);
        }
        if (selective)
            return;  // its test images are rotated per trial, out of this test's reach
        // q's file decides the test images as the comparison view says q did: the same
        // confusion counts, and the changed images' probabilities.
        const auto view = comparisons.last().at(0).value<ComparisonView>();
        const auto q = loadClassifier((dir + "/ours_rate0.2_trial0.pt").toStdString());
        const auto probs = q.probabilities(tinyRawTestImages());
        const auto decisions = bayesDecisions(probs, costTensor(q.info.costs));
        const auto labels = tinyImages(40, 3).test.labels;
        QVector<qint64> counts(9, 0);
        for (int64_t i = 0; i < labels.size(0); ++i)
            ++counts[int(labels[i].item<int64_t>() * 3 + decisions[i].item<int64_t>())];
        QCOMPARE(counts, view.after);
        for (const auto& item : view.changed) {
            QCOMPARE(decisions[item.index].item<int64_t>(), qint64(item.after));
            for (int c = 0; c < 3; ++c)
                QVERIFY(std::abs(probs[item.index][c].item<float>() - item.probsAfter[c]) < 1e-5);
        }

        // File > Open Model on that file: the figures are the file's own on the test images.
        QVERIFY(openImageModel(runner, dir + "/ours_rate0.2_trial0.pt", tinySettings(experiment), costs));
        QVERIFY(finished.wait(30000));
        QCOMPARE(finished.last().at(0).value<JobRunner::Job>(), JobRunner::kOpenModel);
        const auto json = nlohmann::json::parse(finished.last().at(2).toString().toStdString());
        const double accuracy = (probs.argmax(1) == labels).to(at::kDouble).mean().item<double>();
        QCOMPARE(json["metrics"]["accuracy"].get<double>(), accuracy);
        QCOMPARE(json["test_images"].get<int64_t>(), labels.size(0));
        QCOMPARE(json["costs_from"].get<std::string>(), std::string("given"));
        QVERIFY(finished.last().at(3).toString().startsWith("model,method,dataset,test_images,cost"));
        QVERIFY(!runner.keptFiles().isEmpty());  // opening a model leaves the run's networks as they were
        QCOMPARE(runner.runs(), 1);

        // After a re-correction Save Model saves the new q: its sidecar has the new costs
        // and it decides as the re-correction's comparison says.
        CostMatrix edited = costs;
        edited.set(0, 1, 4.0);
        QVERIFY(startImageJob(runner, JobRunner::Job::Recorrect, tinySettings(experiment), edited));
        QVERIFY(finished.wait(60000));
        const QString again = tmp.path() + "/recorrected";
        QVERIFY(runner.exportKept(again));
        QVERIFY(saved.wait(30000));
        const auto q2 = loadClassifier((again + "/ours_rate0.2_trial0.pt").toStdString());
        QCOMPARE(q2.info.costs.at(0, 1), 4.0);
        const auto decisions2 = bayesDecisions(q2.probabilities(tinyRawTestImages()), costTensor(q2.info.costs));
        QVector<qint64> counts2(9, 0);
        for (int64_t i = 0; i < labels.size(0); ++i)
            ++counts2[int(labels[i].item<int64_t>() * 3 + decisions2[i].item<int64_t>())];
        QCOMPARE(counts2, comparisons.last().at(0).value<ComparisonView>().after);
        QCOMPARE(loadClassifier((again + "/map_rate0.2_trial0.pt").toStdString()).info.costs.at(0, 1), 1.0);  // the rest as run
    }

    void failedSaveLeavesNothingBehind_data()
    {
        QTest::addColumn<QString>("target");
        QTest::newRow("target is a file") << "afile";
        QTest::newRow("parent is a file") << "afile/networks";
    }

    void failedSaveLeavesNothingBehind()
    {
        QFETCH(QString, target);
        QTemporaryDir tmp;
        QFile file(tmp.path() + "/afile");
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("keep");
        file.close();
        ImageRunner runner;
        QSignalSpy finished(&runner, &JobRunner::finished);
        QSignalSpy saved(&runner, &JobRunner::modelsSaved);
        QVERIFY(startImageJob(runner, JobRunner::Job::Run,
                              tinySettings("corruption", {{"methods", {"cw_sgd"}}}), CostMatrix::zeroOne(3)));
        QVERIFY(finished.wait(120000));
        QCOMPARE(runner.keptFiles(), QStringList{"cw_sgd_rate0.2_trial0.pt"});
        QVERIFY(runner.exportKept(tmp.path() + "/" + target));
        QVERIFY(saved.wait(30000));
        const QString error = saved.first().at(2).toString();
        QVERIFY2(error.contains(tmp.path() + "/afile"), qPrintable(error));
        QVERIFY(saved.first().at(1).toStringList().isEmpty());
        QCOMPARE(entries(tmp.path()), QStringList{"afile"});
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(file.readAll(), QByteArray("keep"));
    }

    void openModelChecksTheModelAgainstTheData_data()
    {
        QTest::addColumn<QString>("architecture");
        QTest::addColumn<QString>("inputShape");
        QTest::addColumn<int>("windowClasses");
        QTest::addColumn<bool>("withReferral");
        QTest::addColumn<QString>("expected");  // a part of the error, or "" for figures
        QTest::newRow("wrong input shape") << "mlp" << "1,5,5" << 3 << false << "takes 1 x 5 x 5 inputs";
        QTest::newRow("segmentation network") << "segnet_light" << "3,16,16" << 3 << false << "CamVid";
        QTest::newRow("the window's matrix") << "mlp" << "1,4,4" << 3 << false << "";
        QTest::newRow("the window's, with referral") << "mlp" << "1,4,4" << 3 << true << "";
        QTest::newRow("the sidecar's matrix") << "mlp" << "1,4,4" << 10 << false << "";
    }

    // File > Open Model: a model is checked against the data the form names, and decides
    // its test images under the window's matrix (the sidecar's where it does not fit).
    void openModelChecksTheModelAgainstTheData()
    {
        QFETCH(QString, architecture);
        QFETCH(QString, inputShape);
        QFETCH(int, windowClasses);
        QFETCH(bool, withReferral);
        QFETCH(QString, expected);
        QTemporaryDir tmp;
        std::vector<int64_t> shape;
        for (const auto& d : inputShape.split(','))
            shape.push_back(d.toLongLong());
        const QString path = writeMlpModel(tmp.path() + "/model.pt", shape, architecture.toStdString());
        ImageRunner runner;
        QSignalSpy finished(&runner, &JobRunner::finished);
        QSignalSpy failed(&runner, &JobRunner::failed);
        CostMatrix costs = CostMatrix::zeroOne(windowClasses);
        at::Tensor probs;
        double referral = -1;
        if (expected.isEmpty()) {
            probs = loadClassifier(path.toStdString()).probabilities(tinyRawTestImages());
            // A referral cost that refers about half the images: 1 - the median top probability.
            if (withReferral)
                referral = 1.0 - std::get<0>(probs.max(1)).median().item<double>() + 1e-4;
        }
        if (referral >= 0)
            costs.setReferral(referral);
        QVERIFY(openImageModel(runner, path, tinySettings("selective"), costs));
        QVERIFY(runner.isBusy());
        QTRY_VERIFY_WITH_TIMEOUT(finished.size() + failed.size() == 1, 30000);
        if (!expected.isEmpty()) {
            QCOMPARE(failed.size(), 1);
            const QString message = failed.first().at(1).toString();
            QVERIFY2(message.contains(path) && message.contains(expected), qPrintable(message));
            if (architecture == "mlp")
                QVERIFY2(message.contains("1 x 4 x 4 images"), qPrintable(message));
            return;
        }
        QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.first().at(1).toString()));
        const auto json = nlohmann::json::parse(finished.first().at(2).toString().toStdString());
        QCOMPARE(json["costs_from"].get<std::string>(), std::string(windowClasses == 3 ? "given" : "sidecar"));
        // The figures computed here from the file: under 0/1 costs a class is decided by
        // its probability, and referral (cost r) wins where every class costs more.
        const auto labels = tinyImages(40, 3).test.labels;
        const auto [top, decided] = probs.max(1);
        const auto referred = referral >= 0 ? (1.0 - top) > referral : at::zeros({top.size(0)}, at::TensorOptions(at::kBool));
        const auto kept = referred.logical_not();
        const double accuracy =
            (decided == labels).logical_and(kept).sum().item<double>() / kept.sum().item<double>();
        QCOMPARE(json["metrics"]["accuracy"].get<double>(), accuracy);
        QCOMPARE(json["metrics"].contains("referral_rate"), referral >= 0);
        if (referral >= 0) {
            const double rate = referred.to(at::kDouble).mean().item<double>();
            QVERIFY2(rate > 0.2 && rate < 0.8, qPrintable(QString::number(rate)));
            QCOMPARE(json["metrics"]["referral_rate"].get<double>(), rate);
        }
    }

    // The window's File > Save Model / Open Model on the image page: Save Model is
    // offered for the experiment whose run left networks and not while a job runs; an
    // opened model's figures become the page's results.
    void imagePageSavesAndOpensModels()
    {
        QTemporaryDir tmp;
        MainWindow window;
        window.setExperiment("corruption");
        auto* page = qobject_cast<ImageExperimentPage*>(window.currentPage());
        QVERIFY(page && page->hasModels() && !page->canSaveModel());
        auto& r = *imageRunner(window);
        QSignalSpy finished(&r, &JobRunner::finished);
        QSignalSpy saved(&r, &JobRunner::modelsSaved);
        QSignalSpy log(page, &ExperimentPage::logLine);
        imagePanel(window)->applySettings(tinySettings("corruption", {{"methods", {"cw_sgd"}}}).settings);
        window.runAll();
        QVERIFY(r.isBusy() && !page->canSaveModel());
        QVERIFY(finished.wait(120000));
        QVERIFY(page->canSaveModel());
        page->saveModelTo(tmp.path() + "/nets");
        QVERIFY(saved.wait(30000));
        const QString model = tmp.path() + "/nets/cw_sgd_rate0.2_trial0.pt";
        QVERIFY(QFile::exists(model) && QFile::exists(model + ".json"));
        auto logged = [&](const QString& part) {
            return std::any_of(log.begin(), log.end(), [&](const auto& a) { return a.at(0).toString().contains(part); });
        };
        QVERIFY(logged("Saved 1 network(s), each with its sidecar, to " + tmp.path() + "/nets: cw_sgd_rate0.2_trial0.pt"));
        window.setExperiment("selective");
        QVERIFY(!page->canSaveModel());  // the networks are label corruption's
        window.setExperiment("corruption");
        page->openModelFrom(model);
        QVERIFY(r.isBusy());
        page->openModelFrom(model);  // refused politely while the first one runs
        QVERIFY(logged("Busy: open the model when the job has finished"));
        QVERIFY(finished.wait(30000));
        QCOMPARE(finished.last().at(0).value<JobRunner::Job>(), JobRunner::kOpenModel);
        QCOMPARE(page->resultsName(), QString("cw_sgd_rate0.2_trial0_evaluation"));
        QCOMPARE(page->resultsJson(), finished.last().at(2).toString());
        QVERIFY(logged(model + " (cw_sgd, mlp) on the 60 test images of tiny under the cost matrix given: cost "));
        QVERIFY(page->canSaveModel());
    }

    // Preview runs the form's settings on kQuickPreviewFraction of the images and says how
    // long the whole run would take; experiments without a preview show no such button.
    void previewRunsAFractionAndEstimatesTheWholeRun()
    {
        auto providers = tinyProviders();
        auto previews = std::make_shared<std::vector<double>>();
        providers.loadData = [previews](const ImageRunChoices& c) {
            previews->push_back(c.preview);
            return tinyImages(40, 3);
        };
        useImageProviders(providers);
        struct Restore {
            ~Restore() { useImageProviders(); }
        } restore;
        MainWindow window;
        window.setExperiment("selective");
        auto* page = qobject_cast<ImageExperimentPage*>(window.currentPage());
        auto* preview = imagePanel(window)->findChild<QPushButton*>("imagePreview");
        QVERIFY(page && preview && preview->isVisibleTo(imagePanel(window)));
        QSignalSpy finished(imageRunner(window), &JobRunner::finished);
        QSignalSpy ended(page, &ExperimentPage::jobEnded);
        QSignalSpy log(page, &ExperimentPage::logLine);
        imagePanel(window)->applySettings(tinySettings("selective", {{"methods", {"sghmc"}}}).settings);
        preview->click();
        QVERIFY(finished.wait(120000));
        QCOMPARE(*previews, std::vector<double>{kQuickPreviewFraction});
        const auto results = nlohmann::json::parse(finished.last().at(2).toString().toStdString());
        QCOMPARE(results["run"]["settings"]["preview"].get<double>(), kQuickPreviewFraction);
        const double estimate = results["run"]["resolved"]["whole_run_seconds_estimate"].get<double>();
        QVERIFY(estimate >= 0);
        QVERIFY(ended.last().at(0).toString().startsWith("Preview finished in "));
        QVERIFY(ended.last().at(0).toString().contains("the whole run would take about"));
        QVERIFY(std::any_of(log.begin(), log.end(), [](const auto& a) {
            return a.at(0).toString().contains("Preview on 10% of the images (120 training, 60 test)");
        }));
        // Run is the whole run again.
        window.runAll();
        QVERIFY(finished.wait(120000));
        QCOMPARE(previews->back(), 1.0);
        QVERIFY(!ended.last().at(0).toString().startsWith("Preview"));
        window.setExperiment("synthetic");
        for (auto* button : window.findChildren<QPushButton*>()) {
            if (button->objectName().endsWith("Preview") && button->objectName() != "imagePreview")
                QVERIFY2(!button->isVisibleTo(button->parentWidget()), qPrintable(button->objectName()));
        }
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
        ImageRunner runner;
        QSignalSpy progress(&runner, &JobRunner::progress);
        QSignalSpy finished(&runner, &JobRunner::finished);
        const auto settings = tinySettings("corruption", {{"rates", {rate}}, {"methods", {"cw_sgd"}}});
        QVERIFY(startImageJob(runner, JobRunner::Job::Run, settings, CostMatrix::zeroOne(3)));
        QVERIFY(finished.wait(120000));
        QVERIFY(!progress.isEmpty());
        const double last = progress.last().at(0).value<JobProgress>().fraction;
        QVERIFY2(last > 0.9, qPrintable(QString::number(last)));
    }

    void cancelStopsAnImageRun()
    {
        ImageRunner runner;
        QSignalSpy cancelled(&runner, &JobRunner::cancelled);
        QSignalSpy finished(&runner, &JobRunner::finished);
        QVERIFY(startImageJob(runner, JobRunner::Job::Run, tinySettings("corruption"), CostMatrix::zeroOne(3)));
        runner.cancel();  // before the worker gets to the first minibatch
        QVERIFY(cancelled.wait(30000));
        QCOMPARE(finished.count(), 0);
        QVERIFY(!runner.isBusy());
        QVERIFY(!runner.hasCache());
        QVERIFY(runner.keptFiles().isEmpty());  // a cancelled run leaves no networks to save
        // Nothing cached, so nothing to re-correct.
        QSignalSpy failed(&runner, &JobRunner::failed);
        QVERIFY(startImageJob(runner, JobRunner::Job::Recorrect, tinySettings("corruption"), CostMatrix::zeroOne(3)));
        QVERIFY(failed.wait(30000));
        QVERIFY(failed.last().at(1).toString().contains("nothing cached to re-correct"));
    }

    void runnerReportsMissingData()
    {
        // The built-in entries read the folder the settings name.
        ExperimentRegistry::global().replace(makeCorruptionExperiment());
        struct Restore {
            ~Restore() { useImageProviders(); }
        } restore;
        ImageRunner runner;
        QSignalSpy failed(&runner, &JobRunner::failed);
        const auto s = tinySettings("corruption", {{"data", (QDir::tempPath() + "/lcs-no-such-image-folder").toStdString()}});
        QVERIFY(startImageJob(runner, JobRunner::Job::Run, s, CostMatrix::zeroOne(3)));
        QVERIFY(failed.wait(30000));
        QVERIFY(failed.first().at(2).toBool());  // data unavailable: the demo exits 2 for this
        QVERIFY(!runner.hasCache());
    }
};

QTEST_MAIN(TestImageJobRunner)
#include "tst_image_job_runner.moc"
