// Held-out evidence: realised cost, accuracy, referral rate, confusion, ECE, the paired
// bootstrap interval and its verdict, the temperature and class-offset baselines, the
// choice between q and P, and the labels reader. Every figure against hand counts or a
// closed form.
#include <cmath>
#include <random>

#include <QtTest/QtTest>

#include "tests/probability_rows.h"

#include <ATen/ATen.h>

#include "base/core/input_error.h"
#include "base/io/labels_file.h"
#include "engine/decision/baselines.h"
#include "engine/decision/confusion.h"
#include "engine/decision/correction_evidence.h"
#include "engine/decision/decisions.h"
#include "engine/decision/evidence.h"
#include "engine/decision/grouped_evidence.h"

using namespace lcs;

namespace {

/// L = [[0, 5], [1, 0]] with referral 0.5.
CostMatrix asymmetricWithReferral()
{
    auto c = CostMatrix::zeroOne(2, {"benign", "malignant"});
    c.set(0, 1, 5);
    c.setReferral(0.5);
    return c;
}

} // namespace

class TestEvidence : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void scoreRuleByHand()
    {
        // Rows (label, decision): (0,0)=0, (0,refer)=0.5, (1,1)=0, (1,0)=1, (1,1)=0.
        const auto s = scoreRule("q", {0, 2, 1, 0, 1}, {0, 0, 1, 1, 1}, asymmetricWithReferral());
        QCOMPARE(s.rowCosts, (std::vector<double>{0, 0.5, 0, 1, 0}));
        QVERIFY(std::abs(s.cost - 0.3) < 1e-12);
        QVERIFY(std::abs(s.accuracy - 0.75) < 1e-12);  // 3 right of the 4 decided
        QVERIFY(std::abs(s.referralRate - 0.2) < 1e-12);
        // 2 x 3, rows = truth: benign [1, 0, 1], malignant [1, 2, 0].
        QCOMPARE(s.confusion, (std::vector<int64_t>{1, 0, 1, 1, 2, 0}));
        QVERIFY(std::isnan(s.ece));
    }

    void eceByHand()
    {
        // Top-label confidences 0.9 (right), 0.81 (wrong), 0.61 (right), 0.56 (wrong), each
        // alone in one of 15 bins: (0.1 + 0.81 + 0.39 + 0.56) / 4.
        const auto p = rows(2, {0.9, 0.1, 0.81, 0.19, 0.39, 0.61, 0.56, 0.44});
        const std::vector<int64_t> labels{0, 1, 1, 1};
        QVERIFY(std::abs(expectedCalibrationError(p, labels) - 0.465) < 1e-12);
        // Two bins: all four in (0.5, 1]: |2/4 - (0.9 + 0.81 + 0.61 + 0.56) / 4| = 0.22.
        QVERIFY(std::abs(expectedCalibrationError(p, labels, 2) - 0.22) < 1e-12);
        // Three classes, two bins: a right row of confidence 0.4 alone in [0, 0.5] gives
        // |1 - 0.4| = 0.6; four rows in (0.5, 1] give 4 x |0.5 - 0.72| = 0.88; ECE = 1.48 / 5.
        const auto three = rows(3, {0.4, 0.35, 0.25, 0.9, 0.05, 0.05, 0.81, 0.1, 0.09, 0.2, 0.61, 0.19,
                                    0.56, 0.4, 0.04});
        QVERIFY(std::abs(expectedCalibrationError(three, {0, 0, 1, 1, 1}, 2) - 0.296) < 1e-12);
    }

    void bootstrapOfConstantDifferences()
    {
        const auto d = pairedBootstrap({0.1, 0.2, 0.3}, {0.15, 0.25, 0.35}, 7);
        QVERIFY(std::abs(d.mean - 0.05) < 1e-12);
        QVERIFY(std::abs(d.low - 0.05) < 1e-12 && std::abs(d.high - 0.05) < 1e-12);
        QCOMPARE(verdictOf(d), Verdict::Worse);
        const auto better = pairedBootstrap({0.2, 0.2, 0.2}, {0.1, 0.1, 0.1}, 7);
        QCOMPARE(verdictOf(better), Verdict::Better);
        // Two pairs give no verdict, however clear they look.
        QCOMPARE(verdictOf(pairedBootstrap({0.2, 0.2}, {0.1, 0.1}, 7)), Verdict::TooFewToTell);
    }

    // Student t quantiles against printed tables (to the tables' 3-4 decimals) and the
    // normal limit.
    void studentTQuantilesAgainstTables_data()
    {
        QTest::addColumn<double>("p");
        QTest::addColumn<double>("df");
        QTest::addColumn<double>("expected");
        QTest::newRow("0.975, 1 df") << 0.975 << 1.0 << 12.7062;
        QTest::newRow("0.975, 2 df") << 0.975 << 2.0 << 4.3027;
        QTest::newRow("0.975, 4 df") << 0.975 << 4.0 << 2.7764;
        QTest::newRow("0.975, 9 df") << 0.975 << 9.0 << 2.2622;
        QTest::newRow("0.975, 29 df") << 0.975 << 29.0 << 2.0452;
        QTest::newRow("0.95, 5 df") << 0.95 << 5.0 << 2.0150;
        QTest::newRow("0.025, 9 df") << 0.025 << 9.0 << -2.2622;
        QTest::newRow("0.975, 1e6 df") << 0.975 << 1e6 << 1.95997;
        QTest::newRow("median") << 0.5 << 3.0 << 0.0;
    }
    void studentTQuantilesAgainstTables()
    {
        QFETCH(double, p);
        QFETCH(double, df);
        QFETCH(double, expected);
        const double t = studentTQuantile(p, df);
        QVERIFY2(std::abs(t - expected) < 6e-5, qPrintable(QString::number(t, 'g', 10)));
    }

    // The interval over replicates by hand: differences -0.01, -0.02, -0.03 have mean
    // -0.02, s = 0.01 (divisor n - 1), standard error 0.01 / sqrt 3, half-width
    // 4.3027 x 0.005774 = 0.024841.
    void replicateIntervalByHand()
    {
        const auto d = replicateInterval({0.1, 0.1, 0.1}, {0.09, 0.08, 0.07});
        QCOMPARE(d.rows, int64_t{3});
        QVERIFY(std::abs(d.mean + 0.02) < 1e-12);
        QVERIFY2(std::abs(d.low - (-0.02 - 0.0248414)) < 1e-6, qPrintable(QString::number(d.low, 'g', 10)));
        QVERIFY2(std::abs(d.high - (-0.02 + 0.0248414)) < 1e-6, qPrintable(QString::number(d.high, 'g', 10)));
        QCOMPARE(verdictOf(d), Verdict::NoClearDifference);
        // One replicate has no interval.
        const auto one = replicateInterval({0.1}, {0.2});
        QVERIFY(std::isnan(one.low) && std::isnan(one.high));
        QCOMPARE(verdictOf(one), Verdict::TooFewToTell);
    }

    // Two replicates, however far apart P and q are: no "helps", only how many more a
    // verdict needs.
    void twoReplicatesAreTooFewToTell()
    {
        const auto c = compareOverReplicates({0.05, 0.06}, {0.02, 0.03});
        QCOMPARE(c.verdict, Verdict::TooFewToTell);
        const auto sentence = verdictSentence(c, "test", "replicates");
        QVERIFY2(sentence.find("too few replicates to tell") != std::string::npos, sentence.c_str());
        QVERIFY2(sentence.find("1 more") != std::string::npos, sentence.c_str());
        QVERIFY2(sentence.find("helps") == std::string::npos, sentence.c_str());
    }

    // Coverage by simulation: the 95% intervals printed over replicates (Student t) and
    // over rows (the expanded paired bootstrap) cover a known true difference at the sizes
    // users run. Over replicates 20,000 runs of normal differences, each within 94-96%
    // (Monte Carlo error 0.15%): z for t gives 81-92%, the divisor n for n - 1 92.7% at 3
    // and 93.2% at 5 replicates, t with n degrees of freedom 91% at 3. Over rows 2,000 runs
    // (each a 2,000-draw bootstrap) within 93-97%, of normal differences and of a
    // three-valued cost difference (-1, 0, +1: rows whose decision changed either way).
    void intervalsCoverTheTruth_data()
    {
        QTest::addColumn<QString>("over");
        QTest::addColumn<int>("n");
        QTest::addColumn<double>("truth");
        QTest::addColumn<QString>("shape");
        for (int n : {3, 5, 10})
            for (double truth : {0.0, 0.02}) {
                const auto name = QString("replicates, n %1, truth %2").arg(n).arg(truth);
                QTest::newRow(qPrintable(name)) << QString("replicates") << n << truth << QString("normal");
            }
        for (int n : {50, 500})
            for (double truth : {0.0, 0.1}) {
                for (const char* shape : {"normal", "three-valued"}) {
                    const auto name = QString("rows, n %1, truth %2, %3").arg(n).arg(truth).arg(shape);
                    QTest::newRow(qPrintable(name)) << QString("rows") << n << truth << QString(shape);
                }
            }
    }
    void intervalsCoverTheTruth()
    {
        QFETCH(QString, over);
        QFETCH(int, n);
        QFETCH(double, truth);
        QFETCH(QString, shape);
        const bool replicates = over == "replicates";
        const int runs = replicates ? 20000 : 2000;
        std::mt19937_64 generator(static_cast<uint64_t>(n) * 7919 + (truth > 0 ? 1 : 0));
        std::normal_distribution<double> normal(truth, replicates ? 0.01 : 1.0);
        std::uniform_real_distribution<double> uniform(0.0, 1.0);
        // Three-valued: -1 with probability 0.15 - truth / 2, +1 with 0.15 + truth / 2.
        const auto draw = [&] {
            if (shape == "normal")
                return normal(generator);
            const double u = uniform(generator);
            return u < 0.15 - truth / 2 ? -1.0 : u < 0.30 ? 1.0 : 0.0;
        };
        int covered = 0;
        for (int run = 0; run < runs; ++run) {
            std::vector<double> reference(static_cast<size_t>(n), 0.0), candidate(static_cast<size_t>(n));
            for (auto& c : candidate)
                c = draw();
            const auto d = replicates ? replicateInterval(reference, candidate)
                                                : pairedBootstrap(reference, candidate, static_cast<uint64_t>(run));
            covered += d.low <= truth && truth <= d.high ? 1 : 0;
        }
        const double coverage = covered / static_cast<double>(runs);
        const double band = replicates ? 0.01 : 0.02;
        QVERIFY2(std::abs(coverage - 0.95) <= band, qPrintable(QString("coverage %1").arg(coverage)));
    }

    // q against P over replicates: one cost each per replicate, the rules named, the
    // costs the means, the change q - P: here -0.01 in every replicate.
    void replicatesAreComparedAsPairs()
    {
        const auto c = compareOverReplicates({0.02, 0.03, 0.01}, {0.01, 0.02, 0.0});
        QCOMPARE(c.reference.rule, std::string("P"));
        QCOMPARE(c.candidate.rule, std::string("q"));
        QVERIFY(std::abs(c.reference.cost - 0.02) < 1e-12);
        QVERIFY(std::abs(c.candidate.cost - 0.01) < 1e-12);
        QVERIFY(std::abs(c.difference.mean + 0.01) < 1e-12);
        QVERIFY(std::abs(c.difference.high + 0.01) < 1e-12);
        QCOMPARE(c.difference.rows, int64_t{3});
        QCOMPARE(c.verdict, Verdict::Better);
    }

    void bootstrapIntervalHasTheStandardErrorsWidth()
    {
        // 400 differences of +1 and -1: mean 0, standard error 1/20, so the 95% interval
        // is about +-1.96/20 = +-0.098.
        std::vector<double> ref(400, 0.0), cand(400);
        for (size_t i = 0; i < cand.size(); ++i)
            cand[i] = i % 2 ? 1.0 : -1.0;
        const auto d = pairedBootstrap(ref, cand, 11, 4000);
        QVERIFY(std::abs(d.mean) < 1e-12);
        QVERIFY2(d.high > 0.085 && d.high < 0.11, qPrintable(QString::number(d.high)));
        QVERIFY2(d.low < -0.085 && d.low > -0.11, qPrintable(QString::number(d.low)));
        QCOMPARE(verdictOf(d), Verdict::NoClearDifference);
        // The same seed gives the same interval.
        const auto again = pairedBootstrap(ref, cand, 11, 4000);
        QCOMPARE(again.low, d.low);
    }

    // At 10 rows of +1 and -1 the bootstrap means' 97.5% point is about 0.6 (their spread
    // is the divisor-n standard error 1/sqrt(10)); the printed bound is that widened by
    // sqrt(10/9) x 2.262 / 1.96 = 1.2165, about 0.73.
    void bootstrapIsWidenedAtSmallN()
    {
        std::vector<double> ref(10, 0.0), cand(10);
        for (size_t i = 0; i < cand.size(); ++i)
            cand[i] = i % 2 ? 1.0 : -1.0;
        const auto d = pairedBootstrap(ref, cand, 5, 4000);
        QVERIFY2(d.high > 0.68 && d.high < 0.80, qPrintable(QString::number(d.high)));
        QVERIFY2(d.low < -0.68 && d.low > -0.80, qPrintable(QString::number(d.low)));
    }

    void temperatureClosedForm()
    {
        // Every row P = [0.9, 0.1], class 0 true in 3 of 4 rows: the NLL is lowest where
        // softmax(log P / T) gives class 0 probability 3/4, i.e. log 9 / T = log 3, T = 2.
        const auto logP = logOf(rows(2, {0.9, 0.1, 0.9, 0.1, 0.9, 0.1, 0.9, 0.1}));
        const double t = fitTemperature(logP, {0, 0, 0, 1});
        QVERIFY2(std::abs(t - 2.0) < 1e-4, qPrintable(QString::number(t)));
        // NLL at T = 1 by hand: -(3 log 0.9 + log 0.1) / 4.
        const double nll = temperatureNll(logP, {0, 0, 0, 1}, 1.0);
        QVERIFY(std::abs(nll + (3 * std::log(0.9) + std::log(0.1)) / 4) < 1e-12);
        // Adjusted probabilities at T = 2: 3/4 and 1/4.
        const auto tempered = adjustedProbabilities(logP, 2.0);
        QVERIFY(std::abs(tempered.values[0] - 0.75) < 1e-12);
    }

    void offsetsByHand()
    {
        // Three rows P = [0.6, 0.4] of class 1 and one P = [0.9, 0.1] of class 0, 0/1 costs:
        // P decides class 0 everywhere (cost 3/4). An offset b on class 1 decides the
        // first three right once log 0.4 + b > log 0.6 (b > 0.405) and keeps the last while
        // b < log 9 = 2.197: the grid's smallest such value is 0.5, with cost 0.
        const auto logP = logOf(rows(2, {0.6, 0.4, 0.6, 0.4, 0.6, 0.4, 0.9, 0.1}));
        const auto costs = CostMatrix::zeroOne(2);
        const auto b = fitClassOffsets(logP, {1, 1, 1, 0}, costs);
        QCOMPARE(b, (std::vector<double>{0.0, 0.5}));
        const auto decisions = bayesDecisionsOf(adjustedProbabilities(logP, 1.0, b), costs);
        QCOMPARE(decisions, (std::vector<int64_t>{1, 1, 1, 0}));
    }

    void confusionFiguresByHand()
    {
        // L = [[0, 1], [5, 0]], referral 0.2; confusion rows = truth, columns = (0, 1, refer):
        // y=0: 3, 1, 1; y=1: 0, 2, 1. Cost (1 + 0.2 + 0.2) / 8; accuracy 5 of 6 decided;
        // IoU 0 = 3 / (5 + 3 - 3), IoU 1 = 2 / (3 + 3 - 2) (a referred point is a miss).
        auto costs = CostMatrix::zeroOne(2, {"road", "car"});
        costs.set(1, 0, 5);
        costs.setReferral(0.2);
        const auto f = confusionFigures({3, 1, 1, 0, 2, 1}, costs);
        QCOMPARE(f.count, int64_t(8));
        QCOMPARE(f.referred, int64_t(2));
        QVERIFY(std::abs(f.averageCost - 1.4 / 8) < 1e-12);
        QVERIFY(std::abs(f.accuracy - 5.0 / 6) < 1e-12);
        QVERIFY(std::abs(f.referralRate - 0.25) < 1e-12);
        QVERIFY(std::abs(f.perClassIoU[0] - 0.6) < 1e-12);
        QVERIFY(std::abs(f.perClassIoU[1] - 0.5) < 1e-12);
        QVERIFY(std::abs(f.meanIoU - 0.55) < 1e-12);
        // A class neither present nor decided has no IoU and leaves the mean.
        const auto g = confusionFigures({4, 0, 0, 0, 0, 0}, costs);
        QVERIFY(std::isnan(g.perClassIoU[1]));
        QCOMPARE(g.meanIoU, 1.0);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, confusionFigures({1, 2, 3}, costs));
    }

    void groupedComparisonByHand()
    {
        // Two frames, L = [[0, 1], [5, 0]]. Counts (y0d0, y0d1, y1d0, y1d1):
        //   frame 1: S 3,1,0,2  q 4,0,1,1      frame 2: S 2,0,1,1  q 2,0,0,2
        // Both frames: S 5,1,1,3 -> cost 6/10, IoU car 3/5; q 6,0,1,3 -> cost 5/10, IoU car 3/4.
        // A resample holds frame 1 twice, frame 2 twice or one of each, so the cost change
        // ranges from frame 2's (0 - 5/4) to frame 1's (5/6 - 1/6): the 2.5% and 97.5%
        // quantiles of 2000 draws are those two extremes (each a quarter of the draws).
        auto costs = CostMatrix::zeroOne(2, {"road", "car"});
        costs.set(1, 0, 5);
        GroupedComparisonAccumulator acc(costs);
        acc.add({3, 1, 0, 2}, {4, 0, 1, 1});
        acc.add({2, 0, 1, 1}, {2, 0, 0, 2});
        const auto c = acc.compare("S", "q", {1}, 7);
        QCOMPARE(c.groups, int64_t(2));
        QCOMPARE(int(c.figures.size()), 3);
        const auto& cost = c.figures[0];
        QCOMPARE(cost.name, std::string("cost"));
        QVERIFY(std::abs(cost.reference - 0.6) < 1e-12);
        QVERIFY(std::abs(cost.candidate - 0.5) < 1e-12);
        QVERIFY(std::abs(cost.difference.mean + 0.1) < 1e-12);
        QVERIFY(std::abs(cost.difference.low + 1.25) < 1e-12);
        QVERIFY(std::abs(cost.difference.high - 4.0 / 6) < 1e-12);
        QCOMPARE(cost.verdict, Verdict::TooFewToTell);  // two frames give no verdict
        const auto& car = c.figures[1];
        QCOMPARE(car.name, std::string("IoU car"));
        QVERIFY(car.higherIsBetter);
        QVERIFY(std::abs(car.difference.mean - 0.15) < 1e-12);
        const auto& miou = c.figures[2];
        QVERIFY(std::abs(miou.reference - (5.0 / 7 + 0.6) / 2) < 1e-12);
        QVERIFY(std::abs(miou.candidate - (6.0 / 7 + 0.75) / 2) < 1e-12);
    }

    void groupedVerdictReadsEachFiguresDirection()
    {
        // Every frame alike: each resample equals the whole, the interval is the point, and
        // the verdict is the sign of the change read in the figure's direction. q moves a
        // car pixel missed as road (cost 5) to car: cost down and IoU car up, both better.
        auto costs = CostMatrix::zeroOne(2, {"road", "car"});
        costs.set(1, 0, 5);
        GroupedComparisonAccumulator better(costs), worse(costs);
        for (int f = 0; f < 3; ++f) {
            better.add({4, 0, 1, 1}, {4, 0, 0, 2});
            worse.add({4, 0, 0, 2}, {4, 0, 1, 1});
        }
        const auto b = better.compare("S", "q", {0, 1}, 1);
        for (const auto& f : b.figures)
            QVERIFY2(f.verdict == Verdict::Better, f.name.c_str());
        QVERIFY(!b.anyWorse());
        QVERIFY(groupedVerdictSentence(b).find("better than S") != std::string::npos);
        const auto w = worse.compare("S", "q", {0, 1}, 1);
        for (const auto& f : w.figures)
            QVERIFY2(f.verdict == Verdict::Worse, f.name.c_str());
        QVERIFY(w.anyWorse());
        QVERIFY(groupedVerdictSentence(w).find("keep S's decisions") != std::string::npos);
        QVERIFY(groupedComparisonText(w).find("IoU car") != std::string::npos);
    }

    // The plain rule (evidence, baselines) and the tensor rule (every experiment) are one
    // rule: the same decisions, ties to the lowest index included, on rows with exact ties.
    void plainAndTensorBayesDecisionsAgree()
    {
        const auto costs = asymmetricWithReferral();
        std::vector<double> values;
        for (int i = 0; i <= 40; ++i) {
            const double p = i / 40.0;
            values.push_back(1 - p);
            values.push_back(p);
        }
        const auto plain = bayesDecisionsOf(rows(2, values), costs);
        const auto tensor = bayesDecisions(at::tensor(values, at::kDouble).reshape({-1, 2}), costTensor(costs, at::kDouble))
                                .contiguous();
        QCOMPARE(static_cast<int64_t>(plain.size()), tensor.size(0));
        const auto* fromTensor = tensor.data_ptr<int64_t>();
        for (size_t i = 0; i < plain.size(); ++i)
            QCOMPARE(plain[i], fromTensor[i]);
    }

    void bayesDecisionsWithReferral()
    {
        // L = [[0, 5], [1, 0]], referral 0.5. p = [0.8, 0.2]: R = (0.2, 4.0, 0.5) -> class 0.
        // p = [0.6, 0.4]: R = (0.4, 3.0, 0.5) -> class 0. p = [0.3, 0.7]: R = (0.7, 1.5, 0.5) -> refer.
        // p = [0.05, 0.95]: R = (0.95, 0.25, 0.5) -> class 1.
        const auto d = bayesDecisionsOf(rows(2, {0.8, 0.2, 0.6, 0.4, 0.3, 0.7, 0.05, 0.95}), asymmetricWithReferral());
        QCOMPARE(d, (std::vector<int64_t>{0, 0, 2, 1}));
    }

    void selectionKeepsPWhenQIsDearerOnValidation_data()
    {
        QTest::addColumn<int>("qBetterOnValidation");
        QTest::addColumn<QString>("kept");
        QTest::newRow("q cheaper on validation") << 1 << "q";
        QTest::newRow("q as cheap on validation") << 0 << "q";
        QTest::newRow("q dearer on validation") << -1 << "P";
    }
    void selectionKeepsPWhenQIsDearerOnValidation()
    {
        QFETCH(int, qBetterOnValidation);
        QFETCH(QString, kept);
        const auto costs = CostMatrix::zeroOne(2);
        // One rule right on both validation rows, the other right on one (or both right).
        const auto right = rows(2, {0.9, 0.1, 0.1, 0.9});
        const auto oneWrong = rows(2, {0.9, 0.1, 0.9, 0.1});
        const auto& vp = qBetterOnValidation > 0 ? oneWrong : right;
        const auto& vq = qBetterOnValidation < 0 ? oneWrong : right;
        // Test rows: q wrong on all four where P is right: a clear "worse".
        const auto tp = rows(2, {0.9, 0.1, 0.9, 0.1, 0.1, 0.9, 0.1, 0.9});
        const auto tq = rows(2, {0.1, 0.9, 0.1, 0.9, 0.9, 0.1, 0.9, 0.1});
        const auto e = gatherCorrectionEvidence(vp, vq, {0, 1}, tp, tq, {0, 0, 1, 1}, costs, Selection::Validation, 3);
        QCOMPARE(QString::fromStdString(e.kept), kept);
        QCOMPARE(e.rules[0].cost, 0.0);
        QCOMPARE(e.rules[1].cost, 1.0);
        QCOMPARE(e.comparisons[0].verdict, Verdict::Worse);
        const auto sentence = QString::fromStdString(verdictSentence(e.comparisons[0], "test"));
        QVERIFY2(sentence.startsWith("q raised the test cost from 0.0000 to 1.0000") &&
                     sentence.contains("keep P's decisions"),
                 qPrintable(sentence));
        const auto text = QString::fromStdString(correctionEvidenceText(e, costs));
        QVERIFY2(text.contains("Decisions kept: " + kept), qPrintable(text));
        const auto j = correctionEvidenceJson(e, costs);
        QCOMPARE(QString::fromStdString(j["kept"].get<std::string>()), kept);
        QCOMPARE(j["rules"][1]["change_vs_p"]["verdict"].get<std::string>(), std::string("worse"));
        QCOMPARE(j["rules"][0]["confusion"][1][1].get<int64_t>(), int64_t{2});
    }

    void labelsRead_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QList<int>>("expected");
        QTest::newRow("indices") << QByteArray("0\n1\n1\n") << QList<int>{0, 1, 1};
        QTest::newRow("names with a header") << QByteArray("diagnosis\nmalignant\nbenign\n\"malignant\"\n")
                                             << QList<int>{1, 0, 1};
        QTest::newRow("CRLF, floats that are whole") << QByteArray("1.0\r\n0\r\n1\r\n") << QList<int>{1, 0, 1};
        QTest::newRow("a header and a line per row") << QByteArray("status\nbenign\nbenign\n") << QList<int>{0, 0};
    }
    void labelsRead()
    {
        QFETCH(QByteArray, text);
        QFETCH(QList<int>, expected);
        const auto got = parseLabels(text.toStdString(), "y.csv", 2, {"benign", "malignant"}, expected.size());
        QCOMPARE(got.size(), static_cast<size_t>(expected.size()));
        for (int i = 0; i < expected.size(); ++i)
            QCOMPARE(got[static_cast<size_t>(i)], static_cast<int64_t>(expected[i]));
    }

    void labelsRefused_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<int>("rows");
        QTest::addColumn<QString>("message");
        QTest::newRow("a class not in the matrix") << QByteArray("0\n2\n") << 2 << "y.csv line 2: \"2\" is not one";
        QTest::newRow("an unknown name") << QByteArray("benign\nbenigne\n") << 2 << "\"benigne\" is not one";
        QTest::newRow("too few") << QByteArray("0\n1\n") << 3 << "2 labels for 3 rows";
        QTest::newRow("too many") << QByteArray("0\n1\n0\n") << 2 << "more than 2 labels";
        QTest::newRow("two columns") << QByteArray("0,1\n") << 1 << "2 columns";
        QTest::newRow("a fraction") << QByteArray("0.5\n") << 1 << "\"0.5\" is not one";
        // A first line that is no class, with a line for every row, is a misspelt label,
        // not a header: named, never dropped to complain of a count later.
        QTest::newRow("a misspelt first label") << QByteArray("malignnt\nbenign\nmalignant\n") << 3
                                                << "y.csv line 1: \"malignnt\" is not one of the cost matrix's "
                                                   "classes (0..1 or \"benign\", \"malignant\"); read as a label";
        QTest::newRow("R's NA") << QByteArray("benign\nNA\n") << 2 << "y.csv line 2: \"NA\" marks a missing label";
        QTest::newRow("Weka's ?") << QByteArray("?\nbenign\n") << 2 << "y.csv line 1: \"?\" marks a missing label";
    }
    void labelsRefused()
    {
        QFETCH(QByteArray, text);
        QFETCH(int, rows);
        QFETCH(QString, message);
        try {
            parseLabels(text.toStdString(), "y.csv", 2, {"benign", "malignant"}, rows);
            QFAIL("accepted");
        } catch (const InputError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(message), e.what());
        }
    }
};

QTEST_APPLESS_MAIN(TestEvidence)
#include "tst_evidence.moc"
