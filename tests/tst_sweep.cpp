// Sweeps: axes parsed by the settings' own parser, cells in order, the folder written all
// or nothing, and the merged table's mean and standard error against hand computations,
// read from results files written by the experiments' own writers.
#include <cmath>
#include <fstream>
#include <limits>

#include <QTemporaryDir>
#include <QtTest>

#include "base/core/atomic_file.h"
#include "base/core/input_error.h"
#include "base/decision/cost_matrix.h"
#include "base/sweep/sweep_collect.h"
#include "base/sweep/sweep_plan.h"
#include "engine/core/job.h"
#include "engine/experiments/camvid/camvid_experiment.h"
#include "engine/experiments/experiment.h"
#include "engine/experiments/image/corruption_experiment.h"
#include "engine/experiments/image/selective_experiment.h"
#include "engine/experiments/synthetic/synthetic_report.h"
#include "tests/sweep_fixtures.h"

namespace {

using sweep_fixtures::corruptionResults;
using sweep_fixtures::corruptionRow;
using sweep_fixtures::corruptionSession;
using sweep_fixtures::experimentNamed;

const lcs::SweepTableRow* findRow(const lcs::SweepTable& t, double rate, const std::string& method,
                                  const std::string& metric)
{
    for (const auto& r : t.rows)
        if (r.settingValue && *r.settingValue == rate && r.method == method && r.metric == metric)
            return &r;
    return nullptr;
}

} // namespace

class TestSweep : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void axesParseLikeTheFlags_data()
    {
        QTest::addColumn<QString>("experiment");
        QTest::addColumn<QString>("over");
        QTest::addColumn<QString>("values");  // the parsed values, as JSON
        QTest::newRow("inclusive range") << "synthetic" << "seed=0..4" << "[0,1,2,3,4]";
        QTest::newRow("range and value") << "synthetic" << "seed=0..2,7" << "[0,1,2,7]";
        QTest::newRow("one value") << "synthetic" << "replicates=3" << "[3]";
        QTest::newRow("a list setting, one value a cell") << "corruption" << "rates=0.3,0.5,0.7"
                                                           << "[[0.3],[0.5],[0.7]]";
        QTest::newRow("methods") << "synthetic" << "methods=bbvi,sghmc" << "[[\"bbvi\"],[\"sghmc\"]]";
        QTest::newRow("number") << "synthetic" << "correction_lr=0.01,0.1" << "[0.01,0.1]";
    }
    void axesParseLikeTheFlags()
    {
        QFETCH(QString, experiment);
        QFETCH(QString, over);
        QFETCH(QString, values);
        const auto axes = lcs::parseSweepAxes({over.toStdString()}, experimentNamed(experiment.toStdString()));
        QCOMPARE(axes.size(), size_t{1});
        QCOMPARE(QString::fromStdString(nlohmann::json(axes[0].values).dump()), values);
    }

    void badAxesAreRefusedNamingThem_data()
    {
        QTest::addColumn<QString>("experiment");
        QTest::addColumn<QStringList>("overs");
        QTest::addColumn<QString>("fragment");
        QTest::newRow("unknown, with a hint") << "corruption" << QStringList{"rate=0.3"} << "did you mean \"rates\"";
        QTest::newRow("unknown") << "synthetic" << QStringList{"speed=1"} << "\"speed\" is not a setting of synthetic";
        QTest::newRow("the flag's range") << "synthetic" << QStringList{"replicates=0"}
                                          << "--replicates: \"0\" is not an integer in 1..10000";
        QTest::newRow("a list's range") << "corruption" << QStringList{"rates=1.5"} << "is outside [0, 1]";
        QTest::newRow("empty range") << "synthetic" << QStringList{"seed=4..2"} << "is empty (4 > 2)";
        QTest::newRow("not a range") << "synthetic" << QStringList{"seed=a..b"} << "is not a range of integers";
        QTest::newRow("twice") << "synthetic" << QStringList{"seed=1,2,1"} << "1 is listed twice";
        QTest::newRow("stray comma") << "synthetic" << QStringList{"seed=1,"} << "an empty value";
        QTest::newRow("no values") << "synthetic" << QStringList{"seed"} << "is not NAME=VALUES";
        QTest::newRow("axis twice") << "synthetic" << QStringList{"seed=1", "seed=2"} << "--over seed is given twice";
        QTest::newRow("a choice") << "synthetic" << QStringList{"bbvi_prior=flat"} << "--bbvi-prior: \"flat\"";
        QTest::newRow("too many cells") << "synthetic"
                                        << QStringList{"seed=0..9999", "replicates=1..11"} << "more than 100000 cells";
    }
    void badAxesAreRefusedNamingThem()
    {
        QFETCH(QString, experiment);
        QFETCH(QStringList, overs);
        QFETCH(QString, fragment);
        std::vector<std::string> list;
        for (const auto& o : overs)
            list.push_back(o.toStdString());
        try {
            const auto axes = lcs::parseSweepAxes(list, experimentNamed(experiment.toStdString()));
            lcs::sweepCells(axes);
            QFAIL("accepted");
        } catch (const lcs::InputError& e) {
            QVERIFY2(QString(e.what()).contains(fragment), e.what());
        }
    }

    void cellsVaryTheLastAxisFastest()
    {
        const auto& e = experimentNamed("synthetic");
        const auto cells = lcs::sweepCells(lcs::parseSweepAxes({"seed=0,1", "replicates=1..3"}, e));
        QCOMPARE(cells.size(), size_t{6});
        QCOMPARE(cells[4].id, 4);
        QCOMPARE(cells[4].values.at("seed").get<int>(), 1);
        QCOMPARE(cells[4].values.at("replicates").get<int>(), 2);
    }

    // Hand-computed: s is the sample standard deviation (n - 1), se = s / sqrt(n). Dividing
    // by n instead of sqrt(n), or using n instead of n - 1, gives other numbers in every row.
    void meanAndStandardErrorByHand_data()
    {
        QTest::addColumn<QVector<double>>("values");
        QTest::addColumn<double>("mean");
        QTest::addColumn<double>("se");
        // squares 2.25 + 0.25 + 0.25 + 2.25 = 5; s^2 = 5/3; se = sqrt(5/3 / 4) = sqrt(5/12)
        QTest::newRow("1 2 3 4") << QVector<double>{1, 2, 3, 4} << 2.5 << std::sqrt(5.0 / 12.0);
        // s = sqrt(2 * 0.15^2 / 1) = 0.15 sqrt(2); se = 0.15
        QTest::newRow("two values") << QVector<double>{0.1, 0.4} << 0.25 << 0.15;
        // squares 4 + 0 + 4 = 8; s^2 = 4; se = 2 / sqrt(3)
        QTest::newRow("2 4 6") << QVector<double>{2, 4, 6} << 4.0 << 2.0 / std::sqrt(3.0);
        QTest::newRow("no spread") << QVector<double>{0.2, 0.2, 0.2} << 0.2 << 0.0;
    }
    void meanAndStandardErrorByHand()
    {
        QFETCH(QVector<double>, values);
        QFETCH(double, mean);
        QFETCH(double, se);
        const auto m = lcs::meanAndStandardError(std::vector<double>(values.begin(), values.end()));
        QCOMPARE(m.n, size_t(values.size()));
        QVERIFY(std::abs(m.mean - mean) < 1e-12);
        QVERIFY2(std::abs(m.standardError - se) < 1e-12, qPrintable(QString::number(m.standardError, 'g', 17)));
    }
    // Rounded as a reader would by hand: se to two significant digits, the mean to its place.
    void meanErrorTextRoundsToTheError_data()
    {
        QTest::addColumn<double>("mean");
        QTest::addColumn<double>("se");
        QTest::addColumn<QString>("text");
        QTest::newRow("issue's example") << 0.8775000000000001 << 0.036827 << "0.878 ± 0.037";
        QTest::newRow("se above one") << 123.456 << 2.345 << "123.5 ± 2.3";
        QTest::newRow("se above ten") << 1234.5 << 56.7 << "1234 ± 57";
        QTest::newRow("trailing zeros kept") << 0.0160 << 0.0010 << "0.0160 ± 0.0010";
        QTest::newRow("negative mean") << -0.01234 << 0.00456 << "-0.0123 ± 0.0046";
        QTest::newRow("runs agree") << 0.2 << 0.0 << "0.2 ± 0";
        // Three runs of 0.4: the mean is 0.4000000000000001 and se 3.9e-17, rounding alone.
        QTest::newRow("runs agree but for rounding") << 0.4000000000000001 << 3.9e-17 << "0.4 ± 0";
        QTest::newRow("one run") << 0.8775000000000001 << std::numeric_limits<double>::quiet_NaN()
                                 << "0.8775 (one run: no error)";
    }
    void meanErrorTextRoundsToTheError()
    {
        QFETCH(double, mean);
        QFETCH(double, se);
        QFETCH(QString, text);
        lcs::MeanAndError stats;
        stats.mean = mean;
        stats.standardError = se;
        QCOMPARE(QString::fromStdString(lcs::meanErrorText(stats)), text);
    }

    void oneValueHasNoError()
    {
        const auto m = lcs::meanAndStandardError({0.7});
        QCOMPARE(m.mean, 0.7);
        QVERIFY(std::isnan(m.standardError));
    }

    /// 2 seeds x 2 rates of corruption; (seed 1, rate 0.5) failed, so rate 0.5 has seed
    /// 0's trials alone, and the failed cell is listed.
    void collectMergesSeedsAndListsFailedCells()
    {
        QTemporaryDir tmp;
        const std::string dir = tmp.path().toStdString() + "/sweep";
        const auto& e = experimentNamed(lcs::kCorruptionExperiment);
        const auto axes = lcs::parseSweepAxes({"seed=0,1", "rates=0.3,0.5"}, e);
        lcs::writeSweepFolder(dir, corruptionSession(), e, axes);
        const auto manifest = lcs::loadSweepManifest(dir, lcs::sessionCatalogue());
        QCOMPARE(manifest.cells.size(), size_t{4});
        using M = lcs::ImageMethod;
        const double nan = std::nan("");
        // cell 0: seed 0, rate 0.3; cell 1: seed 0, rate 0.5; cell 2: seed 1, rate 0.3
        lcs::writeFileAtomically(lcs::sweep_paths::resultsJson(dir, 0),
                                 corruptionResults(0.3, {corruptionRow(0.3, 0, M::Ours, 0.1, 0.9), corruptionRow(0.3, 1, M::Ours, 0.2, nan),
                                                         corruptionRow(0.3, 0, M::SgldS, 0.5, 0.5)}));
        lcs::writeFileAtomically(lcs::sweep_paths::resultsJson(dir, 1),
                                 corruptionResults(0.5, {corruptionRow(0.5, 0, M::Ours, 0.4, 0.6), corruptionRow(0.5, 1, M::Ours, 0.5, 0.5)}));
        lcs::writeFileAtomically(lcs::sweep_paths::resultsJson(dir, 2),
                                 corruptionResults(0.3, {corruptionRow(0.3, 0, M::Ours, 0.3, 0.7), corruptionRow(0.3, 1, M::Ours, 0.6, 0.4)}));
        lcs::writeFileAtomically(lcs::sweep_paths::log(dir, 3), "it broke\n");
        lcs::writeFileAtomically(lcs::sweep_paths::exitStatus(dir, 3), "3\n");

        const auto table = lcs::collectSweep(dir, manifest);
        QCOMPARE(table.setting, std::string("rate"));
        // The seed's cells are pooled; rates=0.3 is the runs' rate 0.3, no axis of its own.
        QVERIFY(table.axes.empty());
        QCOMPARE(table.incomplete.size(), size_t{1});
        QCOMPARE(table.incomplete[0].id, 3);
        QCOMPARE(table.incomplete[0].state, lcs::CellState::Failed);
        QCOMPARE(table.incomplete[0].exitStatus, 3);

        // ours at 0.3: 0.1, 0.2 (seed 0), 0.3, 0.6 (seed 1): mean 0.3; squares 0.04 + 0.01
        // + 0 + 0.09 = 0.14, s^2 = 0.14 / 3, se = sqrt(0.14 / 12).
        const auto* cost = findRow(table, 0.3, "ours", "cost");
        QVERIFY(cost);
        QCOMPARE(cost->stats.n, size_t{4});
        QVERIFY(std::abs(cost->stats.mean - 0.3) < 1e-12);
        QVERIFY(std::abs(cost->stats.standardError - std::sqrt(0.14 / 12)) < 1e-12);
        // An undefined accuracy (null) is left out, not counted as 0: 0.9, 0.7, 0.4.
        const auto* accuracy = findRow(table, 0.3, "ours", "accuracy");
        QCOMPARE(accuracy->stats.n, size_t{3});
        QVERIFY(std::abs(accuracy->stats.mean - 2.0 / 3) < 1e-12);
        // ours at 0.5: seed 0 alone (the failed cell is not averaged): 0.4, 0.5; se 0.05.
        const auto* half = findRow(table, 0.5, "ours", "cost");
        QCOMPARE(half->stats.n, size_t{2});
        QVERIFY(std::abs(half->stats.mean - 0.45) < 1e-12);
        QVERIFY(std::abs(half->stats.standardError - 0.05) < 1e-12);
        // One run of SGLD + S: a mean, no error.
        const auto* single = findRow(table, 0.3, "sgld_s", "cost");
        QCOMPARE(single->stats.n, size_t{1});
        QVERIFY(std::isnan(single->stats.standardError));

        const std::string csv = lcs::sweepTableCsv(table);
        QVERIFY(csv.rfind("rate,method,rule,metric,n,mean,se\n", 0) == 0);
        QVERIFY2(csv.find("\n0.3,sgld_s,,cost,1,0.5,\n") != std::string::npos, csv.c_str());
        QVERIFY2(csv.find("\n0.5,ours,,cost,2,0.45,") != std::string::npos, csv.c_str());
        const auto json = nlohmann::json::parse(lcs::sweepTableJson(table));
        QCOMPARE(json.at("incomplete_cells").size(), size_t{1});
        QCOMPARE(json.at("incomplete_cells")[0].at("state").get<std::string>(), std::string("failed"));
        QVERIFY(json.at("rows")[0].contains("rate"));
    }

    void syntheticResultsGiveBothRules()
    {
        lcs::SyntheticResult r;
        r.record.experiment = lcs::kSyntheticExperiment;
        r.record.costs = lcs::costPreset("synthetic");
        lcs::MethodSummary m;
        m.method = lcs::InferenceMethod::Bbvi;
        for (int i = 0; i < 2; ++i) {
            lcs::ReplicateOutcome o;
            o.replicate = i;
            o.method = m.method;
            o.uncorrected.averageCost = 0.03 + 0.01 * i;
            o.corrected.averageCost = 0.02;
            m.replicates.push_back(o);
        }
        r.methods.push_back(m);
        const auto observations = lcs::runObservations(nlohmann::json::parse(lcs::resultsJson(lcs::syntheticOutput(r))), "test");
        // 2 replicates x {uncorrected, corrected, paired_diff, the replicate's own figures}
        QCOMPARE(observations.size(), size_t{8});
        int uncorrected = 0;
        std::vector<double> differences;
        for (const auto& o : observations) {
            QCOMPARE(o.method, std::string("bbvi"));
            QVERIFY(o.setting.empty());
            if (o.rule == "uncorrected") {
                ++uncorrected;
                QVERIFY(o.metrics.at("cost") >= 0.03);
            } else if (o.rule == "paired_diff") {
                QCOMPARE(o.metrics.size(), size_t{1});
                differences.push_back(o.metrics.at("cost"));
            } else if (o.rule.empty()) {
                QCOMPARE(o.metrics.at("collapsed"), 0.0);
                QVERIFY(o.metrics.count("inference_seconds") && o.metrics.count("correction_seconds"));
            } else {
                QCOMPARE(o.rule, std::string("corrected"));
                QCOMPARE(o.metrics.at("cost"), 0.02);
            }
        }
        QCOMPARE(uncorrected, 2);
        // 0.03 - 0.02 and 0.04 - 0.02: the pairs' differences, whose spread is the pairs'.
        QCOMPARE(differences.size(), size_t{2});
        QVERIFY(std::abs(differences[0] - 0.01) < 1e-12 && std::abs(differences[1] - 0.02) < 1e-12);
    }

    /// Fig. 3's runs vary the referral cost inside a run: it is their setting, read from
    /// the results' own structure, and the referral rate is a metric.
    void selectiveResultsVaryTheReferralCost()
    {
        lcs::SelectiveResult r;
        r.record.experiment = lcs::kSelectiveExperiment;
        r.record.costs = lcs::CostMatrix::zeroOne(10);
        for (double cost : {0.1, 0.2}) {
            lcs::SelectiveRow row;
            row.setting = cost;
            row.method = lcs::ImageMethod::Ours;
            row.metrics.averageCost = cost / 2;
            row.metrics.referralRate = 0.25;
            r.rows.push_back(row);
            lcs::SelectiveSummary summary;
            summary.referralCost = cost;
            summary.method = lcs::ImageMethod::Ours;
            r.summary.push_back(summary);
        }
        const auto observations = lcs::runObservations(nlohmann::json::parse(lcs::resultsJson(lcs::selectiveOutput(r))), "test");
        QCOMPARE(observations.size(), size_t{2});
        QCOMPARE(observations[1].setting, std::string("referral_cost"));
        QCOMPARE(observations[1].settingValue, 0.2);
        QCOMPARE(observations[1].method, std::string("ours"));
        QCOMPARE(observations[1].metrics.at("cost"), 0.1);
        QCOMPARE(observations[1].metrics.at("referral_rate"), 0.25);
    }

    /// CamVid's results are collected like every other experiment's, from their long
    /// table: per-class IoU and mIoU of S and q pooled over the seeds' cells.
    void collectsACamvidSweep()
    {
        QTemporaryDir tmp;
        const std::string dir = tmp.path().toStdString() + "/sweep";
        const auto& e = experimentNamed(lcs::kCamvidExperiment);
        lcs::SessionData session;
        session.experiment = lcs::kCamvidExperiment;
        session.settings = lcs::checkedSettings(e.settings, {{"data", "camvid"}}, "test");
        session.costs = lcs::costPreset("camvid");
        lcs::writeSweepFolder(dir, session, e, lcs::parseSweepAxes({"seed=0,1"}, e));
        const auto manifest = lcs::loadSweepManifest(dir, lcs::sessionCatalogue());
        const auto& names = lcs::camvidClassNames();
        for (int cell = 0; cell < 2; ++cell) {
            lcs::CamvidEvalResult r;
            r.record.experiment = lcs::kCamvidExperiment;
            r.record.costs = lcs::costPreset("camvid");
            r.classNames.assign(names.begin(), names.begin() + lcs::kCamvidRealClasses);
            for (const char* rule : {"uncorrected", "corrected"}) {
                lcs::CamvidMethodMetrics m;
                m.method = std::string(rule) == "corrected" ? "ours" : "sghmc_s";
                m.rule = rule;
                m.metrics.averageCost = 0.3;
                m.metrics.accuracy = 0.8;
                m.metrics.nll = 0.6;
                m.metrics.perClassIoU.assign(lcs::kCamvidRealClasses, std::nan(""));  // absent classes: no row
                m.metrics.perClassIoU[8] = 0.2 + 0.1 * cell + (m.method == "ours" ? 0.05 : 0.0);  // Car
                m.metrics.meanIoU = 0.4 + 0.02 * cell;
                r.rows.push_back(m);
            }
            lcs::writeFileAtomically(lcs::sweep_paths::resultsJson(dir, cell), lcs::resultsJson(lcs::camvidEvalOutput(r)));
        }
        const auto table = lcs::collectSweep(dir, manifest);
        QVERIFY(table.incomplete.empty());
        const lcs::SweepTableRow* car = nullptr;
        const lcs::SweepTableRow* miou = nullptr;
        size_t iouRows = 0;
        for (const auto& row : table.rows) {
            if (row.metric.rfind("iou_", 0) == 0)
                ++iouRows;
            if (row.method == "ours" && row.rule == "corrected" && row.metric == "iou_Car")
                car = &row;
            if (row.method == "sghmc_s" && row.rule == "uncorrected" && row.metric == "mean_iou")
                miou = &row;
        }
        QCOMPARE(iouRows, size_t{2});  // Car for S and q; the NaN classes have none
        QVERIFY(car && miou);
        // q's Car IoU: 0.25 and 0.35 over the two seeds: mean 0.3, se 0.05.
        QCOMPARE(car->stats.n, size_t{2});
        QVERIFY(std::abs(car->stats.mean - 0.3) < 1e-12);
        QVERIFY(std::abs(car->stats.standardError - 0.05) < 1e-12);
        QVERIFY(std::abs(miou->stats.mean - 0.41) < 1e-12);
    }

    void badFilesAreRefusedNamingThem()
    {
        QTemporaryDir tmp;
        const std::string dir = tmp.path().toStdString() + "/sweep";
        const auto& e = experimentNamed(lcs::kCorruptionExperiment);
        lcs::writeSweepFolder(dir, corruptionSession(), e, lcs::parseSweepAxes({"seed=0,1"}, e));
        // A truncated results file.
        lcs::writeFileAtomically(lcs::sweep_paths::resultsJson(dir, 0), "{\"run\": {\"experiment\": \"corr");
        const auto manifest = lcs::loadSweepManifest(dir, lcs::sessionCatalogue());
        try {
            lcs::collectSweep(dir, manifest);
            QFAIL("a truncated results file was merged");
        } catch (const lcs::InputError& e) {
            QVERIFY2(QString(e.what()).contains("results/0000.json"), e.what());
        }
        // Another experiment's results.
        lcs::writeFileAtomically(lcs::sweep_paths::resultsJson(dir, 0), "{\"run\": {\"experiment\": \"synthetic\"}}");
        QVERIFY_THROWS_EXCEPTION(lcs::InputError, lcs::collectSweep(dir, manifest));
        // A manifest whose cells do not match its axes, and one with an unknown field.
        const std::string text = lcs::readFile(lcs::sweep_paths::manifest(dir));
        auto j = nlohmann::json::parse(text);
        j["cells"][1]["values"]["seed"] = 7;
        try {
            lcs::sweepManifestFromJson(j.dump(), "m.json", lcs::sessionCatalogue());
            QFAIL("a manifest with a wrong cell was read");
        } catch (const lcs::InputError& e) {
            QVERIFY2(QString(e.what()).contains("cells[1].values"), e.what());
        }
        j = nlohmann::json::parse(text);
        j["axes"][0]["values"] = {0, -1};
        QVERIFY_THROWS_EXCEPTION(lcs::InputError, lcs::sweepManifestFromJson(j.dump(), "m.json", lcs::sessionCatalogue()));
        j = nlohmann::json::parse(text);
        j["extra"] = 1;
        QVERIFY_THROWS_EXCEPTION(lcs::InputError, lcs::sweepManifestFromJson(j.dump(), "m.json", lcs::sessionCatalogue()));
    }

    void aFolderWithASweepIsNotOverwritten()
    {
        QTemporaryDir tmp;
        const std::string dir = tmp.path().toStdString() + "/sweep";
        const auto& e = experimentNamed(lcs::kCorruptionExperiment);
        const auto axes = lcs::parseSweepAxes({"seed=0,1"}, e);
        lcs::writeSweepFolder(dir, corruptionSession(), e, axes);
        lcs::writeFileAtomically(lcs::sweep_paths::resultsJson(dir, 0), "kept");
        QVERIFY_THROWS_EXCEPTION(lcs::InputError, lcs::writeSweepFolder(dir, corruptionSession(), e, axes));
        QCOMPARE(lcs::readFile(lcs::sweep_paths::resultsJson(dir, 0)), std::string("kept"));
        // A cell the experiment refuses: nothing is written.
        const std::string other = tmp.path().toStdString() + "/other";
        auto session = corruptionSession();
        session.settings.erase("data");
        QVERIFY_THROWS_EXCEPTION(lcs::InputError, lcs::writeSweepFolder(other, session, e, axes));
        QVERIFY(!QFileInfo::exists(QString::fromStdString(other)));
    }

    // sweep plan stopped by a signal: nothing in place, no staging folder left.
    void aCancelledPlanWritesNothing()
    {
        QTemporaryDir tmp;
        const std::string dir = tmp.path().toStdString() + "/sweep";
        const auto& e = experimentNamed(lcs::kCorruptionExperiment);
        lcs::CancelToken cancel;
        cancel.cancel();
        QVERIFY_THROWS_EXCEPTION(lcs::Cancelled, lcs::writeSweepFolder(dir, corruptionSession(), e,
                                                                       lcs::parseSweepAxes({"seed=0,1,2"}, e), &cancel));
        QCOMPARE(QDir(tmp.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden), QStringList());
        cancel.reset();
        lcs::writeSweepFolder(dir, corruptionSession(), e, lcs::parseSweepAxes({"seed=0,1,2"}, e), &cancel);
        QVERIFY(QFileInfo::exists(QString::fromStdString(lcs::sweep_paths::session(dir, 2))));
    }
};

QTEST_APPLESS_MAIN(TestSweep)
#include "tst_sweep.moc"
