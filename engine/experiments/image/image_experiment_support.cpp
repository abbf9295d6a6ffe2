#include "engine/experiments/image/image_experiment_support.h"

#include <limits>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <torch/torch.h>

#include "base/core/atomic_file.h"
#include "base/core/input_error.h"
#include "base/core/number_format.h"
#include "base/core/seeds.h"
#include "base/io/table_csv.h"
#include "base/models/architectures.h"
#include "datasets/image_data.h"
#include "engine/core/stopwatch.h"
#include "engine/experiments/image/corruption_experiment.h"
#include "engine/experiments/report_json.h"
#include "engine/experiments/run_record.h"
#include "engine/io/model_io.h"
#include "engine/models/classifier.h"
#include "engine/models/mlp.h"

namespace lcs {

bool wantsMethod(const std::vector<ImageMethod>& methods, ImageMethod method)
{
    return std::find(methods.begin(), methods.end(), method) != methods.end();
}

DecisionMetrics bayesMetrics(const at::Tensor& probs, const at::Tensor& labels, const CostMatrix& costs)
{
    return evaluateDecisions(probs, bayesDecisions(probs, costTensor(costs)), labels, costs);
}

JobContext taskContext(const JobContext& ctx, const TaskIdentity& task, const std::string& run, const std::string& what)
{
    if (!ctx.progress)
        return {{}, ctx.cancel};
    // Copies, not references: the context may outlive the caller's strings.
    return {[sink = ctx.progress, task, head = run + ", " + what](const Progress& p) {
                Progress q = p;
                q.detail = head + (p.detail.empty() ? "" : ", " + p.detail);
                q.task = task;
                sink(q);
            },
            ctx.cancel};
}

at::Generator networkStream(uint64_t taskSeed, const std::string& network)
{
    return makeGenerator(mixSeed(taskSeed, methodInfo(network).seedTag));
}

TestProbe TestProbe::firstOf(const at::Tensor& images, const at::Tensor& labels, int64_t maxImages)
{
    const int64_t n = std::min<int64_t>(images.size(0), maxImages);
    return {images.slice(0, 0, n), labels.slice(0, 0, n)};
}

EpochCallback testCurve(const JobContext& ctx, const TestProbe& probe, const CostMatrix& costs,
                        const TaskIdentity& task, const std::string& model, const std::string& run)
{
    if (!ctx.progress)
        return {};
    return [sink = ctx.progress, probe, costs, task, model, run](int epoch, ClassifierImpl& net) {
        const auto m = bayesMetrics(predictClassProbabilities(net, probe.images), probe.labels, costs);
        auto p = Progress::at(kEpochMetricsPhase, model + ", " + run, epoch, 0);
        p.task = task;
        p.test = EpochTestFigures{model, epoch, m.averageCost, m.accuracy, m.nll, std::nullopt};
        sink(p);
    };
}

std::vector<std::string> methodIds(const std::vector<ImageMethod>& methods)
{
    std::vector<std::string> out;
    for (auto m : methods)
        out.push_back(imageMethodName(m));
    return out;
}

nlohmann::json trainingSettingsJson(int epochs, int batchSize, double learningRate)
{
    return {{"epochs", epochs}, {"batch_size", batchSize}, {"learning_rate", learningRate}};
}

nlohmann::json runRowJson(const char* setting, double value, int trial, ImageMethod method, const DecisionMetrics& m,
                          double seconds, bool collapsed, bool withReferral)
{
    nlohmann::json j{{setting, value},
                     {"trial", trial},
                     {"method", imageMethodName(method)},
                     {"cost", reportNumber(m.averageCost)},
                     {"accuracy", reportNumber(m.accuracy)},
                     {"nll", reportNumber(m.nll)},
                     {"seconds", seconds},
                     {"collapsed", collapsed}};
    if (withReferral)
        j["referral_rate"] = reportNumber(m.referralRate);
    return j;
}

WideLayout runRowsLayout(const char* setting, bool withReferral, const std::vector<WideColumn>& extra)
{
    WideLayout layout;
    layout.setting = setting;
    layout.columns = {{"cost", "", "cost"}, {"accuracy", "", "accuracy"}};
    if (withReferral)
        layout.columns.push_back({"referral_rate", "", "referral_rate"});
    layout.columns.push_back({"nll", "", "nll"});
    layout.columns.push_back({"seconds", "", "seconds"});
    layout.columns.push_back({"collapsed", "", "collapsed", true});
    layout.columns.insert(layout.columns.end(), extra.begin(), extra.end());
    return layout;
}

ImageNetworkWriter::ImageNetworkWriter(const std::string& experiment, const ImageDataset& data, uint64_t seed)
{
    m_info.experiment = experiment;
    m_info.seed = seed;
    m_info.inputMean = data.channelMean;
    m_info.inputStd = data.channelStd;
    m_info.classNames = data.classNames;
}

ModelInfo ImageNetworkWriter::info(const TrainedNetwork& n) const
{
    ModelInfo info = m_info;
    info.method = n.network;
    info.role = n.network == "map"                                  ? "map"
                : n.network == "sgld_s" || n.network == "sghmc_s" ? "student"
                : n.network == "cw_sgd"                           ? "classifier"
                                                                  : "q";
    info.replicate = n.trial;
    info.costs = *n.costs;
    info.collapsed = n.collapsed;
    return info;
}

std::string ImageNetworkWriter::write(const TrainedNetwork& n, const std::string& dir) const
{
    const std::string file = n.stem() + ".pt";
    saveModel(*n.model, *n.spec, info(n), dir + "/" + file);
    return file;
}

namespace {

std::string shapeText(const std::vector<int64_t>& shape)
{
    std::string out;
    for (auto d : shape)
        out += (out.empty() ? "" : " x ") + std::to_string(d);
    return out;
}

} // namespace

ImageModelEvaluation evaluateImageModel(const std::string& path, const ImageDataset& data, const CostMatrix& costs,
                                        const JobContext& ctx)
{
    const auto start = Clock::now();
    // The sidecar alone first: a segmentation network is refused before its weights load.
    const auto sidecar = modelInfoFromJson(readFile(path + ".json", size_t{16} << 20), path + ".json");
    if (isSegNetArchitecture(sidecar.architecture))
        throw InputError(path + ": a segmentation network (" + sidecar.architecture +
                         ") decides every pixel of a frame, not an image: open its model folder in the CamVid "
                         "experiment (the window's CamVid page, or lcstudio-cli camvid eval)");
    const auto loaded = loadClassifier(path);
    const auto dims = loaded.info.inputDims();
    if (dims != data.inputShape || loaded.spec.classes != data.classes())
        throw InputError(path + ": the model takes " + shapeText(dims) + " inputs and decides " +
                         std::to_string(loaded.spec.classes) + " classes, but " + data.name + " has " +
                         shapeText(data.inputShape) + " images of " + std::to_string(data.classes()) + " classes");
    ImageModelEvaluation out;
    out.path = path;
    out.info = loaded.info;
    out.dataset = data.name;
    if (costs.numClasses() == data.classes()) {
        out.costs = costs;
        out.costs.setClassNames(data.classNames);
    } else if (loaded.info.costs.numClasses() == data.classes()) {
        out.costs = loaded.info.costs;
        out.sidecarCosts = true;
    } else {
        throw InputError(path + ": neither the cost matrix given (" + std::to_string(costs.numClasses()) +
                         " classes) nor the one in its sidecar fits its " + std::to_string(data.classes()) +
                         " classes");
    }
    // The data set holds standardised images; the file standardises raw pixels itself.
    at::Tensor raw = data.test.images.to(at::kFloat);
    if (!data.channelMean.empty()) {
        std::vector<int64_t> shape(static_cast<size_t>(raw.dim()), 1);
        shape[1] = static_cast<int64_t>(data.channelMean.size());
        raw = raw * torch::tensor(data.channelStd, torch::kDouble).to(at::kFloat).reshape(shape) +
              torch::tensor(data.channelMean, torch::kDouble).to(at::kFloat).reshape(shape);
    }
    // In chunks, so that a cancel is heard and progress moves on a large test set.
    constexpr int64_t kChunk = 1000;
    const int64_t n = raw.size(0);
    std::vector<at::Tensor> parts;
    for (int64_t b = 0; b < n; b += kChunk) {
        ctx.checkCancelled();
        parts.push_back(loaded.probabilities(raw.slice(0, b, std::min(b + kChunk, n))));
        ctx.report(Progress::at("evaluate", data.name, std::min(b + kChunk, n), n));
    }
    const auto probs = parts.empty() ? at::zeros({0, loaded.spec.classes}) : at::cat(parts, 0);
    out.metrics = evaluateDecisions(probs, bayesDecisions(probs, costTensor(out.costs)), data.test.labels, out.costs);
    requireFiniteMetrics(out.metrics);
    out.seconds = secondsSince(start);
    return out;
}

namespace {

std::string imageModelEvaluationCsv(const ImageModelEvaluation& e)
{
    const auto& m = e.metrics;
    const bool referral = e.costs.hasReferral();
    return std::string("model,method,dataset,test_images,cost,expected_cost,accuracy,") +
           (referral ? "referral_rate," : "") + "nll\n" + csvText(e.path) + ',' + csvText(e.info.method) + ',' +
           csvText(e.dataset) + ',' + std::to_string(m.count) + ',' + reportCell(m.averageCost) + ',' +
           reportCell(m.expectedCost) + ',' + reportCell(m.accuracy) + ',' +
           (referral ? reportCell(m.referralRate) + ',' : std::string()) + reportCell(m.nll) + '\n';
}

} // namespace

ExperimentOutput imageModelEvaluationOutput(const ImageModelEvaluation& e)
{
    const auto& m = e.metrics;
    nlohmann::json metrics{{"cost", reportNumber(m.averageCost)},
                           {"expected_cost", reportNumber(m.expectedCost)},
                           {"accuracy", reportNumber(m.accuracy)},
                           {"nll", reportNumber(m.nll)}};
    if (e.costs.hasReferral())
        metrics["referral_rate"] = reportNumber(m.referralRate);
    ExperimentOutput out;
    out.record = RunRecord{e.info.experiment, e.costs, {}, {{"model", e.path}, {"data", e.dataset}}, e.info.seed, nlohmann::json::object(), ""};
    out.fields = {{"evaluation", "model"},
                  {"model",
                   {{"path", e.path},
                    {"experiment", e.info.experiment},
                    {"method", e.info.method},
                    {"role", e.info.role},
                    {"trial", e.info.replicate},
                    {"architecture", e.info.architecture}}},
                  {"dataset", e.dataset},
                  {"test_images", m.count},
                  {"costs_from", e.sidecarCosts ? "sidecar" : "given"},
                  {"metrics", metrics},
                  {"seconds", e.seconds}};
    out.csvText = imageModelEvaluationCsv(e);
    return out;
}

std::string imageModelEvaluationText(const ImageModelEvaluation& e)
{
    const auto& m = e.metrics;
    char buf[256];
    std::snprintf(buf, sizeof buf, "cost %.4f (expected %.4f), accuracy %.4f, NLL %.4f", m.averageCost,
                  m.expectedCost, m.accuracy, m.nll);
    std::string out = buf;
    if (e.costs.hasReferral()) {
        std::snprintf(buf, sizeof buf, ", referral rate %.4f", m.referralRate);
        out += buf;
    }
    return out;
}

std::string settingText(double value)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", value);
    return buf;
}

Pixels pixelsFromStandardized(const at::Tensor& chw, const std::vector<double>& mean, const std::vector<double>& std)
{
    Pixels out;
    if (!chw.defined() || chw.dim() != 3 || (chw.size(0) != 1 && chw.size(0) != 3))
        return out;
    const auto t = chw.detach().to(at::kCPU, at::kDouble).contiguous();
    out.channels = static_cast<int>(t.size(0));
    out.height = static_cast<int>(t.size(1));
    out.width = static_cast<int>(t.size(2));
    const double* p = t.data_ptr<double>();
    const size_t plane = static_cast<size_t>(out.height) * static_cast<size_t>(out.width);
    out.bytes.resize(plane * static_cast<size_t>(out.channels));
    for (int k = 0; k < out.channels; ++k) {
        const double m = k < static_cast<int>(mean.size()) ? mean[static_cast<size_t>(k)] : 0.0;
        const double s = k < static_cast<int>(std.size()) ? std[static_cast<size_t>(k)] : 1.0;
        for (size_t i = 0; i < plane; ++i)
            out.bytes[i * static_cast<size_t>(out.channels) + static_cast<size_t>(k)] = static_cast<uint8_t>(
                std::lround(255.0 * std::clamp(p[static_cast<size_t>(k) * plane + i] * s + m, 0.0, 1.0)));
    }
    return out;
}

std::vector<Pixels> changedImages(const DecisionComparison& comparison, const at::Tensor& testImages,
                                  const std::vector<double>& mean, const std::vector<double>& std)
{
    std::vector<Pixels> out;
    if (!testImages.defined())
        return out;
    for (const auto& c : comparison.changed)
        out.push_back(c.index >= 0 && c.index < testImages.size(0) ? pixelsFromStandardized(testImages[c.index], mean, std)
                                                                    : Pixels{});
    return out;
}

} // namespace lcs
