#pragma once

#include <string>
#include <vector>

#include <ATen/core/Tensor.h>
#include <nlohmann/json.hpp>

#include "base/decision/cost_matrix.h"
#include "base/inference/method_catalog.h"
#include "base/io/model_info.h"
#include "engine/calibration/image_training.h"
#include "engine/core/job.h"
#include "engine/decision/decisions.h"
#include "engine/experiments/report_json.h"
#include "engine/experiments/results_document.h"
#include "engine/experiments/run_views.h"

/// What the label-corruption and selective-classification experiments share: method
/// selection, Bayes decisions scored against labels, progress contexts that name the
/// run, live test curves, and the aggregation of per-trial rows into mean ± std.
namespace lcs {

struct ImageDataset;
struct TrainedNetwork;

bool wantsMethod(const std::vector<ImageMethod>& methods, ImageMethod method);

/// Metrics of the Bayes decisions of `probs` [N, C] under `costs` against `labels` [N].
DecisionMetrics bayesMetrics(const at::Tensor& probs, const at::Tensor& labels, const CostMatrix& costs);

/// A context whose reports carry `task` and, for logs and the CLI, "RUN, WHAT[, the inner
/// detail]" as their detail text; everything else is kept.
JobContext taskContext(const JobContext& ctx, const TaskIdentity& task, const std::string& run, const std::string& what);

/// The random stream of one network of a task: the task's seed mixed with the network's
/// catalogue seed tag, so each network's numbers do not depend on which others run.
at::Generator networkStream(uint64_t taskSeed, const std::string& network);

/// The first `maxImages` test images and labels: what live curves are measured on.
struct TestProbe {
    at::Tensor images, labels;
    static TestProbe firstOf(const at::Tensor& images, const at::Tensor& labels, int64_t maxImages = 2000);
};

/// An epoch callback that reports the decision cost (under `costs`), accuracy and NLL of
/// the network after each of its epochs as Progress::test, phase kEpochMetricsPhase,
/// detail "MODEL, RUN", with `task` as the report's identity.
EpochCallback testCurve(const JobContext& ctx, const TestProbe& probe, const CostMatrix& costs,
                        const TaskIdentity& task, const std::string& model, const std::string& run);

/// The catalogue ids of `methods`, in order (results records, tables).
std::vector<std::string> methodIds(const std::vector<ImageMethod>& methods);

/// A training configuration as a results record's settings: epochs, batch, learning rate.
nlohmann::json trainingSettingsJson(int epochs, int batchSize, double learningRate);

/// The settings record both image experiments share: data, model, trials, methods, the
/// MAP network's, the chain's (named `chain`) and the correction's training, the image
/// counts and the device. Config is a CorruptionConfig or a SelectiveConfig.
template <class Config, class Chain>
nlohmann::json imageSettingsJson(const Config& c, const std::string& dataName, int64_t trainImages,
                                 int64_t testImages, const char* chain, const Chain& sampler)
{
    return {{"data", dataName},
            {"model", c.model.describe()},
            {"trials", c.trials},
            {"methods", methodIds(c.methods)},
            {"map", trainingSettingsJson(c.map.epochs, c.map.batchSize, c.map.learningRate)},
            {chain, trainingSettingsJson(sampler.epochs, sampler.batchSize, sampler.learningRate)},
            {"correction", trainingSettingsJson(c.correction.epochs, c.correction.batchSize, c.correction.learningRate)},
            {"train_images", trainImages},
            {"test_images", testImages},
            {"device", c.device}};
}

/// The per-run rows of an image experiment's results files, one writer for both
/// experiments: `setting` names the swept setting ("rate", "referral_cost");
/// `withReferral` adds the referral rate. Row is an ImageRunRow.
nlohmann::json runRowJson(const char* setting, double value, int trial, ImageMethod method, const DecisionMetrics& m,
                          double seconds, bool collapsed, bool withReferral);

template <class Row>
nlohmann::json runRowsJson(const std::vector<Row>& rows, const char* setting, bool withReferral)
{
    auto out = nlohmann::json::array();
    for (const auto& row : rows)
        out.push_back(runRowJson(setting, row.setting, row.trial, row.method, row.metrics, row.seconds, row.collapsed,
                                 withReferral));
    return out;
}

/// A row's key in the long table and the reliability diagrams: the swept setting and its
/// value, the trial and the method.
template <class Row>
Observation runRowKey(const Row& row, const char* setting)
{
    Observation key;
    key.setting = setting;
    key.settingValue = row.setting;
    key.trial = row.trial;
    key.method = imageMethodName(row.method);
    return key;
}

/// The same rows as the results' long table ("observations"): the swept setting, trial,
/// method, each finite metric of the rows' JSON, seconds and collapse (0 or 1).
template <class Row>
std::vector<Observation> runRowsObservations(const std::vector<Row>& rows, const char* setting, bool withReferral)
{
    std::vector<Observation> out;
    for (const auto& row : rows) {
        const Observation key = runRowKey(row, setting);
        appendObservations(out, key, row.metrics, ObservedMetrics{withReferral, {}});
        for (const auto& [metric, value] : {std::pair{"seconds", row.seconds}, {"collapsed", row.collapsed ? 1.0 : 0.0}}) {
            Observation o = key;
            o.metric = metric;
            o.value = value;
            out.push_back(std::move(o));
        }
    }
    return out;
}

/// Each row's reliability diagram (reliabilityCsv): the method's own predictive on the
/// test images, one diagram per (setting, trial, method), rule "predictive". The
/// uncorrected methods' rows and q's rows of a trial are the before and after.
template <class Row>
std::string runRowsReliabilityCsv(const std::vector<Row>& rows, const char* setting)
{
    std::vector<std::pair<Observation, const DecisionMetrics*>> diagrams;
    for (const auto& row : rows) {
        Observation key = runRowKey(row, setting);
        key.rule = "predictive";
        diagrams.emplace_back(key, &row.metrics);
    }
    return reliabilityCsv(diagrams);
}

/// The rows' CSV as a view of their long table: key columns, then cost, accuracy, the
/// referral rate (`withReferral`), NLL, seconds and collapse, then `extra`.
WideLayout runRowsLayout(const char* setting, bool withReferral, const std::vector<WideColumn>& extra = {});

/// The model files of the networks an image run trains, as `--save-models` and the
/// window's Save Model write them: `<stem>.pt` (TorchScript) and its sidecar
/// `<stem>.pt.json`, which names the experiment, the seed, the data's standardisation and
/// class names (so the file decides on raw pixels), the network's role and trial, the
/// matrix it decides for and whether q collapsed.
class ImageNetworkWriter {
public:
    ImageNetworkWriter(const std::string& experiment, const ImageDataset& data, uint64_t seed);
    /// The sidecar `network` gets.
    ModelInfo info(const TrainedNetwork& network) const;
    /// Writes `network` into the folder `dir` and returns the file name ("<stem>.pt"; the
    /// sidecar is that name + ".json"). Throws OutputError naming the file.
    std::string write(const TrainedNetwork& network, const std::string& dir) const;

private:
    ModelInfo m_info;
};

/// An exported image classifier decided on a data set's test images.
struct ImageModelEvaluation {
    std::string path;           ///< the model file
    ModelInfo info;             ///< its sidecar
    std::string dataset;
    CostMatrix costs;           ///< the matrix the decisions were made and scored under
    bool sidecarCosts = false;  ///< the matrix asked for did not fit the model: its sidecar's
    DecisionMetrics metrics;
    double seconds = 0;
};

/// Loads the classifier at `path` (loadClassifier) and decides `data`'s test images with
/// it under `costs`, or under its sidecar's matrix where `costs` has another number of
/// classes. The images go in as raw pixels (the data's standardisation undone), so the
/// sidecar's own standardisation applies, as for any caller of the file. Throws
/// InputError naming the file: a segmentation network, input dimensions or a class
/// count other than the data's (both named), no matrix that fits.
ImageModelEvaluation evaluateImageModel(const std::string& path, const ImageDataset& data, const CostMatrix& costs,
                                        const JobContext& ctx);
/// The evaluation as a results file: the model, the data, the run record (the matrix
/// scored under) and the figures; CSV: one row. The text table is the caller's.
ExperimentOutput imageModelEvaluationOutput(const ImageModelEvaluation& e);
/// One line of figures for a log: cost, expected cost, accuracy, NLL, referral rate.
std::string imageModelEvaluationText(const ImageModelEvaluation& e);


/// One standardised image [C, H, W] (C = 1 or 3) back to 8-bit pixels for display:
/// round(255 * clamp(x * std[c] + mean[c], 0, 1)). Missing statistics count as mean 0,
/// std 1; an undefined tensor or another shape gives empty pixels.
Pixels pixelsFromStandardized(const at::Tensor& chw, const std::vector<double>& mean, const std::vector<double>& std);

/// The test image of each of `comparison.changed`, in its order (empty pixels for an
/// index outside `testImages`; no images where `testImages` is undefined).
std::vector<Pixels> changedImages(const DecisionComparison& comparison, const at::Tensor& testImages,
                                  const std::vector<double>& mean, const std::vector<double>& std);

/// A setting (rate or referral cost) as a short label, "%.3g".
std::string settingText(double value);

} // namespace lcs
