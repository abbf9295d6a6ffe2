#include "engine/experiments/image/selective_experiment.h"

#include "engine/experiments/image/image_experiment_support.h"
#include "engine/experiments/image/image_run_settings.h"
#include "engine/experiments/report_json.h"

#include <algorithm>
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

using Clock = std::chrono::steady_clock;

bool wants(const SelectiveConfig& c, ImageMethod m) { return wantsMethod(c.methods, m); }

} // namespace

CostMatrix selectiveCosts(const CostMatrix& base, double referralCost)
{
    if (!(referralCost >= 0) || !std::isfinite(referralCost))
        throw InputError("referral cost " + formatNumber(referralCost) + " must be a finite number >= 0");
    CostMatrix costs = base;
    costs.setReferral(referralCost);
    return costs;
}

SelectiveConfig SelectiveConfig::preset(const std::string& name, const ImageDataset& data)
{
    if (name != "cpu" && name != "paper")
        throw InputError("preset \"" + name + "\" is not cpu or paper");
    const bool cpu = name == "cpu";
    const bool colour = data.inputShape.size() == 3 && data.inputShape[0] == 3;
    SelectiveConfig c;
    c.model.inputShape = data.inputShape;
    c.model.classes = data.classes();
    c.baseCosts = CostMatrix::zeroOne(static_cast<int>(data.classes()), data.classNames);
    if (colour) {
        c.model.architecture = "resnet18";
        c.model.width = cpu ? 8 : 64;
    } else {
        c.model.architecture = "mlp";
        c.model.hidden = {200};
    }
    const long long perEpoch = (data.train.size() + 63) / 64;
    // Appendix (rotated CIFAR-10): MAP by SGD one-cycle peak 0.05 for 100 epochs; SGHMC
    // momentum 0.7, lr 1e-3, prior precision 5, 1000 burn-in steps, 100 epochs, one
    // sample at the end of each of the last 30; student SGD one-cycle peak 0.1, wd 5e-4;
    // q from S with SGD lr 1e-3 for 100 epochs; without S, one-cycle peak 0.1.
    c.map = SgdConfig().withEpochs(cpu ? 3 : 100).withBatchSize(64).withLearningRate(0.05).withWeightDecay(5e-4);
    c.sghmc.momentum = 0.7;
    c.sghmc.learningRate = 1e-3;
    c.sghmc.priorPrecision = 5.0;
    c.sghmc.epochs = cpu ? 3 : 100;
    c.sghmc.batchSize = 64;
    c.sghmc.burnInSteps = cpu ? perEpoch : 1000;
    c.sghmc.thinning = cpu ? std::max<long long>(1, perEpoch / 3) : perEpoch;
    c.sghmc.keepSamples = cpu ? 6 : 30;
    c.sghmc.student = SgdConfig().withEpochs(0).withBatchSize(64).withLearningRate(0.1).withWeightDecay(5e-4);
    c.correction = sgdCorrectionConfig(cpu ? 1 : 100, 64, cpu ? 0.01 : 1e-3,
                                       cpu ? LrSchedule::OneCycle : LrSchedule::Constant, 0.01);
    c.correctionNoS = sgdCorrectionConfig(cpu ? 1 : 100, 64, cpu ? 0.01 : 0.1, LrSchedule::OneCycle, 0.01);
    c.calibrationCopies = cpu ? 1 : 10;
    return c;
}

SelectiveConfig selectiveConfigFor(const ImageRunChoices& choices, const ImageDataset& data)
{
    auto c = SelectiveConfig::preset(choices.preset, data);
    applySharedChoices(choices, c, c.referralCosts, c.sghmc.epochs);
    // A session written by hand reaches here without the flag's checks.
    const auto& r = c.referralCosts;
    for (size_t i = 0; i < r.size(); ++i) {
        if (!(r[i] >= 0))
            throw InputError("referral_costs: " + formatNumber(r[i]) + " is negative");
        for (size_t j = 0; j < i; ++j)
            if (r[i] == r[j])
                throw InputError("referral_costs: " + formatNumber(r[i]) + " is listed twice");
    }
    if (choices.copies > 0)
        c.calibrationCopies = choices.copies;
    c.declaredSettings = settingValues(selectiveSettings(), choices);
    return c;
}

TaskPlan selectivePlan(const SelectiveConfig& c)
{
    TaskPlan plan;
    const double copies = c.calibrationCopies;
    auto add = [&plan](const char* network, std::optional<double> r, int trial, double weight) {
        PlannedTask t;
        t.task.network = network;
        t.task.setting = r;
        t.task.trial = trial;
        t.weight = weight;
        plan.push_back(std::move(t));
    };
    for (int t = 0; t < c.trials; ++t) {
        add("map", std::nullopt, t, c.map.epochs);
        if (wants(c, ImageMethod::Sghmc) || wants(c, ImageMethod::Ours) || wants(c, ImageMethod::OursNoS))
            add("sghmc_s", std::nullopt, t, (wants(c, ImageMethod::Ours) ? 2.0 : 1.0) * c.sghmc.epochs);
        for (double r : c.referralCosts) {
            if (wants(c, ImageMethod::Ours))
                add("ours", r, t, 1.5 * copies * c.correction.epochs);
            if (wants(c, ImageMethod::OursNoS))
                add("ours_no_s", r, t, copies * c.correctionNoS.epochs);
            if (wants(c, ImageMethod::LcSghmc))
                add("lc_sghmc", r, t, 1.3 * c.sghmc.epochs);
        }
    }
    return plan;
}

namespace {

/// Seconds of the first trial's networks, for the training time against the number of
/// cost functions (per referral cost where a network is trained per cost).
struct FirstTrialSeconds {
    explicit FirstTrialSeconds(size_t costs) : ours(costs, 0), noS(costs, 0), lc(costs, 0) {}
    double chain = 0;  ///< MAP + SGHMC (+ S): shared by every cost
    std::vector<double> ours, noS, lc;
};

/// One trial of the selective-classification experiment. Streams: the trial's own (the
/// rotations), and one per network named by its catalogue seed tag and, for the networks
/// trained per cost, the referral cost. The MAP and S serve every referral cost; q is
/// per cost.
class SelectiveTrial {
public:
    SelectiveTrial(const ImageDataset& data, const SelectiveConfig& config, const std::vector<CostMatrix>& costs,
                   const JobContext& ctx, int trial, SelectiveResult& result, FirstTrialSeconds& seconds)
        : m_data(data), m_config(config), m_costs(costs), m_ctx(ctx), m_trial(trial), m_result(result),
          m_seconds(seconds), m_detail("trial " + std::to_string(trial)),
          m_taskSeed(seedFor(config.seed, {static_cast<uint64_t>(trial)}))
    {
        // The contamination: every training and test image rotated once; D' holds
        // `calibrationCopies` further random rotations of every training image.
        auto generator = makeGenerator(m_taskSeed);
        m_train = {rotateImages(data.train.images, randomAngles(data.train.size(), config.maxRotationDegrees, generator)),
                   data.train.labels};
        m_testImages = rotateImages(data.test.images, randomAngles(data.test.size(), config.maxRotationDegrees, generator));
        m_calibration = rotatedCopies(data.train.images, config.calibrationCopies, config.maxRotationDegrees, generator);
        // Live test curves on up to 2,000 rotated test images, named as the phases'
        // progress is, so the window draws a network's test and training curves alike.
        // The networks that serve every cost function (MAP, S) are scored under the first.
        m_probe = TestProbe::firstOf(m_testImages, data.test.labels);
    }

    void run()
    {
        const auto t0 = Clock::now();
        auto mapStream = networkStream(m_taskSeed, "map");
        m_map = m_config.model.build(mapStream);
        m_map->to(c10::Device(m_config.device));
        trainSgd(*m_map, m_train, m_config.map, mapStream, progress("map", {}, "map"), "map",
                 curve("map", {}, "map", m_costs.front()));
        m_mapSeconds = std::chrono::duration<double>(Clock::now() - t0).count();
        trained("map", *m_map, {}, m_config.baseCosts);
        runChain();
        for (size_t k = 0; k < m_costs.size(); ++k)
            runCost(k);
    }

private:
    bool needsS() const { return wants(m_config, ImageMethod::Ours); }
    bool needsStored() const { return wants(m_config, ImageMethod::OursNoS); }
    TaskIdentity identity(const char* network, std::optional<double> r) const { return {network, r, m_trial}; }
    JobContext progress(const char* network, std::optional<double> r, const std::string& what) const
    {
        return taskContext(m_ctx, identity(network, r), m_detail, what);
    }
    EpochCallback curve(const char* network, std::optional<double> r, const std::string& name,
                        const CostMatrix& L) const
    {
        return testCurve(m_ctx, m_probe, L, identity(network, r), name, m_detail);
    }
    uint64_t perCostSeed(const char* network, double r) const
    {
        return mixSeed(mixSeed(m_taskSeed, methodInfo(network).seedTag), settingCoordinate(r));
    }
    void trained(const char* network, const ClassifierImpl& model, std::optional<double> r, const CostMatrix& L,
                 bool collapsed = false) const
    {
        if (m_config.onNetwork)
            m_config.onNetwork({network, "r", r.value_or(0.0), r.has_value(), m_trial, &model, &m_config.model, &L,
                                collapsed});
    }

    /// SGHMC from the MAP, S distilled online where q needs it; its Monte Carlo
    /// predictive on the test set and, for ours_no_s, on D' as well.
    void runChain()
    {
        const auto& c = m_config;
        auto sampler = c.sghmc;
        sampler.distil = needsS();
        const auto evalInputs = needsStored() ? at::cat({m_testImages, m_calibration}, 0) : m_testImages;
        if (wants(c, ImageMethod::Sghmc) || needsS() || needsStored()) {
            auto chainStream = networkStream(m_taskSeed, "sghmc_s");
            m_chain = runSgldDistillation(c.model, *m_map, m_train, m_calibration, evalInputs, sampler, chainStream,
                                          progress("sghmc_s", {}, "sghmc + S"), "sghmc",
                                          curve("sghmc_s", {}, "sghmc + S", m_costs.front()));
            if (m_chain.student)
                trained("sghmc_s", *m_chain.student, {}, c.baseCosts);
            if (m_trial == 0) {
                m_seconds.chain = m_mapSeconds + m_chain.seconds;
                m_result.samplingSeconds = m_seconds.chain;
            }
        }
        const auto tests = m_testImages.size(0);
        if (m_chain.evalPredictive.defined())
            m_testPredictive = m_chain.evalPredictive.slice(0, 0, tests);
        if (needsStored())
            m_storedPredictive = m_chain.evalPredictive.slice(0, tests);
        if (needsS()) {
            auto cache = std::make_shared<CorrectionCache>();
            // Re-correction compares q with S's own decisions (the amortised predictive).
            *cache = {c.model, m_chain.student, m_calibration, m_testImages, m_data.test.labels,
                      predictClassProbabilities(*m_chain.student, m_testImages), c.correction,
                      perCostSeed("ours", c.referralCosts.back()), c.referralCosts.back(), m_trial};
            m_result.cache = cache;
        }
    }

    void record(double r, const CostMatrix& L, ImageMethod m, const at::Tensor& probs, double seconds, bool collapsed)
    {
        const auto& labels = m_data.test.labels;
        m_result.rows.push_back(
            {{r, m_trial, m, bayesMetrics(probs, labels, L), seconds, collapsed}, riskCoverage(probs, labels)});
    }

    /// Every method trained or decided under the k-th referral cost.
    void runCost(size_t k)
    {
        const auto& c = m_config;
        const double r = c.referralCosts[k];
        const auto& L = m_costs[k];
        const std::string at = "r " + settingText(r);
        if (wants(c, ImageMethod::Sghmc))
            record(r, L, ImageMethod::Sghmc, m_testPredictive, 0.0, false);
        if (needsS()) {
            auto qStream = makeGenerator(perCostSeed("ours", r));
            auto q = trainImageCorrection(c.model, *m_chain.student, m_calibration, {m_chain.student.get(), {}}, L,
                                          c.correction, qStream, progress("ours", r, "ours, " + at), "correction",
                                          curve("ours", r, "ours, " + at, L));
            const auto qProbs = predictClassProbabilities(*q.q, m_testImages);
            record(r, L, ImageMethod::Ours, qProbs, q.seconds, q.collapsed);
            trained("ours", *q.q, r, L, q.collapsed);
            if (m_trial == 0)
                m_seconds.ours[k] = q.seconds;
            auto comparison = compareDecisions(m_testPredictive, qProbs, m_data.test.labels, L,
                                               mixSeed(perCostSeed("ours", r), kEvidenceStream));
            comparison.rate = r;
            comparison.trial = m_trial;
            if (c.onComparison)
                c.onComparison(comparison, m_testImages);
            m_result.comparisons.push_back(std::move(comparison));
        }
        if (needsStored()) {
            auto qStream = makeGenerator(perCostSeed("ours_no_s", r));
            auto q = trainImageCorrection(c.model, *m_map, m_calibration, {nullptr, m_storedPredictive}, L,
                                          c.correctionNoS, qStream, progress("ours_no_s", r, "ours (no S), " + at),
                                          "correction", curve("ours_no_s", r, "ours (no S), " + at, L));
            record(r, L, ImageMethod::OursNoS, predictClassProbabilities(*q.q, m_testImages), q.seconds, q.collapsed);
            trained("ours_no_s", *q.q, r, L, q.collapsed);
            if (m_trial == 0)
                m_seconds.noS[k] = q.seconds;
        }
        if (wants(c, ImageMethod::LcSghmc)) {
            auto lc = c.sghmc;
            lc.distil = false;
            lc.lossCalibration = &L;
            auto lcStream = makeGenerator(perCostSeed("lc_sghmc", r));
            const auto lcChain = runSgldDistillation(c.model, *m_map, m_train, {}, m_testImages, lc, lcStream,
                                                     progress("lc_sghmc", r, "lc-sghmc, " + at), "lc_sghmc",
                                                     curve("lc_sghmc", r, "lc-sghmc, " + at, L));
            record(r, L, ImageMethod::LcSghmc, lcChain.evalPredictive, lcChain.seconds, false);
            if (m_trial == 0)
                m_seconds.lc[k] = m_mapSeconds + lcChain.seconds;
        }
    }

    const ImageDataset& m_data;
    const SelectiveConfig& m_config;
    const std::vector<CostMatrix>& m_costs;  ///< the base matrix with each referral cost
    const JobContext& m_ctx;
    const int m_trial;
    SelectiveResult& m_result;
    FirstTrialSeconds& m_seconds;
    const std::string m_detail;
    const uint64_t m_taskSeed;
    TrainingSet m_train;
    at::Tensor m_testImages, m_calibration;
    TestProbe m_probe;
    Classifier m_map;
    double m_mapSeconds = 0;
    SgldDistillationResult m_chain;
    at::Tensor m_testPredictive, m_storedPredictive;
};

/// Training time against the number of cost functions: the first trial's shared chain
/// plus each cost's own networks, cumulated.
void tabulateTrainingTime(const SelectiveConfig& config, const FirstTrialSeconds& s, SelectiveResult& result)
{
    double ours = s.chain, noS = s.chain, lc = 0;
    for (size_t k = 0; k < s.ours.size(); ++k) {
        ours += s.ours[k];
        noS += s.noS[k];
        lc += s.lc[k];
        result.trainingTime.push_back({static_cast<int>(k + 1), wants(config, ImageMethod::Ours) ? ours : 0.0,
                                       wants(config, ImageMethod::OursNoS) ? noS : 0.0,
                                       wants(config, ImageMethod::LcSghmc) ? lc : 0.0});
    }
}


/// The results' long table, the area under each row's risk-coverage curve included: the
/// CSV, the JSON's observations and the summary read it.
std::vector<Observation> selectiveObservations(const SelectiveResult& r)
{
    auto out = runRowsObservations(r.rows, "referral_cost", true);
    for (const auto& row : r.rows)
        if (std::isfinite(row.riskCoverage.aurc))
            out.push_back({"referral_cost", row.setting, row.trial, imageMethodName(row.method), "", "aurc",
                           row.riskCoverage.aurc});
    return out;
}

/// Mean ± std over trials per (referral cost, method), read off the long table.
void summariseSelective(const SelectiveConfig& config, SelectiveResult& result)
{
    const auto observed = selectiveObservations(result);
    for (double r : config.referralCosts)
        for (auto m : config.methods) {
            const ObservedCell cell(observed, r, imageMethodName(m));
            if (!cell.empty())
                result.summary.push_back({m, r, cell.figure("cost"), cell.figure("accuracy"),
                                          cell.figure("referral_rate"), cell.figure("nll"), cell.collapsed(),
                                          cell.figure("aurc")});
        }
}

} // namespace

SelectiveResult runSelectiveExperiment(const ImageDataset& data, const SelectiveConfig& config, const JobContext& ctx)
{
    const auto start = Clock::now();
    if (config.referralCosts.empty())
        throw InputError("no referral costs given");
    if (config.baseCosts.numClasses() == data.classes())
        requireClassNames(config.baseCosts, data.classNames, data.name);
    if (config.baseCosts.numClasses() != data.classes() || config.baseCosts.hasReferral())
        throw InputError("the base cost matrix must be " + std::to_string(data.classes()) + " x " +
                         std::to_string(data.classes()) + " without a referral column");
    if (config.calibrationCopies < 1)
        throw InputError("calibration copies must be at least 1");
    SelectiveResult result;
    result.record = {kSelectiveExperiment, config.baseCosts, config.referralCosts, config.declaredSettings, config.seed,
                     imageSettingsJson(config, data.name, data.train.size(), data.test.size(), "sghmc", config.sghmc),
                     ""};
    result.record.resolved["max_rotation_degrees"] = config.maxRotationDegrees;
    result.record.resolved["calibration_copies"] = config.calibrationCopies;
    result.dataset = data.name;
    result.model = config.model.describe();
    result.trials = config.trials;
    result.seed = config.seed;
    std::vector<CostMatrix> costs;
    for (double r : config.referralCosts)
        costs.push_back(selectiveCosts(config.baseCosts, r));
    FirstTrialSeconds seconds(costs.size());
    for (int trial = 0; trial < config.trials; ++trial)
        SelectiveTrial(data, config, costs, ctx, trial, result, seconds).run();
    tabulateTrainingTime(config, seconds, result);
    summariseSelective(config, result);
    result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return result;
}

std::string selectiveTable(const SelectiveResult& r)
{
    std::ostringstream s;
    s << "Selective classification on " << r.dataset << " rotated ±30° (" << r.model << "): test metrics over "
      << r.trials << " trial(s)" << (r.trials > 1 ? ", mean ± std" : "") << "\n";
    char line[256];
    std::snprintf(line, sizeof line, "%-6s %-16s %-19s %-19s %-19s %-19s\n", "r", "method", "decision cost",
                  "acc. (non-referred)", "referral rate", "AURC");
    s << line;
    for (const auto& m : r.summary) {
        std::snprintf(line, sizeof line, "%-6s %-16s %s %s %s %s%s\n", settingText(m.referralCost).c_str(),
                      imageMethodLabel(m.method).c_str(), padded(meanStdText(m.cost), 19).c_str(),
                      padded(meanStdText(m.accuracy), 19).c_str(), padded(meanStdText(m.referralRate), 19).c_str(),
                      padded(meanStdText(m.aurc), 19).c_str(), m.collapsed ? "  (q collapsed)" : "");
        s << line;
    }
    s << "Training time (s) vs number of cost functions:\n";
    std::snprintf(line, sizeof line, "%-6s %-14s %-14s %-14s\n", "costs", "ours (S once)", "ours, no S", "LC-SGHMC");
    s << line;
    auto cell = [](double v) { return v > 0 ? settingText(v) : std::string("-"); };
    for (const auto& t : r.trainingTime) {
        std::snprintf(line, sizeof line, "%-6d %-14s %-14s %-14s\n", t.costFunctions, cell(t.ours).c_str(),
                      cell(t.oursNoS).c_str(), cell(t.lcSghmc).c_str());
        s << line;
    }
    s << imageEvidenceText(r.comparisons, "r");
    std::snprintf(line, sizeof line, "%.1f s wall\n", r.seconds);
    s << line;
    return s.str();
}


ExperimentOutput selectiveOutput(const SelectiveResult& r)
{
    nlohmann::json summary = nlohmann::json::array();
    for (const auto& m : r.summary)
        summary.push_back({{"referral_cost", m.referralCost},
                           {"method", imageMethodName(m.method)},
                           {"cost", reportMeanStd(m.cost)},
                           {"accuracy", reportMeanStd(m.accuracy)},
                           {"referral_rate", reportMeanStd(m.referralRate)},
                           {"nll", reportMeanStd(m.nll)},
                           {"aurc", reportMeanStd(m.aurc)},
                           {"collapsed_trials", m.collapsed}});
    const auto runs = runRowsJson(r.rows, "referral_cost", true);
    nlohmann::json curves = nlohmann::json::array();
    for (const auto& row : r.rows)
        curves.push_back({{"referral_cost", row.setting},
                          {"trial", row.trial},
                          {"method", imageMethodName(row.method)},
                          {"aurc", reportNumber(row.riskCoverage.aurc)},
                          {"coverage", row.riskCoverage.coverage},
                          {"risk", row.riskCoverage.risk}});
    nlohmann::json timing = nlohmann::json::array();
    for (const auto& t : r.trainingTime)
        timing.push_back({{"cost_functions", t.costFunctions},
                          {"ours_seconds", t.ours},
                          {"ours_no_s_seconds", t.oursNoS},
                          {"lc_sghmc_seconds", t.lcSghmc}});
    ExperimentOutput out;
    out.experiment = kSelectiveExperiment;
    out.record = r.record;
    out.observations = selectiveObservations(r);
    out.csvLayout = runRowsLayout("referral_cost", true, {{"aurc", "", "aurc"}});
    out.evidence = imageEvidenceJson(r.comparisons, "referral_cost");
    out.fields = {{"dataset", r.dataset},
                  {"model", r.model},
                  {"trials", r.trials},
                  {"seed", r.seed},
                  {"seconds", r.seconds},
                  {"sampling_seconds", r.samplingSeconds},
                  {"summary", summary},
                  {"runs", runs},
                  {"training_time", timing},
                  {"risk_coverage", curves}};
    out.table = selectiveTable(r);
    out.reliability = runRowsReliabilityCsv(r.rows, "referral_cost");
    return out;
}

std::string riskCoverageCsv(const SelectiveResult& r)
{
    std::string s = "referral_cost,trial,method,aurc,coverage,risk\n";
    for (const auto& row : r.rows) {
        const auto& rc = row.riskCoverage;
        for (size_t i = 0; i < rc.coverage.size(); ++i)
            s += formatNumber(row.setting) + "," + std::to_string(row.trial) + "," + imageMethodName(row.method) +
                 "," + formatNumber(rc.aurc) + "," + formatNumber(rc.coverage[i]) + "," + formatNumber(rc.risk[i]) +
                 "\n";
    }
    return s;
}


} // namespace lcs
