// The synthetic data generator, the experiment pipeline, its report formats and the
// model files it writes.
#include <QtTest/QtTest>

#include <map>
#include <random>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "base/core/atomic_file.h"
#include "base/core/input_error.h"
#include "base/core/number_format.h"
#include "base/core/version.h"
#include "base/io/npy.h"
#include "base/io/table_csv.h"
#include "base/io/tabular_csv.h"
#include "datasets/synthetic.h"
#include "engine/calibration/own_predictive.h"
#include "engine/core/threads.h"
#include "engine/decision/decisions.h"
#include "engine/experiments/cost_benefit.h"
#include "engine/experiments/experiment.h"
#include "engine/experiments/own_predictive/own_predictive_experiment.h"
#include "engine/experiments/run_record.h"
#include "engine/experiments/synthetic/synthetic_experiment.h"
#include "engine/experiments/synthetic/synthetic_report.h"
#include "engine/experiments/synthetic/synthetic_settings.h"
#include "engine/io/model_io.h"
#include "engine/models/principal_plane.h"

using namespace lcs;

namespace {

/// The paper's pipeline with iteration counts cut down so a test runs in seconds.
SyntheticConfig quickConfig()
{
    SyntheticConfig c;
    c.replicates = 2;
    c.bbvi.iterations = 300;
    c.bbvi.samples = 10;
    c.sghmc.burnIn = 50;
    c.sghmc.samples = 10;
    c.sghmc.thinning = 5;
    c.kfac.map.iterations = 200;
    c.kfac.samples = 10;
    c.correction.epochs = 60;
    return c;
}

} // namespace

class TestSynthetic : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { lcs::configureThreads(1); }

    void dataIsDeterminedBySeedAndReplicate()
    {
        const SyntheticDataConfig cfg;
        const auto a = makeSyntheticData(cfg, 10, 3);
        const auto b = makeSyntheticData(cfg, 10, 3);
        const auto c = makeSyntheticData(cfg, 10, 4);
        const auto d = makeSyntheticData(cfg, 11, 3);
        QVERIFY(torch::equal(a.trainX, b.trainX) && torch::equal(a.calibrationX, b.calibrationX)
                && torch::equal(a.testX, b.testX));
        QVERIFY(!torch::equal(a.trainX, c.trainX));
        QVERIFY(!torch::equal(a.trainX, d.trainX));
        QVERIFY(!torch::equal(a.trainX, a.testX));
    }

    void dataHasThePapersShape()
    {
        const SyntheticDataConfig cfg;
        const auto d = makeSyntheticData(cfg, 0, 0);
        QCOMPARE(d.trainX.sizes(), (torch::IntArrayRef{100, 2}));
        QCOMPARE(d.testX.size(0), int64_t(100));
        QCOMPARE(d.calibrationX.sizes(), (torch::IntArrayRef{500, 2}));
        QCOMPARE(d.trainY.sum().item<int64_t>(), int64_t(10));  // 10 positives
        QCOMPARE(d.testY.sum().item<int64_t>(), int64_t(10));
        QVERIFY(d.calibrationX.min().item<float>() >= cfg.boxMin && d.calibrationX.max().item<float>() <= cfg.boxMax);
        // Class means, pooled over replicates: (-1,-1) and (+1,+1) within Monte Carlo error.
        torch::Tensor negSum = torch::zeros({2}), posSum = torch::zeros({2});
        int64_t negN = 0, posN = 0;
        for (int r = 0; r < 40; ++r) {
            const auto x = makeSyntheticData(cfg, 1, r);
            auto neg = x.trainY.eq(0), pos = x.trainY.eq(1);
            negSum += x.trainX.index({neg}).sum(0);
            posSum += x.trainX.index({pos}).sum(0);
            negN += neg.sum().item<int64_t>();
            posN += pos.sum().item<int64_t>();
        }
        QVERIFY(torch::allclose(negSum / negN, torch::tensor({-1.0f, -1.0f}), 0, 0.08));
        QVERIFY(torch::allclose(posSum / posN, torch::tensor({1.0f, 1.0f}), 0, 0.25));
        // Calibration points fill the box uniformly: mean near the centre.
        QVERIFY(torch::allclose(d.calibrationX.mean(0), torch::zeros({2}), 0, 0.3));
    }

    void gridCoversTheBox()
    {
        const SyntheticDataConfig cfg;
        const auto g = syntheticGrid(cfg, 5);
        QCOMPARE(g.sizes(), (torch::IntArrayRef{25, 2}));
        QCOMPARE(g[0][0].item<float>(), float(cfg.boxMin));
        QCOMPARE(g[24][1].item<float>(), float(cfg.boxMax));
        QCOMPARE(g[1][0].item<float>(), float(cfg.boxMin + 2.0));  // x varies fastest
        QCOMPARE(g[1][1].item<float>(), float(cfg.boxMin));
    }

    void pipelineProducesSensibleDecisions()
    {
        auto config = quickConfig();
        config.replicates = 1;
        config.gridResolution = 8;
        for (auto method : {InferenceMethod::Bbvi, InferenceMethod::Sghmc, InferenceMethod::Sgld, InferenceMethod::KfacLaplace}) {
            const auto p = inferSynthetic(config, 0, method, {});
            QCOMPARE(p.calibrationProbs.sizes(), (torch::IntArrayRef{500, 2}));
            QCOMPARE(p.gridProbs.sizes(), (torch::IntArrayRef{64, 2}));
            QVERIFY(torch::allclose(p.testProbs.sum(1), torch::ones({100}), 0, 1e-5));
            const auto c = correctSynthetic(config, p, config.costs, {});
            QCOMPARE(static_cast<int>(c.curve.size()), config.correction.epochs);
            const auto o = evaluateSynthetic(p, c, config.costs);
            // Two well-separated Gaussians, 90/10 on the test set. The trivial rules score
            // "always negative": accuracy 0.9, cost 10 x 1 / 100 = 0.1, no positive found;
            // "always positive": accuracy 0.1, cost 90 x 0.1 / 100 = 0.09, no negative found.
            // Accuracy cannot tell "always negative" apart, and a working method's need not
            // beat 0.9: with L[pos, neg] = 10 L[neg, pos] the Bayes rule decides positive
            // from p(pos) > 1/11 and trades false positives for cost (0.71 to 0.98 over
            // seeds 0-9, at costs 0.002 to 0.029). So: a cost well below both rules', most
            // positives found (all 10 over those seeds) and most negatives (at least 61).
            for (const auto* m : {&o.uncorrected, &o.corrected}) {
                const auto what = methodName(method) + (m == &o.uncorrected ? " uncorrected" : " corrected");
                QCOMPARE(m->numDecisions, 2);
                const int64_t truePositives = m->confusion[1 * 2 + 1], trueNegatives = m->confusion[0 * 2 + 0];
                QVERIFY2(m->averageCost < 0.06, qPrintable(QString("%1: cost %2").arg(what.c_str()).arg(m->averageCost)));
                QVERIFY2(truePositives >= 7, qPrintable(QString("%1: %2 of 10 positives found").arg(what.c_str()).arg(truePositives)));
                QVERIFY2(trueNegatives >= 45, qPrintable(QString("%1: %2 of 90 negatives found").arg(what.c_str()).arg(trueNegatives)));
            }
        }
    }

    void correctionReusesTheCachedPredictive()
    {
        // Re-correcting under a new matrix takes the predictive as it is; the same matrix
        // twice gives the same q (its own deterministic stream).
        auto config = quickConfig();
        const auto p = inferSynthetic(config, 0, InferenceMethod::KfacLaplace, {});
        const auto before = p.calibrationProbs.clone();
        const auto a = correctSynthetic(config, p, config.costs, {});
        auto harsher = config.costs;
        harsher.set(1, 0, 5.0);
        const auto b = correctSynthetic(config, p, harsher, {});
        const auto a2 = correctSynthetic(config, p, config.costs, {});
        QVERIFY(torch::equal(before, p.calibrationProbs));
        QVERIFY(torch::equal(a.testProbs, a2.testProbs));
        // A different matrix trains a different q. (Which q decides more positives is not a
        // property of the objective: each q is pulled towards its own decisions.) Under
        // one q, missing a positive at cost 5 makes at least as many points positive.
        QVERIFY(!torch::allclose(a.testProbs, b.testProbs));
        const auto positives = [](const torch::Tensor& probs, const CostMatrix& m) {
            return bayesDecisions(probs, costTensor(m)).sum().item<int64_t>();
        };
        QVERIFY(positives(b.testProbs, harsher) >= positives(b.testProbs, config.costs));
    }

    // A table's replicate keeps q only where its cost on the validation rows is below the
    // uncorrected decisions'; the test figures then are those of the rule kept.
    void selectionOnValidationRows_data()
    {
        QTest::addColumn<bool>("qRightOnValidation");
        QTest::addColumn<QString>("select");
        QTest::addColumn<bool>("keptUncorrected");
        QTest::newRow("q wrong on validation: P kept") << false << "validation" << true;
        QTest::newRow("q right on validation: q kept") << true << "validation" << false;
        QTest::newRow("selection off: q kept") << false << "none" << false;
        // Two rows, one in q's favour: lower, but not beyond the interval.
        QTest::newRow("clear: q right, not clearly: P kept") << true << "clear" << true;
        // Cross-validation over two folds of one row: no calibration fits on one class
        // (the constant decision does, and misses the held-out row), so P and q decide.
        // q's one row in its favour is a change of -0.5 with a standard error of 0.5: not
        // beyond the guard's one standard error, so cv keeps P; cv-min keeps q.
        QTest::newRow("cv: q wrong on validation: P kept") << false << "cv" << true;
        QTest::newRow("cv: q right on one row of two: P kept") << true << "cv" << true;
        QTest::newRow("cv-min: q right on validation: q kept") << true << "cv-min" << false;
    }
    void selectionOnValidationRows()
    {
        QFETCH(bool, qRightOnValidation);
        QFETCH(QString, select);
        QFETCH(bool, keptUncorrected);
        const auto costs = CostMatrix::zeroOne(2);
        const auto probs = [](std::vector<float> v) { return torch::tensor(v).reshape({-1, 2}); };
        SyntheticPredictive p;
        p.data.testY = torch::tensor(std::vector<int64_t>{0, 1, 1, 1});
        p.data.validationY = torch::tensor(std::vector<int64_t>{0, 1});
        p.data.validationX = torch::zeros({2, 2});
        // P: right on test rows 1 and 2 of 4 (cost 0.5), wrong on validation row 2.
        p.testProbs = probs({0.9f, 0.1f, 0.2f, 0.8f, 0.9f, 0.1f, 0.9f, 0.1f});
        p.validationProbs = probs({0.9f, 0.1f, 0.9f, 0.1f});
        SyntheticCorrection c;
        // q: right on every test row (cost 0); on validation right everywhere or wrong on both.
        c.testProbs = probs({0.9f, 0.1f, 0.2f, 0.8f, 0.2f, 0.8f, 0.2f, 0.8f});
        c.validationProbs = qRightOnValidation ? probs({0.9f, 0.1f, 0.2f, 0.8f}) : probs({0.1f, 0.9f, 0.9f, 0.1f});
        const auto o = evaluateSynthetic(p, c, costs, selectionFromName(select.toStdString()));
        QCOMPARE(o.keptUncorrected, keptUncorrected);
        QCOMPARE(o.uncorrected.averageCost, 0.5);
        QCOMPARE(o.qAlone.averageCost, 0.0);
        QCOMPARE(o.corrected.averageCost, keptUncorrected ? 0.5 : 0.0);
        if (select != "none") {
            QCOMPARE(o.validationCostUncorrected, 0.5);
            QCOMPARE(o.validationCostQ, qRightOnValidation ? 0.0 : 1.0);
        }
    }

    // The baselines of each replicate, by hand. P says (0.6, 0.4) on every row and every
    // test label is 1: Bayes under 0/1 costs decides 0 and pays 1 per row. Two of the three
    // validation labels are 1: offsets fitted there move class 1 up by more than
    // log(0.6/0.4) = 0.41, so the test rows are decided 1 (cost 0). Temperature only
    // flattens (0.6, 0.4) towards (0.5, 0.5) without crossing it: still 0, cost 1. Platt
    // and isotonic map every row to the validation share 2/3 (Platt's smoothed targets:
    // (2 x 3/4 + 1/3) / 3 = 0.61): decided 1, cost 0. The cheapest constant decision on
    // the validation labels is 1: cost 0. Without validation rows there are none.
    void baselinesPerReplicateByHand()
    {
        const auto costs = CostMatrix::zeroOne(2);
        SyntheticPredictive p;
        p.data.testY = torch::ones({4}, torch::kLong);
        p.data.validationY = torch::tensor(std::vector<int64_t>{1, 0, 1});
        p.data.validationX = torch::zeros({3, 2});
        p.testProbs = torch::tensor(std::vector<float>{0.6f, 0.4f}).repeat({4, 1});
        p.validationProbs = torch::tensor(std::vector<float>{0.6f, 0.4f}).repeat({3, 1});
        SyntheticCorrection c;
        c.testProbs = p.testProbs;
        c.validationProbs = p.validationProbs;
        const auto o = evaluateSynthetic(p, c, costs, Selection::None);
        QCOMPARE(o.uncorrected.averageCost, 1.0);
        QCOMPARE(o.baselineCost("temperature"), 1.0);
        QCOMPARE(o.baselineCost("offsets"), 0.0);
        QCOMPARE(o.baselineCost("platt"), 0.0);
        QCOMPARE(o.baselineCost("isotonic"), 0.0);
        QCOMPARE(o.baselineCost("constant"), 0.0);
        QVERIFY(std::isnan(o.baselineCost("vector")));  // three or more classes only
        SyntheticPredictive unlabelled = p;
        unlabelled.validationProbs = torch::Tensor();
        unlabelled.data.validationY = torch::Tensor();
        const auto none = evaluateSynthetic(unlabelled, c, costs, Selection::None);
        QVERIFY(none.baselines.empty() && std::isnan(none.baselineCost("temperature")));
    }

    // "clear" keeps q only where the paired interval over validation rows lies below 0:
    // q right where P is wrong on 10 of 20 rows is clear (a resample without any of the
    // 10 has probability 2^-20); on 1 of 20 it is not (a resample misses it with
    // probability (19/20)^20 = 0.36).
    void clearSelectionNeedsTheInterval_data()
    {
        QTest::addColumn<int>("pWrong");
        QTest::addColumn<bool>("keptUncorrected");
        QTest::newRow("10 of 20 rows better: q") << 10 << false;
        QTest::newRow("1 of 20 rows better: P") << 1 << true;
    }
    void clearSelectionNeedsTheInterval()
    {
        QFETCH(int, pWrong);
        QFETCH(bool, keptUncorrected);
        const auto costs = CostMatrix::zeroOne(2);
        SyntheticPredictive p;
        p.data.testY = torch::tensor(std::vector<int64_t>{1});
        p.testProbs = torch::tensor(std::vector<float>{0.5f, 0.5f}).reshape({1, 2});
        p.data.validationY = torch::ones({20}, torch::kLong);
        p.data.validationX = torch::zeros({20, 2});
        auto pv = torch::tensor(std::vector<float>{0.1f, 0.9f}).repeat({20, 1});
        pv.slice(0, 0, pWrong) = torch::tensor(std::vector<float>{0.9f, 0.1f});
        p.validationProbs = pv;
        SyntheticCorrection c;
        c.testProbs = p.testProbs;
        c.validationProbs = torch::tensor(std::vector<float>{0.1f, 0.9f}).repeat({20, 1});
        QCOMPARE(evaluateSynthetic(p, c, costs, Selection::Clear, 7).keptUncorrected, keptUncorrected);
        QVERIFY(!evaluateSynthetic(p, c, costs, Selection::Validation, 7).keptUncorrected);
    }

    // Bring your own predictive: the synthetic experiment's BBVI predictive, written to
    // .npy and to .csv, read back by the correct command's readers and corrected there,
    // gives the built-in correction's q and decisions for the same seed.
    void ownPredictiveRouteMatchesTheBuiltInOne_data()
    {
        QTest::addColumn<int>("seed");
        QTest::newRow("seed 0") << 0;
        QTest::newRow("seed 3") << 3;
    }
    void ownPredictiveRouteMatchesTheBuiltInOne()
    {
        QFETCH(int, seed);
        auto config = quickConfig();
        config.seed = static_cast<uint64_t>(seed);
        const auto p = inferSynthetic(config, 1, InferenceMethod::Bbvi, {});
        auto builtIn = correctSynthetic(config, p, config.costs, {});
        const auto builtInProbs = predictProbabilities(*builtIn.q, p.data.calibrationX);
        const auto builtInDecisions = bayesDecisions(builtInProbs, costTensor(config.costs));
        const auto asArray = [](const at::Tensor& t) {
            const auto c = t.to(torch::kDouble).contiguous();
            NumericArray a;
            a.shape = c.sizes().vec();
            a.values.assign(c.data_ptr<double>(), c.data_ptr<double>() + c.numel());
            return a;
        };
        const auto asCsv = [](const NumericArray& a) {
            std::string s = "a,b\n";  // a header line, as spreadsheets write
            for (int64_t i = 0; i < a.dim(0); ++i)
                s += formatNumber(a.values[i * 2]) + "," + formatNumber(a.values[i * 2 + 1]) + "\n";
            return s;
        };
        QTemporaryDir dir;
        const auto x = asArray(p.data.calibrationX), probs = asArray(p.calibrationProbs);
        const std::string base = dir.path().toStdString();
        writeFileAtomically(base + "/x.npy", npyBytes(x, true));
        writeFileAtomically(base + "/p.npy", npyBytes(probs, true));
        writeFileAtomically(base + "/x.csv", asCsv(x));
        writeFileAtomically(base + "/p.csv", asCsv(probs));
        const uint64_t routeSeed = taskSeed(config.seed, 1, InferenceMethod::Bbvi);
        for (const char* ext : {".npy", ".csv"}) {
            const auto own = ownPredictive(readNumericArray(base + "/x" + ext, "--features", 2, 2, 1 << 20),
                                           readNumericArray(base + "/p" + ext, "--predictive", 2, 3, 1 << 20), "x", "p");
            QVERIFY(torch::equal(own.probabilities, p.calibrationProbs));
            // The built-in route takes the 2-D plane as it is, so this one must too.
            OwnEvidenceInputs asTheyAre;
            asTheyAre.standardise = false;
            const auto corrected =
                correctOwnPredictive(own, config.costs, config.correction, routeSeed, {}, {}, asTheyAre);
            QVERIFY2(torch::equal(corrected.decisionsAfter, builtInDecisions), ext);
            QVERIFY(torch::equal(corrected.qProbabilities, builtInProbs));
            QVERIFY(torch::equal(corrected.decisionsBefore, bayesDecisions(p.calibrationProbs, costTensor(config.costs))));
        }
        // T posterior samples average to their mean: two samples p +- e give p.
        NumericArray samples;
        samples.shape = {2, probs.dim(0), 2};
        for (int s = 0; s < 2; ++s)
            for (size_t i = 0; i < probs.values.size(); i += 2) {
                const double e = std::min({0.01, probs.values[i], probs.values[i + 1]}) * (s == 0 ? 1 : -1);
                samples.values.push_back(probs.values[i] - e);
                samples.values.push_back(probs.values[i + 1] + e);
            }
        const auto mean = ownPredictive(x, samples, "x", "samples");
        QCOMPARE(mean.samples, int64_t{2});
        QVERIFY((mean.probabilities - p.calibrationProbs).abs().max().item<double>() < 1e-6);
    }

    // The plane a table of many features is drawn in, by hand: columns a = b =
    // (1, -1, 1, -1) and c = (1, 1, -1, -1), each of mean 0 and population std 1, so the
    // covariance is [[1, 1, 0], [1, 1, 0], [0, 0, 1]]: eigenvalues 2 ((1, 1, 0) / sqrt 2)
    // and 1 ((0, 0, 1)) of a total 3; row (1, 1, 1) projects to (sqrt 2, 1).
    void principalPlaneByHand()
    {
        const auto x = torch::tensor({1., 1., 1., -1., -1., 1., 1., 1., -1., -1., -1., -1.}, torch::kDouble).reshape({4, 3});
        const auto plane = fitPrincipalPlane(x);
        const double r = 1 / std::sqrt(2.0);
        const auto expected = torch::tensor({r, r, 0., 0., 0., 1.}, torch::kDouble).reshape({2, 3});
        QVERIFY2(torch::allclose(plane.components, expected, 0, 1e-12), qPrintable(QString::number(plane.components[0][0].item<double>())));
        QVERIFY(std::abs(plane.explained[0] - 2.0 / 3) < 1e-12);
        QVERIFY(std::abs(plane.explained[1] - 1.0 / 3) < 1e-12);
        const auto projected = projectOntoPlane(plane, x);
        QVERIFY(std::abs(projected[0][0].item<double>() - std::sqrt(2.0)) < 1e-12);
        QVERIFY(std::abs(projected[0][1].item<double>() - 1) < 1e-12);
        QVERIFY(std::abs(projected[1][0].item<double>() + std::sqrt(2.0)) < 1e-12);
        // Columns in other units give the same plane: each is standardised first.
        const auto scaled = x * torch::tensor({1000., 1000., 0.001}, torch::kDouble);
        QVERIFY(torch::allclose(fitPrincipalPlane(scaled).components, expected, 0, 1e-9));
    }

    // The cost-benefit axes by hand. Referral: the largest class cost is 5, so 4 points
    // are 1.25, 2.5, 3.75, 5, with the current 0.3 among them. Two classes: the ratio
    // L[0][1] / L[1][0] = 1 / 5 = 0.2, 3 points a tenth to ten times it.
    void costBenefitAxesByHand()
    {
        const CostMatrix referral(2, {0, 1, 0.3, 5, 0, 0.3}, true);
        const auto r = costBenefitAxis(referral, 4);
        QCOMPARE(r.setting, std::string(kReferralCostAxis));
        QCOMPARE(r.current, 0.3);
        QCOMPARE(r.values, (std::vector<double>{0.3, 1.25, 2.5, 3.75, 5}));
        const auto moved = costsAt(referral, kReferralCostAxis, 2.5);
        QCOMPARE(moved.at(0, 2), 2.5);
        QCOMPARE(moved.at(1, 2), 2.5);
        QCOMPARE(moved.at(1, 0), 5.0);
        const CostMatrix plain(2, {0, 1, 5, 0}, false);
        const auto ratio = costBenefitAxis(plain, 3);
        QCOMPARE(ratio.setting, std::string(kCostRatioAxis));
        QCOMPARE(ratio.current, 0.2);
        QCOMPARE(ratio.values.size(), size_t{3});
        QVERIFY(std::abs(ratio.values[0] - 0.02) < 1e-12 && std::abs(ratio.values[2] - 2) < 1e-12);
        QCOMPARE(ratio.values[1], 0.2);
        auto explicitM = plain;
        explicitM.setUtilityConstant(5.0);
        const auto raised = costsAt(explicitM, kCostRatioAxis, 2);
        QCOMPARE(raised.at(0, 1), 10.0);
        QVERIFY(!raised.utilityConstantSetting());  // M = 5 is below the new largest cost
        QVERIFY_THROWS_EXCEPTION(InputError, costBenefitAxis(CostMatrix::zeroOne(3), 5));
        QVERIFY_THROWS_EXCEPTION(InputError, costBenefitAxis(plain, 1));
    }

    // The curve from a run: at the run's own referral cost P's figures are the table's;
    // P refers less as referring costs more (Bayes refers where r is below every other
    // decision's expected cost); every task has its rows at every value.
    void costBenefitCurveFromARun()
    {
        const auto& experiment = ExperimentRegistry::global().get(kSyntheticExperiment);
        auto costs = costPreset("synthetic");
        costs.setReferral(0.05);
        const nlohmann::json settings = {{"replicates", 2},          {"methods", {"kfac_laplace"}},
                                         {"correction_iterations", 20}, {"warm_start_steps", 10},
                                         {"cost_benefit_points", 3}, {"threads", 1}};
        const auto run = lcs::runExperiment(experiment, checkedSettings(experiment.settings(), settings, "test"), costs, {});
        const auto json = nlohmann::json::parse(lcs::resultsJson(run.output));
        const auto& curve = json.at("cost_benefit");
        QCOMPARE(curve.at("setting").get<std::string>(), std::string("referral_cost"));
        QCOMPARE(curve.at("current").get<double>(), 0.05);
        const auto values = curve.at("values").get<std::vector<double>>();
        QCOMPARE(values.size(), size_t{4});
        std::map<std::pair<int, double>, double> referred;
        int rows = 0;
        for (const auto& row : curve.at("rows")) {
            ++rows;
            if (row.at("rule") != "uncorrected")
                continue;
            const int replicate = row.at("replicate").get<int>();
            referred[{replicate, row.at("value").get<double>()}] = row.at("referral_rate").get<double>();
            if (row.at("value").get<double>() == 0.05) {
                const auto& table = json.at("methods").at("kfac_laplace").at("replicates").at(replicate);
                QCOMPARE(row.at("cost").get<double>(), table.at("uncorrected").at("cost").get<double>());
            }
        }
        QVERIFY(rows >= 4 * 2 * 2);
        for (int replicate = 0; replicate < 2; ++replicate)
            for (size_t k = 1; k < values.size(); ++k)
                QVERIFY(referred.at({replicate, values[k]}) <= referred.at({replicate, values[k - 1]}));
        const auto lines = QString::fromStdString(lcs::costBenefitCsv(run.output)).split('\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.front(), QString("setting,value,current,method,replicate,rule,cost,referral_rate"));
        QCOMPARE(lines.size(), 1 + rows);
    }

    void tablesReadTheirClassesAndRows()
    {
        // Integer labels order by value (2 before 10); an empty label is unlabelled; a
        // BOM and CRLF lines are read.
        const auto t = parseTabularCsv("\xEF\xBB\xBFx, label ,y\r\n1,10,2\r\n3,2,4\r\n5,,6\r\n7,10,8\r\n", "t.csv", "label",
                                       1000, MissingValues::Impute);
        QCOMPARE(t.featureNames, (std::vector<std::string>{"x", "y"}));
        QCOMPARE(t.classNames, (std::vector<std::string>{"2", "10"}));
        QCOMPARE(t.labels, (std::vector<int64_t>{1, 0, 1}));
        QCOMPARE(t.labelled.values, (std::vector<double>{1, 2, 3, 4, 7, 8}));
        QCOMPARE(t.unlabelled.values, (std::vector<double>{5, 6}));
        // Numbers compare as numbers: 1 and 1.0 are one class, named as first written.
        const auto merged = parseTabularCsv("x,label\n1,1\n2,1.0\n3,2\n4,1e0\n", "t.csv", "label", 1000,
                                            MissingValues::Impute);
        QCOMPARE(merged.classNames, (std::vector<std::string>{"1", "2"}));
        QCOMPARE(merged.labels, (std::vector<int64_t>{0, 0, 1, 0}));
        // Old Mac line ends (carriage returns only) are line ends.
        const auto mac = parseTabularCsv("x,label\r1,a\r2,b\r3,\r", "t.csv", "label", 1000, MissingValues::Impute);
        QCOMPARE(mac.labels, (std::vector<int64_t>{0, 1}));
        QCOMPARE(mac.unlabelled.values, (std::vector<double>{3}));
    }

    // A text column is categorical: one 0/1 feature per level, levels sorted by text,
    // unlabelled rows included; a level training never saw is refused by name.
    void textColumnsAreOneHotCategories()
    {
        const auto t = parseTabularCsv("size, colour ,label\n1,red,a\n2, blue,b\n3,red,\n4,green,a\n", "t.csv",
                                       "label", 1000, MissingValues::Impute);
        QCOMPARE(t.featureNames, (std::vector<std::string>{"size", "colour=blue", "colour=green", "colour=red"}));
        QCOMPARE(t.columns.size(), size_t{2});
        QVERIFY(!t.columns[0].categorical());
        QCOMPARE(t.columns[1].levels, (std::vector<std::string>{"blue", "green", "red"}));
        QCOMPARE(t.labelled.shape, (std::vector<int64_t>{3, 4}));
        QCOMPARE(t.labelled.values, (std::vector<double>{1, 0, 0, 1, 2, 1, 0, 0, 4, 0, 1, 0}));
        QCOMPARE(t.unlabelled.values, (std::vector<double>{3, 0, 0, 1}));
        std::vector<double> out;
        appendEncodedRow(t.columns, {"7", "green"}, "new.csv line 2", out);
        QCOMPARE(out, (std::vector<double>{7, 0, 1, 0}));
        try {
            appendEncodedRow(t.columns, {"5", "purple"}, "new.csv line 3", out);
            QFAIL("an unseen category was encoded");
        } catch (const InputError& e) {
            QCOMPARE(QString(e.what()), QString("new.csv line 3 column 2 (colour): \"purple\" is not a category seen "
                                                "in training (its categories: blue, green, red)"));
        }
    }

    // Missing cells as R and Weka write them. Imputed: a number is NaN with a 0/1
    // "missing" feature after it until the fill (the mean of the rows it is fitted on) is
    // known; a category's missing cell is the level "(missing)", sorted before "blue"; a
    // label NA is an unlabelled row. Dropped: every row with a missing cell left out.
    // Refused: stopped at the first, naming it.
    void missingCellsAreImputedDroppedOrRefused()
    {
        const std::string text = "x,colour,label\n1,red,a\nNA,blue,b\n4,,a\n?,red,NA\n7,blue,b\n";
        const auto nan = std::numeric_limits<double>::quiet_NaN();
        const auto t = parseTabularCsv(text, "t.csv", "label", 1000, MissingValues::Impute);
        QCOMPARE(t.featureNames,
                 (std::vector<std::string>{"x", "x missing", "colour=(missing)", "colour=blue", "colour=red"}));
        QVERIFY(t.columns[0].missingIndicator && std::isnan(t.columns[0].fill));
        QCOMPARE(t.missingCells, int64_t{3});
        QCOMPARE(t.missingRows, int64_t{3});
        QCOMPARE(t.missingLabels, int64_t{1});
        QCOMPARE(t.labels, (std::vector<int64_t>{0, 1, 0, 1}));
        const std::vector<double> labelled{1, 0, 0, 0, 1, nan, 1, 0, 1, 0, 4, 0, 1, 0, 0, 7, 0, 0, 1, 0};
        QCOMPARE(t.labelled.values.size(), labelled.size());
        for (size_t i = 0; i < labelled.size(); ++i)
            QVERIFY2(std::isnan(labelled[i]) ? std::isnan(t.labelled.values[i]) : t.labelled.values[i] == labelled[i],
                     qPrintable(QString::number(i)));
        QVERIFY(std::isnan(t.unlabelled.values[0]) && t.unlabelled.values[1] == 1);
        QVERIFY2(describeTable(t).find("3 missing value(s) in 3 row(s): each number filled by the training rows' "
                                       "mean") != std::string::npos &&
                     describeTable(t).find("1 row(s) whose label is a missing value (NA, ?) are unlabelled") !=
                         std::string::npos,
                 describeTable(t).c_str());
        // The fill: the mean of the rows it is fitted on (rows 0 and 3: (1 + 7) / 2 = 4),
        // or of every row where those have none (row 1 alone: (1 + 4 + 7) / 3 = 4).
        auto filled = fitMissingFill(t.columns, t.labelled.values, {0, 3});
        QCOMPARE(filled[0].fill, 4.0);
        QCOMPARE(fitMissingFill(t.columns, t.labelled.values, {0, 2}).front().fill, 2.5);
        QCOMPARE(fitMissingFill(t.columns, t.labelled.values, {1}).front().fill, 4.0);
        filled = fitMissingFill(t.columns, t.labelled.values, {0, 2});
        auto values = t.labelled.values;
        fillMissingValues(filled, values);
        QCOMPARE(values[5], 2.5);
        QCOMPARE(values[6], 1.0);  // the flag stays
        // decide's rows: a missing number takes the fill and its flag; a missing category its level.
        std::vector<double> out;
        appendEncodedRow(filled, {"", "N/A"}, "new.csv line 2", out);
        QCOMPARE(out, (std::vector<double>{2.5, 1, 1, 0, 0}));
        QCOMPARE(encodedFill(filled)[0], 2.5);
        QVERIFY(std::isnan(encodedFill(filled)[1]));
        QCOMPARE(encodedIndicators(filled), (std::vector<std::pair<size_t, size_t>>{{0, 1}}));
        // A column that had no missing cell in training cannot impute one.
        const auto complete = parseTabularCsv("x,label\n1,a\n2,b\n", "t.csv", "label", 1000, MissingValues::Impute);
        QVERIFY(!hasMissingValues(complete.columns));
        try {
            appendEncodedRow(complete.columns, {"NA"}, "new.csv line 3", out);
            QFAIL("a missing value was encoded by a column that cannot impute");
        } catch (const InputError& e) {
            QCOMPARE(QString(e.what()), QString("new.csv line 3 column 1 (x): \"NA\" is a missing value, and the "
                                                "training rows had none in this column, so it cannot be imputed: "
                                                "fill it in"));
        }
        // Dropped: rows 2, 3 and 4 have a missing cell.
        const auto dropped = parseTabularCsv(text + "3,red,a\n", "t.csv", "label", 1000, MissingValues::Drop);
        QCOMPARE(dropped.labelled.values, (std::vector<double>{1, 0, 1, 7, 1, 0, 3, 0, 1}));
        QCOMPARE(dropped.missingRows, int64_t{3});
        QVERIFY2(describeTable(dropped).find("those rows are left out (--missing drop)") != std::string::npos,
                 describeTable(dropped).c_str());
        // A column missing in every row has nothing to impute from.
        try {
            parseTabularCsv("x,y,label\n1,NA,a\n2,,b\n", "t.csv", "label", 1000, MissingValues::Impute);
            QFAIL("an empty column was imputed");
        } catch (const InputError& e) {
            QCOMPARE(QString(e.what()), QString("t.csv column 2 (y): every one of its 2 cells is missing (100%); "
                                                "there is nothing to impute from: leave the column out"));
        }
        try {
            parseTabularCsv("x,label\nNA,a\n", "t.csv", "label", 1000, MissingValues::Drop);
            QFAIL("dropping every row was accepted");
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).contains("so --missing drop leaves none"), e.what());
        }
    }

    // Tables as R (write.csv) and Excel write them: quoted names and cells, a quote
    // inside a quoted cell doubled, commas and line breaks inside quotes kept.
    void quotedTablesReadAsWritten()
    {
        const auto t = parseTabularCsv("\"a\",\"label\"\r\n1,\"x, \"\"q\"\"\"\r\n\"2\",\"y\"\r\n3,\"two\nlines\"\r\n4,\r\n",
                                       "t.csv", "label", 1000, MissingValues::Impute);
        QCOMPARE(t.featureNames, (std::vector<std::string>{"a"}));
        QCOMPARE(t.classNames, (std::vector<std::string>{"two\nlines", "x, \"q\"", "y"}));
        QCOMPARE(t.labels, (std::vector<int64_t>{1, 2, 0}));
        QCOMPARE(t.labelled.values, (std::vector<double>{1, 2, 3}));
        QCOMPARE(t.unlabelled.values, (std::vector<double>{4}));
        // A record is numbered by the line it starts on: after a cell of two lines the
        // next row is line 4, and the ragged one line 5.
        try {
            parseTabularCsv("a,label\n1,\"two\nlines\"\n2,y\n3\n", "t.csv", "label", 1000, MissingValues::Impute);
            QFAIL("accepted");
        } catch (const InputError& e) {
            QCOMPARE(QString(e.what()), QString("t.csv line 5: 1 columns, the header has 2"));
        }
    }

    // Excel's and R's thousands separators: a column whose cells are numbers, some
    // written "1,037", is one numeric column (said so), never a category per value; a
    // comma that is not a thousands group leaves the cell text.
    void thousandsSeparatorsReadAsNumbers()
    {
        const auto t = parseTabularCsv("income,label\n\"1,037\",a\n523,b\n\"-12,345.5\",a\n\"1,000,000\",b\n",
                                       "t.csv", "label", 1000, MissingValues::Impute);
        QCOMPARE(t.featureNames, (std::vector<std::string>{"income"}));
        QCOMPARE(t.labelled.values, (std::vector<double>{1037, 523, -12345.5, 1000000}));
        QCOMPARE(t.groupedNumberColumns, (std::vector<std::string>{"income"}));
        QVERIFY2(QString::fromStdString(describeTable(t)).contains("column income: numbers with thousands separators"),
                 describeTable(t).c_str());
        for (const char* cell : {"1,03", "1,0370", ",037", "1,037.", "1037,000", "12,34,567", "1,037e3", "1.037,5"})
            QVERIFY2(!parseGroupedNumber(cell), cell);
        QCOMPARE(*parseGroupedNumber("+999,999.25"), 999999.25);
        // Mixed with text, the column is refused as before, naming both cells.
        try {
            parseTabularCsv("income,label\n\"1,037\",a\nlots,b\n", "t.csv", "label", 1000, MissingValues::Impute);
            QFAIL("accepted");
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).contains("mixes numbers (line 2: \"1,037\") and text (line 3: \"lots\")"), e.what());
        }
    }

    // pandas' to_csv(index=False) of a frame made from an array names its columns 0, 1,
    // ...: above rows of fractions that line is a header, said so; a table of whole numbers
    // whose first row counts up keeps it as data.
    void pandasHeaderIsNotARow()
    {
        const auto t = parseNumericCsv("0,1\n0.25,0.75\n0.5,0.5\n", "p.csv", 100);
        QVERIFY(t.pandasHeader);
        QCOMPARE(t.values.shape, (std::vector<int64_t>{2, 2}));
        QCOMPARE(t.values.values, (std::vector<double>{0.25, 0.75, 0.5, 0.5}));
        const auto whole = parseNumericCsv("0,1\n1,0\n0,1\n", "p.csv", 100);
        QVERIFY(!whole.pandasHeader);
        QCOMPARE(whole.values.shape, (std::vector<int64_t>{3, 2}));
        const auto notCounting = parseNumericCsv("1,0\n0.5,0.5\n", "p.csv", 100);
        QVERIFY(!notCounting.pandasHeader);
        QCOMPARE(notCounting.values.shape, (std::vector<int64_t>{2, 2}));
        const auto oneColumn = parseNumericCsv("0\n0.5\n", "x.csv", 100);
        QVERIFY(!oneColumn.pandasHeader);
    }

    void badTablesNameTheProblem_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("message");
        const auto row = [](const char* name, const QByteArray& text, const QString& message) {
            QTest::newRow(name) << text << message;
        };
        row("no such column", "a,b\n1,x\n2,\n", "t.csv line 1: no column named \"label\"");
        row("ragged", "a,label\n1,x\n2\n", "t.csv line 3: 1 columns, the header has 2");
        row("word among numbers", "a,label\n1,x\nfoo,y\n3,\n",
            "t.csv column 1 (a) mixes numbers (line 2: \"1\") and text (line 3: \"foo\"); a column holds numbers, "
            "or categories as text");
        row("missing marker", "a,label\n1,x\n?,y\n3,\n", "(with --missing impute or drop it is a missing value)");
        row("empty category", "a,label\nu,x\n,y\nv,\n", "t.csv line 3 column 1 (a): an empty category");
        row("one class", "a,label\n1,x\n2,x\n3,\n", "holds 1 class(es)");
        QByteArray continuous = "a,label\n";
        for (int i = 0; i < 12; ++i)
            continuous += QByteArray::number(i) + "," + QByteArray::number(i * 0.37 + 0.05) + "\n";
        row("continuous labels", continuous,
            "t.csv: column \"label\" holds 12 distinct numbers with fractions (0.05, 0.42, ...): it looks continuous "
            "(a regression target?)");
        row("empty", "", "t.csv: empty");
        row("only the label", "label\nx\n", "names no feature column");
        row("huge", "a,label\n1e31,x\n2,y\n3,\n", "\"1e31\" is not a finite number (at most 1e30)");
        // A second column of the label's name would be read as a feature: the label leaks.
        row("a name twice", "label,x1,x2,label\nx,1,2,x\ny,3,4,y\n",
            "t.csv line 1: column 4 \"label\" repeats the name of column 1");
        row("R's row names", "\"\",\"a\",\"label\"\n\"1\",1,\"x\"\n\"2\",2,\"y\"\n",
            "t.csv line 1: column 1 has no name (R's write.csv writes its row names");
        // Labels are kept whole: three labels that agree on their first 100 characters are
        // three classes or none.
        row("long label", QByteArray("a,label\n1,") + QByteArray(101, 'x') + "\n2,y\n",
            "t.csv line 2 column 2: a label of 101 characters; at most 100");
        row("Latin-1", "a,label\n1,caf\xe9\n2,y\n", "t.csv line 2 column 2: byte 4 of the cell is not UTF-8 text");
        row("unclosed quote", "a,label\n1,\"x\n2,y\n", "t.csv line 2: a quoted field is not closed");
        row("after a quote", "a,label\n1,\"x\"y\n", "t.csv line 2: text after a closing quote");
        QByteArray wide;
        for (int c = 0; c < 4097; ++c)
            wide += "c" + QByteArray::number(c) + ",";
        row("too wide", wide + "label\n", "t.csv line 1: the header has 4098 columns; at most 4096");
    }
    void badTablesNameTheProblem()
    {
        QFETCH(QByteArray, text);
        QFETCH(QString, message);
        try {
            parseTabularCsv(text.toStdString(), "t.csv", "label", 1000, MissingValues::Refuse);
            QFAIL("accepted");
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).contains(message), e.what());
        }
    }

    // The tabular experiment: the synthetic methods on a user's table of D features and
    // K classes. Three well separated classes in 3-D are learnt; each replicate tests on
    // its share of the labelled rows; the results record the table's settings.
    void tabularExperimentRunsOnATable()
    {
        QTemporaryDir dir;
        std::string csv = "f1,f2,f3,kind\n";
        auto g = makeGenerator(11);
        const auto noise = torch::randn({150, 3}, g);
        for (int i = 0; i < 150; ++i) {
            const int k = i % 3;
            const bool unlabelled = i >= 120;
            csv += formatNumber(4.0 * (k == 0) + noise[i][0].item<double>()) + "," +
                   formatNumber(4.0 * (k == 1) + noise[i][1].item<double>()) + "," +
                   formatNumber(4.0 * (k == 2) + noise[i][2].item<double>()) + "," +
                   (unlabelled ? std::string() : std::string(k == 0 ? "a" : k == 1 ? "b" : "c")) + "\n";
        }
        const std::string path = dir.filePath("t.csv").toStdString();
        writeFileAtomically(path, csv);
        const auto& experiment = ExperimentRegistry::global().get(kTabularExperiment);
        auto settings = checkedSettings(experiment.settings(),
                                        {{"data", path}, {"label", "kind"}, {"replicates", 2}, {"methods", {"kfac_laplace"}},
                                         {"correction_iterations", 30}, {"warm_start_steps", 20}, {"test_fraction", 0.25}},
                                        kTabularExperiment);
        const auto config = tabularConfigFrom(settings, std::nullopt);
        QCOMPARE(featureCount(config), int64_t{3});
        QCOMPARE(classCount(config), int64_t{3});
        QCOMPARE(config.costs.classNames(), (std::vector<std::string>{"a", "b", "c"}));
        const auto data = syntheticDataFor(config, 1);
        QCOMPARE(data.testX.size(0), int64_t{30});  // 0.25 of 120 labelled rows
        QCOMPARE(data.validationX.size(0), int64_t{24});  // the default 0.2
        QCOMPARE(data.trainX.size(0), int64_t{66});
        QCOMPARE(data.calibrationX.size(0), int64_t{30});
        QVERIFY(!torch::equal(syntheticDataFor(config, 0).testY, data.testY) ||
                !torch::equal(syntheticDataFor(config, 0).testX, data.testX));  // replicates split differently
        const auto run = lcs::runExperiment(experiment, settings, std::nullopt, {});
        const auto json = nlohmann::json::parse(lcs::resultsJson(run.output));
        QCOMPARE(json.at("run").at("experiment").get<std::string>(), std::string("tabular"));
        QCOMPARE(json.at("run").at("settings").at("label").get<std::string>(), std::string("kind"));
        for (const auto& r : json.at("methods").at("kfac_laplace").at("replicates"))
            QVERIFY2(r.at("uncorrected").at("accuracy").get<double>() > 0.9, r.dump().c_str());
        // The reliability diagrams: 15 bins per replicate and rule whose counts sum to the
        // test rows, and the long table's ECE is the bins' sum_b n_b / N |acc_b - conf_b|.
        const auto lines = QString::fromStdString(run.output.reliability).split('\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.front(), QString("trial,method,rule,bin,lower,upper,count,confidence,accuracy"));
        QCOMPARE(lines.size(), 1 + 2 * 2 * kReliabilityBins);
        double weighted = 0;
        int count = 0;
        for (int i = 1; i <= kReliabilityBins; ++i) {
            const auto cells = lines[i].split(',');
            QCOMPARE(cells[0], QString("0"));
            QCOMPARE(cells[2], QString("uncorrected"));
            QCOMPARE(cells[4].toDouble(), (i - 1) / double(kReliabilityBins));
            const int n = cells[6].toInt();
            count += n;
            if (n)
                weighted += n * std::abs(cells[8].toDouble() - cells[7].toDouble());
        }
        QCOMPARE(count, 30);
        bool found = false;
        for (const auto& o : json.at("observations"))
            if (o.at("trial") == 0 && o.at("rule") == "uncorrected" && o.at("metric") == "ece") {
                QVERIFY2(std::abs(o.at("value").get<double>() - weighted / count) < 1e-12, o.dump().c_str());
                found = true;
            }
        QVERIFY(found);
        // A matrix of other classes than the table's is refused, naming both.
        QVERIFY_THROWS_EXCEPTION(CostMatrixError, tabularConfigFrom(settings, costPreset("synthetic")));

        // Every row labelled (as in Weka's example files): q trains on each replicate's
        // training rows' inputs, never a test row, and the text table says so.
        std::string labelledOnly;
        for (const auto& line : QString::fromStdString(csv).split('\n', Qt::SkipEmptyParts))
            if (!line.endsWith(','))
                labelledOnly += line.toStdString() + "\n";
        const std::string allLabelled = dir.filePath("all.csv").toStdString();
        writeFileAtomically(allLabelled, labelledOnly);
        auto allSettings = settings;
        allSettings["data"] = allLabelled;
        const auto allConfig = tabularConfigFrom(allSettings, std::nullopt);
        QCOMPARE(allConfig.table->unlabelled.dim(0), int64_t{0});
        const auto allData = syntheticDataFor(allConfig, 1);
        QVERIFY(torch::equal(allData.calibrationX, allData.trainX));
        allSettings["replicates"] = 1;
        const auto allRun = lcs::runExperiment(experiment, allSettings, std::nullopt, {});
        QVERIFY2(allRun.output.table.find("q trained on each replicate's training rows' inputs") != std::string::npos,
                 allRun.output.table.c_str());
    }

    void ownPredictiveRefusesBadArrays_data()
    {
        QTest::addColumn<QString>("what");
        QTest::addColumn<QString>("message");
        QTest::newRow("row sum") << "sum" << "p: row 2 sums to 0.9, not 1";
        QTest::newRow("negative") << "negative" << "p: row 1, class 2: -0.1 is not a probability";
        QTest::newRow("rows") << "rows" << "p: has 2 rows, x has 3";
        QTest::newRow("one class") << "classes" << "1 class(es)";
        QTest::newRow("sample sum") << "sample" << "row 1 of sample 2 sums to 1.2";
    }
    void ownPredictiveRefusesBadArrays()
    {
        QFETCH(QString, what);
        QFETCH(QString, message);
        NumericArray x{{3, 1}, {0, 1, 2}};
        NumericArray p{{3, 2}, {0.5, 0.5, 0.5, 0.4, 0.2, 0.8}};
        if (what == "negative")
            p.values = {1.1, -0.1, 0.5, 0.5, 0.2, 0.8};
        else if (what == "rows")
            p = {{2, 2}, {0.5, 0.5, 0.5, 0.5}};
        else if (what == "classes")
            p = {{3, 1}, {1, 1, 1}};
        else if (what == "sample")
            p = {{2, 3, 2}, {0.5, 0.5, 0.5, 0.5, 0.2, 0.8, 0.6, 0.6, 0.5, 0.5, 0.2, 0.8}};
        try {
            ownPredictive(x, p, "x", "p");
            QFAIL("accepted");
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).contains(message), e.what());
        }
    }

    // A user's labelled predictive, by hand. X is one feature x in [-2, 2]; the truth is
    // class 1 with probability sigmoid(2x), P says sigmoid(5x) (overconfident). On the
    // held-out test rows (decisions.csv names them) P's Bayes decision at each referral
    // cost of the curve, worked out here from P alone, costs what the curve's
    // "uncorrected" rows say; P's reliability bins, counted here, are the --reliability
    // rows; q's bins hold the same test rows.
    void ownPredictiveCurveAndReliabilityByHand()
    {
        std::mt19937_64 draw(5);
        std::uniform_real_distribution<double> uniform(0.0, 1.0);
        const int n = 160;
        std::vector<double> p1(n);
        std::vector<int> labels(n);
        std::string x = "x\n", p = "p0,p1\n", y;
        for (int i = 0; i < n; ++i) {
            const double xi = -2 + 4 * uniform(draw);
            labels[i] = uniform(draw) < 1 / (1 + std::exp(-2 * xi)) ? 1 : 0;
            p1[i] = std::stod(formatNumber(1 / (1 + std::exp(-5 * xi))));
            x += formatNumber(xi) + "\n";
            p += formatNumber(1 - p1[i]) + "," + formatNumber(p1[i]) + "\n";
            y += std::to_string(labels[i]) + "\n";
        }
        QTemporaryDir dir;
        const std::string base = dir.path().toStdString();
        writeFileAtomically(base + "/x.csv", x);
        writeFileAtomically(base + "/p.csv", p);
        writeFileAtomically(base + "/y.csv", y);
        const auto& experiment = ExperimentRegistry::global().get(kOwnPredictiveExperiment);
        const CostMatrix costs(2, {0, 1, 0.3, 5, 0, 0.3}, true);
        const nlohmann::json settings = {{"features", base + "/x.csv"},   {"predictive", base + "/p.csv"},
                                         {"labels", base + "/y.csv"},     {"correction_iterations", 1},
                                         {"warm_start_steps", 0},         {"cost_benefit_points", 3},
                                         // A barely trained q the run always keeps: its
                                         // decisions differ from P's, so a rule swapped for
                                         // another shows.
                                         {"q_form", "standalone"},        {"select", "none"}};
        const auto run =
            lcs::runExperiment(experiment, checkedSettings(experiment.settings(), settings, "test"), costs, {});
        // The test rows and the decisions kept there, from decisions.csv (rows numbered
        // from 1; row, role, label, decision before, after, kept, ...).
        const auto decisionIndex = [&](const QString& name) {
            for (int k = 0; k < costs.numDecisions(); ++k)
                if (QString::fromStdString(costs.decisionName(k)) == name)
                    return k;
            return -1;
        };
        std::vector<int> test, kept;
        int changed = 0;
        for (const auto& line : QString::fromStdString(lcs::resultsCsv(run.output)).split('\n', Qt::SkipEmptyParts).mid(1)) {
            const auto cells = line.split(',');
            if (cells[1] != "test")
                continue;
            test.push_back(cells[0].toInt() - 1);
            kept.push_back(decisionIndex(cells[5]));
            QVERIFY(kept.back() >= 0);
            changed += cells[5] != cells[3];
        }
        QCOMPARE(test.size(), size_t{40});  // the default test share 0.25 of 160
        QVERIFY2(changed > 0, "q decides as P on every test row: the curve's rules could not be told apart");
        const auto json = nlohmann::json::parse(lcs::resultsJson(run.output));
        const auto& curve = json.at("cost_benefit");
        QCOMPARE(curve.at("setting").get<std::string>(), std::string("referral_cost"));
        QCOMPARE(curve.at("values").get<std::vector<double>>(), (std::vector<double>{0.3, 5.0 / 3, 10.0 / 3, 5}));
        int checked = 0;
        for (const auto& row : curve.at("rows")) {
            QCOMPARE(row.at("method").get<std::string>(), std::string("own"));
            if (row.at("rule") == "corrected" && row.at("value").get<double>() == 0.3) {
                // At the run's own referral cost the kept decisions are decisions.csv's.
                double cost = 0;
                for (size_t t = 0; t < test.size(); ++t)
                    cost += costs.at(labels[size_t(test[t])], kept[t]);
                QVERIFY2(std::abs(row.at("cost").get<double>() - cost / test.size()) < 1e-12, row.dump().c_str());
                ++checked;
            }
            if (row.at("rule") != "uncorrected")
                continue;
            const double r = row.at("value").get<double>();
            double cost = 0, referred = 0;
            for (const int i : test) {
                // Expected costs under P: decide 0 costs 5 p1, decide 1 costs p0, refer r.
                const double e0 = 5 * p1[i], e1 = 1 - p1[i];
                const int d = e0 <= e1 && e0 <= r ? 0 : e1 <= r ? 1 : 2;
                cost += d == 2 ? r : d == labels[i] ? 0 : labels[i] == 1 ? 5 : 1;
                referred += d == 2;
            }
            QVERIFY2(std::abs(row.at("cost").get<double>() - cost / test.size()) < 1e-12, row.dump().c_str());
            QVERIFY2(std::abs(row.at("referral_rate").get<double>() - referred / test.size()) < 1e-12,
                     row.dump().c_str());
            ++checked;
        }
        QCOMPARE(checked, 5);
        QVERIFY(lcs::costBenefitCsv(run.output).rfind("setting,value,current,method,replicate,rule,cost,referral_rate\n", 0) == 0);
        // P's reliability bins by hand: confidence max(p0, p1) in (b/15, (b+1)/15], a hit
        // where the larger (class 0 on a tie) is the label.
        std::vector<int> count(kReliabilityBins, 0), hits(kReliabilityBins, 0);
        std::vector<double> confidence(kReliabilityBins, 0);
        for (const int i : test) {
            const double c = std::max(p1[i], 1 - p1[i]);
            const int b = std::clamp(static_cast<int>(std::ceil(c * kReliabilityBins)) - 1, 0, kReliabilityBins - 1);
            ++count[b];
            confidence[b] += c;
            hits[b] += (p1[i] > 1 - p1[i] ? 1 : 0) == labels[i];
        }
        const auto lines = QString::fromStdString(run.output.reliability).split('\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.front(), QString("trial,method,rule,bin,lower,upper,count,confidence,accuracy"));
        QCOMPARE(lines.size(), 1 + 2 * kReliabilityBins);
        int correctedRows = 0;
        for (const auto& line : lines.mid(1)) {
            const auto cells = line.split(',');
            const int b = cells[3].toInt();
            if (cells[2] == "corrected") {
                correctedRows += cells[6].toInt();
                continue;
            }
            QCOMPARE(cells[2], QString("uncorrected"));
            QCOMPARE(cells[6].toInt(), count[b]);
            if (count[b] > 0) {
                QVERIFY2(std::abs(cells[7].toDouble() - confidence[b] / count[b]) < 1e-6, qPrintable(line));  // P is held as float32
                QVERIFY2(std::abs(cells[8].toDouble() - double(hits[b]) / count[b]) < 1e-12, qPrintable(line));
            }
        }
        QCOMPARE(correctedRows, 40);
    }

    // Without labels neither a curve nor a diagram can be scored: refused before any work.
    void ownPredictiveCurveNeedsLabels()
    {
        QTemporaryDir dir;
        const std::string base = dir.path().toStdString();
        writeFileAtomically(base + "/x.csv", "x\n0\n1\n2\n");
        writeFileAtomically(base + "/p.csv", "0.5,0.5\n0.2,0.8\n0.9,0.1\n");
        const auto& experiment = ExperimentRegistry::global().get(kOwnPredictiveExperiment);
        const nlohmann::json settings = {{"features", base + "/x.csv"}, {"predictive", base + "/p.csv"},
                                         {"cost_benefit_points", 3}};
        try {
            lcs::runExperiment(experiment, checkedSettings(experiment.settings(), settings, "test"), std::nullopt, {});
            QFAIL("accepted");
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).contains("cost_benefit_points needs --labels"), e.what());
        }
    }

    // A task that runs phases in turn (KFAC's MAP then its samples; the correction's warm
    // start then its steps) reports one count across them: its fraction never falls back
    // and reaches 1 only with its last step.
    void multiPhaseTasksReportOneCount()
    {
        auto config = quickConfig();
        std::vector<std::pair<std::string, double>> reports;
        JobContext ctx([&](const Progress& p) {
            QVERIFY(p.task && (p.task->stage == kSamplingStage || p.task->stage == kCorrectionStage));
            reports.emplace_back(p.phase, double(p.step) / double(p.total));
        },
                       nullptr);
        auto check = [&](const std::string& first, const std::string& last) {
            QVERIFY(!reports.empty());
            QCOMPARE(reports.front().first, first);
            QCOMPARE(reports.back().first, last);
            for (size_t i = 1; i < reports.size(); ++i)
                QVERIFY2(reports[i].second >= reports[i - 1].second, reports[i].first.c_str());
            for (size_t i = 0; i + 1 < reports.size(); ++i)
                QVERIFY2(reports[i].second < 1.0, (reports[i].first + " reads as done too early").c_str());
            QCOMPARE(reports.back().second, 1.0);
            reports.clear();
        };
        const auto p = inferSynthetic(config, 0, InferenceMethod::KfacLaplace, ctx);
        check("kfac_map", "kfac_samples");
        correctSynthetic(config, p, config.costs, ctx);
        check("warm_start", "correction");
    }

    void resultsDoNotDependOnThreadCount()
    {
        auto config = quickConfig();
        config.methods = {InferenceMethod::Sghmc, InferenceMethod::KfacLaplace};
        config.threads = 1;
        const auto one = runSynthetic(config, {});
        config.threads = 3;
        const auto three = runSynthetic(config, {});
        QCOMPARE(one.methods.size(), size_t(2));
        for (size_t m = 0; m < one.methods.size(); ++m)
            for (size_t r = 0; r < one.methods[m].replicates.size(); ++r) {
                QCOMPARE(one.methods[m].replicates[r].uncorrected.averageCost,
                         three.methods[m].replicates[r].uncorrected.averageCost);
                QCOMPARE(one.methods[m].replicates[r].corrected.averageCost,
                         three.methods[m].replicates[r].corrected.averageCost);
            }
    }

    void deviceNamesAreChecked()
    {
        QVERIFY(resolveDevice("cpu").is_cpu());
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, resolveDevice("tpu:7"));
        if (!torch::cuda::is_available()) {
            try {
                resolveDevice("cuda");
                QFAIL("cuda accepted without CUDA");
            } catch (const std::invalid_argument& e) {
                QVERIFY(QString(e.what()).contains("no CUDA"));
            }
            auto config = quickConfig();
            config.device = "cuda";
            QVERIFY_THROWS_EXCEPTION(std::invalid_argument, runSynthetic(config, {}));
        } else {
            // On a CUDA machine the pipeline runs there and returns CPU results.
            auto config = quickConfig();
            config.replicates = 1;
            config.methods = {InferenceMethod::Sghmc};
            config.device = "cuda";
            const auto r = runSynthetic(config, {});
            QVERIFY(r.methods[0].replicates[0].uncorrected.averageCost < 0.06);
        }
    }

    void summaryStatisticsByHand()
    {
        std::vector<ReplicateOutcome> o(3);
        const double u[] = {0.02, 0.03, 0.01}, c[] = {0.01, 0.03, 0.0};
        for (int i = 0; i < 3; ++i) {
            o[i].replicate = 2 - i;  // out of order on purpose
            o[i].uncorrected.averageCost = u[i];
            o[i].corrected.averageCost = c[i];
        }
        const auto s = summarise(InferenceMethod::Bbvi, o);
        QVERIFY(std::abs(s.uncorrected.mean - 0.02) < 1e-12);
        QVERIFY(std::abs(s.uncorrected.std - 0.01) < 1e-12);  // sample std of .02 .03 .01
        QVERIFY(std::abs(s.pairedDiff.mean - (0.01 + 0 + 0.01) / 3) < 1e-12);
        QCOMPARE(s.replicates.front().replicate, 0);
    }

    void jsonHasTheDocumentedShape()
    {
        auto config = quickConfig();
        config.replicates = 1;
        config.methods = {InferenceMethod::KfacLaplace};
        // An asymmetric matrix with a referral column, so a transposed or dropped record shows.
        config.costs = CostMatrix(2, {0.0, 0.3, 0.05, 0.7, 0.0, 0.05}, true, {"neg", "pos"});
        const auto r = runSynthetic(config, {});
        const auto j = nlohmann::json::parse(lcs::resultsJson(lcs::syntheticOutput(r)));
        QCOMPARE(j["experiment"].get<std::string>(), std::string("synthetic"));
        // The run record: the cost matrix reads back, with the referral cost, seed and version.
        QCOMPARE(costsOfResults(j, "results"), config.costs);
        QCOMPARE(j["run"]["referral_cost"].get<double>(), 0.05);
        QCOMPARE(j["run"]["seed"].get<uint64_t>(), config.seed);
        QCOMPARE(j["run"]["version"].get<std::string>(), std::string(programVersion()));
        QCOMPARE(j["run"]["settings"]["methods"], nlohmann::json({"kfac_laplace"}));
        QCOMPARE(j["replicates"].get<int>(), 1);
        QVERIFY(j["seconds"].is_number());
        const auto& m = j["methods"]["kfac_laplace"];
        for (const char* k : {"uncorrected", "corrected", "paired_diff"})
            QVERIFY(m[k]["mean"].is_number() && m[k]["std"].is_number());
        QCOMPARE(m["uncorrected"]["mean"].get<double>(), r.methods[0].uncorrected.mean);
        const auto csv = QString::fromStdString(lcs::resultsCsv(lcs::syntheticOutput(r)));
        QCOMPARE(csv.count('\n'), 2);
        // One replicate has no spread: the table shows the means alone, aligned under
        // their headings (the JSON keeps std 0 for readers that expect it).
        const auto table = QString::fromStdString(syntheticTable(r)).split('\n');
        QVERIFY(table[2].startsWith("KFAC-Laplace"));
        QVERIFY(!table.join('\n').contains(QStringLiteral("±")));
        QVERIFY(table[2].mid(table[1].indexOf("w/ correction")).startsWith(QString::number(r.methods[0].corrected.mean, 'f', 3) + " "));
        // The table reads the replicates' rows (the long table), not the summary fields:
        // two replicates whose uncorrected costs are 0.1 and 0.2, accuracies 0.8 and 0.9.
        SyntheticResult two = r;
        two.replicates = 2;
        auto& reps = two.methods[0].replicates;
        reps.push_back(reps[0]);
        reps[1].replicate = 1;
        reps[0].uncorrected.averageCost = 0.1;
        reps[1].uncorrected.averageCost = 0.2;
        reps[0].uncorrected.accuracy = 0.8;
        reps[1].uncorrected.accuracy = 0.9;
        reps[0].corrected.accuracy = reps[1].corrected.accuracy = 0.7;
        reps[0].uncorrected.referralRate = 0.1;
        reps[1].uncorrected.referralRate = 0.2;
        reps[0].corrected.referralRate = reps[1].corrected.referralRate = 0.25;
        two.methods[0].uncorrected = {};  // not what the table shows
        const auto twoTable = QString::fromStdString(syntheticTable(two)).split('\n');
        QVERIFY2(twoTable[2].contains(QStringLiteral("0.150 ± 0.071")), qPrintable(twoTable[2]));
        QVERIFY(twoTable[0].endsWith(QStringLiteral("mean ± std")));
        // Accuracy and the referral rate, without -> with correction, means over replicates.
        QVERIFY2(twoTable[1].contains(QStringLiteral("accuracy")) && twoTable[1].contains(QStringLiteral("referred")),
                 qPrintable(twoTable[1]));
        QVERIFY2(twoTable[2].contains(QStringLiteral("0.850 -> 0.700")), qPrintable(twoTable[2]));
        QVERIFY2(twoTable[2].endsWith(QStringLiteral("0.150 -> 0.250")), qPrintable(twoTable[2]));
    }

    // The declared settings write into the config and read back from it: every one of
    // them, through its own binding, and the record of a run holds the same values.
    void declaredSettingsRoundTrip()
    {
        const auto& settings = syntheticSettings();
        nlohmann::json values{{"replicates", 7},          {"methods", {"sgld", "bbvi"}}, {"seed", 42},
                              {"threads", 3},             {"correction_iterations", 77}, {"correction_lr", 0.125},
                              {"warm_start_steps", 11},   {"grid_resolution", 30},       {"bbvi_prior", "isotropic"},
                              {"device", "cpu"},          {"select", "none"},            {"validation_points", 50},
                              {"q_form", "residual"},     {"cost_benefit_points", 5},    {"folds", 4}};
        QCOMPARE(values.size(), settings.size());  // one value per declared setting
        SyntheticConfig config;
        applySettings(settings, values, config);
        QCOMPARE(config.replicates, 7);
        QCOMPARE(config.methods, (std::vector<InferenceMethod>{InferenceMethod::Sgld, InferenceMethod::Bbvi}));
        QCOMPARE(config.seed, uint64_t(42));
        QCOMPARE(config.correction.epochs, 77);
        QCOMPARE(config.correction.learningRate, 0.125);
        QCOMPARE(config.correction.warmStartSteps, 11);
        QCOMPARE(config.costBenefitPoints, 5);
        QCOMPARE(config.gridResolution, 30);
        QVERIFY(config.bbvi.prior.kind == BbviPrior::Kind::Isotropic);
        QVERIFY(config.selection == Selection::None);
        QCOMPARE(config.folds, 4);
        QCOMPARE(config.data.validationNegative, 45);
        QCOMPARE(config.data.validationPositive, 5);
        QVERIFY(config.correction.residual);
        QCOMPARE(settingValues(settings, config), values);
        // Defaults are the config's own.
        const SyntheticConfig defaults;
        for (const auto& s : settings)
            if (!s.spec.defaultValue.is_null())
                QCOMPARE(s.spec.defaultValue, s.get(defaults));
    }

    void cancelStopsTheRun()
    {
        auto config = quickConfig();
        CancelToken token;
        int reports = 0;
        JobContext ctx{[&](const Progress&) {
                           if (++reports == 3)
                               token.cancel();
                       },
                       &token};
        QVERIFY_THROWS_EXCEPTION(Cancelled, runSynthetic(config, ctx));
    }

    void savedModelDecidesTheSame()
    {
        auto config = quickConfig();
        const auto p = inferSynthetic(config, 1, InferenceMethod::Sghmc, {});
        const auto c = correctSynthetic(config, p, config.costs, {});
        QTemporaryDir dir;
        const std::string path = (dir.path() + "/q.pt").toStdString();
        ModelInfo info;
        info.role = "q";
        info.experiment = "synthetic";
        info.method = "sghmc";
        info.replicate = 1;
        info.costs = config.costs;
        saveModel(c.q, info, path);
        auto loaded = loadMlp(path);
        QCOMPARE(loaded.info.hidden, std::vector<int64_t>{50});
        QVERIFY(loaded.info.costs == config.costs);
        auto probs = predictProbabilities(*loaded.model, p.data.testX);
        QVERIFY(torch::allclose(probs, c.testProbs));
        // A sidecar that lies about the architecture is refused with the file named.
        const std::string sidecar = path + ".json";
        auto text = QString::fromStdString(readFile(sidecar)).replace("50", "7").toStdString();
        writeFileAtomically(sidecar, text);
        try {
            loadMlp(path);
            QFAIL("loaded weights into the wrong architecture");
        } catch (const std::runtime_error& e) {
            QVERIFY2(QString(e.what()).contains("q.pt"), e.what());
        }
    }
};

QTEST_APPLESS_MAIN(TestSynthetic)
#include "tst_synthetic.moc"
