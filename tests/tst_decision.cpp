// The decision layer: expected costs, Bayes decisions (ties, referral), metrics, cost
// matrix validation and file formats, all against hand-computed values.
#include <cmath>

#include <QtTest/QtTest>

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

#include "base/core/atomic_file.h"
#include "base/decision/cost_matrix.h"
#include "engine/decision/decisions.h"
#include "engine/decision/risk_coverage.h"

using namespace lcs;

Q_DECLARE_METATYPE(std::vector<double>)

class TestDecision : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void bayesDecision_data()
    {
        QTest::addColumn<std::vector<double>>("probs");
        QTest::addColumn<double>("referral");   // < 0: no referral
        QTest::addColumn<int>("expected");
        // Synthetic costs L = [[0, 0.1], [1, 0]]: R(neg) = p1, R(pos) = 0.1 p0.
        // Positive iff p1 > 0.1 p0, i.e. p1 > 1/11.
        QTest::newRow("clearly negative") << std::vector<double>{0.95, 0.05} << -1.0 << 0;
        QTest::newRow("p1 = 0.1 > 1/11: positive") << std::vector<double>{0.9, 0.1} << -1.0 << 1;
        QTest::newRow("exact tie p1 = 1/11 -> lowest index") << std::vector<double>{10.0 / 11.0, 1.0 / 11.0} << -1.0 << 0;
        // With referral r = 0.05: R(refer) = 0.05 < min(p1, 0.1 p0) only if p1 > 0.05 and p0 > 0.5.
        QTest::newRow("referral cheapest") << std::vector<double>{0.8, 0.2} << 0.05 << 2;
        QTest::newRow("referral too expensive") << std::vector<double>{0.8, 0.2} << 0.5 << 1;
        // R(pos) = 0.1 * 0.5 = 0.05 = r: a class decision wins the tie with referral.
        QTest::newRow("tie with referral -> class") << std::vector<double>{0.5, 0.5} << 0.05 << 1;
    }
    void bayesDecision()
    {
        QFETCH(std::vector<double>, probs);
        QFETCH(double, referral);
        QFETCH(int, expected);
        auto costs = costPreset("synthetic");
        if (referral >= 0)
            costs.setReferral(referral);
        auto p = at::tensor(probs, at::kDouble).unsqueeze(0);
        auto L = costTensor(costs, at::kDouble);
        QCOMPARE(bayesDecisions(p, L)[0].item<int64_t>(), static_cast<int64_t>(expected));
    }

    void decisionsFromLogitsEqualTheSoftmaxRows_data()
    {
        QTest::addColumn<QList<int>>("shape");
        QTest::addColumn<double>("scale");
        QTest::newRow("frames [2, 5, 7, 9]") << QList<int>{2, 5, 7, 9} << 3.0;
        QTest::newRow("rows [300, 5]") << QList<int>{300, 5} << 3.0;
        // exp(200) overflows a float: the per-pixel maximum must come off first.
        QTest::newRow("large logits") << QList<int>{1, 5, 4, 600} << 200.0;
    }

    /// The per-pixel decision straight from logits equals Bayes on the softmax's class
    /// rows, by hand-independent means: bayesDecisions, and at exact ties (decisions 1
    /// and 3 share a column, 4 is a constant column) the first of them.
    void decisionsFromLogitsEqualTheSoftmaxRows()
    {
        QFETCH(QList<int>, shape);
        QFETCH(double, scale);
        std::vector<int64_t> sizes(shape.begin(), shape.end());
        auto generator = at::make_generator<at::CPUGeneratorImpl>(3);
        const auto logits = at::randn(sizes, generator) * scale;
        auto L = at::rand({5, 6}, generator);
        L.select(1, 3).copy_(L.select(1, 1));  // decisions 1 and 3 tie everywhere
        L.select(1, 5).fill_(0.45);            // a referral-like constant column
        const auto fromLogits = bayesDecisionsFromLogits(logits, L);
        const auto rows = logits.dim() == 2 ? logits : logits.movedim(1, -1).reshape({-1, logits.size(1)});
        const auto expected = bayesDecisions(at::softmax(rows, 1), L);
        std::vector<int64_t> outShape{sizes[0]};
        outShape.insert(outShape.end(), sizes.begin() + 2, sizes.end());
        QCOMPARE(fromLogits.sizes().vec(), outShape);
        QVERIFY(fromLogits.reshape(-1).equal(expected));
        if (scale < 10)
            QVERIFY(expected.eq(1).any().item<bool>());  // the tie occurs and goes to 1
        QVERIFY(!expected.eq(3).any().item<bool>());
    }

    void expectedCostsByHand()
    {
        auto costs = costPreset("synthetic");
        costs.setReferral(0.3);
        auto p = at::tensor({0.7, 0.3, 0.2, 0.8}, at::kDouble).reshape({2, 2});
        auto R = expectedCosts(p, costTensor(costs, at::kDouble));
        // Row 0: R(neg) = 0.3, R(pos) = 0.07, R(refer) = 0.3.
        QVERIFY(at::allclose(R, at::tensor({0.3, 0.07, 0.3, 0.8, 0.02, 0.3}, at::kDouble).reshape({2, 3})));
    }

    void metricsByHand()
    {
        // 3 classes + referral (r = 0.2), 6 points.
        auto costs = CostMatrix::zeroOne(3, {"a", "b", "c"});
        costs.set(0, 1, 0.5);
        costs.setReferral(0.2);
        auto labels = at::tensor({0, 0, 1, 2, 2, 1}, at::kLong);
        auto decisions = at::tensor({0, 1, 1, 3, 2, 0}, at::kLong);
        auto probs = at::tensor({0.5, 0.25, 0.25, 0.4, 0.4, 0.2, 0.1, 0.8, 0.1,
                                 0.3, 0.3, 0.4, 0.1, 0.1, 0.8, 0.6, 0.2, 0.2}, at::kDouble).reshape({6, 3});
        const auto m = evaluateDecisions(probs, decisions, labels, costs);
        QCOMPARE(m.count, int64_t(6));
        // Costs: 0, 0.5, 0, 0.2 (referral), 0, 1 -> 1.7 / 6.
        QVERIFY(std::abs(m.averageCost - 1.7 / 6) < 1e-12);
        // Non-referred: 5 points, correct: 0, 2, 4 -> 3/5.
        QVERIFY(std::abs(m.accuracy - 0.6) < 1e-12);
        QVERIFY(std::abs(m.referralRate - 1.0 / 6) < 1e-12);
        const double nll = -(std::log(0.5) + std::log(0.4) + std::log(0.8) + std::log(0.8) + std::log(0.2)) / 5;
        QVERIFY(std::abs(m.nll - nll) < 1e-12);
        // Expected cost sum_y p(y) L[y, d]: d=0 -> 0.4*1 + ... by rows:
        // (0.5,.25,.25)@a: .25+.25 = 0.5;  (.4,.4,.2)@b: .4*0.5+.2 = 0.4;  (.1,.8,.1)@b: .1*0.5+.1 = 0.15;
        // (.3,.3,.4)@refer: 0.2;  (.1,.1,.8)@c: 0.2;  (.6,.2,.2)@a: 0.4.  Sum 1.85 over 6.
        QVERIFY2(std::abs(m.expectedCost - 1.85 / 6) < 1e-12, qPrintable(QString::number(m.expectedCost)));
        // Confusion row 2 (truth c): decided refer once, c once.
        QCOMPARE(m.confusion[2 * 4 + 3], int64_t(1));
        QCOMPARE(m.confusion[2 * 4 + 2], int64_t(1));
        // IoU a: TP 1, FP 1 (point 5), FN 1 (point 1) -> 1/3.
        // IoU b: TP 1, FP 1 (point 1), FN 1 (point 5) -> 1/3.
        // IoU c: TP 1, FP 0, FN 1 (referred) -> 1/2.
        QVERIFY(std::abs(m.perClassIoU[0] - 1.0 / 3) < 1e-12);
        QVERIFY(std::abs(m.perClassIoU[1] - 1.0 / 3) < 1e-12);
        QVERIFY(std::abs(m.perClassIoU[2] - 0.5) < 1e-12);
        QVERIFY(std::abs(m.meanIoU - (1.0 / 3 + 1.0 / 3 + 0.5) / 3) < 1e-12);
    }

    // Top-label reliability and ECE by hand: four points, two of them in one bin.
    // Bin b holds confidences in (b/15, (b+1)/15], so 0.8 = 12/15 closes bin 11.
    //   [0.9, 0.1] y0: conf 0.9 (bin 13), right;  [0.8, 0.2] y1: conf 0.8 (bin 11), wrong;
    //   [0.3, 0.7] y1: conf 0.7 (bin 10), right;  [0.28, 0.72] y0: conf 0.72 (bin 10), wrong.
    // Bin 10: confidence 0.71, accuracy 0.5. ECE = (|1 - 0.9| + |0 - 0.8|) / 4
    // + 2/4 |0.5 - 0.71| = 0.225 + 0.105 = 0.33. Referring a point changes none of it.
    void reliabilityByHand()
    {
        const auto probs = at::tensor({0.9, 0.1, 0.8, 0.2, 0.3, 0.7, 0.28, 0.72}, at::kDouble).reshape({4, 2});
        const auto labels = at::tensor({0, 1, 1, 0}, at::kLong);
        for (bool referral : {false, true}) {
            auto costs = CostMatrix::zeroOne(2);
            if (referral)
                costs.setReferral(0.2);
            const auto decisions = at::tensor({0, 0, referral ? 2 : 1, 1}, at::kLong);
            const auto m = evaluateDecisions(probs, decisions, labels, costs);
            QCOMPARE(m.reliability.size(), size_t{kReliabilityBins});
            QVERIFY(std::abs(m.ece - 0.33) < 1e-12);
            QCOMPARE(m.reliability[10].count, int64_t{2});
            QVERIFY(std::abs(m.reliability[10].confidence - 0.71) < 1e-12);
            QVERIFY(std::abs(m.reliability[10].accuracy - 0.5) < 1e-12);
            QCOMPARE(m.reliability[11].count, int64_t{1});
            QCOMPARE(m.reliability[11].accuracy, 0.0);
            QCOMPARE(m.reliability[12].count, int64_t{0});
            QCOMPARE(m.reliability[13].count, int64_t{1});
            QCOMPARE(m.reliability[13].accuracy, 1.0);
            QCOMPARE(m.reliability[0].count, int64_t{0});
            QVERIFY(std::isnan(m.reliability[0].confidence));
        }
        // A confidence of exactly 1 falls in the last bin.
        const auto sure = evaluateDecisions(at::tensor({1.0, 0.0}, at::kDouble).reshape({1, 2}), at::tensor({0}, at::kLong),
                                            at::tensor({0}, at::kLong), CostMatrix::zeroOne(2));
        QCOMPARE(sure.reliability[kReliabilityBins - 1].count, int64_t{1});
        QCOMPARE(sure.ece, 0.0);
    }

    void ignoredLabelAndAbsentClass()
    {
        auto costs = CostMatrix::zeroOne(3);
        auto labels = at::tensor({0, 0, 2}, at::kLong);
        auto decisions = at::tensor({0, 0, 1}, at::kLong);
        auto probs = at::full({3, 3}, 1.0 / 3, at::kDouble);
        const auto m = evaluateDecisions(probs, decisions, labels, costs, /*ignoreLabel=*/2);
        QCOMPARE(m.count, int64_t(2));
        QCOMPARE(m.accuracy, 1.0);
        QVERIFY(std::isnan(m.perClassIoU[1]) && std::isnan(m.perClassIoU[2]));
        QCOMPARE(m.meanIoU, 1.0);
    }

    void riskCoverageByHand()
    {
        // Confidences 0.9 (right), 0.8 (wrong), 0.7 (right), 0.6 (wrong), given out of
        // order. Most confident first, the risks at k = 1..4 are 0, 1/2, 1/3, 2/4: the
        // area is their mean, 1/3.
        const auto probs = at::tensor({0.3, 0.7, 0.9, 0.1, 0.4, 0.6, 0.2, 0.8}, at::kDouble).reshape({4, 2});
        // Rows decide classes 1 (0.7), 0 (0.9), 1 (0.6), 1 (0.8); these labels make the
        // 0.9 and 0.7 rows right and the 0.8 and 0.6 rows wrong.
        const auto y = at::tensor({1, 0, 0, 0}, at::kLong);
        const auto rc = riskCoverage(probs, y, 4);
        QCOMPARE(rc.coverage, (std::vector<double>{0.25, 0.5, 0.75, 1.0}));
        QCOMPARE(rc.risk, (std::vector<double>{0.0, 0.5, 1.0 / 3.0, 0.5}));
        QVERIFY(std::abs(rc.aurc - (0.0 + 0.5 + 1.0 / 3.0 + 0.5) / 4.0) < 1e-15);
        // Every label right: no risk anywhere. Every one wrong: risk 1 everywhere.
        QCOMPARE(riskCoverage(probs, at::tensor({1, 0, 1, 1}, at::kLong), 4).aurc, 0.0);
        QCOMPARE(riskCoverage(probs, at::tensor({0, 1, 0, 0}, at::kLong), 4).aurc, 1.0);
        // Levels that fall on the same k are kept once: 3 inputs, 100 levels.
        const auto few = riskCoverage(probs.slice(0, 0, 3), y.slice(0, 0, 3));
        QCOMPARE(few.coverage, (std::vector<double>{1.0 / 3.0, 2.0 / 3.0, 1.0}));
    }

    void allReferredHasUndefinedAccuracy()
    {
        auto costs = CostMatrix::zeroOne(2);
        costs.setReferral(0.1);
        const auto m = evaluateDecisions(at::full({2, 2}, 0.5, at::kDouble), at::tensor({2, 2}, at::kLong),
                                         at::tensor({0, 1}, at::kLong), costs);
        QVERIFY(std::isnan(m.accuracy) && std::isnan(m.nll));
        QCOMPARE(m.referralRate, 1.0);
        QVERIFY(std::abs(m.averageCost - 0.1) < 1e-12);
    }

    void validation_data()
    {
        QTest::addColumn<QString>("json");
        QTest::addColumn<QString>("messagePart");
        QTest::newRow("negative") << R"({"costs": [[0, -1], [1, 0]]})" << "negative";
        QTest::newRow("string entry") << R"({"costs": [[0, "x"], [1, 0]]})" << "costs[1][2]";
        QTest::newRow("ragged") << R"({"costs": [[0, 1], [1]]})" << "row 2";
        QTest::newRow("wrong shape") << R"({"costs": [[0, 1, 1, 1], [1, 0, 1, 1]]})" << "columns";
        QTest::newRow("M below max") << R"({"costs": [[0, 2], [1, 0]], "M": 1.5})" << "smaller than the largest cost";
        QTest::newRow("names mismatch") << R"({"classes": ["a"], "costs": [[0, 1], [1, 0]]})" << "class names";
        QTest::newRow("not json") << R"({"costs": [[0, 1], [1, 0]])" << "not valid JSON";
        QTest::newRow("all zero") << R"({"costs": [[0, 0], [0, 0]]})" << "all costs are zero";
        QTest::newRow("names twice") << R"({"classes": ["a", "a"], "costs": [[0, 1], [1, 0]]})" << "class name \"a\" is given twice";
        QTest::newRow("beyond float32") << R"({"costs": [[0, 1e31], [1, 0]]})" << "= 1e+31 is outside 1e-30 to 1e+30";
        QTest::newRow("below float32") << R"({"costs": [[0, 1e-31], [1, 0]]})" << "= 1e-31 is outside 1e-30 to 1e+30";
        QTest::newRow("M beyond float32") << R"({"costs": [[0, 1], [1, 0]], "M": 2e30})" << "M = 2e+30 is outside";
        QTest::newRow("wrong format tag") << R"({"format": "other", "costs": [[0, 1], [1, 0]]})" << "format";
    }
    void validation()
    {
        QFETCH(QString, json);
        QFETCH(QString, messagePart);
        try {
            costMatrixFromJson(json.toStdString(), "test.json");
            QFAIL("accepted an invalid matrix");
        } catch (const CostMatrixError& e) {
            const QString msg = QString::fromStdString(e.what());
            QVERIFY2(msg.contains(messagePart) && msg.startsWith("test.json"), qPrintable(msg));
        }
    }

    void nanIsRejected()
    {
        CostMatrix m = CostMatrix::zeroOne(2);
        m.set(0, 1, std::nan(""));
        QVERIFY_THROWS_EXCEPTION(CostMatrixError, m.validate());
        m.set(0, 1, 0.5);
        m.validate();
        QVERIFY_THROWS_EXCEPTION(CostMatrixError, m.validateFor(3));
    }

    void jsonRoundTrip_data()
    {
        QTest::addColumn<QString>("preset");
        for (const auto& name : costPresetNames())
            QTest::newRow(name.c_str()) << QString::fromStdString(name);
    }
    void jsonRoundTrip()
    {
        QFETCH(QString, preset);
        auto m = costPreset(preset.toStdString());
        m.setUtilityConstant(m.maxCost() * 1.5);
        const auto back = costMatrixFromJson(costMatrixToJson(m));
        QVERIFY(back == m);
        const auto weka = costMatrixFromWeka(costMatrixToWeka(m));
        QCOMPARE(weka.values(), m.values());
        QCOMPARE(weka.hasReferral(), m.hasReferral());
    }

    void presetsMatchThePaper()
    {
        const auto syn = costPreset("synthetic");
        QCOMPARE(syn.at(0, 1), 0.1);
        QCOMPARE(syn.at(1, 0), 1.0);
        // The paper's image costs: 0.7 for confusions among the favoured classes (MNIST's
        // 0, 3, 8; CIFAR-10's 0, 1, 9 where a confusion with 0 is meant), 1 elsewhere.
        const struct {
            const char* preset;
            int truth, decision;
            double cost;
        } entries[] = {{"mnist", 0, 3, 0.7},   {"mnist", 0, 8, 0.7},   {"mnist", 3, 8, 0.7}, {"mnist", 3, 3, 0.0},
                       {"mnist", 8, 3, 0.7},   {"mnist", 0, 1, 1.0},   {"cifar10", 0, 1, 0.7},
                       {"cifar10", 0, 9, 0.7}, {"cifar10", 0, 2, 1.0}};
        for (const auto& e : entries)
            QCOMPARE(costPreset(e.preset).at(e.truth, e.decision), e.cost);
        const auto sel = costPreset("selective");
        QVERIFY(sel.hasReferral());
        QCOMPARE(sel.numDecisions(), 11);
        QCOMPARE(*sel.referralCost(), 0.2);
        const auto camvid = costPreset("camvid");
        QCOMPARE(camvid.numClasses(), 12);
        QCOMPARE(camvid.at(9, 10), 0.2);  // pedestrian decided as cyclist
        QCOMPARE(camvid.at(0, 1), 0.8);   // sky decided as building
        QCOMPARE(camvid.at(5, 8), 0.4);   // tree decided as car
        QCOMPARE(camvid.at(11, 0), 0.8);
        QCOMPARE(camvid.classNames()[8], std::string("Car"));
        QVERIFY_THROWS_EXCEPTION(CostMatrixError, costPreset("nope"));
    }

    void wekaParsing()
    {
        const std::string text = "% Rows\tColumns\n2 3\n% Matrix elements\n0 1 0.2\n1.5 0 0.2\n";
        const auto m = costMatrixFromWeka(text);
        QVERIFY(m.hasReferral());
        QCOMPARE(m.at(1, 0), 1.5);
        QCOMPARE(*m.referralCost(), 0.2);
        QVERIFY_THROWS_EXCEPTION(CostMatrixError, costMatrixFromWeka("2 2\n0 1\n1 abc\n"));
        QVERIFY_THROWS_EXCEPTION(CostMatrixError, costMatrixFromWeka("2 2\n0 1\n1\n"));
        QVERIFY_THROWS_EXCEPTION(CostMatrixError, costMatrixFromWeka("2 4\n0 1 1 1\n1 0 1 1\n"));
        try {
            costMatrixFromWeka("2 2\n0 1\n1 nan\n", "bad.cost");
            QFAIL("NaN accepted");
        } catch (const CostMatrixError& e) {
            QVERIFY2(QString(e.what()).contains("bad.cost"), e.what());
        }
    }

    // The one rule for "does this matrix fit the data's classes" (the window keeps such a
    // matrix, the run accepts it): the count, and names unless either side is generic.
    void matrixFitsTheDataClasses_data()
    {
        QTest::addColumn<QStringList>("matrixNames");
        QTest::addColumn<QStringList>("dataNames");
        QTest::addColumn<bool>("fits");
        QTest::newRow("both generic") << QStringList{} << QStringList{} << true;
        QTest::newRow("same names") << QStringList{"benign", "malignant"} << QStringList{"benign", "malignant"} << true;
        QTest::newRow("named matrix, predictive without names")
            << QStringList{"benign", "malignant"} << QStringList{} << true;
        QTest::newRow("generic matrix, named table") << QStringList{} << QStringList{"a", "b"} << true;
        QTest::newRow("other names") << QStringList{"benign", "malignant"} << QStringList{"a", "b"} << false;
        QTest::newRow("names swapped") << QStringList{"b", "a"} << QStringList{"a", "b"} << false;
        QTest::newRow("other count") << QStringList{} << QStringList{"a", "b", "c"} << false;
    }
    void matrixFitsTheDataClasses()
    {
        QFETCH(QStringList, matrixNames);
        QFETCH(QStringList, dataNames);
        QFETCH(bool, fits);
        const auto names = [](const QStringList& list) {
            std::vector<std::string> out;
            for (const auto& n : list)
                out.push_back(n.toStdString());
            return out;
        };
        const auto data = CostMatrix::zeroOne(dataNames.isEmpty() ? 2 : static_cast<int>(dataNames.size()), names(dataNames));
        const CostMatrix matrix(2, {0, 1, 5, 0}, false, names(matrixNames));
        QCOMPARE(fitsClassesOf(matrix, data), fits);
        QCOMPARE(namesItsClasses(matrix), !matrixNames.isEmpty());
    }

    void referralToggleKeepsClassCosts()
    {
        auto m = costPreset("synthetic");
        m.setReferral(0.25);
        QCOMPARE(m.numDecisions(), 3);
        QCOMPARE(m.at(1, 0), 1.0);
        QCOMPARE(m.at(1, 2), 0.25);
        QCOMPARE(m.decisionName(2), std::string("refer"));
        m.setReferral(std::nullopt);
        QVERIFY(m == costPreset("synthetic"));
    }

    void saveIsAtomicAndLoadNamesTheFile()
    {
        QTemporaryDir dir;
        const std::string path = (dir.path() + "/m.json").toStdString();
        const auto m = costPreset("mnist");
        saveCostMatrix(m, path);
        QVERIFY(loadCostMatrix(path) == m);
        // An invalid matrix is refused and the old file stays as it was.
        auto bad = m;
        bad.set(0, 1, -3);
        QVERIFY_THROWS_EXCEPTION(CostMatrixError, saveCostMatrix(bad, path));
        QVERIFY(loadCostMatrix(path) == m);
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files).size(), 1);  // no temporary left behind
        try {
            loadCostMatrix((dir.path() + "/missing.cost").toStdString());
            QFAIL("missing file accepted");
        } catch (const CostMatrixError& e) {
            QVERIFY(QString(e.what()).contains("missing.cost"));
        }
    }
};

QTEST_APPLESS_MAIN(TestDecision)
#include "tst_decision.moc"
