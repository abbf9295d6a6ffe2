// The correction objective: gradient, closed-form optimum, and that training lowers the
// expected decision cost.
#include <cmath>
#include <set>

#include <QtTest/QtTest>

#include <torch/torch.h>

#include "engine/calibration/correction.h"
#include "engine/core/threads.h"
#include "engine/decision/decisions.h"

using namespace lcs;

namespace {

/// A random problem for the gradient checks: q logits and p for `rows` points under the
/// named preset (optionally with a referral column).
struct GradientCase {
    CostMatrix costs;
    torch::Tensor logits, p, L;
};

GradientCase gradientCase(const QString& preset, bool referral, int rows, uint64_t seed)
{
    GradientCase c;
    c.costs = costPreset(preset.toStdString());
    if (referral)
        c.costs.setReferral(0.3);
    const int C = c.costs.numClasses();
    auto gen = makeGenerator(seed);
    c.logits = torch::randn({rows, C}, gen, torch::kDouble).requires_grad_(true);
    c.p = torch::softmax(torch::randn({rows, C}, gen, torch::kDouble), 1);
    c.L = costTensor(c.costs, torch::kDouble);
    return c;
}

/// A small problem written out by hand, for the objective's value in plain doubles.
struct HandCase {
    std::vector<std::vector<double>> logits;  ///< [B][C] q logits
    std::vector<std::vector<double>> p;       ///< [B][C] predictive probabilities
    std::vector<std::vector<double>> L;       ///< [C][D] costs, rows = true class
    double M = 1;
};

torch::Tensor tensorOf(const std::vector<std::vector<double>>& rows)
{
    std::vector<torch::Tensor> t;
    for (const auto& r : rows)
        t.push_back(torch::tensor(r, torch::kDouble));
    return torch::stack(t);
}

std::vector<double> softmaxOf(const std::vector<double>& z)
{
    double sum = 0;
    std::vector<double> q;
    for (double v : z)
        sum += std::exp(v);
    for (double v : z)
        q.push_back(std::exp(v) / sum);
    return q;
}

/// c_b = argmin_d sum_y q(y|x_b) L[y, d] (the lowest d on ties).
std::vector<int64_t> handDecisions(const std::vector<std::vector<double>>& logits, const std::vector<std::vector<double>>& L)
{
    std::vector<int64_t> decisions;
    for (const auto& z : logits) {
        const auto q = softmaxOf(z);
        int64_t best = 0;
        double bestCost = 0;
        for (size_t d = 0; d < L.front().size(); ++d) {
            double cost = 0;
            for (size_t y = 0; y < q.size(); ++y)
                cost += q[y] * L[y][d];
            if (d == 0 || cost < bestCost) {
                best = static_cast<int64_t>(d);
                bestCost = cost;
            }
        }
        decisions.push_back(best);
    }
    return decisions;
}

/// The objective's three figures for fixed decisions, in plain doubles:
///   expected cost = mean_b sum_y q L[y, c_b],  KL = mean_b sum_y q log(q / p),
///   loss = expected cost / M + KL.
struct HandTerms {
    double loss = 0, kl = 0, expectedCost = 0;
};
HandTerms handObjective(const std::vector<std::vector<double>>& logits, const HandCase& c,
                        const std::vector<int64_t>& decisions)
{
    HandTerms t;
    const double b = static_cast<double>(logits.size());
    for (size_t row = 0; row < logits.size(); ++row) {
        const auto q = softmaxOf(logits[row]);
        for (size_t y = 0; y < q.size(); ++y) {
            t.expectedCost += q[y] * c.L[y][static_cast<size_t>(decisions[row])] / b;
            t.kl += q[y] * std::log(q[y] / c.p[row][y]) / b;
        }
    }
    t.loss = t.expectedCost / c.M + t.kl;
    return t;
}

} // namespace

Q_DECLARE_METATYPE(HandCase)

class TestCalibration : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // The label terms by hand: logits (0, ln 3) give q = (1/4, 3/4). Log loss of label 1:
    // -ln 3/4, gradient w (q - e_1) = (1/4, -1/4). Soft cost of label 0 under 0/1 costs
    // (tau = 0.1): R = q L = (3/4, 1/4), pi = softmax(-R / tau) = (e^-5, 1) / (1 + e^-5),
    // loss pi . L[0, .] = 1 / (1 + e^-5) = 0.9933071; gradient (-0.0249302, +0.0249302) by
    // the chain rule through R and q, written out in Python. An unlabelled row (-1) adds
    // nothing; the weight scales both; finite differences agree with each gradient.
    void labelTermsByHand()
    {
        const auto logits = torch::tensor({0.0, std::log(3.0), 0.3, -0.2}, torch::kDouble).reshape({2, 2});
        const auto costs = torch::tensor({0.0, 1.0, 1.0, 0.0}, torch::kDouble).reshape({2, 2});
        auto logLoss = labelTermWithGradient(logits, torch::tensor({1, -1}), costs, LabelTerm::LogLoss, 2.0);
        QVERIFY(std::abs(logLoss.loss - 2 * -std::log(0.75)) < 1e-12);
        QVERIFY(torch::allclose(logLoss.gradient,
                                torch::tensor({0.5, -0.5, 0.0, 0.0}, torch::kDouble).reshape({2, 2}), 0, 1e-12));
        auto soft = labelTermWithGradient(logits, torch::tensor({0, -1}), costs, LabelTerm::SoftCost, 1.0);
        QVERIFY2(std::abs(soft.loss - 0.993307149075715) < 1e-12, qPrintable(QString::number(soft.loss, 'g', 15)));
        QVERIFY(torch::allclose(soft.gradient,
                                torch::tensor({-0.02493021251546326, 0.024930212515463263, 0.0, 0.0}, torch::kDouble)
                                    .reshape({2, 2}),
                                0, 1e-12));
        // Finite differences on two labelled rows, both terms.
        const auto labels = torch::tensor({0, 1});
        for (auto term : {LabelTerm::LogLoss, LabelTerm::SoftCost}) {
            const auto g = labelTermWithGradient(logits, labels, costs, term, 1.0).gradient;
            for (int64_t i = 0; i < 4; ++i) {
                auto up = logits.clone(), down = logits.clone();
                up.view({-1})[i] += 1e-6;
                down.view({-1})[i] -= 1e-6;
                const double numeric = (labelTermWithGradient(up, labels, costs, term, 1.0).loss -
                                        labelTermWithGradient(down, labels, costs, term, 1.0).loss) /
                                       2e-6;
                QVERIFY2(std::abs(numeric - g.view({-1})[i].item<double>()) < 1e-6,
                         qPrintable(QString("%1 %2: %3 against %4").arg(labelTermName(term)).arg(i).arg(numeric).arg(
                             g.view({-1})[i].item<double>())));
            }
        }
        QCOMPARE(labelTermFromName("soft_cost"), LabelTerm::SoftCost);
        QVERIFY(labelTermWithGradient(logits, torch::tensor({-1, -1}), costs, LabelTerm::LogLoss, 1.0)
                    .gradient.abs()
                    .sum()
                    .item<double>() == 0);
    }

    void initTestCase() { lcs::configureThreads(1); }

    void gradientMatchesFiniteDifferences_data()
    {
        QTest::addColumn<QString>("preset");
        QTest::addColumn<bool>("referral");
        QTest::newRow("synthetic 2 classes") << "synthetic" << false;
        QTest::newRow("mnist 10 classes") << "mnist" << false;
        QTest::newRow("10 classes + referral") << "cifar10" << true;
    }
    void gradientMatchesFiniteDifferences()
    {
        QFETCH(QString, preset);
        QFETCH(bool, referral);
        auto [costs, logits, p, L] = gradientCase(preset, referral, 5, 1);
        const int C = costs.numClasses();
        const double M = costs.utilityConstant();
        auto terms = correctionObjective(logits, p, L, M);
        auto grad = torch::autograd::grad({terms.loss}, {logits})[0];
        // Central differences with c held fixed (the objective's c carries no gradient): the
        // perturbation is far too small to change any argmin for these random logits.
        const double h = 1e-6;
        auto fixedDecisions = terms.decisions;
        for (int64_t i = 0; i < logits.size(0); ++i) {
            for (int64_t k = 0; k < C; ++k) {
                torch::NoGradGuard g;
                auto plus = logits.detach().clone();
                auto minus = logits.detach().clone();
                plus[i][k] += h;
                minus[i][k] -= h;
                auto tp = correctionObjective(plus, p, L, M);
                auto tm = correctionObjective(minus, p, L, M);
                QVERIFY(torch::equal(tp.decisions, fixedDecisions) && torch::equal(tm.decisions, fixedDecisions));
                const double numeric = (tp.loss.item<double>() - tm.loss.item<double>()) / (2 * h);
                QVERIFY2(std::abs(numeric - grad[i][k].item<double>()) < 1e-6,
                         qPrintable(QString("d/dlogit[%1][%2]: numeric %3 analytic %4")
                                        .arg(i).arg(k).arg(numeric).arg(grad[i][k].item<double>())));
            }
        }
    }

    void closedFormGradientMatchesAutograd_data() { gradientMatchesFiniteDifferences_data(); }
    void closedFormGradientMatchesAutograd()
    {
        QFETCH(QString, preset);
        QFETCH(bool, referral);
        auto [costs, logits, p, L] = gradientCase(preset, referral, 7, 2);
        const double M = costs.utilityConstant() * 1.3;
        auto reference = correctionObjective(logits, p, L, M);
        auto autogradGrad = torch::autograd::grad({reference.loss}, {logits})[0];
        auto manual = correctionObjectiveWithGradient(logits.detach(), p.log(), L, M);
        QVERIFY(std::abs(manual.terms.loss.item<double>() - reference.loss.item<double>()) < 1e-12);
        QVERIFY(std::abs(manual.terms.kl.item<double>() - reference.kl.item<double>()) < 1e-12);
        QVERIFY(torch::equal(manual.terms.decisions, reference.decisions));
        QVERIFY2(torch::allclose(manual.gradient, autogradGrad, 1e-9, 1e-12),
                 qPrintable(QString("max diff %1").arg((manual.gradient - autogradGrad).abs().max().item<double>())));
    }

    void objectiveEqualsHandComputation_data()
    {
        QTest::addColumn<HandCase>("hand");
        HandCase three;
        three.logits = {{0.5, -0.2, 0.1}, {-1.0, 0.3, 0.8}};
        three.p = {{0.6, 0.3, 0.1}, {0.2, 0.5, 0.3}};
        three.L = {{0.0, 1.0, 2.0}, {1.0, 0.0, 1.0}, {4.0, 2.0, 0.0}};
        three.M = 2.5;
        QTest::newRow("2 rows, 3 classes, M 2.5") << three;
        HandCase referral;
        // q(pos) ~ 0.2, 0.75, 0.03: refer, decide positive, decide negative.
        referral.logits = {{0.7, -0.7}, {-0.5, 0.6}, {1.8, -1.7}};
        referral.p = {{0.6, 0.4}, {0.5, 0.5}, {0.9, 0.1}};
        referral.L = {{0.0, 0.1, 0.05}, {1.0, 0.0, 0.05}};  // synthetic costs + referral at 0.05
        referral.M = 3.0;
        QTest::newRow("3 rows, 2 classes + referral, M 3") << referral;
    }
    void objectiveEqualsHandComputation()
    {
        // Both implementations of the objective against the objective's formula (calibration/correction.h) in plain
        // doubles, with M != 1 (so dropping M shows) and q far enough from p that the KL
        // term (and its sign) matters.
        QFETCH(HandCase, hand);
        const auto decisions = handDecisions(hand.logits, hand.L);
        const auto expected = handObjective(hand.logits, hand, decisions);
        QVERIFY(expected.kl > 0.05);
        QVERIFY(std::set<int64_t>(decisions.begin(), decisions.end()).size() > 1);
        const auto logits = tensorOf(hand.logits), p = tensorOf(hand.p), L = tensorOf(hand.L);

        const auto autogradTerms = correctionObjective(logits, p, L, hand.M);
        const auto closedForm = correctionObjectiveWithGradient(logits, p.log(), L, hand.M);
        for (const auto* terms : {&autogradTerms, &closedForm.terms}) {
            QCOMPARE(std::vector<int64_t>(terms->decisions.data_ptr<int64_t>(),
                                          terms->decisions.data_ptr<int64_t>() + terms->decisions.numel()),
                     decisions);
            QVERIFY2(std::abs(terms->loss.item<double>() - expected.loss) < 1e-12,
                     qPrintable(QString("loss %1, by hand %2").arg(terms->loss.item<double>(), 0, 'g', 15).arg(expected.loss, 0, 'g', 15)));
            QVERIFY2(std::abs(terms->kl.item<double>() - expected.kl) < 1e-12,
                     qPrintable(QString("KL %1, by hand %2").arg(terms->kl.item<double>(), 0, 'g', 15).arg(expected.kl, 0, 'g', 15)));
            QVERIFY2(std::abs(terms->expectedCost.item<double>() - expected.expectedCost) < 1e-12,
                     qPrintable(QString("expected cost %1, by hand %2")
                                    .arg(terms->expectedCost.item<double>(), 0, 'g', 15).arg(expected.expectedCost, 0, 'g', 15)));
        }

        // The closed-form gradient against central differences of the hand-written loss
        // (c held fixed, as the objective's c carries no gradient).
        const double h = 1e-5;
        for (size_t row = 0; row < hand.logits.size(); ++row) {
            for (size_t k = 0; k < hand.logits[row].size(); ++k) {
                auto plus = hand.logits, minus = hand.logits;
                plus[row][k] += h;
                minus[row][k] -= h;
                QCOMPARE(handDecisions(plus, hand.L), decisions);
                QCOMPARE(handDecisions(minus, hand.L), decisions);
                const double numeric =
                    (handObjective(plus, hand, decisions).loss - handObjective(minus, hand, decisions).loss) / (2 * h);
                const double analytic = closedForm.gradient[static_cast<int64_t>(row)][static_cast<int64_t>(k)].item<double>();
                QVERIFY2(std::abs(numeric - analytic) < 1e-8,
                         qPrintable(QString("d/dlogit[%1][%2]: numeric %3 analytic %4").arg(row).arg(k).arg(numeric).arg(analytic)));
            }
        }
    }

    void freeLogitsReachClosedForm_data()
    {
        QTest::addColumn<QVector<double>>("p");
        QTest::addColumn<int>("expectedDecision");
        // Synthetic costs: decide positive when q(pos) > 1/11.
        QTest::newRow("confidently negative") << QVector<double>{0.97, 0.03} << 0;
        QTest::newRow("near the 1/11 boundary, positive side") << QVector<double>{0.85, 0.15} << 1;
        QTest::newRow("positive") << QVector<double>{0.3, 0.7} << 1;
    }
    void freeLogitsReachClosedForm()
    {
        QFETCH(QVector<double>, p);
        QFETCH(int, expectedDecision);
        const auto costs = costPreset("synthetic");
        auto L = costTensor(costs, torch::kDouble);
        const double M = costs.utilityConstant();
        auto pt = torch::tensor(std::vector<double>(p.begin(), p.end()), torch::kDouble).unsqueeze(0);
        auto logits = pt.log().clone().requires_grad_(true);  // start at q = p
        torch::optim::Adam adam({logits}, torch::optim::AdamOptions(0.05));
        CorrectionTerms terms;
        for (int it = 0; it < 3000; ++it) {
            adam.zero_grad();
            terms = correctionObjective(logits, pt, L, M);
            terms.loss.backward();
            adam.step();
        }
        const int64_t c = terms.decisions[0].item<int64_t>();
        QCOMPARE(c, static_cast<int64_t>(expectedDecision));
        auto q = torch::softmax(logits.detach(), 1);
        auto closed = closedFormCorrection(pt, L, c, M);
        QVERIFY2(torch::allclose(q, closed, 0, 1e-4),
                 qPrintable(QString("q(pos) %1 vs closed form %2").arg(q[0][1].item<double>()).arg(closed[0][1].item<double>())));
        // The closed form is a fixed point: its own Bayes decision is c.
        QCOMPARE(bayesDecisions(closed, L)[0].item<int64_t>(), c);
        // Hand check for the first row: q ∝ p * exp(-L[:, c] / M).
        if (expectedDecision == 0) {
            const double a = p[0], b = p[1] * std::exp(-1.0);
            QVERIFY(std::abs(closed[0][1].item<double>() - b / (a + b)) < 1e-12);
        }
    }

    // A residual q (q = p exp(f(x)), f's last layer at zero) is p before any step, and
    // trained on three distinct inputs it reaches each input's closed-form optimum
    // q ∝ p exp(-L[., c] / M), as free logits do (freeLogitsReachClosedForm).
    void residualQStartsAtPAndReachesTheClosedForm()
    {
        const auto costs = costPreset("synthetic");
        const auto L = costTensor(costs, torch::kDouble);
        const double M = costs.utilityConstant();
        const auto p = torch::tensor(std::vector<float>{0.97f, 0.03f, 0.85f, 0.15f, 0.3f, 0.7f}).reshape({3, 2});
        const auto x = torch::tensor(std::vector<float>{-1.0f, 0.0f, 1.0f}).reshape({3, 1});
        CorrectionConfig config;
        config.residual = true;
        config.hidden = {32};
        config.epochs = 1;
        config.learningRate = 0;  // one step that moves nothing: q as it starts
        auto gen = makeGenerator(3);
        auto start = trainCorrection(x, p, costs, config, gen, {});
        QVERIFY(start.residual);
        QVERIFY(torch::allclose(correctedProbabilities(*start.q, x, p, true), p, 0, 1e-6));
        config.epochs = 4000;
        config.learningRate = 0.01;
        auto gen2 = makeGenerator(3);
        auto trained = trainCorrection(x, p, costs, config, gen2, {});
        const auto q = correctedProbabilities(*trained.q, x, p, true).to(torch::kDouble);
        const std::vector<int64_t> expected{0, 1, 1};
        for (int64_t i = 0; i < 3; ++i) {
            const auto c = expected[static_cast<size_t>(i)];
            QCOMPARE(bayesDecisions(q.slice(0, i, i + 1), L)[0].item<int64_t>(), c);
            const auto closed = closedFormCorrection(p.slice(0, i, i + 1).to(torch::kDouble), L, c, M);
            QVERIFY2(torch::allclose(q.slice(0, i, i + 1), closed, 0, 2e-3),
                     qPrintable(QString("row %1: q(pos) %2, closed form %3")
                                    .arg(i)
                                    .arg(q[i][1].item<double>())
                                    .arg(closed[0][1].item<double>())));
        }
    }

    void givenDecisionsReplaceTheCoordinateStep()
    {
        // q = p = (0.7, 0.3) on the synthetic costs (L[1, 0] = 1, L[0, 1] = 0.1, M = 1): the
        // Bayes decision is 1 (0.07 < 0.3). Given decision 0 instead, the loss is KL 0 plus
        // E_q[L[:, 0]] / M = 0.3; with the coordinate step it is 0.7 * 0.1 = 0.07.
        const auto costs = costPreset("synthetic");
        const auto L = costTensor(costs, torch::kDouble);
        const double M = costs.utilityConstant();
        const auto p = torch::tensor({0.7, 0.3}, torch::kDouble).unsqueeze(0);
        const auto own = correctionObjective(p.log(), p, L, M);
        QCOMPARE(own.decisions[0].item<int64_t>(), int64_t(1));
        QVERIFY(std::abs(own.loss.item<double>() - 0.07 / M) < 1e-12);
        const auto given = correctionObjective(p.log(), p, L, M, torch::tensor({int64_t(0)}));
        QCOMPARE(given.decisions[0].item<int64_t>(), int64_t(0));
        QVERIFY(std::abs(given.kl.item<double>()) < 1e-12);
        QVERIFY2(std::abs(given.loss.item<double>() - 0.3 / M) < 1e-12, qPrintable(QString::number(given.loss.item<double>())));
        QVERIFY_THROWS_EXCEPTION(c10::Error, correctionObjective(p.log(), p, L, M, torch::tensor({int64_t(0), int64_t(1)})));
    }

    void optimumCostsPickTheBestDecisionOverQAndC()
    {
        // Hand values: L = [[0, 1], [0.5, 0]], M = 1 -> 1 - exp(-L) = [[0, 0.63212], [0.39347, 0]].
        const auto L = torch::tensor({0.0, 1.0, 0.5, 0.0}, torch::kDouble).reshape({2, 2});
        const auto compressed = correctionOptimumCosts(L, 1.0);
        QVERIFY(std::abs(compressed[0][1].item<double>() - (1 - std::exp(-1.0))) < 1e-12);
        QVERIFY(std::abs(compressed[1][0].item<double>() - (1 - std::exp(-0.5))) < 1e-12);
        QCOMPARE(compressed[0][0].item<double>(), 0.0);
        // On the CamVid table, for random predictives: the Bayes decision under the
        // compressed costs minimises, over c, the objective KL(q || p) + E_q[L[:, c]] / M at
        // its closed-form q for that c (computed here term by term).
        const auto costs = costPreset("camvid");  // 12 x 12 with void, as in the paper
        const auto Lc = costTensor(costs, torch::kDouble);
        const double M = costs.utilityConstant();
        auto gen = makeGenerator(11);
        const auto p = torch::softmax(torch::randn({200, 12}, gen, torch::kDouble) * 1.5, 1);
        const auto chosen = bayesDecisions(p, correctionOptimumCosts(Lc, M));
        int differsFromBayes = 0;
        for (int64_t n = 0; n < p.size(0); ++n) {
            const auto pn = p[n].unsqueeze(0);
            double best = INFINITY;
            int64_t bestC = -1;
            for (int64_t c = 0; c < 12; ++c) {
                const auto q = closedFormCorrection(pn, Lc, c, M);
                const double f = (q * (q.log() - pn.log())).sum().item<double>() +
                                 (q * Lc.select(1, c).unsqueeze(0)).sum().item<double>() / M;
                if (f < best) {
                    best = f;
                    bestC = c;
                }
            }
            QCOMPARE(chosen[n].item<int64_t>(), bestC);
            differsFromBayes += bestC != bayesDecisions(pn, Lc)[0].item<int64_t>();
        }
        // And it is not simply the Bayes decision under L.
        QVERIFY2(differsFromBayes > 0, "the optimum never differed from Bayes under L");
    }

    void trainingLowersExpectedCostOnMiscalibratedPredictive()
    {
        // A predictive that is deliberately overconfident towards the majority class on a
        // 1-D problem (its boundary is shifted by 1.25 from sigmoid(2x)). q, trained from
        // scratch, must end with a lower expected decision cost than p has under p's own
        // decisions, while staying close to p (small KL).
        auto gen = makeGenerator(5);
        auto x = torch::linspace(-3, 3, 200).unsqueeze(1);
        auto overconfidentPos = torch::sigmoid(2.0 * x.squeeze(1) - 2.5);  // shifted: too sure of "negative"
        auto p = torch::stack({1 - overconfidentPos, overconfidentPos}, 1);
        const auto costs = costPreset("synthetic");
        auto L = costTensor(costs);
        const double pCost = (p * L.t().index_select(0, bayesDecisions(p, L))).sum(1).mean().item<double>();

        CorrectionConfig config;
        config.epochs = 400;
        config.hidden = {16};
        auto out = trainCorrection(x, p, costs, config, gen, {});
        QCOMPARE(static_cast<int>(out.curve.size()), 400);
        const auto& first = out.curve.front();
        const auto& last = out.curve.back();
        QVERIFY2(last.loss < first.loss, "the objective must decrease");
        QVERIFY2(last.expectedCost < pCost,
                 qPrintable(QString("expected cost under q %1 vs under p %2").arg(last.expectedCost).arg(pCost)));
        QVERIFY2(last.kl < 0.1, qPrintable(QString("KL(q||p) %1 should stay small").arg(last.kl)));
    }

    void rejectsMismatchedCostMatrix()
    {
        auto gen = makeGenerator(1);
        auto x = torch::randn({4, 2});
        auto p = torch::full({4, 3}, 1.0 / 3);
        QVERIFY_THROWS_EXCEPTION(CostMatrixError, trainCorrection(x, p, costPreset("synthetic"), {}, gen, {}));
    }

    void cancellationStopsTraining()
    {
        auto gen = makeGenerator(1);
        auto x = torch::randn({20, 2});
        auto p = torch::full({20, 2}, 0.5);
        CancelToken token;
        token.cancel();
        JobContext ctx{{}, &token};
        QVERIFY_THROWS_EXCEPTION(Cancelled, trainCorrection(x, p, costPreset("synthetic"), {}, gen, ctx));
    }
    void correctionLoopFollowsTheScheduleAndKeepsRowsAligned_data()
    {
        QTest::addColumn<int>("schedule");
        QTest::addColumn<int>("batchSize");
        QTest::addColumn<double>("expectedTheta");
        // SGD without momentum, gradient 1 every step, learning rate 1, 2 epochs:
        // theta = -sum_t lr_t. Whole set: 2 steps; batches of 4 of 10 rows: 6 steps.
        // Constant: -2 and -6. Cosine lr_t = (1 + cos(pi t / T)) / 2 for t = 0..T-1:
        // lr_0 = 1, lr_{T/2} = 1/2, and lr_t + lr_{T-t} = 1 for the other (T-2)/2 pairs,
        // so the sum is (T + 1) / 2: -1.5 and -3.5.
        QTest::newRow("constant, whole set") << int(LrSchedule::Constant) << 0 << -2.0;
        QTest::newRow("constant, batches of 4") << int(LrSchedule::Constant) << 4 << -6.0;
        QTest::newRow("cosine, whole set") << int(LrSchedule::Cosine) << 0 << -1.5;
        QTest::newRow("cosine, batches of 4") << int(LrSchedule::Cosine) << 4 << -3.5;
    }
    void correctionLoopFollowsTheScheduleAndKeepsRowsAligned()
    {
        QFETCH(int, schedule);
        QFETCH(int, batchSize);
        QFETCH(double, expectedTheta);
        // A fake q: checks that every input row arrives with its own stored predictive row
        // (x = i, p = [i, -i]), and reports the batch's mean row as its KL.
        struct Fake : CorrectionNetwork {
            torch::Tensor theta = torch::zeros({1}, torch::kDouble).requires_grad_();
            bool aligned = true;
            std::vector<at::Tensor> parameters() override { return {theta}; }
            CorrectionTerms objectiveAndGradient(const at::Tensor& x, const at::Tensor& p, const at::Tensor&, double,
                                                 const at::Tensor&, const LabelBatch&) override
            {
                aligned = aligned && torch::equal(p.select(1, 0), x.squeeze(1)) &&
                          torch::equal(p.select(1, 1), -x.squeeze(1));
                theta.mutable_grad() = torch::ones({1}, torch::kDouble);
                const auto zero = torch::zeros({});
                return {zero, x.mean(), zero, {}};
            }
            void setTraining(bool) override {}
            at::Tensor probabilities(const at::Tensor& x, const at::Tensor&) override
            {
                return torch::full({x.size(0), 2}, 0.5);
            }
        } q;
        const auto x = torch::arange(10, torch::kFloat).unsqueeze(1);
        const auto stored = torch::cat({x, -x}, 1);
        auto config = sgdCorrectionConfig(2, batchSize, 1.0, LrSchedule(schedule), 0.0);
        config.momentum = 0.0;
        auto gen = makeGenerator(2);
        const auto run = runCorrection(q, x, {nullptr, stored}, costPreset("synthetic"), config, gen, {});
        QVERIFY(q.aligned);
        QVERIFY2(std::abs(q.theta.item<double>() - expectedTheta) < 1e-9,
                 qPrintable(QString::number(q.theta.item<double>())));
        QCOMPARE(static_cast<int>(run.curve.size()), batchSize > 0 ? 6 : 2);
        QCOMPARE(static_cast<int>(run.epochCurve.size()), 2);
        // Each epoch visits every row once: the mean of its batches' means is 4.5 for
        // equal batches; batches of 4, 4, 2 weigh the last batch more, so check the whole
        // set's epochs exactly and the minibatch epochs' step count.
        if (batchSize == 0)
            QCOMPARE(run.epochCurve.front().kl, 4.5);
        QCOMPARE(run.epochCurve.back().step, 2);
    }

    // With a teacher between the rows (a student of a stored P), inputs moved by noise
    // are scored against the teacher at the moved inputs, not against P at their row.
    void aTeacherIsAskedAtTheNoisyInputs()
    {
        struct Fake : CorrectionNetwork {
            torch::Tensor theta = torch::zeros({1}, torch::kDouble).requires_grad_();
            bool teacherAtInputs = true, moved = false;
            std::vector<at::Tensor> parameters() override { return {theta}; }
            CorrectionTerms objectiveAndGradient(const at::Tensor& x, const at::Tensor& p, const at::Tensor&, double,
                                                 const at::Tensor&, const LabelBatch&) override
            {
                const auto s = torch::sigmoid(x.squeeze(1));
                teacherAtInputs = teacherAtInputs && torch::allclose(p.select(1, 0), s, 0, 1e-6);
                moved = moved || !torch::equal(x, x.round());  // the rows are integers
                theta.mutable_grad() = torch::zeros({1}, torch::kDouble);
                const auto zero = torch::zeros({});
                return {zero, zero, zero, {}};
            }
            void setTraining(bool) override {}
            at::Tensor probabilities(const at::Tensor& x, const at::Tensor& p) override { return p; }
        } q;
        const auto x = torch::arange(10, torch::kFloat).unsqueeze(1);
        const auto stored = torch::full({10, 2}, 0.5);  // what the rows say: never the teacher here
        auto config = sgdCorrectionConfig(3, 4, 0.1, LrSchedule::Constant, 0.0);
        config.inputNoiseStd = 0.5;
        PredictiveSource source{nullptr, stored, [](const at::Tensor& inputs) {
                                    const auto s = torch::sigmoid(inputs);
                                    return torch::cat({s, 1 - s}, 1);
                                }};
        auto gen = makeGenerator(5);
        runCorrection(q, x, source, costPreset("synthetic"), config, gen, {});
        QVERIFY(q.moved);
        QVERIFY(q.teacherAtInputs);

        // The student trainCorrection distils from P ends close to it: P = sigmoid(2x) on
        // a line is an MLP's to learn.
        const auto line = torch::linspace(-3, 3, 64).unsqueeze(1);
        const auto pos = torch::sigmoid(2 * line);
        const auto p = torch::cat({1 - pos, pos}, 1);
        CorrectionConfig c;
        c.epochs = 1;
        c.studentTeacherSteps = 400;
        c.warmStartSteps = 0;
        c.residual = true;
        auto gen2 = makeGenerator(6);
        const auto out = trainCorrection(line, p, costPreset("synthetic"), c, gen2, {});
        QVERIFY2(out.studentKl < 0.01, qPrintable(QString::number(out.studentKl)));
        c.studentTeacherSteps = 0;  // no student: nothing to report
        QVERIFY(std::isnan(trainCorrection(line, p, costPreset("synthetic"), c, gen2, {}).studentKl));
    }

    void heldOutObjectiveChoosesTheEpochQEndsWith_data()
    {
        QTest::addColumn<double>("pLogit");
        QTest::addColumn<int>("expectedKept");
        // q = softmax([theta, 0]) on every row, theta = -epoch (gradient 1, lr 1, one step
        // an epoch); p = softmax([pLogit, 0]). The held-out objective is lowest near
        // theta = pLogit: inside the run, at its start, or at its end.
        QTest::newRow("lowest mid-run") << -2.2 << 2;
        QTest::newRow("lowest at the warm start") << 0.8 << 0;
        QTest::newRow("lowest at the end") << -9.0 << 5;
    }
    void heldOutObjectiveChoosesTheEpochQEndsWith()
    {
        QFETCH(double, pLogit);
        QFETCH(int, expectedKept);
        struct Fake : CorrectionNetwork {
            torch::Tensor theta = torch::zeros({1}, torch::kDouble).requires_grad_();
            std::vector<at::Tensor> parameters() override { return {theta}; }
            CorrectionTerms objectiveAndGradient(const at::Tensor&, const at::Tensor&, const at::Tensor&, double,
                                                 const at::Tensor&, const LabelBatch&) override
            {
                theta.mutable_grad() = torch::ones({1}, torch::kDouble);
                const auto zero = torch::zeros({});
                return {zero, zero, zero, {}};
            }
            void setTraining(bool) override {}
            at::Tensor probabilities(const at::Tensor& x, const at::Tensor&) override
            {
                const auto z = torch::cat({theta.detach(), torch::zeros({1}, torch::kDouble)});
                return torch::softmax(z, 0).unsqueeze(0).expand({x.size(0), 2}).clone();
            }
        } q;
        const int epochs = 5;
        const auto x = torch::arange(20, torch::kFloat).unsqueeze(1);
        const auto pRow = torch::softmax(torch::tensor({pLogit, 0.0}, torch::kDouble), 0);
        const auto stored = pRow.to(torch::kFloat).unsqueeze(0).expand({20, 2}).clone();
        const auto costs = costPreset("synthetic");
        auto config = sgdCorrectionConfig(epochs, 0, 1.0, LrSchedule::Constant, 0.0);
        config.momentum = 0.0;
        config.heldOutShare = 0.25;
        auto gen = makeGenerator(3);
        const auto run = runCorrection(q, x, {nullptr, stored}, costs, config, gen, {});

        // The same objective by hand, for q at theta = -e, on one row (every row is alike).
        HandCase hand;
        hand.p = {{pRow[0].item<double>(), pRow[1].item<double>()}};
        const auto L = costTensor(costs, torch::kDouble);
        hand.L = {{L[0][0].item<double>(), L[0][1].item<double>()}, {L[1][0].item<double>(), L[1][1].item<double>()}};
        hand.M = costs.utilityConstant();
        QCOMPARE(run.heldOutInputs, int64_t{5});
        QCOMPARE(static_cast<int>(run.heldOutObjective.size()), epochs + 1);
        int best = 0;
        std::vector<double> expected;
        for (int e = 0; e <= epochs; ++e) {
            const std::vector<std::vector<double>> logits{{-static_cast<double>(e), 0.0}};
            expected.push_back(handObjective(logits, hand, handDecisions(logits, hand.L)).loss);
            QVERIFY2(std::abs(run.heldOutObjective[static_cast<size_t>(e)] - expected.back()) < 1e-5,
                     qPrintable(QString("epoch %1: %2, by hand %3").arg(e).arg(run.heldOutObjective[e]).arg(expected.back())));
            if (expected.back() < expected[static_cast<size_t>(best)])
                best = e;
        }
        QCOMPARE(best, expectedKept);
        QCOMPARE(run.keptEpoch, expectedKept);
        // q ends with the kept epoch's parameters, not the last epoch's.
        QCOMPARE(q.theta.item<double>(), -static_cast<double>(expectedKept));
    }

    void correctionStopsWhenTheLossIsNotFinite_data()
    {
        QTest::addColumn<double>("badLoss");
        QTest::newRow("nan") << std::numeric_limits<double>::quiet_NaN();
        QTest::newRow("inf") << std::numeric_limits<double>::infinity();
    }
    void correctionStopsWhenTheLossIsNotFinite()
    {
        QFETCH(double, badLoss);
        // A q whose loss breaks at its third step: the loop stops there, naming the step,
        // instead of training on and reporting NaN decisions.
        struct Diverging : CorrectionNetwork {
            torch::Tensor theta = torch::zeros({1}, torch::kDouble).requires_grad_();
            int calls = 0;
            double bad = 0;
            std::vector<at::Tensor> parameters() override { return {theta}; }
            CorrectionTerms objectiveAndGradient(const at::Tensor&, const at::Tensor&, const at::Tensor&, double,
                                                 const at::Tensor&, const LabelBatch&) override
            {
                theta.mutable_grad() = torch::ones({1}, torch::kDouble);
                const auto loss = torch::full({}, ++calls == 3 ? bad : 1.0, torch::kDouble);
                return {loss, torch::zeros({}), torch::zeros({}), {}};
            }
            void setTraining(bool) override {}
            at::Tensor probabilities(const at::Tensor& x, const at::Tensor&) override { return torch::full({x.size(0), 2}, 0.5); }
        } q;
        q.bad = badLoss;
        const auto x = torch::arange(10, torch::kFloat).unsqueeze(1);
        auto config = sgdCorrectionConfig(5, 0, 1.0, LrSchedule::Constant, 0.0);
        auto gen = makeGenerator(2);
        try {
            runCorrection(q, x, {nullptr, torch::full({10, 2}, 0.5)}, costPreset("synthetic"), config, gen, {},
                          "correction");
            QFAIL("a non-finite loss was accepted");
        } catch (const ResultError& e) {
            QVERIFY2(QString(e.what()).contains("correction diverged at step 3"), e.what());
        }
        QCOMPARE(q.calls, 3);
    }

};

QTEST_APPLESS_MAIN(TestCalibration)
#include "tst_calibration.moc"
