// The calibrations a practitioner uses (Platt, isotonic, vector scaling, the cheapest
// constant decision) against closed forms and hand-worked pools, and the choice of the
// kept rule by stratified k-fold cross-validation: its folds, its refusals, and that it
// keeps the rule that decides best on rows it was not fitted on.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <QtTest/QtTest>

#include "tests/probability_rows.h"

#include "engine/decision/calibrations.h"
#include "engine/decision/correction_evidence.h"
#include "engine/decision/rule_choice.h"

using namespace lcs;

namespace {

/// Two classes, every row's p1 from `p1`.
ClassProbabilities binary(const std::vector<double>& p1)
{
    std::vector<double> v;
    for (double x : p1) {
        v.push_back(1 - x);
        v.push_back(x);
    }
    return rows(2, v);
}

double logit(double p)
{
    return std::log(p / (1 - p));
}

/// L = [[0, 5], [1, 0]]: deciding "bad" for a good case costs 5, the reverse 1.
CostMatrix falseAlarmsCostFive()
{
    auto c = CostMatrix::zeroOne(2, {"good", "bad"});
    c.set(0, 1, 5);
    return c;
}

bool throwsWith(const std::function<void()>& f, const std::string& needle)
{
    try {
        f();
    } catch (const std::exception& e) {  // InputError (folds, labels) or std::invalid_argument (fits)
        if (std::string(e.what()).find(needle) != std::string::npos)
            return true;
        qWarning("message was: %s", e.what());
        return false;
    }
    return false;
}

} // namespace

class TestRuleChoice : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // The cheapest constant decision by hand: mean cost of each decision over the labels.
    void cheapestConstantDecisionByHand()
    {
        auto costs = falseAlarmsCostFive();
        // Labels good, good, bad: "good" costs 1/3, "bad" 10/3.
        QCOMPARE(cheapestConstantDecision({0, 0, 1}, costs), int64_t{0});
        // Labels bad x3, good: "good" 3/4, "bad" 5/4; with referral 0.5 refer costs 0.5.
        QCOMPARE(cheapestConstantDecision({1, 1, 1, 0}, costs), int64_t{0});
        costs.setReferral(0.5);
        QCOMPARE(cheapestConstantDecision({1, 1, 1, 0}, costs), int64_t{2});
        const auto fit = fitCalibration(CalibrationKind::Constant, binary({0.9, 0.1, 0.2, 0.3}), {1, 1, 1, 0}, costs);
        QCOMPARE(fit.decisions(binary({0.99, 0.01}), costs), (std::vector<int64_t>{2, 2}));
        QVERIFY(!fit.hasProbabilities());
    }

    // Platt with two distinct log-odds is a closed form: two parameters fit the two
    // groups' mean smoothed targets exactly. Group A: s = log 4, 10 rows, 6 bad; group B:
    // s = -log 4, 10 rows, 2 bad. N+ = 8, N- = 12: targets 9/10 and 1/14.
    void plattClosedForm()
    {
        std::vector<double> p1;
        std::vector<int64_t> labels;
        for (int i = 0; i < 10; ++i) {
            p1.push_back(0.8);
            labels.push_back(i < 6 ? 1 : 0);
        }
        for (int i = 0; i < 10; ++i) {
            p1.push_back(0.2);
            labels.push_back(i < 2 ? 1 : 0);
        }
        const double up = 0.9, down = 1.0 / 14;
        const double meanA = (6 * up + 4 * down) / 10, meanB = (2 * up + 8 * down) / 10;
        const double a = (logit(meanA) - logit(meanB)) / (2 * std::log(4.0));
        const double b = (logit(meanA) + logit(meanB)) / 2;
        const auto fit = fitPlatt(binary(p1), labels);
        QVERIFY2(std::abs(fit.a - a) < 1e-8, qPrintable(QString("a %1, expected %2").arg(fit.a).arg(a)));
        QVERIFY2(std::abs(fit.b - b) < 1e-8, qPrintable(QString("b %1, expected %2").arg(fit.b).arg(b)));
        // Applied: group A's rows get the group's mean target.
        FittedCalibration f;
        f.kind = CalibrationKind::Platt;
        f.platt = fit;
        const auto calibrated = f.probabilities(binary({0.8, 0.2}));
        QVERIFY(std::abs(calibrated.row(0)[1] - meanA) < 1e-8);
        QVERIFY(std::abs(calibrated.row(1)[1] - meanB) < 1e-8);
        QVERIFY(std::abs(calibrated.row(1)[0] + calibrated.row(1)[1] - 1) < 1e-12);
    }

    // Pool adjacent violators by hand: labels 0, 1, 0, 1 at p1 0.1..0.4 pool the middle
    // pair to 0.5; between knots linear, outside them clipped; equal p1 pooled first.
    void isotonicByHand()
    {
        const auto map = fitIsotonic(binary({0.3, 0.1, 0.4, 0.2}), {0, 0, 1, 1});
        QCOMPARE(map.x, (std::vector<double>{0.1, 0.2, 0.3, 0.4}));
        QCOMPARE(map.y, (std::vector<double>{0.0, 0.5, 0.5, 1.0}));
        QVERIFY(std::abs(map(0.25) - 0.5) < 1e-12);
        QVERIFY(std::abs(map(0.35) - 0.75) < 1e-12);
        QVERIFY(std::abs(map(0.15) - 0.25) < 1e-12);
        QCOMPARE(map(0.01), 0.0);
        QCOMPARE(map(0.99), 1.0);
        // Three rows at p1 0.5 (one bad) and one at 0.9 (good): 1/3, then a violator
        // pooled with it to 1/4 over [0.5, 0.9].
        const auto tied = fitIsotonic(binary({0.5, 0.5, 0.9, 0.5}), {0, 1, 0, 0});
        QCOMPARE(tied.x, (std::vector<double>{0.5, 0.9}));
        QVERIFY(std::abs(tied.y[0] - 0.25) < 1e-12 && std::abs(tied.y[1] - 0.25) < 1e-12);
    }

    // Vector scaling on rows of one P: only w z + b per class is identified, and the MLE
    // of a categorical is the label frequencies (5, 3, 2 of 10), up to the 1e-4 ridge.
    // On the three-class P = softmax(2 z) of a known z, the fit from labels drawn from
    // softmax(z) recovers w near 1/2 (temperature 2) on every class.
    void vectorScalingClosedForms()
    {
        std::vector<double> v;
        for (int i = 0; i < 10; ++i)
            v.insert(v.end(), {1.0 / 3, 1.0 / 3, 1.0 / 3});
        const auto flat = rows(3, v);
        const std::vector<int64_t> labels{0, 0, 0, 0, 0, 1, 1, 1, 2, 2};
        FittedCalibration f;
        f.kind = CalibrationKind::Vector;
        f.vector = fitVectorScaling(flat, labels);
        const auto c = f.probabilities(rows(3, {1.0 / 3, 1.0 / 3, 1.0 / 3}));
        QVERIFY2(std::abs(c.row(0)[0] - 0.5) < 2e-3 && std::abs(c.row(0)[1] - 0.3) < 2e-3 &&
                     std::abs(c.row(0)[2] - 0.2) < 2e-3,
                 qPrintable(QString("%1 %2 %3").arg(c.row(0)[0]).arg(c.row(0)[1]).arg(c.row(0)[2])));

        // Overconfident by a factor 2: rows of logits z in a grid, labels in the exact
        // proportions softmax(z) gives (100 rows per pattern).
        std::vector<double> sharp;
        std::vector<int64_t> y;
        const std::vector<std::vector<double>> patterns{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {0.5, 0, -0.5},
                                                        {-0.5, 0.5, 0}, {0, -0.5, 0.5}};
        for (const auto& z : patterns) {
            double e[3], s = 0, es[3], ss = 0;
            for (int k = 0; k < 3; ++k) {
                s += (e[k] = std::exp(z[static_cast<size_t>(k)]));
                ss += (es[k] = std::exp(2 * z[static_cast<size_t>(k)]));
            }
            int counts[3];
            int total = 0;
            for (int k = 0; k < 3; ++k)
                total += (counts[k] = static_cast<int>(std::lround(100 * e[k] / s)));
            counts[0] += 100 - total;
            for (int k = 0; k < 3; ++k)
                for (int r = 0; r < counts[k]; ++r) {
                    sharp.insert(sharp.end(), {es[0] / ss, es[1] / ss, es[2] / ss});
                    y.push_back(k);
                }
        }
        const auto fit = fitVectorScaling(rows(3, sharp), y);
        for (double w : fit.scale)
            QVERIFY2(std::abs(w - 0.5) < 0.02, qPrintable(QString::number(w)));
    }

    void calibrationsOffered()
    {
        const auto two = calibrationsFor(2);
        const auto many = calibrationsFor(4);
        QCOMPARE(std::string(calibrationName(two.at(0))), std::string("temperature"));
        QCOMPARE(std::string(calibrationName(two.at(1))), std::string("offsets"));
        QVERIFY(std::find(two.begin(), two.end(), CalibrationKind::Platt) != two.end());
        QVERIFY(std::find(two.begin(), two.end(), CalibrationKind::Isotonic) != two.end());
        QVERIFY(std::find(two.begin(), two.end(), CalibrationKind::Vector) == two.end());
        QVERIFY(std::find(many.begin(), many.end(), CalibrationKind::Vector) != many.end());
        QVERIFY(std::find(many.begin(), many.end(), CalibrationKind::Platt) == many.end());
        QCOMPARE(many.back(), CalibrationKind::Constant);
    }

    // Folds: each class dealt round the folds, so every fold's count of a class differs
    // from another's by at most one; the same seed gives the same folds.
    void foldsAreStratified()
    {
        std::vector<int64_t> labels;
        for (int i = 0; i < 23; ++i)
            labels.push_back(i % 7 == 0 ? 1 : 0);  // 4 of class 1
        const auto folds = stratifiedFolds(labels, 4, 9);
        std::map<std::pair<int, int64_t>, int> count;
        for (size_t i = 0; i < labels.size(); ++i)
            ++count[{folds[i], labels[i]}];
        for (int f = 0; f < 4; ++f) {
            const int bad = count[std::make_pair(f, int64_t{1})], good = count[std::make_pair(f, int64_t{0})];
            QCOMPARE(bad, 1);
            QVERIFY(good >= 4 && good <= 5);
        }
        QCOMPARE(stratifiedFolds(labels, 4, 9), folds);
    }

    // Grouped folds keep every row of a group in one fold and deal the groups round the
    // folds: 7 groups of uneven size over 3 folds give 3, 2 and 2 groups.
    void groupedFoldsKeepGroupsWhole()
    {
        const std::vector<int64_t> groups{5, 5, 5, 2, 2, 9, 9, 9, 9, 1, 4, 4, 7, 7, 7, 3};
        const auto folds = groupedFolds(groups, 3, 4);
        std::map<int64_t, std::set<int>> foldsOfGroup;
        std::map<int, std::set<int64_t>> groupsOfFold;
        for (size_t i = 0; i < groups.size(); ++i) {
            foldsOfGroup[groups[i]].insert(folds[i]);
            groupsOfFold[folds[i]].insert(groups[i]);
        }
        for (const auto& [group, in] : foldsOfGroup)
            QCOMPARE(in.size(), size_t{1});
        std::vector<size_t> sizes;
        for (const auto& [fold, in] : groupsOfFold)
            sizes.push_back(in.size());
        std::sort(sizes.begin(), sizes.end());
        QCOMPARE(sizes, (std::vector<size_t>{2, 2, 3}));
        QCOMPARE(groupedFolds(groups, 3, 4), folds);
    }

    // The standard error over groups, by hand. Paired differences (rule minus P) on 8
    // rows in 4 groups of 2: (-1, -1), (-1, 0), (0, 0), (0, +1); mean -1/4. The groups'
    // summed deviations are -1.5, -0.5, 0.5, 1.5, so the cluster-robust standard error is
    // sqrt(4/3 x 5) / 8 = 0.322749; the plain one, rows taken as independent, is
    // sqrt(3.5 / 7 / 8) = 0.25.
    void standardErrorOverGroupsByHand()
    {
        const auto costs = CostMatrix::zeroOne(2, {"good", "bad"});
        const std::vector<int64_t> labels(8, 0), groups{0, 0, 1, 1, 2, 2, 3, 3};
        const std::vector<int64_t> pDecisions{1, 1, 1, 0, 0, 0, 0, 0}, rule{0, 0, 0, 0, 0, 0, 0, 1};
        const auto p = binary(std::vector<double>(8, 0.3));
        const auto grouped =
            chooseRuleByCrossValidation(p, {{"P", pDecisions}, {"R", rule}}, labels, costs, {}, 2, 1, 0, groups);
        QVERIFY(std::abs(grouped.candidates[1].changeVsFirst + 0.25) < 1e-12);
        QVERIFY2(std::abs(grouped.candidates[1].standardError - std::sqrt(4.0 / 3 * 5) / 8) < 1e-12,
                 qPrintable(QString::number(grouped.candidates[1].standardError, 'g', 12)));
        QVERIFY2(grouped.reason.find("in 4 groups kept whole") != std::string::npos, grouped.reason.c_str());
        const auto plain = chooseRuleByCrossValidation(p, {{"P", pDecisions}, {"R", rule}}, labels, costs, {}, 2, 1);
        QVERIFY(std::abs(plain.candidates[1].standardError - 0.25) < 1e-12);
        QVERIFY(throwsWith([&] {
            chooseRuleByCrossValidation(p, {{"P", pDecisions}}, labels, costs, {}, 2, 1, 0, {0, 1});
        }, "2 groups for 8 labelled rows"));
    }

    // Folds asked for that a class cannot fill, and labels of one class, are refused with
    // what is short and by how much; 0 chooses 5, fewer where a class has fewer rows.
    void foldsRefusedOrChosen()
    {
        const auto costs = falseAlarmsCostFive();
        const std::vector<int64_t> threeBad{0, 0, 0, 0, 0, 0, 0, 1, 1, 1};
        QVERIFY(throwsWith([&] { foldsFor(threeBad, costs, 5); }, "class \"bad\" has 3 labelled validation row(s), 2 short"));
        QVERIFY(throwsWith([&] { foldsFor(threeBad, costs, 4); }, "1 short of one per fold; ask for at most 3"));
        QCOMPARE(foldsFor(threeBad, costs, 3), 3);
        QCOMPARE(foldsFor(threeBad, costs, 0), 3);
        QCOMPARE(foldsFor({0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1}, costs, 0), 5);
        QVERIFY(throwsWith([&] { foldsFor({0, 0, 0}, costs, 0); }, "only class \"good\""));
        QVERIFY(throwsWith([&] { foldsFor(threeBad, costs, 1); }, "2 or more folds"));
        QVERIFY(throwsWith([&] { fitCalibration(CalibrationKind::Platt, binary({0.2, 0.3}), {1, 1}, costs); },
                           "at least two classes"));
        QVERIFY(throwsWith([&] { fitPlatt(rows(3, {0.2, 0.3, 0.5}), {1}); }, "two classes, not 3"));
    }

    // P ranks the rows right but sits on the wrong side of 1/2 for the bad ones (p1 0.4
    // against 0.1): under 0/1 costs P decides "good" everywhere and costs the bad share,
    // temperature cannot move a two-class argmax, and the offsets (first of the rules that
    // decide every row right) are kept, at a cross-validated cost of 0.
    void crossValidationKeepsTheRuleThatDecidesBest()
    {
        const auto costs = CostMatrix::zeroOne(2, {"good", "bad"});
        std::vector<double> p1;
        std::vector<int64_t> labels;
        for (int i = 0; i < 40; ++i) {
            const bool bad = i % 4 == 0;
            p1.push_back(bad ? 0.4 : 0.1);
            labels.push_back(bad ? 1 : 0);
        }
        const auto p = binary(p1);
        const std::vector<int64_t> pDecisions(40, 0);
        auto qDecisions = labels;
        qDecisions[0] = 0;  // q gets one bad row wrong
        const auto choice = chooseRuleByCrossValidation(p, {{"P", pDecisions}, {"q", qDecisions}}, labels, costs,
                                                        calibrationsFor(2), 5, 3);
        QCOMPARE(choice.kept, std::string("offsets"));
        QCOMPARE(choice.folds, 5);
        std::map<std::string, double> cost;
        for (const auto& c : choice.candidates)
            cost[c.rule] = c.cost;
        QCOMPARE(cost["P"], 0.25);
        QCOMPARE(cost["q"], 1.0 / 40);
        QCOMPARE(cost["temperature"], 0.25);
        QCOMPARE(cost["offsets"], 0.0);
        QCOMPARE(cost["isotonic"], 0.0);
        QCOMPARE(cost["constant"], 0.25);
        QVERIFY2(choice.reason.find("5-fold cross-validation on 40") != std::string::npos, choice.reason.c_str());
        // A tie keeps the rule offered first: P and q equally good keeps P.
        const auto tie = chooseRuleByCrossValidation(p, {{"P", pDecisions}, {"q", pDecisions}}, labels, costs, {}, 5, 3);
        QCOMPARE(tie.kept, std::string("P"));
    }

    // The guard: q better than P on 1 of 40 rows is a change of -1/40 with a standard
    // error of sqrt((0.975^2 + 39 x 0.025^2) / 39) / sqrt(40) = 1/40: not beyond one
    // standard error, so cv keeps P; unguarded, q. Better on 10 of 40: -0.25 against a
    // standard error of 0.069, kept under the guard too.
    void guardKeepsPUnlessARuleIsBetterBeyondOneStandardError()
    {
        const auto costs = CostMatrix::zeroOne(2, {"good", "bad"});
        std::vector<int64_t> labels(40, 0), pDecisions(40, 0), qDecisions(40, 0), tenBetter(40, 0);
        for (int i = 0; i < 10; ++i)
            labels[static_cast<size_t>(i)] = 1;  // P misses all ten bad rows
        qDecisions[0] = 1;                       // q catches one
        for (int i = 0; i < 10; ++i)
            tenBetter[static_cast<size_t>(i)] = 1;
        const auto p = binary(std::vector<double>(40, 0.3));
        const auto guarded = chooseRuleByCrossValidation(p, {{"P", pDecisions}, {"q", qDecisions}}, labels, costs, {},
                                                         5, 1, kSelectionGuard);
        QCOMPARE(guarded.kept, std::string("P"));
        QVERIFY(std::abs(guarded.candidates[1].changeVsFirst + 1.0 / 40) < 1e-12);
        QVERIFY2(std::abs(guarded.candidates[1].standardError - 1.0 / 40) < 1e-12,
                 qPrintable(QString::number(guarded.candidates[1].standardError, 'g', 12)));
        QVERIFY2(guarded.reason.find("no rule beat P by more than 1.0 standard error") != std::string::npos,
                 guarded.reason.c_str());
        QCOMPARE(chooseRuleByCrossValidation(p, {{"P", pDecisions}, {"q", qDecisions}}, labels, costs, {}, 5, 1).kept,
                 std::string("q"));
        QCOMPARE(chooseRuleByCrossValidation(p, {{"P", pDecisions}, {"q", tenBetter}}, labels, costs, {}, 5, 1,
                                             kSelectionGuard)
                     .kept,
                 std::string("q"));
    }

    // The cross-validated cost is scored on rows the rule was not fitted on, by hand: 4
    // good and 3 bad rows, missing a bad one costs 1.5, two folds (good rows dealt 0, 1, 0,
    // 1, then bad 0, 1, 0). Fitted on fold 1 (2 good, 1 bad) the cheapest constant is
    // "good", which costs 2 x 1.5 on fold 0; fitted on fold 0 (2 and 2) it is "bad", which
    // costs 2 x 1 on fold 1: 5/7. Fitted on all rows it would be "bad" everywhere: 4/7.

    // A rule that never met its dear mistake on the validation rows: "sharp" saves 11
    // false alarms on 68 rows (a missed malignant costs 10, a false alarm 1) and meets no
    // malignant row where it differs from P. Paired difference -11/68 = -0.1618 with a
    // standard error sqrt((11 - 68 x 0.1618^2) / 67 / 68) = 0.04499: beyond one standard
    // error, so the plain guard would move off P. The unseen row at the dearest change
    // (+10: malignant, P says malignant, sharp says benign) gives 69 differences with mean
    // -1/69 = -0.0145 and standard error sqrt((111 - 69 x 0.0145^2) / 68 / 69) = 0.1538:
    // P is kept.
    void guardCountsOneUnseenRowAtTheDearestChange()
    {
        auto costs = CostMatrix::zeroOne(2, {"malignant", "benign"});
        costs.set(0, 1, 10.0);
        std::vector<int64_t> labels(68, 1), pDecisions(68, 1), sharp(68, 1);
        for (size_t i = 0; i < 6; ++i)
            labels[i] = pDecisions[i] = sharp[i] = 0;  // malignant, both treat it
        for (size_t i = 6; i < 17; ++i)
            pDecisions[i] = 0;  // benign, P raises a false alarm, sharp does not
        const auto p = binary(std::vector<double>(68, 0.5));
        const auto choice =
            chooseRuleByCrossValidation(p, {{"P", pDecisions}, {"sharp", sharp}}, labels, costs, {}, 5, 1, kSelectionGuard);
        const auto& s = choice.candidates[1];
        QVERIFY(std::abs(s.changeVsFirst + 11.0 / 68) < 1e-12);
        QVERIFY2(std::abs(s.standardError - 0.044987) < 1e-6, qPrintable(QString::number(s.standardError, 'g', 8)));
        QCOMPARE(s.dearestChange, 10.0);
        QCOMPARE(choice.kept, std::string("P"));
        QVERIFY2(choice.reason.find("one more row at its dearest change") != std::string::npos, choice.reason.c_str());
        // q's rule counts no unseen row (its KL term bounds how far it moves from P): the
        // plain guard, -0.1618 + 0.0450 < 0, keeps it.
        QCOMPARE(chooseRuleByCrossValidation(p, {{"P", pDecisions}, {"q", sharp, false}}, labels, costs, {}, 5, 1,
                                             kSelectionGuard)
                     .kept,
                 std::string("q"));
        // With a false alarm saved on 40 of the 62 benign rows the gain survives the
        // unseen row: mean -30/69 = -0.4348, standard error 0.1645.
        for (size_t i = 17; i < 46; ++i)
            pDecisions[i] = 0;
        QCOMPARE(chooseRuleByCrossValidation(p, {{"P", pDecisions}, {"sharp", sharp}}, labels, costs, {}, 5, 1,
                                             kSelectionGuard)
                     .kept,
                 std::string("sharp"));
    }
    void crossValidatedCostIsOutOfFold()
    {
        auto costs = CostMatrix::zeroOne(2, {"good", "bad"});
        costs.set(1, 0, 1.5);
        const std::vector<int64_t> labels{0, 0, 0, 0, 1, 1, 1};
        const auto p = binary({0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5});
        const auto choice =
            chooseRuleByCrossValidation(p, {}, labels, costs, {CalibrationKind::Constant}, 2, 11);
        QCOMPARE(choice.candidates.size(), size_t{1});
        QVERIFY2(std::abs(choice.candidates[0].cost - 5.0 / 7) < 1e-12,
                 qPrintable(QString::number(choice.candidates[0].cost)));
    }

    // The whole evidence under cross-validation: every calibration scored on the test
    // rows against P, the kept rule named first in the text and in the JSON; a one-class
    // validation set refused before anything is fitted.
    void evidenceKeepsAndReportsTheChosenRule()
    {
        const auto costs = CostMatrix::zeroOne(2, {"good", "bad"});
        std::vector<double> p1;
        std::vector<int64_t> labels;
        for (int i = 0; i < 40; ++i) {
            p1.push_back(i % 4 == 0 ? 0.4 : 0.1);
            labels.push_back(i % 4 == 0 ? 1 : 0);
        }
        const auto p = binary(p1);
        const auto e = gatherCorrectionEvidence(p, p, labels, p, p, labels, costs, Selection::CrossValidation, 5);
        QCOMPARE(e.kept, std::string("offsets"));
        QVERIFY(e.rule("offsets") && e.rule("offsets")->cost == 0.0);
        QVERIFY(e.rule("platt") && e.rule("isotonic") && e.rule("constant") && !e.rule("vector"));
        QCOMPARE(e.comparison("offsets")->verdict, Verdict::Better);
        const auto text = correctionEvidenceText(e, costs);
        QVERIFY2(text.rfind("Decisions kept: offsets. offsets lowered", 0) == 0, text.c_str());
        const auto json = correctionEvidenceJson(e, costs);
        QCOMPARE(json.at("kept").get<std::string>(), std::string("offsets"));
        QCOMPARE(json.at("cross_validation").at("folds").get<int>(), 5);
        QCOMPARE(json.at("cross_validation").at("cost").at("P").get<double>(), 0.25);
        QCOMPARE(json.at("calibrations").size(), size_t{5});

        const std::vector<int64_t> allGood(40, 0);
        QVERIFY(throwsWith(
            [&] { gatherCorrectionEvidence(p, p, allGood, p, p, labels, costs, Selection::CrossValidation, 5); },
            "only class \"good\""));
        QVERIFY(throwsWith(
            [&] { gatherCorrectionEvidence(p, p, labels, p, p, labels, costs, Selection::CrossValidation, 5, 20); },
            "10 short"));
    }
};

QTEST_GUILESS_MAIN(TestRuleChoice)
#include "tst_rule_choice.moc"
