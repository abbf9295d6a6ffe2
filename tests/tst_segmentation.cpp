// CamVid segmentation on tiny generated frames: SegNet's shapes and MC dropout, the
// streaming metrics against hand counts and against the per-point evaluator, the
// LC-MC-dropout loss against a hand computation, the 12 -> 11 class cost table, and
// train / eval / frames-per-second end to end.
#include <cmath>

#include <QtTest/QtTest>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <torch/torch.h>

#include "calibration/image_training.h"
#include "camvid_data.h"
#include "core/atomic_file.h"
#include "core/input_error.h"
#include "decision/decisions.h"
#include "decision/metrics_accumulator.h"
#include "experiments/camvid_experiment.h"
#include "models/segnet.h"

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

} // namespace

class TestSegmentation : public QObject {
    Q_OBJECT

private Q_SLOTS:
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
        // Added in two halves, the same totals (streaming).
        MetricsAccumulator halves(CostMatrix::zeroOne(3), 11);
        halves.add(probs.slice(2, 0, 1), decisions.slice(1, 0, 1), labels.slice(1, 0, 1));
        halves.add(probs.slice(2, 1, 2), decisions.slice(1, 1, 2), labels.slice(1, 1, 2));
        QCOMPARE(halves.result().confusion, m.confusion);
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

    void medianFrequencyBalancing()
    {
        // Frame 1: 3 pixels of class 0, 1 of class 1; frame 2: 4 of class 1 and a void.
        // f0 = 3/4 (frames with 0: 4 labelled pixels), f1 = 5/8 (both frames: 8 pixels).
        // median(f) = (3/4 + 5/8) / 2 = 11/16; w0 = (11/16)/(3/4) = 11/12, w1 = 11/10.
        const auto labels = torch::tensor({{0, 0, 0, 1, 11}, {1, 1, 1, 1, 11}}, torch::kLong).view({2, 1, 5});
        const auto w = medianFrequencyWeights(labels, 3, 11);
        QVERIFY(std::abs(w[0] - 11.0 / 12) < 1e-12);
        QVERIFY(std::abs(w[1] - 11.0 / 10) < 1e-12);
        QCOMPARE(w[2], 0.0);
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
        config.height = 32;
        config.width = 32;
        config.sgd.epochs = 30;
        config.sgd.batchSize = 2;
        config.lcFineTune.epochs = 1;
        config.lcFineTune.batchSize = 3;
        config.sghmc.epochs = 2;
        config.sghmc.batchSize = 2;
        config.sghmc.burnInSteps = 1;
        config.sghmc.thinning = 1;
        config.correction.epochs = 2;
        config.correction.batchSize = 2;
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
        QCOMPARE(result.rows.size(), size_t(5));
        QCOMPARE(result.frames, 2);
        QCOMPARE(result.overlays, 2);
        const auto overlay = cv::imread((tmp.path() + "/overlays/h0_overlay.png").toStdString());
        QCOMPARE(overlay.cols, 5 * 32);
        QCOMPARE(overlay.rows, 32);
        for (const auto& row : result.rows) {
            QCOMPARE(row.metrics.count, 2 * 31 * 32);  // void row left out
            QCOMPARE(static_cast<int>(row.metrics.perClassIoU.size()), 11);
        }
        // Two cleanly separated regions: the CW-SGD network learns them.
        for (const auto& row : result.rows)
            if (row.method == "cw_sgd")
                QVERIFY2(row.metrics.accuracy > 0.9, qPrintable(QString::number(row.metrics.accuracy)));
        const auto json = QString::fromStdString(camvidEvalJson(result));
        QVERIFY(json.contains("\"per_class_iou\""));

        const auto fps = camvidFramesPerSecond(models.toStdString(), {1, 3}, 2, "cpu");
        QCOMPARE(fps.points.size(), size_t(2));
        QVERIFY(fps.qFps > 0 && fps.points[1].ensembleFps > 0);

        // A broken manifest is refused with the file named.
        writeFileAtomically((models + "/camvid.json").toStdString(), "{\"format\": \"lcstudio-camvid-models\"}");
        try {
            evaluateCamvid(eval, {});
            QFAIL("accepted");
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).contains("camvid.json"), e.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestSegmentation)
#include "tst_segmentation.moc"
