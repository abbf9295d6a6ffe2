#include "engine/experiments/image/corruption_experiment.h"

#include "engine/experiments/image/image_experiment_support.h"
#include "engine/experiments/image/image_run_settings.h"
#include "engine/experiments/report_json.h"

#include <algorithm>
#include <limits>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <sstream>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "base/core/input_error.h"
#include "base/core/number_format.h"
#include "base/core/seeds.h"

namespace lcs {
namespace {

bool wants(const CorruptionConfig& c, ImageMethod m) { return wantsMethod(c.methods, m); }

} // namespace

namespace {

/// The evidence of one run: a seeded permutation splits the test rows in two; the first
/// half fits the baselines and the choice, the second is scored.
CorrectionEvidence imageEvidence(const at::Tensor& probsBefore, const at::Tensor& probsAfter, const at::Tensor& labels,
                                 const CostMatrix& costs, uint64_t seed)
{
    const int64_t n = labels.size(0);
    auto generator = makeGenerator(seed);
    const auto order = at::randperm(n, generator, at::TensorOptions().dtype(at::kLong));
    const auto validation = order.slice(0, 0, n / 2);
    const auto scored = order.slice(0, n / 2, n);
    const auto labelsOf = [&](const at::Tensor& rows) {
        const auto y = labels.index_select(0, rows).to(at::kLong).contiguous();
        return std::vector<int64_t>(y.data_ptr<int64_t>(), y.data_ptr<int64_t>() + y.numel());
    };
    const auto gather = [&](Selection selection) {
        return gatherCorrectionEvidence(
            toClassProbabilities(probsBefore.index_select(0, validation)),
            toClassProbabilities(probsAfter.index_select(0, validation)), labelsOf(validation),
            toClassProbabilities(probsBefore.index_select(0, scored)),
            toClassProbabilities(probsAfter.index_select(0, scored)), labelsOf(scored), costs, selection,
            mixSeed(seed, kEvidenceStream));
    };
    CorrectionEvidence e;
    try {
        e = gather(Selection::CrossValidation);
    } catch (const InputError& why) {
        // A test set too small to hold two classes in its validation half: the run's
        // evidence is an addition to its figures, so it chooses between S and q there
        // instead of refusing the run, and says why.
        e = gather(Selection::Validation);
        e.keptReason += " (no cross-validation: " + std::string(why.what()) + ")";
    }
    e.setName = "scored-half";
    return e;
}

} // namespace

DecisionComparison compareDecisions(const at::Tensor& probsBefore, const at::Tensor& probsAfter,
                                    const at::Tensor& labels, const CostMatrix& costs, uint64_t evidenceSeed)
{
    const auto L = costTensor(costs);
    const auto before = bayesDecisions(probsBefore, L);
    const auto after = bayesDecisions(probsAfter, L);
    DecisionComparison out;
    out.costs = costs;
    out.uncorrected = evaluateDecisions(probsBefore, before, labels, costs);
    out.corrected = evaluateDecisions(probsAfter, after, labels, costs);
    if (labels.size(0) >= 2)
        out.evidence = imageEvidence(probsBefore, probsAfter, labels, costs, evidenceSeed);
    const auto differ = before.ne(after).nonzero().flatten();
    out.changedCount = differ.size(0);
    const auto pb = probsBefore.to(at::kFloat).contiguous();
    const auto pa = probsAfter.to(at::kFloat).contiguous();
    const auto c = probsBefore.size(1);
    for (int64_t k = 0; k < std::min<int64_t>(differ.size(0), kMaxChangedDecisions); ++k) {
        const auto i = differ[k].item<int64_t>();
        ChangedDecision d;
        d.index = i;
        d.label = labels[i].item<int64_t>();
        d.before = before[i].item<int64_t>();
        d.after = after[i].item<int64_t>();
        d.probsBefore.assign(pb[i].data_ptr<float>(), pb[i].data_ptr<float>() + c);
        d.probsAfter.assign(pa[i].data_ptr<float>(), pa[i].data_ptr<float>() + c);
        out.changed.push_back(std::move(d));
    }
    return out;
}

std::string imageEvidenceText(const std::vector<DecisionComparison>& comparisons, const std::string& settingName)
{
    std::vector<const DecisionComparison*> withEvidence;
    for (const auto& c : comparisons)
        if (!c.evidence.comparisons.empty())
            withEvidence.push_back(&c);
    if (withEvidence.empty())
        return {};
    const auto& first = withEvidence.front()->evidence;
    const auto validationRows = first.validationP.rowCosts.size();
    const auto scoredRows = first.rules.front().rowCosts.size();
    std::string out = "Held-out evidence (P = S's predictive). The test images are split in two by the run's seed:\n"
                      "  the calibrations of P and the kept rule (the lowest cost among P, q and the calibrations\n"
                      "  in cross-validation, " + std::to_string(first.choice.folds) + " folds) are fitted and chosen on " +
                      std::to_string(validationRows) + ",\n  every rule is scored on the other " +
                      std::to_string(scoredRows) + ":\n";
    char line[320];
    std::snprintf(line, sizeof line, "  %-6s %-5s %-8s %-8s %-30s %-19s %-11s %-8s %s\n", settingName.c_str(), "trial",
                  "P", "q", "q - P [95% interval]", "verdict", "temperature", "offsets", "kept");
    out += line;
    std::vector<std::string> sentences;
    int temperatureBeatsQ = 0, offsetsBeatQ = 0;
    for (const auto* c : withEvidence) {
        const auto& e = c->evidence;
        const auto costOf = [&](const char* rule) {
            const auto* r = e.rule(rule);
            return r ? r->cost : std::numeric_limits<double>::quiet_NaN();
        };
        const auto& d = e.comparisons[0].difference;
        char change[64];
        std::snprintf(change, sizeof change, "%+.4f [%+.4f, %+.4f]", d.mean, d.low, d.high);
        std::snprintf(line, sizeof line, "  %-6s %-5d %-8.4f %-8.4f %-30s %-19s %-11.4f %-8.4f %s\n",
                      formatNumber(c->rate).c_str(), c->trial, e.rules[0].cost, e.rules[1].cost, change,
                      verdictName(e.comparisons[0].verdict), costOf("temperature"), costOf("offsets"), e.kept.c_str());
        out += line;
        temperatureBeatsQ += costOf("temperature") < e.rules[1].cost ? 1 : 0;
        offsetsBeatQ += costOf("offsets") < e.rules[1].cost ? 1 : 0;
        for (const auto& comparison : e.comparisons)
            if (comparison.verdict == Verdict::Worse)
                sentences.push_back(settingName + " " + formatNumber(c->rate) + ", trial " + std::to_string(c->trial) +
                                    ": " + verdictSentence(comparison, e.setName));
    }
    for (const auto& sentence : sentences)
        out += "  " + sentence + "\n";
    const auto runs = std::to_string(withEvidence.size());
    if (temperatureBeatsQ > 0 || offsetsBeatQ > 0)
        out += "  A baseline costs less than q on the scored half: temperature in " + std::to_string(temperatureBeatsQ) +
               " of " + runs + " runs, offsets in " + std::to_string(offsetsBeatQ) + " of " + runs + ".\n";
    // Over trials: q against S on the whole test set, paired by trial, per setting.
    std::vector<double> settings;
    for (const auto& c : comparisons)
        if (std::find(settings.begin(), settings.end(), c.rate) == settings.end())
            settings.push_back(c.rate);
    for (double value : settings) {
        std::vector<double> uncorrected, corrected;
        for (const auto& c : comparisons)
            if (c.rate == value) {
                uncorrected.push_back(c.uncorrected.averageCost);
                corrected.push_back(c.corrected.averageCost);
            }
        // Below three trials the sentence says so (Verdict::TooFewToTell) instead of a verdict.
        auto over = compareOverReplicates(uncorrected, corrected);
        over.reference.rule = "S";
        out += "  " + settingName + " " + formatNumber(value) + ", over trials: " +
               verdictSentence(over, "test", "trials") + "\n";
    }
    return out;
}

nlohmann::json imageEvidenceJson(const std::vector<DecisionComparison>& comparisons, const std::string& settingName)
{
    nlohmann::json runs = nlohmann::json::array();
    for (const auto& c : comparisons) {
        if (c.evidence.comparisons.empty())
            continue;
        auto j = correctionEvidenceJson(c.evidence, c.costs);
        j[settingName] = c.rate;
        j["trial"] = c.trial;
        runs.push_back(std::move(j));
    }
    return runs;
}

namespace {

uint64_t corruptionTaskSeed(uint64_t seed, double rate, int trial)
{
    return seedFor(seed, {settingCoordinate(rate), static_cast<uint64_t>(trial)});
}

} // namespace

void applyModelWidth(int width, ModelSpec& model)
{
    if (width <= 0)
        return;
    if (model.architecture != "resnet18")
        throw InputError("width " + std::to_string(width) + " applies to ResNet-18 (colour images), but this data "
                         "set trains an " + model.architecture);
    model.width = width;
}

CorruptionConfig corruptionConfigFor(const ImageRunChoices& choices, const ImageDataset& data)
{
    auto c = CorruptionConfig::preset(choices.preset, data);
    applySharedChoices(choices, c, c.rates, c.sgld.epochs);
    c.declaredSettings = settingValues(corruptionSettings(), choices);
    return c;
}

TaskPlan corruptionPlan(const CorruptionConfig& c)
{
    const bool chain = wants(c, ImageMethod::SgldS) || wants(c, ImageMethod::Sgld) || wants(c, ImageMethod::Ours) ||
                       wants(c, ImageMethod::OursNoS);
    TaskPlan plan;
    for (double rate : c.rates)
        for (int t = 0; t < c.trials; ++t) {
            auto add = [&](const char* network, double weight) { plan.push_back({{network, rate, t}, weight}); };
            if (chain || wants(c, ImageMethod::LcSgld))
                add("map", c.map.epochs);
            if (chain)
                add("sgld_s", 2.0 * c.sgld.epochs);
            if (wants(c, ImageMethod::Ours))
                add("ours", 1.5 * c.correction.epochs);
            if (wants(c, ImageMethod::LcSgld))
                add("lc_sgld", 1.3 * c.sgld.epochs);
            if (wants(c, ImageMethod::CwSgd))
                add("cw_sgd", c.cwSgd.epochs);
        }
    return plan;
}

Recorrection recorrect(const CorrectionCache& cache, const CostMatrix& costs, const JobContext& ctx)
{
    if (!cache.student)
        throw InputError("no student network to correct: run the experiment first");
    if (costs.numClasses() != cache.spec.classes)
        throw InputError("cost matrix has " + std::to_string(costs.numClasses()) + " classes but the networks have " +
                         std::to_string(cache.spec.classes));
    // The run's own stream for q: the same costs give the run's q again.
    auto generator = makeGenerator(cache.correctionSeed);
    const auto q = trainImageCorrection(cache.spec, *cache.student, cache.calibrationInputs, {cache.student.get(), {}},
                                        costs, cache.correction, generator, ctx, "correction");
    Recorrection out;
    out.comparison = compareDecisions(cache.studentTestProbs, predictClassProbabilities(*q.q, cache.testImages),
                                      cache.testLabels, costs, mixSeed(cache.correctionSeed, kEvidenceStream));
    out.comparison.rate = cache.rate;
    out.comparison.trial = cache.trial;
    out.q = q.q;
    out.seconds = q.seconds;
    out.collapsed = q.collapsed;
    return out;
}

CorruptionConfig CorruptionConfig::preset(const std::string& name, const ImageDataset& data)
{
    if (name != "cpu" && name != "paper")
        throw InputError("preset \"" + name + "\" is not cpu or paper");
    const bool cpu = name == "cpu";
    const bool colour = data.inputShape.size() == 3 && data.inputShape[0] == 3;
    CorruptionConfig c;
    c.model.inputShape = data.inputShape;
    c.model.classes = data.classes();
    c.costs = data.classes() == 10 ? costPreset(colour ? "cifar10" : "mnist") : CostMatrix::zeroOne(static_cast<int>(data.classes()));
    c.costs.setClassNames(data.classNames);
    const long long perEpoch = (data.train.size() + 63) / 64;
    if (!colour) {
        // MNIST-like: MLP 784-200-10 with ReLU (appendix, "MNIST-MLP200").
        c.model.architecture = "mlp";
        c.model.hidden = {200};
        c.map = SgdConfig()
                    .withEpochs(cpu ? 3 : 100)
                    .withBatchSize(64)
                    .withLearningRate(cpu ? 0.05 : 0.01)
                    .withSchedule(cpu ? LrSchedule::OneCycle : LrSchedule::Cosine)
                    .withWeightDecay(1e-4);
        c.sgld.learningRate = cpu ? 2e-3 : 1e-4;
        c.sgld.priorPrecision = 6.0;
        c.sgld.epochs = cpu ? 4 : 100;
        c.sgld.student = SgdConfig()
                             .withEpochs(0)
                             .withBatchSize(64)
                             .withLearningRate(cpu ? 0.05 : 1e-3)
                             .withSchedule(cpu ? LrSchedule::OneCycle : LrSchedule::Constant)
                             .withWeightDecay(1e-4);
        c.correction = sgdCorrectionConfig(cpu ? 2 : 100, 64, cpu ? 0.01 : 1e-3,
                                           cpu ? LrSchedule::OneCycle : LrSchedule::Constant, 0.01);
    } else {
        // CIFAR-10: ResNet-18 (width 64 in the paper; 16 keeps a CPU epoch short).
        c.model.architecture = "resnet18";
        c.model.width = cpu ? 8 : 64;
        c.map = SgdConfig().withEpochs(cpu ? 3 : 100).withBatchSize(64).withLearningRate(0.05).withWeightDecay(5e-4);
        c.sgld.learningRate = cpu ? 1e-3 : 2e-5;
        c.sgld.priorPrecision = 50.0;
        c.sgld.epochs = cpu ? 3 : 50;
        c.sgld.student = SgdConfig().withEpochs(0).withBatchSize(64).withLearningRate(0.05).withWeightDecay(1e-4);
        c.correction = sgdCorrectionConfig(cpu ? 1 : 50, 64, 0.05, LrSchedule::OneCycle, 0.01);
    }
    c.sgld.momentum = 0.0;  // SGLD
    c.sgld.batchSize = 64;
    // Samples: the paper keeps one from the end of each of the last 30 epochs; the CPU
    // preset keeps ten per epoch after a one-epoch burn-in.
    c.sgld.burnInSteps = cpu ? perEpoch : 10000;
    c.sgld.thinning = cpu ? std::max<long long>(1, perEpoch / 10) : perEpoch;
    c.sgld.keepSamples = 30;
    c.sgld.calibrationNoiseStd = 0.05;  // D' = training images + N(0, 0.05^2), drawn per batch
    c.cwSgd = c.map;
    return c;
}

std::string TrainedNetwork::stem() const
{
    return network + (perSetting ? std::string("_") + settingName + formatNumber(setting) : std::string()) + "_trial" +
           std::to_string(trial);
}

namespace {

/// One (rate, trial) of the label-corruption experiment: its streams, named by the task's
/// coordinates (the rate's value, not its place in the list, and the trial; each network
/// adds its catalogue seed tag), its corrupted training set, and the networks of the
/// methods asked for, recorded into the result.
class CorruptionTrial {
public:
    CorruptionTrial(const ImageDataset& data, const CorruptionConfig& config, const JobContext& ctx, double rate,
                    int trial, CorruptionResult& result)
        : m_data(data), m_config(config), m_ctx(ctx), m_rate(rate), m_trial(trial), m_result(result),
          m_detail("rate " + settingText(rate) + ", trial " + std::to_string(trial)),
          m_taskSeed(corruptionTaskSeed(config.seed, rate, trial)),
          // Live test-set curves: cost, accuracy and NLL of the network being trained
          // after every epoch, on up to 2,000 test images.
          m_probe(TestProbe::firstOf(data.test.images, data.test.labels)), m_device(config.device)
    {
        auto labelStream = makeGenerator(m_taskSeed);
        m_train = {data.train.images, corruptLabels(data.train.labels, rate, data.classes(), labelStream)};
    }

    /// Trains every network the methods need; returns whether a chain was distilled.
    bool run()
    {
        bool distilled = false;
        const bool needsChain = wants(m_config, ImageMethod::SgldS) || wants(m_config, ImageMethod::Sgld) ||
                                wants(m_config, ImageMethod::Ours) || wants(m_config, ImageMethod::OursNoS) ||
                                wants(m_config, ImageMethod::LcSgld);
        Classifier map;
        if (needsChain)
            map = trainMap();
        if (wants(m_config, ImageMethod::SgldS) || wants(m_config, ImageMethod::Sgld) ||
            wants(m_config, ImageMethod::Ours) || wants(m_config, ImageMethod::OursNoS)) {
            runChainAndCorrection(*map);
            distilled = true;
        }
        if (wants(m_config, ImageMethod::LcSgld))
            runLcSgld(*map);
        if (wants(m_config, ImageMethod::CwSgd))
            runCwSgd();
        return distilled;
    }

private:
    void record(ImageMethod m, const at::Tensor& probs, double seconds, bool collapsed)
    {
        m_result.rows.push_back(
            {m_rate, m_trial, m, bayesMetrics(probs, m_data.test.labels, m_config.costs), seconds, collapsed});
    }
    TaskIdentity identity(const char* network) const { return TaskIdentity{network, m_rate, m_trial}; }
    void trained(const char* network, const ClassifierImpl& model, bool collapsed = false) const
    {
        if (m_config.onNetwork)
            m_config.onNetwork({network, "rate", m_rate, true, m_trial, &model, &m_config.model, &m_config.costs,
                                collapsed});
    }
    JobContext progress(const char* network, const std::string& what) const
    {
        return taskContext(m_ctx, identity(network), m_detail, what);
    }
    EpochCallback curve(const char* network) const
    {
        return testCurve(m_ctx, m_probe, m_config.costs, identity(network), network, m_detail);
    }

    Classifier trainMap()
    {
        auto stream = networkStream(m_taskSeed, "map");
        Classifier map = m_config.model.build(stream);
        map->to(m_device);
        trainSgd(*map, m_train, m_config.map, stream, progress("map", "map"), "map", curve("map"));
        trained("map", *map);
        return map;
    }

    /// SGLD from the MAP with the student S distilled online (SGLD + S, SGLD), then q on S.
    void runChainAndCorrection(const ClassifierImpl& map)
    {
        const auto& c = m_config;
        auto stream = networkStream(m_taskSeed, "sgld_s");
        auto chain = runSgldDistillation(c.model, map, m_train, m_train.x, m_data.test.images, c.sgld, stream,
                                         progress("sgld_s", "sgld + S"), "sgld", curve("sgld_s"));
        trained("sgld_s", *chain.student);
        m_result.distillationSecondsPerEpoch += chain.secondsPerEpoch;
        const auto studentProbs = predictClassProbabilities(*chain.student, m_data.test.images);
        auto cache = std::make_shared<CorrectionCache>();
        *cache = {c.model,         chain.student, m_train.x, m_data.test.images, m_data.test.labels, studentProbs,
                  c.correction,    mixSeed(m_taskSeed, methodInfo("ours").seedTag), m_rate, m_trial};
        m_result.cache = cache;
        if (wants(c, ImageMethod::SgldS))
            record(ImageMethod::SgldS, studentProbs, chain.seconds, false);
        if (wants(c, ImageMethod::Sgld))
            record(ImageMethod::Sgld, chain.evalPredictive, chain.seconds, false);
        if (!wants(c, ImageMethod::Ours))
            return;
        auto qStream = makeGenerator(cache->correctionSeed);
        auto q = trainImageCorrection(c.model, *chain.student, m_train.x, {chain.student.get(), {}}, c.costs,
                                      c.correction, qStream, progress("ours", "ours"), "correction", curve("ours"));
        const auto qProbs = predictClassProbabilities(*q.q, m_data.test.images);
        record(ImageMethod::Ours, qProbs, q.seconds, q.collapsed);
        trained("ours", *q.q, q.collapsed);
        auto comparison = compareDecisions(studentProbs, qProbs, m_data.test.labels, c.costs,
                                           mixSeed(cache->correctionSeed, kEvidenceStream));
        comparison.rate = m_rate;
        comparison.trial = m_trial;
        if (c.onComparison)
            c.onComparison(comparison, m_data.test.images);
        m_result.comparisons.push_back(std::move(comparison));
    }

    /// Loss-calibrated SGLD: a chain of its own from the MAP, no student.
    void runLcSgld(const ClassifierImpl& map)
    {
        auto lc = m_config.sgld;
        lc.distil = false;
        lc.lossCalibration = &m_config.costs;
        auto stream = networkStream(m_taskSeed, "lc_sgld");
        auto chain = runSgldDistillation(m_config.model, map, m_train, {}, m_data.test.images, lc, stream,
                                         progress("lc_sgld", "lc-sgld"), "lc_sgld", curve("lc_sgld"));
        record(ImageMethod::LcSgld, chain.evalPredictive, chain.seconds, false);
    }

    /// SGD with the important classes (those the cost matrix favours) weighted up.
    void runCwSgd()
    {
        const auto t0 = std::chrono::steady_clock::now();
        auto cw = m_config.cwSgd;
        if (cw.classWeights.empty()) {
            cw.classWeights.assign(static_cast<size_t>(m_data.classes()), 1.0);
            for (auto k : importantClasses(m_config.costs))
                cw.classWeights[static_cast<size_t>(k)] = m_config.cwWeight;
        }
        auto stream = networkStream(m_taskSeed, "cw_sgd");
        auto net = m_config.model.build(stream);
        net->to(m_device);
        trainSgd(*net, m_train, cw, stream, progress("cw_sgd", "cw-sgd"), "cw_sgd", curve("cw_sgd"));
        trained("cw_sgd", *net);
        record(ImageMethod::CwSgd, predictClassProbabilities(*net, m_data.test.images),
               std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), false);
    }

    const ImageDataset& m_data;
    const CorruptionConfig& m_config;
    const JobContext& m_ctx;
    const double m_rate;
    const int m_trial;
    CorruptionResult& m_result;
    const std::string m_detail;
    const uint64_t m_taskSeed;
    const TestProbe m_probe;
    const c10::Device m_device;
    TrainingSet m_train;
};

} // namespace

namespace {


/// The results' long table: the CSV, the JSON's observations and the summary read it.
std::vector<Observation> corruptionObservations(const CorruptionResult& r)
{
    return runRowsObservations(r.rows, "rate", false);
}

} // namespace

CorruptionResult runCorruptionExperiment(const ImageDataset& data, const CorruptionConfig& config,
                                         const JobContext& ctx)
{
    const auto start = std::chrono::steady_clock::now();
    if (config.costs.numClasses() == data.classes())
        requireClassNames(config.costs, data.classNames, data.name);
    if (config.costs.numClasses() != data.classes())
        throw InputError("cost matrix has " + std::to_string(config.costs.numClasses()) + " classes but " + data.name +
                         " has " + std::to_string(data.classes()));
    if (config.trials < 1)
        throw InputError("trials must be at least 1");
    CorruptionResult result;
    result.record = {kCorruptionExperiment, config.costs, {}, config.declaredSettings, config.seed,
                     imageSettingsJson(config, data.name, data.train.size(), data.test.size(), "sgld", config.sgld),
                     ""};
    result.record.resolved["rates"] = config.rates;
    result.record.resolved["cw_weight"] = config.cwWeight;
    result.record.resolved["calibration_noise_std"] = config.sgld.calibrationNoiseStd;
    result.dataset = data.name;
    result.model = config.model.describe();
    result.trials = config.trials;
    result.seed = config.seed;
    int distillationRuns = 0;
    for (const double rate : config.rates)
        for (int trial = 0; trial < config.trials; ++trial)
            distillationRuns += CorruptionTrial(data, config, ctx, rate, trial, result).run() ? 1 : 0;
    if (distillationRuns > 0)
        result.distillationSecondsPerEpoch /= distillationRuns;
    // Mean ± std over trials per (rate, method), read off the long table.
    const auto observed = corruptionObservations(result);
    for (double rate : config.rates)
        for (auto m : config.methods) {
            const ObservedCell cell(observed, rate, imageMethodName(m));
            if (!cell.empty())
                result.summary.push_back({m, rate, cell.figure("cost"), cell.figure("accuracy"), cell.figure("nll"),
                                          cell.collapsed()});
        }
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
}

std::string corruptionTable(const CorruptionResult& r)
{
    std::ostringstream s;
    s << "Label corruption on " << r.dataset << " (" << r.model << "): test metrics over " << r.trials
      << " trial(s)" << (r.trials > 1 ? ", mean ± std" : "") << "\n";
    char line[256];
    std::snprintf(line, sizeof line, "%-6s %-16s %-19s %-19s %-19s\n", "rate", "method", "decision cost", "accuracy",
                  "NLL");
    s << line;
    for (const auto& m : r.summary) {
        std::snprintf(line, sizeof line, "%-6s %-16s %s %s %s%s\n", settingText(m.rate).c_str(),
                      imageMethodLabel(m.method).c_str(), padded(meanStdText(m.cost), 19).c_str(),
                      padded(meanStdText(m.accuracy), 19).c_str(), padded(meanStdText(m.nll), 19).c_str(),
                      m.collapsed ? "  (q collapsed)" : "");
        s << line;
    }
    s << imageEvidenceText(r.comparisons, "rate");
    std::snprintf(line, sizeof line, "%.1f s wall; SGLD + S distillation %.2f s per epoch\n", r.seconds,
                  r.distillationSecondsPerEpoch);
    s << line;
    return s.str();
}


ExperimentOutput corruptionOutput(const CorruptionResult& r)
{
    nlohmann::json rates = nlohmann::json::array();
    for (const auto& m : r.summary)
        rates.push_back({{"rate", m.rate},
                         {"method", imageMethodName(m.method)},
                         {"cost", reportMeanStd(m.cost)},
                         {"accuracy", reportMeanStd(m.accuracy)},
                         {"nll", reportMeanStd(m.nll)},
                         {"collapsed_trials", m.collapsed}});
    const auto trials = runRowsJson(r.rows, "rate", false);
    ExperimentOutput out;
    out.experiment = kCorruptionExperiment;
    out.record = r.record;
    out.observations = corruptionObservations(r);
    out.csvLayout = runRowsLayout("rate", false);
    out.evidence = imageEvidenceJson(r.comparisons, "rate");
    out.fields = {{"dataset", r.dataset},
                  {"model", r.model},
                  {"trials", r.trials},
                  {"seed", r.seed},
                  {"seconds", r.seconds},
                  {"distillation_seconds_per_epoch", r.distillationSecondsPerEpoch},
                  {"summary", rates},
                  {"runs", trials}};
    out.table = corruptionTable(r);
    out.reliability = runRowsReliabilityCsv(r.rows, "rate");
    return out;
}

} // namespace lcs
