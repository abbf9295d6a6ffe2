#include "experiments/image_experiment_support.h"

#include <algorithm>
#include <cstdio>

#include <torch/torch.h>

#include "experiments/corruption_experiment.h"
#include "core/number_format.h"
#include "core/seeds.h"
#include "experiments/report_json.h"
#include "image_data.h"
#include "io/model_io.h"
#include "models/classifier.h"
#include "models/mlp.h"

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

std::string runRowsCsvHeader(const char* setting, bool withReferral)
{
    return std::string(setting) + ",trial,method,cost,accuracy," + (withReferral ? "referral_rate," : "") +
           "nll,seconds,collapsed\n";
}

std::string runRowCsv(double value, int trial, ImageMethod method, const DecisionMetrics& m, double seconds,
                      bool collapsed, bool withReferral)
{
    // Shortest round-trip text for every number: a CSV reader gets back the exact doubles.
    std::string s = formatNumber(value) + ',' + std::to_string(trial) + ',' + imageMethodName(method) + ',' +
                    reportCell(m.averageCost) + ',' + reportCell(m.accuracy) + ',';
    if (withReferral)
        s += reportCell(m.referralRate) + ',';
    return s + reportCell(m.nll) + ',' + formatNumber(seconds) + ',' + (collapsed ? "1" : "0") + '\n';
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

std::string meanStdText(const MeanStd& m)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.4f ± %.4f", m.mean, m.std);
    return buf;
}

std::string settingText(double value)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", value);
    return buf;
}

} // namespace lcs
