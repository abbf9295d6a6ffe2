#include "experiments/selective_experiment.h"

#include "experiments/image_experiment_support.h"
#include "experiments/image_run_settings.h"
#include "experiments/report_json.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <sstream>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "core/input_error.h"
#include "core/number_format.h"
#include "core/seeds.h"

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
    c.map = {cpu ? 3 : 100, 64, 0.05, LrSchedule::OneCycle, 0.9, 5e-4, {}};
    c.sghmc.momentum = 0.7;
    c.sghmc.learningRate = 1e-3;
    c.sghmc.priorPrecision = 5.0;
    c.sghmc.epochs = cpu ? 3 : 100;
    c.sghmc.batchSize = 64;
    c.sghmc.burnInSteps = cpu ? perEpoch : 1000;
    c.sghmc.thinning = cpu ? std::max<long long>(1, perEpoch / 3) : perEpoch;
    c.sghmc.keepSamples = cpu ? 6 : 30;
    c.sghmc.student = {0, 64, 0.1, LrSchedule::OneCycle, 0.9, 5e-4, {}};
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
    const c10::Device device(config.device);
    SelectiveResult result;
    result.record = {kSelectiveExperiment, config.baseCosts, config.referralCosts, config.declaredSettings, config.seed,
                     imageSettingsJson(config, data.name, data.train.size(), data.test.size(), "sghmc", config.sghmc)};
    result.record.resolved["max_rotation_degrees"] = config.maxRotationDegrees;
    result.record.resolved["calibration_copies"] = config.calibrationCopies;
    result.dataset = data.name;
    result.model = config.model.describe();
    result.trials = config.trials;
    result.seed = config.seed;
    std::vector<CostMatrix> costs;
    for (double r : config.referralCosts)
        costs.push_back(selectiveCosts(config.baseCosts, r));
    const size_t K = costs.size();
    std::vector<double> oursSeconds(K, 0), noSSeconds(K, 0), lcSeconds(K, 0);
    double chainSeconds = 0;

    for (int trial = 0; trial < config.trials; ++trial) {
        const std::string detail = "trial " + std::to_string(trial + 1);
        // Streams: the trial's own (the rotations), and one per network named by its
        // catalogue seed tag and, for the networks trained per cost, the referral cost.
        const uint64_t taskSeed = seedFor(config.seed, {static_cast<uint64_t>(trial)});
        auto generator = makeGenerator(taskSeed);
        auto identity = [&](const char* network, std::optional<double> r) { return TaskIdentity{network, r, trial}; };
        auto progress = [&](const char* network, std::optional<double> r, const std::string& what) {
            return taskContext(ctx, identity(network, r), detail, what);
        };
        auto perCostSeed = [&](const char* network, double r) {
            return mixSeed(mixSeed(taskSeed, methodInfo(network).seedTag), settingCoordinate(r));
        };
        // The contamination: every training and test image rotated once; D' holds
        // `calibrationCopies` further random rotations of every training image.
        TrainingSet train{rotateImages(data.train.images,
                                       randomAngles(data.train.size(), config.maxRotationDegrees, generator)),
                          data.train.labels};
        const auto testImages =
            rotateImages(data.test.images, randomAngles(data.test.size(), config.maxRotationDegrees, generator));
        const auto calibration = rotatedCopies(data.train.images, config.calibrationCopies,
                                               config.maxRotationDegrees, generator);
        const auto& testLabels = data.test.labels;
        // Live test curves on up to 2,000 rotated test images, named as the phases'
        // progress is, so the window draws a network's test and training curves alike.
        // The networks that serve every cost function (MAP, S) are scored under the first.
        const auto probe = TestProbe::firstOf(testImages, testLabels);
        auto curve = [&](const char* network, std::optional<double> r, const std::string& name, const CostMatrix& L) {
            return testCurve(ctx, probe, L, identity(network, r), name, detail);
        };

        auto t0 = Clock::now();
        auto mapStream = networkStream(taskSeed, "map");
        auto map = config.model.build(mapStream);
        map->to(device);
        trainSgd(*map, train, config.map, mapStream, progress("map", {}, "map"), "map",
                 curve("map", {}, "map", costs.front()));
        const double mapSeconds = std::chrono::duration<double>(Clock::now() - t0).count();
        // The MAP and S serve every referral cost of the trial; q is per cost.
        auto trained = [&](const char* network, const ClassifierImpl& model, std::optional<double> r,
                           const CostMatrix& L, bool collapsed = false) {
            if (config.onNetwork)
                config.onNetwork({network, "r", r.value_or(0.0), r.has_value(), trial, &model, &config.model, &L,
                                  collapsed});
        };
        trained("map", *map, {}, config.baseCosts);

        const bool needsS = wants(config, ImageMethod::Ours);
        const bool needsStored = wants(config, ImageMethod::OursNoS);
        auto sampler = config.sghmc;
        sampler.distil = needsS;
        // The MC predictive on the test set and, for ours_no_s, on D' as well.
        const auto evalInputs = needsStored ? at::cat({testImages, calibration}, 0) : testImages;
        SgldDistillationResult chain;
        if (wants(config, ImageMethod::Sghmc) || needsS || needsStored) {
            auto chainStream = networkStream(taskSeed, "sghmc_s");
            chain = runSgldDistillation(config.model, *map, train, calibration, evalInputs, sampler, chainStream,
                                        progress("sghmc_s", {}, "sghmc + S"), "sghmc",
                                        curve("sghmc_s", {}, "sghmc + S", costs.front()));
            if (chain.student)
                trained("sghmc_s", *chain.student, {}, config.baseCosts);
            if (trial == 0) {
                chainSeconds = mapSeconds + chain.seconds;
                result.samplingSeconds = chainSeconds;
            }
        }
        const auto testPredictive = chain.evalPredictive.defined()
                                        ? chain.evalPredictive.slice(0, 0, testImages.size(0))
                                        : at::Tensor();
        const auto storedPredictive = needsStored ? chain.evalPredictive.slice(0, testImages.size(0)) : at::Tensor();
        if (needsS) {
            auto cache = std::make_shared<CorrectionCache>();
            // Re-correction compares q with S's own decisions (the amortised predictive).
            *cache = {config.model, chain.student, calibration, testImages, testLabels,
                      predictClassProbabilities(*chain.student, testImages), config.correction,
                      perCostSeed("ours", config.referralCosts.back()),
                      config.referralCosts.back(), trial};
            result.cache = cache;
        }

        for (size_t k = 0; k < K; ++k) {
            const double r = config.referralCosts[k];
            const auto& L = costs[k];
            const std::string at = "r " + settingText(r);
            auto record = [&](ImageMethod m, const at::Tensor& probs, double seconds, bool collapsed) {
                result.rows.push_back(
                    {r, trial, m, bayesMetrics(probs, testLabels, L), seconds, collapsed, riskCoverage(probs, testLabels)});
            };
            if (wants(config, ImageMethod::Sghmc))
                record(ImageMethod::Sghmc, testPredictive, 0.0, false);
            if (needsS) {
                auto qStream = makeGenerator(perCostSeed("ours", r));
                auto q = trainImageCorrection(config.model, *chain.student, calibration, {chain.student.get(), {}}, L,
                                              config.correction, qStream, progress("ours", r, "ours, " + at),
                                              "correction", curve("ours", r, "ours, " + at, L));
                const auto qProbs = predictClassProbabilities(*q.q, testImages);
                record(ImageMethod::Ours, qProbs, q.seconds, q.collapsed);
                trained("ours", *q.q, r, L, q.collapsed);
                if (trial == 0)
                    oursSeconds[k] = q.seconds;
                auto comparison = compareDecisions(testPredictive, qProbs, testLabels, L,
                                                   mixSeed(perCostSeed("ours", r), kEvidenceStream));
                comparison.rate = r;
                comparison.trial = trial;
                if (config.onComparison)
                    config.onComparison(comparison, testImages);
                result.comparisons.push_back(std::move(comparison));
            }
            if (needsStored) {
                auto qStream = makeGenerator(perCostSeed("ours_no_s", r));
                auto q = trainImageCorrection(config.model, *map, calibration, {nullptr, storedPredictive}, L,
                                              config.correctionNoS, qStream, progress("ours_no_s", r, "ours (no S), " + at),
                                              "correction", curve("ours_no_s", r, "ours (no S), " + at, L));
                record(ImageMethod::OursNoS, predictClassProbabilities(*q.q, testImages), q.seconds, q.collapsed);
                trained("ours_no_s", *q.q, r, L, q.collapsed);
                if (trial == 0)
                    noSSeconds[k] = q.seconds;
            }
            if (wants(config, ImageMethod::LcSghmc)) {
                auto lc = config.sghmc;
                lc.distil = false;
                lc.lossCalibration = &L;
                auto lcStream = makeGenerator(perCostSeed("lc_sghmc", r));
                const auto lcChain = runSgldDistillation(config.model, *map, train, {}, testImages, lc, lcStream,
                                                         progress("lc_sghmc", r, "lc-sghmc, " + at), "lc_sghmc",
                                                         curve("lc_sghmc", r, "lc-sghmc, " + at, L));
                record(ImageMethod::LcSghmc, lcChain.evalPredictive, lcChain.seconds, false);
                if (trial == 0)
                    lcSeconds[k] = mapSeconds + lcChain.seconds;
            }
        }
    }
    double ours = chainSeconds, noS = chainSeconds, lc = 0;
    for (size_t k = 0; k < K; ++k) {
        ours += oursSeconds[k];
        noS += noSSeconds[k];
        lc += lcSeconds[k];
        result.trainingTime.push_back({static_cast<int>(k + 1), wants(config, ImageMethod::Ours) ? ours : 0.0,
                                       wants(config, ImageMethod::OursNoS) ? noS : 0.0,
                                       wants(config, ImageMethod::LcSghmc) ? lc : 0.0});
    }
    for (double r : config.referralCosts)
        for (auto m : config.methods) {
            const auto cell =
                gatherCell(result.rows, [&](const auto& row) { return row.referralCost == r && row.method == m; });
            std::vector<double> aurc;
            for (const auto& row : result.rows)
                if (row.referralCost == r && row.method == m)
                    aurc.push_back(row.riskCoverage.aurc);
            if (!cell.empty())
                result.summary.push_back({m, r, meanStd(cell.cost), meanStd(cell.accuracy), meanStd(cell.referralRate),
                                          meanStd(cell.nll), cell.collapsed, meanStd(aurc)});
        }
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

namespace {
double referralCostOf(const SelectiveRow& row) { return row.referralCost; }
} // namespace

std::string selectiveJson(const SelectiveResult& r)
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
    const auto runs = runRowsJson(r.rows, "referral_cost", referralCostOf, true);
    nlohmann::json curves = nlohmann::json::array();
    for (const auto& row : r.rows)
        curves.push_back({{"referral_cost", row.referralCost},
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
    nlohmann::json j = {{"experiment", kSelectiveExperiment}, {"run", runRecordJson(r.record)}, {"dataset", r.dataset}, {"model", r.model},
                        {"trials", r.trials},       {"seed", r.seed},       {"seconds", r.seconds},
                        {"sampling_seconds", r.samplingSeconds},          {"summary", summary},
                        {"runs", runs},             {"training_time", timing},
                        {"risk_coverage", curves},
                        {"evidence", imageEvidenceJson(r.comparisons, "referral_cost")},
                        {"observations", runRowsObservations(r.rows, "referral_cost", referralCostOf, true)}};
    return j.dump(2) + "\n";
}

std::string riskCoverageCsv(const SelectiveResult& r)
{
    std::string s = "referral_cost,trial,method,aurc,coverage,risk\n";
    for (const auto& row : r.rows) {
        const auto& rc = row.riskCoverage;
        for (size_t i = 0; i < rc.coverage.size(); ++i)
            s += formatNumber(row.referralCost) + "," + std::to_string(row.trial) + "," + imageMethodName(row.method) +
                 "," + formatNumber(rc.aurc) + "," + formatNumber(rc.coverage[i]) + "," + formatNumber(rc.risk[i]) +
                 "\n";
    }
    return s;
}

std::string selectiveCsv(const SelectiveResult& r)
{
    return runRowsCsv(r.rows, "referral_cost", referralCostOf, true);
}

} // namespace lcs
