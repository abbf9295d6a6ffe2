// CamVid segmentation on tiny generated frames: SegNet's shapes and MC dropout, the
// streaming metrics against hand counts and against the per-point evaluator, the
// LC-MC-dropout loss against a hand computation, the 12 -> 11 class cost table,
// train / eval / frames-per-second end to end, and the window's in-memory job: a
// re-correction retrains only q and lowers the cost under the new matrix; the frames the
// evaluation visits agree with the metrics it reports.
#include <array>
#include <cmath>
#include <map>
#include <tuple>

#include <QtTest/QtTest>

#include <nlohmann/json.hpp>

#include <ATen/Parallel.h>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <torch/torch.h>

#include "base/core/atomic_file.h"
#include "base/core/input_error.h"
#include "base/models/architectures.h"
#include "datasets/camvid_data.h"
#include "engine/calibration/image_training.h"
#include "engine/core/threads.h"
#include "engine/decision/decisions.h"
#include "engine/decision/metrics_accumulator.h"
#include "engine/experiments/camvid/camvid_experiment.h"
#include "engine/experiments/camvid/camvid_networks.h"
#include "engine/io/model_io.h"
#include "engine/models/segnet.h"
#include "tests/tiny_camvid.h"

using namespace lcs;

namespace {

/// A frame whose left half is road (3) and right half car (8), with a void border row;
/// the image is dark where the road is and bright where the car is (plus noise).
void writeFrame(const QString& dir, const QString& split, const QString& name, int seed)
{
    cv::Mat image(32, 32, CV_8UC3), label(32, 32, CV_8UC1);
    cv::RNG rng(static_cast<uint64_t>(seed));
    for (int r = 0; r < 32; ++r)
        for (int c = 0; c < 32; ++c) {
            const bool car = c >= 16;
            const int base = car ? 200 : 40;
            image.at<cv::Vec3b>(r, c) = cv::Vec3b(cv::saturate_cast<uchar>(base + rng.uniform(-20, 20)),
                                                  cv::saturate_cast<uchar>(base + rng.uniform(-20, 20)),
                                                  cv::saturate_cast<uchar>(base + rng.uniform(-20, 20)));
            label.at<uchar>(r, c) = r == 0 ? 11 : (car ? 8 : 3);
        }
    QDir().mkpath(dir + "/" + split);
    QDir().mkpath(dir + "/" + split + "annot");
    QVERIFY(cv::imwrite((dir + "/" + split + "/" + name).toStdString(), image));
    QVERIFY(cv::imwrite((dir + "/" + split + "annot/" + name).toStdString(), label));
}

/// Three bands: road (dark) on the left, car (bright) on the right, and a grey middle
/// band whose labels are car or road at random, so that S is unsure there and the cost
/// matrix decides; a void top row.
void writeAmbiguousFrame(const QString& dir, const QString& split, const QString& name, int seed)
{
    cv::Mat image(32, 32, CV_8UC3), label(32, 32, CV_8UC1);
    cv::RNG rng(static_cast<uint64_t>(seed));
    for (int r = 0; r < 32; ++r)
        for (int c = 0; c < 32; ++c) {
            const int band = c < 11 ? 0 : (c < 21 ? 1 : 2);
            const int base = band == 0 ? 40 : (band == 1 ? 120 : 200);
            image.at<cv::Vec3b>(r, c) = cv::Vec3b(cv::saturate_cast<uchar>(base + rng.uniform(-15, 15)),
                                                  cv::saturate_cast<uchar>(base + rng.uniform(-15, 15)),
                                                  cv::saturate_cast<uchar>(base + rng.uniform(-15, 15)));
            const bool car = band == 2 || (band == 1 && rng.uniform(0, 2) == 1);
            label.at<uchar>(r, c) = r == 0 ? 11 : (car ? 8 : 3);
        }
    QDir().mkpath(dir + "/" + split);
    QDir().mkpath(dir + "/" + split + "annot");
    QVERIFY(cv::imwrite((dir + "/" + split + "/" + name).toStdString(), image));
    QVERIFY(cv::imwrite((dir + "/" + split + "annot/" + name).toStdString(), label));
}

/// 0/1 costs on the 11 CamVid classes with one entry raised: L[truth, decision] = value.
CostMatrix camvidCostsWith(int truth, int decision, double value)
{
    auto costs = camvidDecisionCosts(costPreset("camvid"));
    std::vector<double> values;
    for (int y = 0; y < 11; ++y)
        for (int d = 0; d < 11; ++d)
            values.push_back(y == truth && d == decision ? value : (y == d ? 0.0 : 1.0));
    return CostMatrix(11, values, false, costs.classNames());
}

/// mean over pixels of min_d sum_y p(y) L[y, d]: the expected cost of the Bayes decision
/// under `net`'s own predictive (what the correction's cost term lowers).
double expectedBayesCost(ClassifierImpl& net, const at::Tensor& frames, const CostMatrix& costs)
{
    const auto p = classRows(predictClassProbabilities(net, frames));
    return torch::matmul(p, costTensor(costs)).amin(1).mean().item<double>();
}

/// Share of pixels whose Bayes decision under `costs` is Car (8).
double carShare(ClassifierImpl& net, const at::Tensor& frames, const CostMatrix& costs)
{
    const auto p = classRows(predictClassProbabilities(net, frames));
    return bayesDecisions(p, costTensor(costs)).eq(8).to(at::kDouble).mean().item<double>();
}

/// Share of pixels whose Bayes decision under S with compressed costs 1 - exp(-L/M) is Car.
double compressedCarShare(ClassifierImpl& net, const at::Tensor& frames, const CostMatrix& costs)
{
    const auto p = classRows(predictClassProbabilities(net, frames));
    const auto L = 1 - torch::exp(-costTensor(costs) / costs.utilityConstant());
    return bayesDecisions(p, L).eq(8).to(at::kDouble).mean().item<double>();
}

std::vector<at::Tensor> parameterCopies(const ClassifierImpl& net)
{
    std::vector<at::Tensor> out;
    for (const auto& t : net.parameters())
        out.push_back(t.detach().clone());
    return out;
}

bool sameParameters(const std::vector<at::Tensor>& a, const ClassifierImpl& net)
{
    const auto b = net.parameters();
    if (a.size() != b.size())
        return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (!a[i].equal(b[i].detach()))
            return false;
    return true;
}

} // namespace

class TestSegmentation : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        // One intra-op thread: the trained networks, and so the thresholds below, are
        // then the same on every run.
        lcs::configureThreads(1);
    }

    void segnetShapesAndMcDropout()
    {
        auto light = makeSegNet("segnet_light", 3, 11, 0.3);
        QCOMPARE(light->forward(torch::randn({2, 3, 32, 48})).sizes(), (c10::IntArrayRef{2, 11, 32, 48}));
        auto full = makeSegNet("segnet", 3, 11, 0.3);
        QCOMPARE(full->forward(torch::randn({1, 3, 32, 32})).sizes(), (c10::IntArrayRef{1, 11, 32, 32}));
        QCOMPARE(static_cast<int>(full->encoder->size()), 5);
        torch::NoGradGuard noGrad;
        light->eval();
        const auto x = torch::randn({1, 3, 16, 16});
        QVERIFY(light->forward(x).equal(light->forward(x)));  // eval: deterministic
        light->mcDropout = true;
        QVERIFY(!light->forward(x).equal(light->forward(x)));  // MC dropout: two samples differ
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, makeSegNet("segnet_huge", 3, 11, 0.3));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, makeSegNet("resnet18", 3, 11, 0.3));

        // The light layouts by hand (3x3 convs without bias, BN weight and bias per channel).
        // segnet_light: encoder 3-16 | 16-32 | 32-64, 64-64 | 64-64, 64-64; decoder mirrored
        // 64-64, 64-64 | 64-32, 32-32 | 32-16 | 16-16; classifier 16-11 with bias.
        // segnet_light2 adds a second conv to the first two stages on both sides: 16-16,
        // 32-32 in the encoder, 16-16, 16-16 in the decoder.
        const auto stage = [](int64_t in, int64_t out) { return 9 * in * out + 2 * out; };
        const int64_t lightByHand = stage(3, 16) + stage(16, 32) + stage(32, 64) + stage(64, 64) +
                                    2 * stage(64, 64) + 2 * stage(64, 64) + stage(64, 32) + stage(32, 32) +
                                    stage(32, 16) + stage(16, 16) + 9 * 16 * 11 + 11;
        const int64_t light2ByHand = lightByHand + stage(16, 16) + stage(32, 32) + 2 * stage(16, 16);
        const auto parameterCount = [](const std::shared_ptr<SegNetImpl>& net) {
            int64_t n = 0;
            for (const auto& p : net->parameters())
                n += p.numel();
            return n;
        };
        QCOMPARE(parameterCount(light), lightByHand);
        QCOMPARE(lightByHand, int64_t{245003});
        auto light2 = makeSegNet("segnet_light2", 3, 11, 0.3);
        QCOMPARE(parameterCount(light2), light2ByHand);
        QCOMPARE(light2ByHand, int64_t{245003 + 2336 + 9280 + 2 * 2336});
        QCOMPARE(light2->forward(torch::randn({1, 3, 32, 48})).sizes(), (c10::IntArrayRef{1, 11, 32, 48}));
        QVERIFY(isSegNetArchitecture("segnet") && isSegNetArchitecture("segnet_light") &&
                isSegNetArchitecture("segnet_light2"));
        QVERIFY(!isSegNetArchitecture("resnet18") && !isSegNetArchitecture("mlp") && !isSegNetArchitecture(""));
        QCOMPARE(QString::fromStdString(architectureNames()), QString("mlp, resnet18, segnet, segnet_light or segnet_light2"));
    }

    void metricsByHand()
    {
        // Labels and decisions of a 2x3 frame (11 = void, ignored); three classes, 0/1 costs.
        const auto labels = torch::tensor({{0, 1, 1}, {2, 11, 0}}, torch::kLong).unsqueeze(0);
        const auto decisions = torch::tensor({{0, 1, 0}, {2, 1, 1}}, torch::kLong).unsqueeze(0);
        const auto probs = torch::full({1, 3, 2, 3}, 1.0 / 3.0);
        MetricsAccumulator acc(CostMatrix::zeroOne(3), 11);
        acc.add(probs, decisions, labels);
        const auto m = acc.result();
        // Pairs (y, d): (0,0) (1,1) (1,0) (2,2) (0,1). Class 0: TP 1, FP 1, FN 1 -> 1/3;
        // class 1: 1/3; class 2: 1. Pixel accuracy 3/5, cost 2/5, NLL log 3.
        QCOMPARE(m.count, 5);
        QVERIFY(std::abs(m.perClassIoU[0] - 1.0 / 3) < 1e-12);
        QVERIFY(std::abs(m.perClassIoU[1] - 1.0 / 3) < 1e-12);
        QVERIFY(std::abs(m.perClassIoU[2] - 1.0) < 1e-12);
        QVERIFY(std::abs(m.meanIoU - 5.0 / 9) < 1e-12);
        QVERIFY(std::abs(m.accuracy - 0.6) < 1e-12);
        QVERIFY(std::abs(m.averageCost - 0.4) < 1e-12);
        QVERIFY(std::abs(m.nll - std::log(3.0)) < 1e-6);
        // Uniform probabilities: every decision expects cost 2/3 under 0/1 costs.
        QVERIFY(std::abs(m.expectedCost - 2.0 / 3) < 1e-6);  // float probabilities
        // Added in two halves, the same totals (streaming).
        MetricsAccumulator halves(CostMatrix::zeroOne(3), 11);
        halves.add(probs.slice(2, 0, 1), decisions.slice(1, 0, 1), labels.slice(1, 0, 1));
        halves.add(probs.slice(2, 1, 2), decisions.slice(1, 1, 2), labels.slice(1, 1, 2));
        QCOMPARE(halves.result().confusion, m.confusion);
        // The results JSON carries the counts, rows = truth, columns = decision (a referral
        // column last): two classes, three decisions, no two cells alike.
        DecisionMetrics counted;
        counted.numClasses = 2;
        counted.numDecisions = 3;
        counted.confusion = {5, 1, 2, 0, 7, 3};
        CamvidEvalResult report;
        report.classNames = {"a", "b"};
        report.rows = {{"cw_sgd", "uncorrected", counted}};
        const auto json = nlohmann::json::parse(lcs::resultsJson(lcs::camvidEvalOutput(report)));
        const auto expected = nlohmann::json::parse("[[5, 1, 2], [0, 7, 3]]");
        const auto& confusion = json["methods"][0]["confusion"];
        QVERIFY2(confusion == expected, confusion.dump().c_str());
    }

    void metricsAgreeWithThePerPointEvaluator()
    {
        auto g = makeGenerator(3);
        auto costs = costPreset("selective");
        costs.setReferral(0.3);
        const auto probs = torch::softmax(torch::randn({500, 10}, g) * 2, 1);
        const auto decisions = bayesDecisions(probs, costTensor(costs));
        const auto labels = torch::randint(10, {500}, g, torch::kLong);
        MetricsAccumulator acc(costs);
        acc.add(probs, decisions, labels);
        const auto a = acc.result();
        const auto b = evaluateDecisions(probs, decisions, labels, costs);
        QCOMPARE(a.confusion, b.confusion);
        QVERIFY(std::abs(a.averageCost - b.averageCost) < 1e-12);
        QVERIFY(std::abs(a.accuracy - b.accuracy) < 1e-12);
        QVERIFY(std::abs(a.referralRate - b.referralRate) < 1e-12);
        QVERIFY(std::abs(a.nll - b.nll) < 1e-9);
        QVERIFY(std::abs(a.meanIoU - b.meanIoU) < 1e-12);
        QVERIFY(std::abs(a.expectedCost - b.expectedCost) < 1e-12);
    }

    void nonFiniteProbabilitiesStopBothEvaluators_data()
    {
        QTest::addColumn<double>("bad");
        QTest::addColumn<bool>("referAll");
        QTest::addColumn<QString>("named");
        QTest::newRow("nan, decided") << std::numeric_limits<double>::quiet_NaN() << false << "expected decision cost";
        QTest::newRow("inf, decided") << std::numeric_limits<double>::infinity() << false << "expected decision cost";
        // Everything referred: accuracy and NLL are undefined, but the expected cost of
        // the referrals is still computed from p, and p is broken.
        QTest::newRow("nan, referred") << std::numeric_limits<double>::quiet_NaN() << true << "expected decision cost";
    }
    void nonFiniteProbabilitiesStopBothEvaluators()
    {
        QFETCH(double, bad);
        QFETCH(bool, referAll);
        QFETCH(QString, named);
        auto costs = CostMatrix::zeroOne(2);
        costs.setReferral(0.2);
        auto probs = torch::full({3, 2}, 0.5, torch::kDouble);
        probs[1][0] = bad;
        const auto decisions = referAll ? torch::full({3}, 2, torch::kLong) : torch::tensor({0, 1, 0}, torch::kLong);
        const auto labels = torch::tensor({0, 1, 1}, torch::kLong);
        MetricsAccumulator acc(costs);
        acc.add(probs.to(torch::kFloat), decisions, labels);
        for (int evaluator = 0; evaluator < 2; ++evaluator) {
            try {
                if (evaluator == 0)
                    evaluateDecisions(probs, decisions, labels, costs);
                else
                    acc.result();
                QFAIL("a metric over non-finite probabilities was reported");
            } catch (const ResultError& e) {
                QVERIFY2(QString(e.what()).contains(named), e.what());
            }
        }
        // The same with finite probabilities: all referred leaves accuracy and NLL
        // undefined (NaN), which is not an error.
        probs[1][0] = 0.5;
        const auto m = evaluateDecisions(probs, decisions, labels, costs);
        QCOMPARE(std::isnan(m.accuracy), referAll);
        QCOMPARE(std::isnan(m.nll), referAll);
    }

    void decisionChangesByHand()
    {
        // Costs (rows truth, columns decision): L = [[0, 1, 0.4], [0.8, 0, 0.4], [0.8, 1, 0]].
        auto costs = CostMatrix::zeroOne(3);
        costs.set(0, 2, 0.4);
        costs.set(1, 0, 0.8);
        costs.set(1, 2, 0.4);
        costs.set(2, 0, 0.8);
        // A 2x4 frame, 11 = void (left out even where the decisions differ).
        const auto labels = torch::tensor({{0, 1, 1, 2}, {0, 11, 2, 1}}, torch::kLong);
        const auto before = torch::tensor({{2, 2, 0, 2}, {0, 0, 2, 2}}, torch::kLong);
        const auto after = torch::tensor({{0, 1, 0, 0}, {0, 1, 2, 1}}, torch::kLong);
        DecisionChangeAccumulator acc(costs, 11);
        acc.add(before.slice(0, 0, 1), after.slice(0, 0, 1), labels.slice(0, 0, 1));
        acc.add(before.slice(0, 1, 2), after.slice(0, 1, 2), labels.slice(0, 1, 2));
        const auto c = acc.result();
        // 7 labelled pixels; changed: (y0, 2->0) -0.4, (y1, 2->1) -0.4, (y2, 2->0) +0.8, (y1, 2->1) -0.4.
        QCOMPARE(c.points, int64_t(7));
        QCOMPARE(c.changed, int64_t(4));
        QVERIFY(std::abs(c.costChange - (-0.4 - 0.4 + 0.8 - 0.4) / 7) < 1e-12);
        QCOMPARE(c.kinds.size(), size_t(2));
        // 2 -> 0: pixels 2, (-0.4 + 0.8) / 7; 2 -> 1: pixels 2, -0.8 / 7 (largest |change| first).
        QCOMPARE(c.kinds[0].from, 2);
        QCOMPARE(c.kinds[0].to, 1);
        QCOMPARE(c.kinds[0].count, int64_t(2));
        QVERIFY(std::abs(c.kinds[0].costChange + 0.8 / 7) < 1e-12);
        QCOMPARE(c.kinds[1].to, 0);
        QVERIFY(std::abs(c.kinds[1].costChange - 0.4 / 7) < 1e-12);
        // The change in mean cost equals the two networks' own cost difference.
        MetricsAccumulator mb(costs, 11), ma(costs, 11);
        const auto probs = torch::full({1, 3, 2, 4}, 1.0 / 3);
        mb.add(probs, before.unsqueeze(0), labels.unsqueeze(0));
        ma.add(probs, after.unsqueeze(0), labels.unsqueeze(0));
        QVERIFY(std::abs(c.costChange - (ma.result().averageCost - mb.result().averageCost)) < 1e-12);
        QVERIFY_THROWS_EXCEPTION(std::out_of_range, acc.add(torch::tensor({3}), torch::tensor({0}), torch::tensor({0})));
    }

    void correctionInInferenceModeStartsAtS()
    {
        // With a zero learning rate q stays the copy of S. Trained in inference mode it is
        // S's function exactly (KL 0); with dropout and batch statistics on, it is not.
        auto g = makeGenerator(5);
        ModelSpec spec;
        spec.architecture = "segnet_light";
        spec.classes = 11;
        spec.dropout = 0.3;
        spec.inputShape = {3, 16, 16};
        auto student = spec.build(g);
        student->eval();
        {
            // S torn between Building (1) and Car (8) around p(Car) = 0.38, between the Bayes
            // threshold (1/3) and the compressed costs' (0.383): there the two steps differ.
            torch::NoGradGuard noGrad;
            auto bias = student->named_parameters()["classifier.bias"];
            bias.fill_(-10.0);
            bias[1] = 0.0;
            bias[8] = -0.5;
        }
        const auto inputs = torch::randn({4, 3, 16, 16}, g);
        CorrectionConfig config;
        config.epochs = 1;
        config.batchSize = 2;
        config.learningRate = 0.0;
        const auto costs = camvidDecisionCosts(costPreset("camvid"));
        config.inferenceMode = true;
        const auto frozen = trainImageCorrection(spec, *student, inputs, {student.get(), {}}, costs, config, g, {});
        QVERIFY2(frozen.epochCurve.at(0).kl < 1e-6, qPrintable(QString::number(frozen.epochCurve.at(0).kl)));
        config.inferenceMode = false;
        const auto noisy = trainImageCorrection(spec, *student, inputs, {student.get(), {}}, costs, config, g, {});
        QVERIFY2(noisy.epochCurve.at(0).kl > 1e-4, qPrintable(QString::number(noisy.epochCurve.at(0).kl)));

        // The decision step, with q = S throughout (zero learning rate, no input noise): the
        // coordinate step pays sum_y S(y) L[y, c] at S's Bayes decision, the joint step at
        // the decision of the compressed costs 1 - exp(-L/M), computed here from S.
        config.inferenceMode = true;
        config.inputNoiseStd = 0.0;
        const auto S = classRows(predictClassProbabilities(*student, inputs)).to(torch::kDouble);
        const auto L = costTensor(costs, torch::kDouble);
        const auto compressed = 1 - torch::exp(-L / costs.utilityConstant());
        const auto payAt = [&](const at::Tensor& d) { return (S * L.t().index_select(0, d)).sum(1).mean().item<double>(); };
        const double atBayes = payAt(bayesDecisions(S, L));
        const double atOptimum = payAt(bayesDecisions(S, compressed));
        QVERIFY2(atOptimum > atBayes + 1e-3, qPrintable(QString("%1 vs %2").arg(atOptimum).arg(atBayes)));
        config.jointDecision = false;
        const auto coordinate = trainImageCorrection(spec, *student, inputs, {student.get(), {}}, costs, config, g, {});
        QVERIFY2(std::abs(coordinate.epochCurve.at(0).expectedCost - atBayes) < 1e-5,
                 qPrintable(QString("%1 vs %2").arg(coordinate.epochCurve.at(0).expectedCost).arg(atBayes)));
        config.jointDecision = true;
        const auto joint = trainImageCorrection(spec, *student, inputs, {student.get(), {}}, costs, config, g, {});
        QVERIFY2(std::abs(joint.epochCurve.at(0).expectedCost - atOptimum) < 1e-5,
                 qPrintable(QString("%1 vs %2").arg(joint.epochCurve.at(0).expectedCost).arg(atOptimum)));
    }

    void lcMcDropoutLossByHand()
    {
        // One labelled pixel (class 0) and one void pixel. Passes give (0.8, 0.2) and
        // (0.6, 0.4): pbar = (0.7, 0.3). Synthetic costs, M = 1: R = (0.3, 0.07) -> h* = 1,
        // G = 0.9 * 0.7 + 1 * 0.3 = 0.93. Loss = -log 0.7 - log 0.93.
        auto logits = [](double a, double b) {
            return torch::tensor({std::log(a), std::log(b), 0.0, 0.0}, torch::kDouble).view({2, 2}).t().reshape(
                {1, 2, 1, 2});
        };
        const std::vector<at::Tensor> passes{logits(0.8, 0.2), logits(0.6, 0.4)};
        const auto labels = torch::tensor({0, 11}, torch::kLong).view({1, 1, 2});
        const auto L = torch::tensor({{0.0, 0.1}, {1.0, 0.0}}, torch::kDouble);
        const double loss = lcMcDropoutLoss(passes, labels, L, 1.0, 11).item<double>();
        QVERIFY2(std::abs(loss - (-std::log(0.7) - std::log(0.93))) < 1e-12, qPrintable(QString::number(loss)));
    }

    void camvidCostTableDropsVoid()
    {
        const auto table = costPreset("camvid");
        const auto costs = camvidDecisionCosts(table);
        QCOMPARE(costs.numClasses(), 11);
        for (int y = 0; y < 11; ++y)
            for (int d = 0; d < 11; ++d)
                QCOMPARE(costs.at(y, d), table.at(y, d));
        QCOMPARE(costs.classNames().back(), std::string("Bicyclist"));
        QVERIFY_THROWS_EXCEPTION(InputError, camvidDecisionCosts(CostMatrix::zeroOne(4)));
    }

    // The kept rule on frames built so that the answer is known: 3 classes, 1,000 pixels
    // a frame (every 50th void). Truth 0 on half the pixels, 1 on 30%, 2 on 20%; S says
    // (0.8, 0.1, 0.1) for truth 0 and 0.55 for class 0 otherwise, so under 0/1 costs S
    // decides 0 everywhere (cost 480/980 on the labelled pixels); q gets truth 1 right
    // (180/980). Class offsets (log-offsets tuned on the cost) decide every pixel right,
    // and temperature cannot move an argmax: the choice on frames 0-3 keeps the offsets,
    // and frames 4-7 score S and temperature 480/980, q 180/980, offsets and the kept
    // rule 0.
    void keptRuleChosenOnTheFirstHalfScoredOnTheSecond()
    {
        const auto costs = CostMatrix::zeroOne(3, {"road", "car", "sign"});
        constexpr int64_t kVoid = 3, kPixels = 1000, kFrames = 8;
        QVERIFY(!CamvidRuleChooser::applies(3));
        QVERIFY(CamvidRuleChooser::applies(4));
        CamvidRuleChooser chooser(costs, kFrames, kVoid, 7, {1, 2});
        auto labels = torch::empty({kPixels}, torch::kLong);
        auto pS = torch::empty({kPixels, 3}), pQ = torch::empty({kPixels, 3});
        for (int64_t i = 0; i < kPixels; ++i) {
            const int64_t y = i % 50 == 49 ? kVoid : i % 10 < 5 ? 0 : i % 10 < 8 ? 1 : 2;
            labels[i] = y;
            const std::array<std::array<float, 3>, 4> s{{{0.8f, 0.1f, 0.1f}, {0.55f, 0.4f, 0.05f},
                                                         {0.55f, 0.05f, 0.4f}, {0.8f, 0.1f, 0.1f}}};
            const std::array<std::array<float, 3>, 4> q{{{0.8f, 0.1f, 0.1f}, {0.3f, 0.6f, 0.1f},
                                                         {0.55f, 0.05f, 0.4f}, {0.8f, 0.1f, 0.1f}}};
            for (int c = 0; c < 3; ++c) {
                pS[i][c] = s[static_cast<size_t>(y)][static_cast<size_t>(c)];
                pQ[i][c] = q[static_cast<size_t>(y)][static_cast<size_t>(c)];
            }
        }
        const auto L = costTensor(costs);
        const auto dS = bayesDecisions(pS, L), dQ = bayesDecisions(pQ, L);
        for (int64_t f = 0; f < kFrames; ++f) {
            if (f == 5) {
                bool refused = false;
                try {
                    chooser.result();
                } catch (const std::logic_error&) {
                    refused = true;
                }
                QVERIFY(refused);  // three frames still to come
            }
            chooser.add(pS, dS, pQ, dQ, labels);
        }
        const auto chosen = chooser.result();
        QVERIFY(chosen);
        const auto& kept = *chosen;
        QCOMPARE(kept.choiceFrames, int64_t(4));
        QCOMPARE(kept.scoredFrames, int64_t(4));
        QCOMPARE(kept.choicePixels, int64_t(4 * kCamvidChoicePixelsPerFrame));
        QCOMPARE(kept.kept(), std::string("offsets"));
        QVERIFY2(kept.choice.reason.find("in 4 groups kept whole") != std::string::npos, kept.choice.reason.c_str());
        // Of the 980 labelled pixels a frame (the void ones would have been truth 2), 480
        // are not road and 180 are sign.
        const std::map<std::string, double> expected{
            {"S", 480.0 / 980}, {"q", 180.0 / 980}, {"temperature", 480.0 / 980}, {"offsets", 0.0}};
        for (const auto& [rule, cost] : expected) {
            QVERIFY2(kept.rule(rule), rule.c_str());
            QVERIFY2(std::abs(kept.rule(rule)->metrics.averageCost - cost) < 1e-9,
                     qPrintable(QString::fromStdString(rule) + " " + QString::number(kept.rule(rule)->metrics.averageCost)));
            QCOMPARE(kept.rule(rule)->metrics.count, int64_t(4 * 980));
        }
        QCOMPARE(kept.evidence.reference, std::string("S"));
        QCOMPARE(kept.evidence.candidate, std::string("offsets"));
        QCOMPARE(kept.evidence.groups, int64_t(4));
        QCOMPARE(kept.evidence.figures[1].name, std::string("IoU car"));
        QVERIFY(std::abs(kept.evidence.figures[0].difference.mean + 480.0 / 980) < 1e-9);
        QCOMPARE(kept.evidence.figures[0].verdict, Verdict::Better);
        const auto summary = camvidKeptRuleSummary(kept);
        QVERIFY2(summary.find("decisions kept: offsets") == 0, summary.c_str());
        QVERIFY2(summary.find("offsets 0.0000 (kept)") != std::string::npos, summary.c_str());

        // Choice frames with no labelled pixel: the evaluation goes on without a choice.
        CamvidRuleChooser unlabelled(costs, 4, kVoid, 7, {1, 2});
        const auto allVoid = torch::full({kPixels}, kVoid, torch::kLong);
        for (int f = 0; f < 4; ++f)
            unlabelled.add(pS, dS, pQ, dQ, f < 2 ? allVoid : labels);
        QVERIFY(!unlabelled.result());
    }

    void trainEvaluateAndTimeOnTinyFrames()
    {
        QTemporaryDir tmp;
        const auto data = tmp.path() + "/camvid";
        for (int i = 0; i < 6; ++i)
            writeFrame(data, "train", QString("f%1.png").arg(i), i);
        for (int i = 0; i < 2; ++i)
            writeFrame(data, "holdout", QString("h%1.png").arg(i), 100 + i);
        auto config = CamvidTrainConfig::preset("cpu");
        config.data = data.toStdString();
        shrinkCamvidTraining(config, 32, 30, 2, 2);  // every one of the 6 frames
        config.lcFineTune.epochs = 1;
        config.lcFineTune.batchSize = 3;
        const auto models = tmp.path() + "/models";
        QDir().mkpath(models);
        const auto trained = trainCamvid(config, models.toStdString(), {});
        QCOMPARE(trained.saved.size(), size_t(5));
        QCOMPARE(trained.frames, 6);
        QVERIFY(QFileInfo::exists(models + "/camvid.json"));

        CamvidEvalConfig eval;
        eval.data = data.toStdString();
        eval.split = "holdout";  // a split that is not train/val/test
        eval.modelDir = models.toStdString();
        eval.mcPasses = 3;
        eval.overlayDir = (tmp.path() + "/overlays").toStdString();
        QDir().mkpath(tmp.path() + "/overlays");
        const auto result = evaluateCamvid(eval, {});
        QCOMPARE(result.rows.size(), size_t(6));  // five methods and S decided at the correction's optimum
        QCOMPARE(result.rows.back().rule, std::string("correction_optimum"));
        QCOMPARE(result.frames, 2);
        QCOMPARE(result.overlays, 2);
        QVERIFY(!result.keptRule);  // two frames: too few to choose on one half and score on the other
        // The held-out evidence pairs S and q frame by frame: its whole-split figures are
        // the rows' own, its favoured classes named by the cost table.
        QVERIFY(result.evidence);
        QCOMPARE(result.evidence->groups, int64_t(2));
        QCOMPARE(result.evidence->figures.size(), size_t(5));
        QCOMPARE(result.evidence->figures[1].name, std::string("IoU Car"));
        for (const auto& row : result.rows) {
            if (row.rule == "uncorrected" && row.method == "sghmc_s")
                QCOMPARE(result.evidence->figures[0].reference, row.metrics.averageCost);
            if (row.method == "ours")
                QCOMPARE(result.evidence->figures[4].candidate, row.metrics.meanIoU);
        }
        const auto overlay = cv::imread((tmp.path() + "/overlays/h0_overlay.png").toStdString());
        QCOMPARE(overlay.cols, 5 * 32);
        // Titled panels above, the class legend below: text in the title band, and every
        // class's swatch in its palette colour under the panels.
        constexpr int header = 22;
        QVERIFY(overlay.rows > header + 32);
        bool titled = false;
        for (int y = 0; y < header; ++y)
            for (int x = 0; x < overlay.cols; ++x) {
                const auto p = overlay.at<cv::Vec3b>(y, x);
                titled |= p[0] < 100 && p[1] < 100 && p[2] < 100;
            }
        QVERIFY(titled);
        for (const auto& c : camvidColours()) {
            bool found = false;
            for (int y = header + 32; y < overlay.rows && !found; ++y)
                for (int x = 0; x < overlay.cols && !found; ++x)
                    found = overlay.at<cv::Vec3b>(y, x) == cv::Vec3b(c[2], c[1], c[0]);
            QVERIFY2(found, qPrintable(QString("no swatch of colour %1,%2,%3").arg(c[0]).arg(c[1]).arg(c[2])));
        }
        for (const auto& row : result.rows) {
            QCOMPARE(row.metrics.count, 2 * 31 * 32);  // void row left out
            QCOMPARE(static_cast<int>(row.metrics.perClassIoU.size()), 11);
        }
        // Two cleanly separated regions: the CW-SGD network learns them.
        for (const auto& row : result.rows)
            if (row.method == "cw_sgd")
                QVERIFY2(row.metrics.accuracy > 0.9, qPrintable(QString::number(row.metrics.accuracy)));
        const auto json = QString::fromStdString(lcs::resultsJson(lcs::camvidEvalOutput(result)));
        QVERIFY(json.contains("\"per_class_iou\""));
        // The S -> q change table adds up to the difference of the two rows' costs.
        QVERIFY(result.studentToCorrected.has_value());
        double costS = 0, costQ = 0;
        for (const auto& row : result.rows) {
            if (row.method == "sghmc_s" && row.rule == "uncorrected")
                costS = row.metrics.averageCost;
            if (row.method == "ours")
                costQ = row.metrics.averageCost;
        }
        QVERIFY(std::abs(result.studentToCorrected->costChange - (costQ - costS)) < 1e-9);
        QCOMPARE(result.studentToCorrected->points, int64_t(2 * 31 * 32));
        QVERIFY(json.contains("\"changes_s_to_q\"") && json.contains("\"expected_cost\""));

        const auto fps = camvidFramesPerSecond(models.toStdString(), {1, 3}, 2, "cpu");
        QCOMPARE(fps.points.size(), size_t(2));
        QVERIFY(fps.qFps > 0 && fps.points[1].ensembleFps > 0);

        // Re-correction from the saved S under another table: only ours.pt changes, its
        // sidecar records the new costs, and camvid.json still lists every network.
        const auto sBytes = readFile((models + "/sghmc_s.pt").toStdString(), 1 << 30);
        const auto qBytes = readFile((models + "/ours.pt").toStdString(), 1 << 30);
        auto recorrect = config;
        recorrect.costs = camvidCostsWith(3, 8, 4.0);
        recorrect.correction.jointDecision = true;
        // Every frame trained on: with one of six held out, q may be kept at S's own
        // parameters in both runs (the held-out choice is tested in tst_calibration).
        recorrect.correction.heldOutShare = 0;
        const auto corrected = correctCamvidModels(recorrect, models.toStdString(), {});
        QCOMPARE(corrected.frames, 6);
        QVERIFY(readFile((models + "/sghmc_s.pt").toStdString(), 1 << 30) == sBytes);
        QVERIFY(readFile((models + "/ours.pt").toStdString(), 1 << 30) != qBytes);
        QVERIFY(loadClassifier((models + "/ours.pt").toStdString()).info.costs == recorrect.costs);
        QCOMPARE(evaluateCamvid(eval, {}).rows.size(), size_t(6));

        // A broken manifest is refused with the file named.
        writeFileAtomically((models + "/camvid.json").toStdString(), "{\"format\": \"lcstudio-camvid-models\"}");
        try {
            evaluateCamvid(eval, {});
            QFAIL("accepted");
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).contains("camvid.json"), e.what());
        }
    }

    void windowRunReportsEpochsAndRecorrectsOnlyQ()
    {
        QTemporaryDir tmp;
        const auto data = tmp.path() + "/camvid";
        for (int i = 0; i < 6; ++i)
            writeAmbiguousFrame(data, "train", QString("f%1.png").arg(i), i);
        for (int i = 0; i < 3; ++i)
            writeAmbiguousFrame(data, "val", QString("v%1.png").arg(i), 50 + i);
        auto config = CamvidWindowConfig::preset("demo");
        config.train.data = data.toStdString();
        shrinkCamvidTraining(config.train, 32, 30, 30, 4);
        // A: deciding car on a road pixel is expensive, so q leans to road in the grey band.
        const auto costsA = camvidCostsWith(3, 8, 4.0);
        config.train.costs = costsA;
        torch::manual_seed(1);  // dropout draws from the global generator
        config.epochEvalFrames = 2;
        std::map<std::string, std::vector<EpochTestFigures>> epochs;
        JobContext ctx;
        ctx.progress = [&](const Progress& p) {
            if (p.test)
                epochs[p.test->model].push_back(*p.test);
        };
        // Live previews: each comes right after its epoch's validation figures.
        std::vector<CamvidPreview> previews;
        std::vector<size_t> epochsSeenAtPreview;
        config.previewFrames = 2;
        config.preview = [&](const CamvidPreview& p) {
            previews.push_back(p);
            epochsSeenAtPreview.push_back(epochs[p.network].size());
        };
        auto run = trainCamvidWindow(config, ctx);
        // One preview per epoch of S (30) and of q (4), none for CW-SGD.
        QCOMPARE(previews.size(), size_t(34));
        for (size_t i = 0; i < previews.size(); ++i) {
            const auto& p = previews[i];
            QCOMPARE(p.network, std::string(i < 30 ? "sghmc_s" : "ours"));
            QCOMPARE(p.epoch, int(i < 30 ? i + 1 : i - 29));
            QCOMPARE(epochsSeenAtPreview[i], size_t(p.epoch));
            QVERIFY(!p.recorrection);
            QCOMPARE(p.frames.size(), size_t(2));
            for (const auto& f : p.frames) {
                QCOMPARE(f.rgb.size(), size_t(32 * 32 * 3));
                QCOMPARE(f.truth.size(), size_t(32 * 32));
                QCOMPARE(f.uncorrected.size(), f.truth.size());
                QCOMPARE(f.corrected.size(), p.network == "ours" ? f.truth.size() : size_t(0));
            }
            QCOMPARE(p.frames[1].name, std::string("v1.png"));
        }
        // After q's epochs the uncorrected decisions are the finished S's: the same each time.
        QVERIFY(previews[30].frames[0].uncorrected == previews[33].frames[0].uncorrected);
        const auto firstRunLastPreview = previews.back();
        previews.clear();
        QVERIFY(run.cache && run.cache->student && run.cache->q);
        QCOMPARE(run.trainFrames, 6);
        QCOMPARE(run.epochEvalFrames, 2);
        QCOMPARE(run.cache->corrections, 1);
        // One validation report per epoch of each network, numbered 1..epochs, with mIoU.
        for (const auto& [model, n] : std::vector<std::pair<std::string, int>>{{"cw_sgd", 30}, {"sghmc_s", 30}, {"ours", 4}}) {
            QCOMPARE(static_cast<int>(epochs[model].size()), n);
            for (int e = 0; e < n; ++e) {
                QCOMPARE(epochs[model][static_cast<size_t>(e)].epoch, e + 1);
                QVERIFY(epochs[model][static_cast<size_t>(e)].meanIou.has_value());
            }
        }
        QVERIFY2(*epochs["cw_sgd"].back().meanIou > 0.5, qPrintable(QString::number(*epochs["cw_sgd"].back().meanIou)));

        auto& cache = *run.cache;
        const auto studentBefore = parameterCopies(*cache.student);
        const auto qA = cache.q;
        const auto qABefore = parameterCopies(*qA);
        // B: missing a car is expensive, so the re-corrected q leans to car.
        const auto costsB = camvidCostsWith(8, 3, 4.0);
        const double expectedS = expectedBayesCost(*cache.student, cache.unlabelled, costsB);
        const double expectedA = expectedBayesCost(*qA, cache.unlabelled, costsB);
        const auto recorrection = recorrectCamvid(cache, costsB, ctx, [&](const CamvidPreview& p) { previews.push_back(p); });
        QCOMPARE(previews.size(), size_t(4));  // q's epochs only
        for (const auto& p : previews)
            QVERIFY(p.recorrection && p.network == "ours" && p.frames.size() == 2);
        QVERIFY(recorrection.seconds > 0);
        QCOMPARE(cache.corrections, 2);
        QVERIFY(cache.costs == costsB);
        QVERIFY2(cache.q != qA && !sameParameters(qABefore, *cache.q), "q was not retrained");
        QVERIFY2(sameParameters(studentBefore, *cache.student), "S must stay as it was");
        QVERIFY2(sameParameters(qABefore, *qA), "the previous q must not be trained in place");
        QCOMPARE(static_cast<int>(epochs["ours"].size()), 4 + 4);  // the re-correction's epochs too
        const double expectedB = expectedBayesCost(*cache.q, cache.unlabelled, costsB);
        // The correction's cost term on the unlabelled pixels, computed here from the networks.
        QVERIFY2(expectedB < expectedS && expectedB < expectedA,
                 qPrintable(QString("expected cost under B: q_B %1, S %2, q_A %3").arg(expectedB).arg(expectedS).arg(expectedA)));
        // Where the decisions go, in closed form: for a fixed decision c the objective's
        // minimiser is q = S exp(-L[:, c] / M) / Z_c, and the best c maximises Z_c, i.e. is
        // the Bayes decision under S with compressed costs 1 - exp(-L / M). Under A and under
        // B, q's share of car decisions moves from S's towards that rule's (in this toy the
        // compressed costs are less lopsided, so q decides against the raised entry less
        // readily than S does).
        for (const auto& [costs, q, name] : {std::tuple{costsA, qA, "A"}, std::tuple{costsB, cache.q, "B"}}) {
            const double fromS = carShare(*cache.student, cache.unlabelled, costs);
            const double optimum = compressedCarShare(*cache.student, cache.unlabelled, costs);
            const double got = carShare(*q, cache.unlabelled, costs);
            QVERIFY2(std::abs(optimum - fromS) > 0.02 && (got - fromS) * (optimum - fromS) > 0 &&
                         std::abs(got - optimum) < std::abs(fromS - optimum),
                     qPrintable(QString("car share under %1: S %2, q %3, pointwise optimum %4")
                                    .arg(name).arg(fromS).arg(got).arg(optimum)));
        }

        // A cancelled re-correction leaves the cache as it was.
        CancelToken token;
        token.cancel();
        const auto qB = cache.q;
        QVERIFY_THROWS_EXCEPTION(Cancelled, recorrectCamvid(cache, costsA, JobContext{{}, &token}));
        QVERIFY(cache.q == qB && cache.costs == costsB && cache.corrections == 2);
        // A matrix of the wrong size is refused by name, and changes nothing.
        QVERIFY_THROWS_EXCEPTION(InputError, recorrectCamvid(cache, CostMatrix::zeroOne(4), {}));
        QVERIFY(cache.q == qB);

        // The evaluation's visited frames agree with its metrics (hand counts).
        std::vector<CamvidVisitedFrame> visited;
        const auto comparison = evaluateCamvidWindow(cache, [&](const CamvidVisitedFrame& f) { visited.push_back(f); }, {});
        QCOMPARE(comparison.frames, 3);
        QCOMPARE(visited.size(), size_t(3));
        QCOMPARE(comparison.evidence.groups, int64_t(3));
        QCOMPARE(comparison.evidence.figures.front().reference, comparison.uncorrected.averageCost);
        QCOMPARE(comparison.evidence.figures.front().candidate, comparison.corrected.averageCost);
        QCOMPARE(comparison.evidence.figures.back().candidate, comparison.corrected.meanIoU);
        QCOMPARE(static_cast<int>(comparison.classNames.size()), 11);
        for (const auto& f : visited) {
            QCOMPARE(f.height, 32);
            QCOMPARE(f.rgb.size(), size_t(32 * 32 * 3));
            QCOMPARE(f.truth.size(), size_t(32 * 32));
            QCOMPARE(f.uncorrected.size(), f.truth.size());
            QCOMPARE(f.corrected.size(), f.truth.size());
        }
        QCOMPARE(visited[1].name, std::string("v1.png"));
        // The last preview is the evaluated q and S under the same costs, pixel for pixel;
        // it differs from what q for A decided (the previews follow the re-correction).
        bool movedFromA = false;
        for (size_t i = 0; i < 2; ++i) {
            const auto& f = previews.back().frames[i];
            QVERIFY(f.corrected == visited[i].corrected);
            QVERIFY(f.uncorrected == visited[i].uncorrected);
            QVERIFY(f.truth == visited[i].truth);
            QVERIFY(f.rgb == visited[i].rgb);
            movedFromA = movedFromA || f.corrected != firstRunLastPreview.frames[i].corrected;
        }
        QVERIFY(movedFromA);
        for (int rule = 0; rule < 2; ++rule) {
            const auto& reported = rule == 0 ? comparison.uncorrected : comparison.corrected;
            std::vector<long long> tp(11), fp(11), fn(11);
            double cost = 0;
            long long pixels = 0;
            for (const auto& f : visited)
                for (size_t i = 0; i < f.truth.size(); ++i) {
                    const int y = f.truth[i];
                    const int d = rule == 0 ? f.uncorrected[i] : f.corrected[i];
                    if (y == kCamvidVoid)
                        continue;
                    ++pixels;
                    cost += costsB.at(y, d);
                    if (y == d)
                        ++tp[static_cast<size_t>(y)];
                    else {
                        ++fn[static_cast<size_t>(y)];
                        ++fp[static_cast<size_t>(d)];
                    }
                }
            QCOMPARE(reported.count, pixels);
            QVERIFY(std::abs(reported.averageCost - cost / static_cast<double>(pixels)) < 1e-9);
            for (size_t c = 0; c < 11; ++c) {
                const long long denominator = tp[c] + fp[c] + fn[c];
                if (denominator == 0)
                    QVERIFY(std::isnan(reported.perClassIoU[c]));
                else
                    QVERIFY2(std::abs(reported.perClassIoU[c] - double(tp[c]) / double(denominator)) < 1e-12,
                             qPrintable(QString("class %1").arg(c)));
            }
        }
        // S finds both bands; the IoU of a class nobody decided is undefined, not 0.
        QVERIFY(comparison.uncorrected.perClassIoU[3] > 0.2 && comparison.uncorrected.perClassIoU[8] > 0.2);

        // Frames per second of networks in memory.
        const auto fps = camvidFramesPerSecond(*cache.student, *cache.q, cache.costs, 32, 32, {1, 4}, 2, "cpu");
        // Which is faster is a timing, measured by `lcstudio-cli camvid fps`, not asserted
        // here (on two loaded cores, 2 frames of 1 and 4 passes can come out either way).
        QCOMPARE(fps.points.size(), size_t(2));
        QCOMPARE(fps.points[0].ensemble, 1);
        QCOMPARE(fps.points[1].ensemble, 4);
        QVERIFY(fps.qFps > 0 && fps.rawFps > 0 && fps.points[0].ensembleFps > 0 && fps.points[1].ensembleFps > 0);
        QCOMPARE(fps.height, 32);
        QCOMPARE(fps.width, 32);
        // Stopped (a signal, the window's Stop): Cancelled between frames, and the network
        // is left with its dropout off, as a finished measurement leaves it.
        CancelToken cancel;
        cancel.cancel();
        const JobContext stopped({}, &cancel);
        QVERIFY_THROWS_EXCEPTION(Cancelled, camvidFramesPerSecond(*cache.student, *cache.q, cache.costs, 32, 32,
                                                                  {1, 4}, 2, "cpu", stopped));
        QVERIFY_THROWS_EXCEPTION(Cancelled, mcPredictive(*cache.student, at::zeros({1, 3, 32, 32}), 4, &stopped));
        auto* segnet = dynamic_cast<SegNetImpl*>(&*cache.student);
        QVERIFY(segnet);
        QVERIFY(!segnet->mcDropout);
    }

    void windowRunRefusesAMissingSplitBeforeTraining()
    {
        QTemporaryDir tmp;
        const auto data = tmp.path() + "/camvid";
        for (int i = 0; i < 2; ++i)
            writeFrame(data, "train", QString("f%1.png").arg(i), i);
        auto config = CamvidWindowConfig::preset("demo");
        config.train.data = data.toStdString();
        config.train.height = 32;
        config.train.width = 32;
        config.evalSplit = "val";  // not written
        bool trained = false;
        JobContext ctx;
        ctx.progress = [&](const Progress& p) { trained = trained || p.phase == "cw_sgd"; };
        try {
            trainCamvidWindow(config, ctx);
            QFAIL("accepted");
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).contains(data), e.what());
        }
        QVERIFY(!trained);
        QVERIFY_THROWS_EXCEPTION(InputError, CamvidWindowConfig::preset("huge"));
    }
};

QTEST_GUILESS_MAIN(TestSegmentation)
#include "tst_segmentation.moc"
