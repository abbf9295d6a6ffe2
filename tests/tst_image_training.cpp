// The image experiments' maths against hand computations and closed forms: schedules,
// class-weighted cross-entropy, the LC sampler's utility potential and its gradient,
// CW-SGD's optimum, online distillation of a fixed teacher, the correction's optimum on
// separable points, ResNet-18's structure, warm starts, and the corruption experiment
// end to end on a tiny generated data set.
#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <thread>

#include <QtTest/QtTest>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "engine/calibration/correction.h"
#include "engine/calibration/image_training.h"
#include "engine/decision/decisions.h"
#include "engine/experiments/camvid/camvid_experiment.h"
#include "engine/experiments/image/corruption_experiment.h"
#include "engine/experiments/image/image_run_settings.h"
#include "engine/experiments/image/selective_experiment.h"
#include "engine/experiments/run_record.h"
#include "engine/models/classifier.h"
#include "tests/tiny_images.h"
#include "tests/tiny_models.h"

using namespace lcs;

namespace {

double scalar(const at::Tensor& t)
{
    return t.item<double>();
}

ModelSpec resnetSpec(std::vector<int64_t> inputShape, int64_t classes, int64_t width)
{
    ModelSpec spec;
    spec.architecture = "resnet18";
    spec.inputShape = std::move(inputShape);
    spec.classes = classes;
    spec.width = width;
    return spec;
}

/// The cpu preset shrunk to a few seconds on tiny images: small networks, two epochs.
CorruptionConfig quickCorruption(const ImageDataset& data)
{
    auto c = CorruptionConfig::preset("cpu", data);
    shrinkImageRun(c, c.sgld, 8, 2, 1);
    c.map = {2, 16, 0.05, LrSchedule::OneCycle, 0.9, 1e-4, {}, -1, {}};
    c.cwSgd = c.map;
    return c;
}

} // namespace

class TestImageTraining : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void schedules()
    {
        // OneCycle over 11 steps (t = step / 10): maxLr/25 at the start, maxLr at 30%,
        // maxLr/25/1e4 at the end; halfway up the warm-up is halfway between.
        QCOMPARE(scheduledLearningRate(LrSchedule::OneCycle, 1.0, 0, 11), 0.04);
        QVERIFY(std::abs(scheduledLearningRate(LrSchedule::OneCycle, 1.0, 3, 11) - 1.0) < 1e-12);
        QVERIFY(std::abs(scheduledLearningRate(LrSchedule::OneCycle, 1.0, 10, 11) - 4e-6) < 1e-15);
        QVERIFY(std::abs(scheduledLearningRate(LrSchedule::OneCycle, 1.0, 3, 21) - 0.52) < 1e-12);
        // Down-phase midpoint: t = 0.65 -> (1 + 4e-6) / 2.
        QVERIFY(std::abs(scheduledLearningRate(LrSchedule::OneCycle, 1.0, 13, 21) - 0.500002) < 1e-9);
        // Cosine as CosineAnnealingLR(T_max = 10): 0.2 (1 + cos(pi step / 10)) / 2, so
        // 0.2 at step 0, 0.1 halfway, 0.1 (1 + cos(0.9 pi)) = 0.0048943... at the last step.
        QCOMPARE(scheduledLearningRate(LrSchedule::Cosine, 0.2, 0, 10), 0.2);
        QVERIFY(std::abs(scheduledLearningRate(LrSchedule::Cosine, 0.2, 5, 10) - 0.1) < 1e-12);
        QVERIFY(std::abs(scheduledLearningRate(LrSchedule::Cosine, 0.2, 9, 10) - 0.00489434837) < 1e-10);
        QCOMPARE(scheduledLearningRate(LrSchedule::Constant, 0.3, 7, 11), 0.3);
    }

    void weightedCrossEntropyByHand()
    {
        // Rows p = (0.25, 0.75) and (0.8, 0.2); labels 1 and 0.
        const auto logits = torch::tensor({{0.0, std::log(3.0)}, {std::log(4.0), 0.0}}, torch::kDouble);
        const auto labels = torch::tensor({1, 0}, torch::kLong);
        const double a = -std::log(0.75), b = -std::log(0.8);
        QVERIFY(std::abs(scalar(weightedCrossEntropy(logits, labels, {})) - (a + b) / 2) < 1e-12);
        // Weights (1, 2): (2a + 1b) / (2 + 1), PyTorch's weighted mean.
        const auto w = torch::tensor({1.0, 2.0}, torch::kDouble);
        QVERIFY(std::abs(scalar(weightedCrossEntropy(logits, labels, w)) - (2 * a + b) / 3) < 1e-12);
    }

    void utilityPotentialByHand()
    {
        // Synthetic costs: L = [[0, 0.1], [1, 0]], M = 1, u = M - L.
        const auto L = torch::tensor({{0.0, 0.1}, {1.0, 0.0}}, torch::kDouble);
        // p = (0.8, 0.2): R = (0.2, 0.08) -> h* = 1, G = 0.9 * 0.8 + 1 * 0.2 = 0.92.
        // p = (0.95, 0.05): R = (0.05, 0.095) -> h* = 0, G = 1 * 0.95 + 0 * 0.05 = 0.95.
        auto logits = torch::tensor({{std::log(0.8), std::log(0.2)}, {std::log(0.95), std::log(0.05)}}, torch::kDouble)
                          .requires_grad_(true);
        const auto value = utilityPotential(logits, L, 1.0);
        QVERIFY(std::abs(scalar(value) - (-std::log(0.92) - std::log(0.95)) / 2) < 1e-12);
        // With M = 2: u = 2 - L, G = 1.9 * 0.8 + 2 * 0.2 = 1.92 and 2 * 0.95 + 1 * 0.05 = 1.95.
        QVERIFY(std::abs(scalar(utilityPotential(logits, L, 2.0)) - (-std::log(1.92) - std::log(1.95)) / 2) < 1e-12);
        // Gradient in closed form, h* fixed: d/dz_k [-log G] = -p_k (u_k - G) / G, over B = 2.
        value.backward();
        const double p[2][2] = {{0.8, 0.2}, {0.95, 0.05}};
        const double u[2][2] = {{0.9, 1.0}, {1.0, 0.0}};
        const double G[2] = {0.92, 0.95};
        for (int b = 0; b < 2; ++b)
            for (int k = 0; k < 2; ++k) {
                const double expected = -p[b][k] * (u[b][k] - G[b]) / G[b] / 2.0;
                QVERIFY2(std::abs(logits.grad()[b][k].item<double>() - expected) < 1e-12,
                         qPrintable(QString("row %1 class %2").arg(b).arg(k)));
            }
    }

    void importantClassesOfThePresets()
    {
        QCOMPARE(importantClasses(costPreset("mnist")), (std::vector<int64_t>{3, 8}));
        QCOMPARE(importantClasses(costPreset("cifar10")), (std::vector<int64_t>{1, 9}));
        QVERIFY(importantClasses(CostMatrix::zeroOne(4)).empty());
    }

    void cwSgdReachesTheWeightedOptimum()
    {
        // Inputs carry no information and labels are 50/50: the weighted cross-entropy
        // is minimised at p(1) = w1 / (w0 + w1) = 1.4 / 2.4; unweighted at 1/2.
        auto g = makeGenerator(3);
        TrainingSet data{at::zeros({200, 1, 1, 1}), at::arange(2, at::kLong).repeat({100})};
        const auto spec = mlpSpec({1, 1, 1}, 2, {});
        for (double w1 : {1.0, 1.4}) {
            auto model = spec.build(g);
            SgdConfig config;  // full batch: exact gradients
            config.epochs = 300;
            config.batchSize = 200;
            config.learningRate = 0.2;
            config.schedule = LrSchedule::Constant;
            config.weightDecay = 0.0;
            config.classWeights = {1.0, w1};
            trainSgd(*model, data, config, g, {});
            const double p1 = predictClassProbabilities(*model, data.x.slice(0, 0, 1))[0][1].item<double>();
            QVERIFY2(std::abs(p1 - w1 / (1.0 + w1)) < 0.005, qPrintable(QString::number(p1)));
        }
    }

    void lossCalibratedChainFollowsTheUtilityPotential()
    {
        // Uninformative inputs, labels 50/50, synthetic costs: at temperature 0 the chain is
        // gradient descent on meanNLL + utilityPotential. With h* = 1 (p1 > 1/11), the
        // potential is -log(0.9 + 0.1 p1) and the stationary point solves
        //   p1 - 1/2 = 0.1 p1 (1 - p1) / (0.9 + 0.1 p1)   (bisection below); 1/2 without it.
        double lo = 0.5, hi = 0.6;
        for (int i = 0; i < 100; ++i) {
            const double mid = (lo + hi) / 2;
            ((mid - 0.5) - 0.1 * mid * (1 - mid) / (0.9 + 0.1 * mid) < 0 ? lo : hi) = mid;
        }
        const double expected = lo;
        QVERIFY(expected > 0.52 && expected < 0.53);
        auto g = makeGenerator(4);
        TrainingSet data{at::zeros({200, 1, 1, 1}), at::arange(2, at::kLong).repeat({100})};
        const auto spec = mlpSpec({1, 1, 1}, 2, {});
        auto start = spec.build(g);
        const auto costs = costPreset("synthetic");
        auto config = distillationSchedule(400, 200, 1.0, 399, 1);
        config.temperature = 0.0;
        config.priorPrecision = 0.0;
        config.distil = false;
        for (bool calibrated : {false, true}) {
            config.lossCalibration = calibrated ? &costs : nullptr;
            const auto result = runSgldDistillation(spec, *start, data, {}, data.x.slice(0, 0, 1), config, g, {});
            const double p1 = result.evalPredictive[0][1].item<double>();
            QVERIFY2(std::abs(p1 - (calibrated ? expected : 0.5)) < 1e-4, qPrintable(QString::number(p1, 'g', 8)));
        }
    }

    void distillationMatchesAFixedTeacher()
    {
        // A teacher that cannot move (step 1e-12, no noise) is one ensemble member; the
        // student distilled online must reproduce its predictive on D'.
        auto g = makeGenerator(5);
        const auto data = tinyImages(40, 1);
        const auto spec = mlpSpec(data.inputShape, 3, {16});
        auto teacher = spec.build(g);
        {
            torch::NoGradGuard noGrad;
            for (auto& p : teacher->parameters())
                p.mul_(3.0);  // a confident, non-trivial teacher
        }
        auto config = distillationSchedule(500, 30, 1e-12, 0, 1);
        config.temperature = 0.0;
        config.student = SgdConfig();
        config.student.epochs = 0;
        config.student.batchSize = 30;
        config.student.learningRate = 0.1;
        config.student.weightDecay = 0.0;
        TrainingSet train{data.train.images, data.train.labels};
        const auto result = runSgldDistillation(spec, *teacher, train, train.x, data.test.images, config, g, {});
        const auto target = predictClassProbabilities(*teacher, train.x);
        const auto student = predictClassProbabilities(*result.student, train.x);
        const double tv = scalar((target - student).abs().sum(1).mean()) / 2;
        QVERIFY2(tv < 0.03, qPrintable(QString("total variation %1").arg(tv)));
        // The MC predictive of a chain that does not move is the teacher's own.
        QVERIFY(result.evalPredictive.allclose(predictClassProbabilities(*teacher, data.test.images), 1e-5, 1e-5));
        QCOMPARE(result.samplesKept, 30);
    }

    void studentStartsFromTheInitialNetworkWhenAsked_data()
    {
        QTest::addColumn<bool>("fromInitial");
        QTest::newRow("fresh student") << false;
        QTest::newRow("copy of the chain's start") << true;
    }
    void studentStartsFromTheInitialNetworkWhenAsked()
    {
        // A student whose optimiser cannot move it (learning rate 0) is whatever it
        // started as: the chain's initial network when asked, a fresh draw otherwise.
        QFETCH(bool, fromInitial);
        auto g = makeGenerator(8);
        const auto data = tinyImages(20, 2);
        const auto spec = mlpSpec(data.inputShape, 3, {16});
        auto initial = spec.build(g);
        auto config = distillationSchedule(2, 20, SgldDistillationConfig().learningRate, 0, 1);
        config.student = SgdConfig();
        config.student.epochs = 0;
        config.student.batchSize = 20;
        config.student.learningRate = 0.0;
        config.student.schedule = LrSchedule::Constant;
        config.student.momentum = 0.0;
        config.student.weightDecay = 0.0;
        config.studentFromInitial = fromInitial;
        TrainingSet train{data.train.images, data.train.labels};
        const auto result = runSgldDistillation(spec, *initial, train, train.x, data.test.images, config, g, {});
        const auto s = predictClassProbabilities(*result.student, data.test.images);
        const auto start = predictClassProbabilities(*initial, data.test.images);
        QCOMPARE(s.allclose(start, 1e-6, 1e-6), fromInitial);
    }

    void correctionReachesTheClosedForm()
    {
        // Four one-hot inputs and a linear q: every point's q is free, so training must
        // reach the per-point optimum q(y) ∝ p(y) exp(-L[y, c] / M) for q's own decision c.
        auto g = makeGenerator(9);
        const auto x = at::eye(4).view({4, 1, 2, 2});
        const auto p = torch::tensor({{0.7, 0.2, 0.1}, {0.3, 0.4, 0.3}, {0.1, 0.1, 0.8}, {0.45, 0.1, 0.45}});
        CostMatrix costs(3, {0, 1, 0.5, 1, 0, 1, 0.2, 1, 0}, false);
        costs.setUtilityConstant(2.0);
        const auto spec = mlpSpec({1, 2, 2}, 3, {});
        auto start = spec.build(g);
        auto config = sgdCorrectionConfig(3000, 4, 0.5, LrSchedule::Constant, 0.0);
        const auto result = trainImageCorrection(spec, *start, x, {nullptr, p}, costs, config, g, {});
        const auto q = predictClassProbabilities(*result.q, x);
        const auto L = costTensor(costs);
        const auto decisions = bayesDecisions(q, L);
        for (int64_t n = 0; n < 4; ++n) {
            const auto expected = closedFormCorrection(p[n], L, decisions[n].item<int64_t>(), 2.0);
            QVERIFY2(q[n].allclose(expected, 0, 2e-3),
                     qPrintable(QString("point %1: %2 vs %3")
                                    .arg(n)
                                    .arg(q[n][0].item<double>())
                                    .arg(expected[0].item<double>())));
        }
        QVERIFY(!result.collapsed);
    }

    void resnetStructure()
    {
        auto g = makeGenerator(1);
        auto spec = resnetSpec({3, 32, 32}, 10, 4);
        auto net = spec.build(g);
        QCOMPARE(net->forward(at::randn({2, 3, 32, 32}, g)).sizes(), (c10::IntArrayRef{2, 10}));
        int convs = 0, blocks = 0;
        for (auto& m : net->modules(false)) {
            convs += m->as<torch::nn::Conv2dImpl>() ? 1 : 0;
            blocks += m->as<BasicBlockImpl>() ? 1 : 0;
        }
        QCOMPARE(blocks, 8);
        QCOMPARE(convs, 1 + 16 + 3);  // stem, two per block, three projection shortcuts
        // Final features are 8 * width wide.
        auto* resnet = dynamic_cast<ResNet18Impl*>(net.get());
        QVERIFY(resnet);
        QCOMPARE(resnet->head->weight.size(1), 32);
        // A 1-channel 28x28 input works as well (MNIST through ResNet).
        spec.inputShape = {1, 28, 28};
        QCOMPARE(spec.build(g)->forward(at::randn({1, 1, 28, 28}, g)).size(1), 10);
    }

    void warmStartCopiesParametersAndBuffers()
    {
        auto g = makeGenerator(2);
        const auto spec = resnetSpec({3, 8, 8}, 3, 2);
        auto a = spec.build(g);
        a->train();
        for (int i = 0; i < 3; ++i)
            a->forward(at::randn({4, 3, 8, 8}, g) + 1.0);  // moves BatchNorm's running statistics
        auto b = cloneClassifier(spec, *a);
        const auto x = at::randn({5, 3, 8, 8}, g);
        QVERIFY(predictClassProbabilities(*a, x).equal(predictClassProbabilities(*b, x)));
        ModelSpec other = spec;
        other.width = 3;
        auto c = other.build(g);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, copyParametersAndBuffers(*a, *c));
    }

    void corruptionExperimentOnTinyImages()
    {
        const auto data = tinyImages(60, 4);
        auto config = CorruptionConfig::preset("cpu", data);
        QCOMPARE(config.model.architecture, std::string("mlp"));
        config.rates = {0.0, 0.5};
        config.trials = 2;
        config.methods = {ImageMethod::SgldS, ImageMethod::Sgld, ImageMethod::LcSgld, ImageMethod::CwSgd,
                          ImageMethod::Ours};
        shrinkImageRun(config, config.sgld, 16, 10, 3);
        config.cwSgd = config.map;
        const auto result = runCorruptionExperiment(data, config, {});
        QCOMPARE(result.rows.size(), size_t(2 * 2 * 5));
        QCOMPARE(result.summary.size(), size_t(2 * 5));
        for (const auto& row : result.rows) {
            QVERIFY(row.metrics.averageCost >= 0 && row.metrics.averageCost <= 1);
            QCOMPARE(row.metrics.count, data.test.size());
            // Rows of separable classes are learnt by every method without corruption.
            if (row.setting == 0.0)
                QVERIFY2(row.metrics.accuracy > 0.9, imageMethodName(row.method).c_str());
        }
        const auto json = nlohmann::json::parse(lcs::resultsJson(lcs::corruptionOutput(result)));
        QCOMPARE(json["experiment"].get<std::string>(), std::string("corruption"));
        QCOMPARE(costsOfResults(json, "results"), config.costs);
        QCOMPARE(json["run"]["resolved"]["rates"], nlohmann::json({0.0, 0.5}));
        QCOMPARE(json["runs"].size(), size_t(20));
        QCOMPARE(json["summary"][0]["method"].get<std::string>(), std::string("sgld_s"));
        // Held-out evidence per run: the two halves partition the test set, so their
        // costs, weighted by rows, give back each rule's cost on the whole test set.
        QCOMPARE(json["evidence"].size(), size_t(4));
        QCOMPARE(result.comparisons.size(), size_t(4));
        for (const auto& c : result.comparisons) {
            const auto& e = c.evidence;
            // P, q and the calibrations of three classes: temperature, offsets, vector, constant.
            QCOMPARE(e.rules.size(), size_t(6));
            const auto validation = static_cast<double>(e.validationP.rowCosts.size());
            const auto scored = static_cast<double>(e.rules[0].rowCosts.size());
            QCOMPARE(validation + scored, static_cast<double>(data.test.size()));
            const double wholeP = (validation * e.validationP.cost + scored * e.rules[0].cost) / (validation + scored);
            const double wholeQ = (validation * e.validationQ.cost + scored * e.rules[1].cost) / (validation + scored);
            QVERIFY(std::abs(wholeP - c.uncorrected.averageCost) < 1e-9);
            QVERIFY(std::abs(wholeQ - c.corrected.averageCost) < 1e-9);
            for (size_t k = 0; k < c.uncorrected.confusion.size(); ++k) {
                QCOMPARE(e.validationP.confusion[k] + e.rules[0].confusion[k], c.uncorrected.confusion[k]);
                QCOMPARE(e.validationQ.confusion[k] + e.rules[1].confusion[k], c.corrected.confusion[k]);
            }
            QVERIFY(e.kept == "q" || e.kept == "P");
        }
        QVERIFY(corruptionTable(result).find("Held-out evidence") != std::string::npos);
        const auto csv = QString::fromStdString(lcs::resultsCsv(lcs::corruptionOutput(result)));
        QCOMPARE(csv.count('\n'), 21);
        // Seeded: the same configuration gives the same numbers.
        config.rates = {0.5};
        config.trials = 1;
        const auto again1 = runCorruptionExperiment(data, config, {});
        const auto again2 = runCorruptionExperiment(data, config, {});
        for (size_t i = 0; i < again1.rows.size(); ++i)
            QCOMPARE(again1.rows[i].metrics.averageCost, again2.rows[i].metrics.averageCost);
    }

    void selectiveExperimentOnTinyImages()
    {
        const auto data = tinyImages(60, 6);
        auto config = SelectiveConfig::preset("cpu", data);
        config.referralCosts = {0.02, 0.4};
        shrinkImageRun(config, config.sghmc, 16, 6, 2);
        config.map = {10, 16, 0.05, LrSchedule::OneCycle, 0.9, 1e-4, {}, -1, {}};
        config.sghmc.thinning = 2;
        config.correction.batchSize = 64;  // the preset's, as this test was tuned with
        config.correctionNoS.epochs = 2;
        config.calibrationCopies = 2;
        // Live test curves, typed: (model, run) -> figures per epoch.
        std::map<std::string, std::vector<EpochTestFigures>> curves;
        std::mutex curvesMutex;
        JobContext ctx{[&](const Progress& p) {
                           if (!p.test)
                               return;
                           std::lock_guard<std::mutex> lock(curvesMutex);
                           curves[p.test->model].push_back(*p.test);
                       },
                       nullptr};
        const auto result = runSelectiveExperiment(data, config, ctx);
        QCOMPARE(result.rows.size(), size_t(2 * 4));
        QVERIFY(data.test.size() <= 2000);  // so the curves are measured on the whole test set
        for (const char* model : {"map", "sghmc + S", "ours, r 0.02", "ours, r 0.4", "ours (no S), r 0.02",
                                  "ours (no S), r 0.4", "lc-sghmc, r 0.02", "lc-sghmc, r 0.4"})
            QVERIFY2(curves.count(model) == 1, model);
        QCOMPARE(curves["map"].size(), size_t(10));
        for (size_t e = 0; e < curves["map"].size(); ++e)
            QCOMPARE(curves["map"][e].epoch, static_cast<int>(e + 1));
        // q's curve after its last epoch scores the q that the row reports, under that
        // row's own referral cost (not the first one's).
        for (double r : config.referralCosts)
            for (const auto& row : result.rows)
                if (row.setting == r && (row.method == ImageMethod::Ours || row.method == ImageMethod::OursNoS)) {
                    const std::string model = std::string(row.method == ImageMethod::Ours ? "ours" : "ours (no S)") +
                                              ", r " + (r == 0.02 ? "0.02" : "0.4");
                    QCOMPARE(curves[model].back().cost, row.metrics.averageCost);
                    QCOMPARE(curves[model].back().nll, row.metrics.nll);
                }
        // The referral column costs r; rows are truth, so L[y, C] = r for every y.
        const auto costs = selectiveCosts(config.baseCosts, 0.4);
        QCOMPARE(costs.numDecisions(), 4);
        QCOMPARE(costs.at(2, 3), 0.4);
        for (const auto& row : result.rows) {
            // Average cost is at most r when referring everything would cost r.
            QVERIFY(row.metrics.averageCost <= 1.0);
            // Referring costs r per point: the average cost is at least r times the referral rate.
            QVERIFY(row.metrics.averageCost >= row.setting * row.metrics.referralRate - 1e-12);
        }
        // Cheaper referral, more referrals (same predictive, two cost matrices).
        auto referral = [&](double r) {
            for (const auto& row : result.rows)
                if (row.method == ImageMethod::Sghmc && row.setting == r)
                    return row.metrics.referralRate;
            return -1.0;
        };
        QVERIFY(referral(0.02) > referral(0.4));
        // Cumulative training time: ours pays the chain once, LC-SGHMC once per cost.
        QCOMPARE(result.trainingTime.size(), size_t(2));
        QVERIFY(result.trainingTime[1].ours >= result.trainingTime[0].ours);
        QVERIFY(result.trainingTime[1].lcSghmc > 1.5 * result.trainingTime[0].lcSghmc);
        QVERIFY(result.trainingTime[0].ours >= result.samplingSeconds);
        const auto json = nlohmann::json::parse(lcs::resultsJson(lcs::selectiveOutput(result)));
        QCOMPARE(json["training_time"].size(), size_t(2));
        QCOMPARE(costsOfResults(json, "results"), config.baseCosts);
        QCOMPARE(json["run"]["referral_costs"], nlohmann::json({0.02, 0.4}));
        QCOMPARE(json["runs"].size(), size_t(8));
        // The evidence per referral cost, each with its own matrix (a referral column).
        QCOMPARE(json["evidence"].size(), size_t(2));
        QCOMPARE(json["evidence"][1]["referral_cost"].get<double>(), 0.4);
        QCOMPARE(result.comparisons[1].evidence.rules[0].confusion.size(), size_t(3 * 4));
        // A cost edit re-runs only the correction on the cached S.
        QVERIFY(result.cache && result.cache->student);
        const auto again = recorrect(*result.cache, selectiveCosts(config.baseCosts, 0.4), {});
        QCOMPARE(again.comparison.corrected.count, data.test.size());
        QCOMPARE(again.comparison.corrected.numDecisions, 4);
        QCOMPARE(again.comparison.evidence.rules.size(), size_t(6));
    }

    // Seeds come from the catalogue's seed tags and the task's coordinates: choosing more
    // methods, or sweeping more values, leaves every other method's numbers unchanged.
    void methodsDoNotShareRandomStreams()
    {
        const auto data = tinyImages(30, 8);
        auto config = quickCorruption(data);
        config.rates = {0.5};
        config.methods = {ImageMethod::CwSgd};
        const auto alone = runCorruptionExperiment(data, config, {});
        config.rates = {0.25, 0.5};
        config.methods = {ImageMethod::SgldS, ImageMethod::LcSgld, ImageMethod::Ours, ImageMethod::CwSgd};
        const auto together = runCorruptionExperiment(data, config, {});
        auto cost = [](const CorruptionResult& r, ImageMethod m, double rate) {
            for (const auto& row : r.rows)
                if (row.method == m && row.setting == rate)
                    return row.metrics.nll;
            return -1.0;
        };
        QVERIFY(cost(alone, ImageMethod::CwSgd, 0.5) > 0);
        QCOMPARE(cost(together, ImageMethod::CwSgd, 0.5), cost(alone, ImageMethod::CwSgd, 0.5));
        // Two rates draw two different corruptions (the stream follows the rate's value).
        QVERIFY(cost(together, ImageMethod::CwSgd, 0.25) != cost(together, ImageMethod::CwSgd, 0.5));

        auto selective = SelectiveConfig::preset("cpu", data);
        shrinkImageRun(selective, selective.sghmc, 8, 2, 1);
        selective.map = {2, 16, 0.05, LrSchedule::OneCycle, 0.9, 1e-4, {}, -1, {}};
        selective.correction.batchSize = 64;  // the preset's
        selective.calibrationCopies = 1;
        selective.referralCosts = {0.4};
        selective.methods = {ImageMethod::LcSghmc};
        const auto lcAlone = runSelectiveExperiment(data, selective, {});
        selective.referralCosts = {0.1, 0.4};
        selective.methods = {ImageMethod::Sghmc, ImageMethod::LcSghmc, ImageMethod::Ours};
        const auto lcTogether = runSelectiveExperiment(data, selective, {});
        auto lcFigure = [](const SelectiveResult& r, double referral) {
            for (const auto& row : r.rows)
                if (row.method == ImageMethod::LcSghmc && row.setting == referral)
                    return row.metrics.averageCost + 10 * row.metrics.referralRate;
            return -1.0;
        };
        QVERIFY(lcFigure(lcAlone, 0.4) >= 0);
        QCOMPARE(lcFigure(lcTogether, 0.4), lcFigure(lcAlone, 0.4));
    }

    // Every report of a run names its task, every named task is in the experiment's plan,
    // and the plan's fraction reaches 1 at the end, whatever the rate's digits.
    void progressNamesPlannedTasks_data()
    {
        QTest::addColumn<double>("rate");
        QTest::newRow("0.125") << 0.125;
        QTest::newRow("1/3") << 1.0 / 3.0;
        QTest::newRow("0.5") << 0.5;
    }

    void progressNamesPlannedTasks()
    {
        QFETCH(double, rate);
        const auto data = tinyImages(20, 9);
        auto config = quickCorruption(data);
        config.rates = {rate};
        const auto plan = corruptionPlan(config);
        QCOMPARE(plan.size(), size_t(5));  // map, sgld_s, ours, lc_sgld, cw_sgd
        PlanProgress tracker(plan);
        std::vector<std::string> unplanned;
        int reports = 0;
        JobContext ctx{[&](const Progress& p) {
                           if (p.test)
                               return;
                           ++reports;
                           const bool planned = p.task && std::any_of(plan.begin(), plan.end(), [&](const PlannedTask& t) {
                                                    return t.task == *p.task;
                                                });
                           if (!planned)
                               unplanned.push_back(p.phase + " / " + p.detail);
                           else
                               tracker.update(*p.task, p.step, p.total);
                       },
                       nullptr};
        runCorruptionExperiment(data, config, ctx);
        QVERIFY2(reports >= int(plan.size()), std::to_string(reports).c_str());  // at least one per task
        QVERIFY2(unplanned.empty(), unplanned.empty() ? "" : unplanned.front().c_str());
        QVERIFY2(tracker.fraction() > 0.99, std::to_string(tracker.fraction()).c_str());
    }

    // The plan's fraction by hand: tasks of weight 1, 3 and 4, halfway through the second.
    void planProgressWeighsTasks()
    {
        PlanProgress p({{{"map", 0.125, 0}, 1.0}, {{"sgld_s", 0.125, 0}, 3.0}, {{"ours", 0.125, 0}, 4.0}});
        QCOMPARE(p.update({"map", 0.125, 0}, 1, 2), 0.5 / 8.0);
        QCOMPARE(p.update({"sgld_s", 0.125, 0}, 1, 2), (1.0 + 1.5) / 8.0);
        // Another setting or trial is another task: not in the plan, the fraction stays.
        QCOMPARE(p.update({"ours", 0.12, 0}, 1, 1), 2.5 / 8.0);
        QCOMPARE(p.update({"ours", 0.125, 1}, 1, 1), 2.5 / 8.0);
        QCOMPARE(p.update({"ours", 0.125, 0}, 2, 2), 1.0);
        // Never backwards.
        QCOMPARE(p.update({"map", 0.125, 0}, 0, 2), 1.0);
    }

    // Parallel tasks add up their own shares: the second task's report does not count the
    // first as done.
    void parallelPlanAddsEachTasksShare()
    {
        PlanProgress p({{{"bbvi", std::nullopt, 0}, 1.0}, {{"sghmc", std::nullopt, 0}, 3.0}},
                       PlanProgress::Order::Parallel);
        QCOMPARE(p.update({"sghmc", std::nullopt, 0}, 1, 3), 1.0 / 4.0);
        QCOMPARE(p.update({"bbvi", std::nullopt, 0}, 1, 2), (0.5 + 1.0) / 4.0);
        QCOMPARE(p.update({"sghmc", std::nullopt, 0}, 3, 3), (0.5 + 3.0) / 4.0);
        QCOMPARE(p.update({"bbvi", std::nullopt, 0}, 0, 2), (0.5 + 3.0) / 4.0);  // never backwards
        QCOMPARE(p.update({"bbvi", std::nullopt, 0}, 2, 2), 1.0);
    }

    // The tracker both the window and the command line use: a report counts for its own
    // task, else the plan's only task, else (runs that name phases) its phase; the time
    // left is extrapolated linearly, and said only once 2% is done.
    void planTrackerAndEta()
    {
        PlanTracker one;
        one.setPlan({{{"ours", 0.5, 0}, 1.0}});
        Progress p = Progress::at("correction", "", 1, 4);
        QCOMPARE(one.report(p), 0.25);  // no identity: the only task's

        PlanTracker two;
        two.setPlan({{{"map", std::nullopt, 0}, 1.0}, {{"ours", std::nullopt, 0}, 3.0}});
        QCOMPARE(two.report(p), 0.0);  // no identity, two tasks: counts for none
        p.task = TaskIdentity{"ours", std::nullopt, 0};
        QCOMPARE(two.report(p), (1.0 + 3.0 * 0.25) / 4.0);  // sequential: map is behind it

        PlanTracker phases;
        phases.setPlan({{{"sgd", std::nullopt, 0}, 1.0}, {{"correction", std::nullopt, 0}, 1.0}});
        phases.identifyByPhase();
        QCOMPARE(phases.report(Progress::at("sgd", "", 2, 2)), 0.5);
        QCOMPARE(phases.report(Progress::at("correction", "", 1, 2)), 0.75);

        QVERIFY(!etaSeconds(10, 0.01));
        QVERIFY(!etaSeconds(10, 1.0));
        QCOMPARE(*etaSeconds(10, 0.25), 30.0);
        QCOMPARE(*etaSeconds(6, 0.75), 2.0);
    }

    // Reports every 1% of a loop, and besides whenever maxGap has passed since the last
    // one (slow steps), and always at the last step.
    void reportPacerReportsEveryPercentAndAfterAGap()
    {
        ReportPacer pacer(1000, std::chrono::milliseconds(200));
        QVERIFY(!pacer.due(1));
        QVERIFY(!pacer.due(9));
        QVERIFY(pacer.due(10));
        QVERIFY(!pacer.due(11));
        QVERIFY(pacer.due(20));
        std::this_thread::sleep_for(std::chrono::milliseconds(250));
        QVERIFY(pacer.due(21));   // the gap
        QVERIFY(!pacer.due(22));  // and it starts again
        QVERIFY(pacer.due(1000));
        ReportPacer few(7, std::chrono::hours(1));  // fewer than 100 steps: every step
        for (int step = 1; step <= 7; ++step)
            QVERIFY(few.due(step));
    }

    // Median-frequency balancing by hand: shares 4/7, 2/7, 1/7 and 0 (void left out) give
    // median 2/7 and weights 0.5, 1, 2 and 1 (absent); an even count takes the middle two's
    // mean. CW-SGD's weights multiply them by 1.4 on Car, Pedestrian, Bicyclist only.
    void medianFrequencyWeightsByHand()
    {
        const auto odd = at::tensor({0, 0, 0, 0, 1, 1, 2, 11, 11}, at::kLong);
        QCOMPARE(medianFrequencyWeights(odd, 4, 11), (std::vector<double>{0.5, 1.0, 2.0, 1.0}));
        const auto even = medianFrequencyWeights(at::tensor({0, 0, 0, 1}, at::kLong).reshape({2, 2}), 2, 11);
        QVERIFY(std::abs(even[0] - 2.0 / 3.0) < 1e-12 && std::abs(even[1] - 2.0) < 1e-12);
        auto config = CamvidTrainConfig::preset("cpu");
        QCOMPARE(config.classBalancePower, 0.75);  // the cpu preset balances; plain weights first
        config.classBalancePower = 0;
        auto labels = at::arange(11, at::kLong).repeat({2}).reshape({2, 11});
        labels[0][0] = 1;  // Sky 1 pixel, Building 3, the others 2: median 2 / 22
        auto plain = cwSgdClassWeights(config, labels);
        for (int k = 0; k < 11; ++k)
            QCOMPARE(plain[size_t(k)], k >= 8 ? 1.4 : 1.0);
        config.classBalancePower = 1;
        const auto balanced = cwSgdClassWeights(config, labels);
        QCOMPARE(balanced[0], 2.0);
        QCOMPARE(balanced[1], 2.0 / 3.0);
        QCOMPARE(balanced[5], 1.0);
        QCOMPARE(balanced[9], 1.4);
        config.classBalancePower = 0.5;
        QCOMPARE(cwSgdClassWeights(config, labels)[0], std::sqrt(2.0));
    }

    // Crops by closed form: on a ramp x[.., j] = j along the width (and i along the height),
    // a crop of share s resized back by bilinear interpolation (align_corners false) is
    // again a ramp, of slope s per output column, starting at left + (s - 1) / 2 (clamped
    // at the border): so every image's interior slope lies in [cropScale, 1] (negated
    // when flipped), every value inside [0, W - 1], and the label map, cut at the same
    // place by nearest neighbour, still names each pixel's source column. Jitter by
    // closed form: a channel of zeros becomes b, a channel of ones a + b.
    void augmentationByClosedForm_data()
    {
        QTest::addColumn<double>("cropScale");
        QTest::addColumn<bool>("flips");
        QTest::newRow("crops") << 0.5 << false;
        QTest::newRow("crops and flips") << 0.7 << true;
        QTest::newRow("flips only") << 1.0 << true;
        QTest::newRow("nothing") << 1.0 << false;
    }
    void augmentationByClosedForm()
    {
        QFETCH(double, cropScale);
        QFETCH(bool, flips);
        const int64_t n = 64, h = 12, w = 40;
        // Image i's ramp starts at 100 i, so a crop taken from another image shows.
        const auto base = (at::arange(n, at::kLong) * 100).view({n, 1, 1});
        const auto y0 = (at::arange(w, at::kLong).view({1, 1, w}) + base).expand({n, h, w}).contiguous();
        const auto rows = at::arange(h, at::kFloat).view({1, 1, h, 1}).expand({n, 1, h, w});
        const auto x0 = at::cat({y0.unsqueeze(1).to(at::kFloat), rows}, 1).contiguous();
        const auto x0Before = x0.clone(), y0Before = y0.clone();
        auto x = x0, y = y0;
        auto generator = makeGenerator(7);
        augmentBatch(x, y, {flips, cropScale, 0.0}, generator);
        QCOMPARE(x.sizes(), x0.sizes());
        QCOMPARE(y.sizes(), y0.sizes());
        QVERIFY(x0.equal(x0Before) && y0.equal(y0Before));  // the inputs are not written
        int flipped = 0, cropped = 0;
        for (int64_t i = 0; i < n; ++i) {
            const auto ramp = x[i][0][h / 2];
            const auto slope = (ramp.slice(0, 2, w - 1) - ramp.slice(0, 1, w - 2));
            const double s = slope.mean().item<double>();
            // float32 at values up to 6400: steps exact to about 1e-3
            QVERIFY2((slope - s).abs().max().item<double>() < 2e-3, qPrintable(QString::number((slope - s).abs().max().item<double>())));
            // The crop's width is the share rounded to whole columns: within half a column.
            QVERIFY2(std::abs(s) >= cropScale - 0.5 / double(w) - 1e-4 && std::abs(s) <= 1 + 1e-4,
                     qPrintable(QString::number(s)));
            const double first = 100.0 * double(i);
            const double low = ramp.min().item<double>() - first, high = ramp.max().item<double>() - first;
            QVERIFY2(low >= -1e-3 && high <= w - 1 + 1e-3, qPrintable(QString("%1 %2").arg(low).arg(high)));
            flipped += s < 0;
            cropped += std::abs(s) < 1 - 1e-3;
            // The label map names the source column the image shows there (nearest: within
            // half a source column of the bilinear value, away from the clamped borders).
            const auto labels = y[i][h / 2].to(at::kFloat);
            QVERIFY2((labels.slice(0, 2, w - 2) - ramp.slice(0, 2, w - 2)).abs().max().item<double>() <= 1.0,
                     "labels cut elsewhere than the image");
            // Rows: the same share along the height.
            const auto column = x[i][1].select(1, w / 2);
            const double rowSlope = (column[h - 2] - column[1]).item<double>() / double(h - 3);
            QVERIFY2(std::abs(rowSlope - std::abs(s)) < 0.5 / double(h - 3) + 2.0 / double(w),
                     "height and width cut by different shares");
        }
        if (flips)
            QVERIFY(flipped > n / 4 && flipped < 3 * n / 4);
        else
            QCOMPARE(flipped, 0);
        if (cropScale < 1) {
            QVERIFY(cropped > n * 3 / 4);
        } else {
            QCOMPARE(cropped, 0);
            for (int64_t i = 0; i < n; ++i) {
                const bool mirrored = (x[i][0][0][1] - x[i][0][0][0]).item<double>() < 0;
                QVERIFY(y[i].equal(mirrored ? y0[i].flip({-1}) : y0[i]));
            }
        }
    }

    void jitterByClosedForm()
    {
        const int64_t n = 400;
        const auto x0 = at::cat({at::zeros({n, 1, 3, 4}), at::ones({n, 1, 3, 4})}, 1);
        auto x = x0;
        at::Tensor noLabels;
        auto generator = makeGenerator(3);
        const double j = 0.25;
        augmentBatch(x, noLabels, {false, 1.0, j}, generator);
        QVERIFY(x0.select(1, 0).eq(0).all().item<bool>());  // the input is not written
        const auto offset = x.select(1, 0).flatten(1);
        const auto gain = x.select(1, 1).flatten(1) - offset;
        // One draw per image, the same at every pixel.
        QVERIFY((offset - offset.select(1, 0).unsqueeze(1)).abs().max().item<double>() < 1e-6);
        QVERIFY((gain - gain.select(1, 0).unsqueeze(1)).abs().max().item<double>() < 1e-6);
        const auto b = offset.select(1, 0), a = gain.select(1, 0);
        QVERIFY(b.min().item<double>() >= -j - 1e-6 && b.max().item<double>() <= j + 1e-6);
        QVERIFY(a.min().item<double>() >= 1 - j - 1e-6 && a.max().item<double>() <= 1 + j + 1e-6);
        // Uniform: mean at the centre, spread to both ends (sd of U[-j, j] is j / sqrt 3).
        QVERIFY(std::abs(b.mean().item<double>()) < 0.2 * j);
        QVERIFY(std::abs(a.mean().item<double>() - 1) < 0.2 * j);
        QVERIFY(std::abs(b.std().item<double>() - j / std::sqrt(3.0)) < 0.15 * j);
        QVERIFY(b.max().item<double>() > 0.9 * j && b.min().item<double>() < -0.9 * j);
    }

    // A preview on a fraction f of the images that took t seconds: the whole run takes t / f.
    void previewEstimatesTheWholeRun()
    {
        QCOMPARE(fullRunSecondsEstimate(30, 0.1), 300.0);
        QCOMPARE(fullRunSecondsEstimate(12, 0.25), 48.0);
        QCOMPARE(previewSummary(50.2, 0.1, 1000, 200),
                 std::string("Preview on 10% of the images (1000 training, 200 test) took 50 s; the whole run would "
                             "take about 8 min 22 s here.\n"));
        QCOMPARE(previewSummary(4, 0.5, 10, 5),
                 std::string("Preview on 50% of the images (10 training, 5 test) took 4 s; the whole run would take "
                             "about 8 s here.\n"));
        ImageRunChoices choices;
        RunRecord record;
        QCOMPARE(notePreview(choices, 40, 10, 5, record), std::string());  // the whole run: nothing noted
        QVERIFY(!record.resolved.contains("whole_run_seconds_estimate"));
        choices.preview = 0.25;
        QVERIFY(!notePreview(choices, 40, 10, 5, record).empty());
        QCOMPARE(record.resolved["whole_run_seconds_estimate"].get<double>(), 160.0);
    }

    // Re-correcting with the run's own costs trains the run's q again: the same stream.
    void recorrectionWithTheRunsCostsRepeatsTheRun()
    {
        const auto data = tinyImages(30, 10);
        auto config = quickCorruption(data);
        config.correction.epochs = 2;
        config.rates = {0.3};
        config.methods = {ImageMethod::SgldS, ImageMethod::Ours};
        const auto run = runCorruptionExperiment(data, config, {});
        QVERIFY(run.cache);
        QCOMPARE(run.comparisons.size(), size_t(1));
        const auto again = recorrect(*run.cache, config.costs, {});
        QCOMPARE(again.comparison.corrected.averageCost, run.comparisons[0].corrected.averageCost);
        QCOMPARE(again.comparison.corrected.nll, run.comparisons[0].corrected.nll);
        QCOMPARE(again.comparison.changedCount, run.comparisons[0].changedCount);
    }

    // The image experiments' declared settings write into the choices and read back, and
    // the choices reach the config through the one function each experiment has.
    void declaredImageSettingsRoundTrip()
    {
        ImageRunChoices choices;
        const nlohmann::json values{{"rates", {0.125, 0.5}}, {"methods", {"cw_sgd", "ours"}}, {"trials", 3},
                                    {"preset", "cpu"},       {"epochs", 2},                   {"map_epochs", 4},
                                    {"width", nullptr},      {"seed", 9},                     {"device", "cpu"},
                                    {"data", "fashion-mnist"}, {"max_train", 500},            {"max_test", nullptr},
                                    {"preview", 0.25},       {"threads", 2}};
        applySettings(corruptionSettings(), values, choices);
        QCOMPARE(choices.threads, 2);
        QCOMPARE(choices.values, (std::vector<double>{0.125, 0.5}));
        QCOMPARE(choices.methods, (std::vector<ImageMethod>{ImageMethod::CwSgd, ImageMethod::Ours}));
        QCOMPARE(choices.data, std::string("fashion-mnist"));
        QCOMPARE(choices.maxTrain, int64_t(500));
        QCOMPARE(choices.maxTest, int64_t(0));  // all
        QCOMPARE(choices.preview, 0.25);
        // Read back through the declared settings' own checks, as a results file's record is.
        const auto back = settingValues(corruptionSettings(), choices);
        QCOMPARE(back, values);
        QCOMPARE(checkedSettings(specsOf(corruptionSettings()), back, "record"), values);
        const auto data = tinyImages(10, 3);
        const auto config = corruptionConfigFor(choices, data);
        QCOMPARE(config.rates, choices.values);
        QCOMPARE(config.trials, 3);
        QCOMPARE(config.sgld.epochs, 2);
        QCOMPARE(config.map.epochs, 4);
        QCOMPARE(config.seed, uint64_t(9));
        // The selective list has its own swept setting and the copies of D'.
        QVERIFY(findSetting(specsOf(selectiveSettings()), "referral_costs"));
        QVERIFY(findSetting(specsOf(selectiveSettings()), "copies"));
        QVERIFY(!findSetting(specsOf(selectiveSettings()), "rates"));
        QVERIFY_THROWS_EXCEPTION(InputError, applySettings(selectiveSettings(), nlohmann::json{{"methods", {"cw_sgd"}}},
                                                           choices));  // not a selective method
    }
};

QTEST_GUILESS_MAIN(TestImageTraining)
#include "tst_image_training.moc"
