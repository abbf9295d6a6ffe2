#include "engine/experiments/synthetic/synthetic_experiment.h"

#include <cstdio>

#include "engine/calibration/own_predictive.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>

#include <torch/torch.h>

#include "base/core/input_error.h"
#include "base/core/number_format.h"
#include "base/core/seeds.h"
#include "engine/core/parallel.h"
#include "engine/experiments/synthetic/synthetic_settings.h"

namespace lcs {

c10::Device resolveDevice(const std::string& device)
{
    std::optional<c10::Device> d;
    try {
        d = torch::Device(device);
    } catch (const c10::Error&) {
        throw std::invalid_argument("device \"" + device + "\" is not a device (use cpu or cuda[:N])");
    }
    if (d->is_cuda() && !torch::cuda::is_available())
        throw std::invalid_argument("device \"" + device
                                    + "\": this LibTorch build has no CUDA support or no GPU is visible; use cpu");
    if (!d->is_cpu() && !d->is_cuda())
        throw std::invalid_argument("device \"" + device + "\" is not supported (use cpu or cuda[:N])");
    return *d;
}

uint64_t taskSeed(uint64_t seed, int replicate, InferenceMethod method)
{
    return mixSeed(seed, static_cast<uint64_t>(replicate), methodSeedTag(method));
}

namespace {

/// Refuses a config before any work starts; messages name the setting.
void checkConfig(const SyntheticConfig& config)
{
    config.costs.validateFor(static_cast<int>(classCount(config)));
    if (config.replicates < 1)
        throw std::invalid_argument("synthetic: replicates must be >= 1, got " + std::to_string(config.replicates));
    if (config.methods.empty())
        throw std::invalid_argument("synthetic: no inference method selected");
    resolveDevice(config.device);
}

/// A task's phases in the order it runs them, with their step counts.
using PhaseSteps = std::vector<std::pair<std::string, long long>>;

/// Labels a job's reports with the replicate and method they belong to, as text and as
/// the task's identity (the method's catalogue id, trial = replicate, the stage). A task
/// that runs several phases in turn (KFAC's MAP then its samples; the correction's warm
/// start then the correction) reports one count across them, so that its progress
/// never restarts at 0 and never reads as done before its last phase.
JobContext labelled(const JobContext& ctx, int replicate, InferenceMethod method, const char* stage,
                    PhaseSteps phases = {})
{
    JobContext out = ctx;
    if (ctx.progress) {
        out.progress = [sink = ctx.progress, replicate, method, stage, phases](const Progress& p) {
            Progress q = p;
            q.detail = "replicate " + std::to_string(replicate) + ", " + methodName(method);
            q.task = TaskIdentity{methodName(method), std::nullopt, replicate, stage};
            long long before = 0, all = 0;
            bool found = false;
            for (const auto& [name, steps] : phases) {
                if (name == p.phase)
                    found = true;
                else if (!found)
                    before += steps;
                all += steps;
            }
            if (found && p.total > 0) {
                q.step = before + p.step;
                q.total = all;
            }
            sink(q);
        };
    }
    return out;
}

} // namespace

TaskPlan syntheticPlan(const SyntheticConfig& config)
{
    // Weights from a run here: sampling takes about 85% of a (replicate, method) task.
    TaskPlan plan;
    for (const char* stage : {kSamplingStage, kCorrectionStage})
        for (int r = 0; r < config.replicates; ++r)
            for (auto m : config.methods)
                plan.push_back({TaskIdentity{methodName(m), std::nullopt, r, stage},
                                stage == kSamplingStage ? 0.85 : 0.15});
    return plan;
}

bool hasRegionGrid(const SyntheticConfig& config)
{
    return config.gridResolution > 0 && featureCount(config) == 2;
}

int64_t featureCount(const SyntheticConfig& config)
{
    return config.table ? static_cast<int64_t>(config.table->featureNames.size()) : 2;
}

int64_t classCount(const SyntheticConfig& config)
{
    return config.table ? static_cast<int64_t>(config.table->classNames.size()) : 2;
}

SyntheticData syntheticDataFor(const SyntheticConfig& config, int replicate, std::vector<InputColumn>* columns)
{
    if (!config.table)
        return makeSyntheticData(config.data, config.seed, replicate);
    const auto& t = *config.table;
    const int64_t n = t.labelled.dim(0), d = t.labelled.dim(1);
    const int64_t nTest = std::clamp<int64_t>(std::llround(config.testFraction * static_cast<double>(n)), 1, n - 1);
    if (n < 2)
        throw InputError(t.source + ": " + std::to_string(n) + " labelled row(s); a training and a test row are needed");
    const int64_t nValidation = std::llround(config.validationFraction * static_cast<double>(n));
    if (nValidation > 0 && n - nTest - nValidation < 2)
        throw InputError(t.source + ": " + std::to_string(n) + " labelled rows are too few for a test share of " +
                         formatNumber(config.testFraction) + " and a validation share of " +
                         formatNumber(config.validationFraction) + " (set --validation-fraction 0 to skip it)");
    // The split is replicate r's: a permutation drawn from (seed, r).
    auto generator = makeGenerator(mixSeed(config.seed, static_cast<uint64_t>(replicate), 0x7ab));
    const auto order = torch::randperm(n, generator, torch::kLong);
    const auto trainRows = order.narrow(0, nTest + nValidation, n - nTest - nValidation);
    // Missing cells (NaN) take the mean of the replicate's training rows, never a test
    // row's: the same fill the saved models carry in their columns.
    const auto filled = fitMissingFill(
        t.columns, t.labelled.values,
        std::vector<size_t>(trainRows.data_ptr<int64_t>(), trainRows.data_ptr<int64_t>() + trainRows.numel()));
    auto labelledValues = t.labelled.values, unlabelledValues = t.unlabelled.values;
    fillMissingValues(filled, labelledValues);
    fillMissingValues(filled, unlabelledValues);
    if (columns)
        *columns = filled;
    const auto x = torch::tensor(labelledValues, torch::kDouble).reshape({n, d}).to(torch::kFloat);
    const auto y = torch::tensor(t.labels, torch::kLong);
    const auto testRows = order.narrow(0, 0, nTest);
    const auto validationRows = order.narrow(0, nTest, nValidation);
    SyntheticData out;
    out.trainX = x.index_select(0, trainRows).contiguous();
    out.trainY = y.index_select(0, trainRows).contiguous();
    out.testX = x.index_select(0, testRows).contiguous();
    out.testY = y.index_select(0, testRows).contiguous();
    // Without unlabelled rows q trains on the training rows' inputs (their labels unused),
    // never on a test row: the held-out evidence stays held out.
    out.calibrationX = t.unlabelled.dim(0) > 0 ? torch::tensor(unlabelledValues, torch::kDouble)
                                                     .reshape({t.unlabelled.dim(0), d})
                                                     .to(torch::kFloat)
                                               : out.trainX.clone();
    if (nValidation > 0) {
        out.validationX = x.index_select(0, validationRows).contiguous();
        out.validationY = y.index_select(0, validationRows).contiguous();
    }
    return out;
}

SyntheticPredictive inferSynthetic(const SyntheticConfig& config, int replicate, InferenceMethod method,
                                   const JobContext& ctxIn)
{
    const PhaseSteps phases = method == InferenceMethod::KfacLaplace
                                  ? PhaseSteps{{"kfac_map", config.kfac.map.iterations}, {"kfac_samples", config.kfac.samples}}
                                  : PhaseSteps{};
    const JobContext ctx = labelled(ctxIn, replicate, method, kSamplingStage, phases);
    SyntheticPredictive out;
    out.replicate = replicate;
    out.method = method;
    out.data = syntheticDataFor(config, replicate, &out.columns);

    // One forward pass over calibration, test and grid points together.
    std::vector<at::Tensor> parts{out.data.calibrationX, out.data.testX};
    const int64_t nValidation = out.data.validationX.defined() ? out.data.validationX.size(0) : 0;
    if (nValidation > 0)
        parts.push_back(out.data.validationX);
    if (hasRegionGrid(config))
        parts.push_back(syntheticGrid(config.data, config.gridResolution));
    const auto device = resolveDevice(config.device);
    // A table's columns come in their own units (a CSV as users give it); the networks see
    // them standardised by the training rows' statistics.
    if (config.table && config.standardise)
        out.standardisation = fitInputStandardisation(out.data.trainX);
    const auto& scale = out.standardisation;
    const auto evalInputs = applyInputStandardisation(scale, torch::cat(parts, 0)).to(device);

    auto gen = makeGenerator(taskSeed(config.seed, replicate, method));
    const TrainingSet train{applyInputStandardisation(scale, out.data.trainX).to(device), out.data.trainY.to(device)};
    auto freshMlp = [&] {
        Mlp m(featureCount(config), config.hidden, classCount(config));
        initialiseFrom(*m, gen);  // drawn on the CPU for reproducibility, then moved
        m->to(device);
        return m;
    };
    InferenceOutput inf;
    switch (method) {
    case InferenceMethod::Sghmc:
        inf = runSgmcmc(freshMlp(), train, evalInputs, config.sghmc, gen, ctx, "sghmc");
        break;
    case InferenceMethod::Sgld: {
        SgmcmcConfig sgld = config.sghmc;
        sgld.momentum = 0.0;
        inf = runSgmcmc(freshMlp(), train, evalInputs, sgld, gen, ctx, "sgld");
        break;
    }
    case InferenceMethod::Bbvi:
        inf = runBbvi(featureCount(config), config.hidden, classCount(config), train, evalInputs, config.bbvi, gen, ctx);
        break;
    case InferenceMethod::KfacLaplace:
        inf = runKfacLaplace(freshMlp(), train, evalInputs, config.kfac, gen, ctx);
        break;
    }
    // The cache is plain CPU data, whatever device trained it.
    inf.predictive = inf.predictive.cpu();
    if (inf.model)
        inf.model->to(torch::kCPU);
    const int64_t nCal = out.data.calibrationX.size(0);
    const int64_t nTest = out.data.testX.size(0);
    out.calibrationProbs = inf.predictive.narrow(0, 0, nCal).contiguous();
    out.testProbs = inf.predictive.narrow(0, nCal, nTest).contiguous();
    if (nValidation > 0)
        out.validationProbs = inf.predictive.narrow(0, nCal + nTest, nValidation).contiguous();
    const int64_t before = nCal + nTest + nValidation;
    if (hasRegionGrid(config))
        out.gridProbs = inf.predictive.narrow(0, before, inf.predictive.size(0) - before).contiguous();
    out.model = inf.model;
    out.seconds = inf.seconds;
    return out;
}

SyntheticCorrection correctSynthetic(const SyntheticConfig& config, const SyntheticPredictive& predictive,
                                     const CostMatrix& costs, const JobContext& ctxIn,
                                     const CorrectionObserver& observer)
{
    const JobContext ctx = labelled(ctxIn, predictive.replicate, predictive.method, kCorrectionStage,
                                    {{"warm_start", config.correction.warmStartSteps},
                                     {"correction", config.correction.epochs}});
    costs.validateFor(static_cast<int>(classCount(config)));
    // The correction draws from its own stream: re-running it under a new cost matrix
    // starts q from the same initialisation.
    auto gen = correctionGenerator(taskSeed(config.seed, predictive.replicate, predictive.method));
    const auto device = resolveDevice(config.device);
    // q standardises its raw inputs itself, as the posterior's networks did.
    CorrectionConfig qConfig = config.correction;
    qConfig.inputMean = predictive.standardisation.mean;
    qConfig.inputStd = predictive.standardisation.std;
    auto trained = trainCorrection(predictive.data.calibrationX.to(device), predictive.calibrationProbs.to(device),
                                   costs, qConfig, gen, ctx, observer);
    SyntheticCorrection out;
    out.q = trained.q;
    out.q->to(torch::kCPU);
    out.curve = std::move(trained.curve);
    out.seconds = trained.seconds;
    out.collapsed = trained.collapsed;
    // A residual q builds on the posterior's predictive, cached at every point it decides.
    out.residual = trained.residual;
    out.testProbs = correctedProbabilities(*out.q, predictive.data.testX, predictive.testProbs, out.residual);
    if (predictive.data.validationX.defined())
        out.validationProbs = correctedProbabilities(*out.q, predictive.data.validationX, predictive.validationProbs,
                                                     out.residual);
    if (hasRegionGrid(config))
        out.gridProbs = correctedProbabilities(*out.q, syntheticGrid(config.data, config.gridResolution),
                                               predictive.gridProbs, out.residual);
    return out;
}

namespace {

std::vector<int64_t> int64s(const at::Tensor& t)
{
    const auto c = t.to(at::kCPU, at::kLong).contiguous();
    return std::vector<int64_t>(c.data_ptr<int64_t>(), c.data_ptr<int64_t>() + c.numel());
}

} // namespace

SyntheticModelInfos syntheticModelInfos(const SyntheticConfig& config, const CostMatrix& costs,
                                        const SyntheticPredictive& predictive, const SyntheticCorrection& correction)
{
    ModelInfo info;
    info.experiment = config.experiment;
    info.method = methodName(predictive.method);
    info.replicate = predictive.replicate;
    info.seed = config.seed;
    info.costs = costs;
    if (config.table && (hasCategoricalColumn(predictive.columns) || hasMissingValues(predictive.columns)))
        info.inputColumns = predictive.columns;  // with this replicate's fills
    SyntheticModelInfos out;
    out.q = info;
    out.q.role = "q";
    out.q.collapsed = correction.collapsed;
    out.q.residualOnPredictive = correction.residual;
    if (std::dynamic_pointer_cast<MlpImpl>(predictive.model)) {
        info.role = predictive.method == InferenceMethod::KfacLaplace ? "map" : "last_sample";
        info.inputMean = predictive.standardisation.mean;  // the network was trained on standardised rows
        info.inputStd = predictive.standardisation.std;
        out.network = info;
    }
    return out;
}

double ReplicateOutcome::baselineCost(const std::string& rule) const
{
    for (const auto& b : baselines)
        if (b.rule == rule)
            return b.metrics.averageCost;
    return std::numeric_limits<double>::quiet_NaN();
}

const FittedCalibration* ReplicateOutcome::keptCalibration() const
{
    for (const auto& b : baselines)
        if (b.rule == kept)
            return &b.calibration;
    return nullptr;
}

ReplicateOutcome evaluateSynthetic(const SyntheticPredictive& predictive, const SyntheticCorrection& correction,
                                   const CostMatrix& costs, Selection selection, uint64_t seed, int folds)
{
    const auto L = costTensor(costs);
    ReplicateOutcome r;
    r.replicate = predictive.replicate;
    r.method = predictive.method;
    r.inferenceSeconds = predictive.seconds;
    r.correctionSeconds = correction.seconds;
    r.collapsed = correction.collapsed;
    const auto& y = predictive.data.testY;
    r.uncorrected = evaluateDecisions(predictive.testProbs, bayesDecisions(predictive.testProbs, L), y, costs);
    r.corrected = evaluateDecisions(correction.testProbs, bayesDecisions(correction.testProbs, L), y, costs);
    r.qAlone = r.corrected;
    if (!predictive.validationProbs.defined() || !predictive.data.validationY.defined() ||
        predictive.data.validationY.numel() == 0)
        return r;
    const auto yv = int64s(predictive.data.validationY);
    const auto validationP = toClassProbabilities(predictive.validationProbs);
    const auto testP = toClassProbabilities(predictive.testProbs);
    // Refuses validation labels of one class, or folds a class cannot fill, before fitting.
    const bool crossValidate = crossValidates(selection) && correction.validationProbs.defined();
    const int chosenFolds = crossValidate ? foldsFor(yv, costs, folds) : 0;
    // Every calibration fitted on the validation rows, scored on the test rows.
    std::vector<CalibrationKind> offered;
    for (auto kind : calibrationsFor(validationP.classes)) {
        FittedCalibration fit;
        try {
            fit = fitCalibration(kind, validationP, yv, costs);
        } catch (const std::invalid_argument&) {
            continue;  // one class among the validation rows, under a rule that does not cross-validate
        }
        offered.push_back(kind);
        const auto decisions = torch::tensor(fit.decisions(testP, costs), torch::kLong);
        // The constant decision has no probabilities of its own: its NLL and ECE are P's.
        const auto probs = fit.hasProbabilities() ? probabilitiesTensor(fit.probabilities(testP)) : predictive.testProbs;
        r.baselines.push_back({fit.name(), evaluateDecisions(probs, decisions, y, costs), fit});
    }
    if (selection == Selection::None || !correction.validationProbs.defined())
        return r;
    // The choice among the rules, made on rows neither the networks nor q trained on, by
    // the rule `correct` uses.
    r.selected = true;
    const auto onValidation = [&](const char* rule, const at::Tensor& probs) {
        return scoreRule(rule, int64s(bayesDecisions(probs, L)), yv, costs);
    };
    const auto p = onValidation("P", predictive.validationProbs), q = onValidation("q", correction.validationProbs);
    r.validationCostUncorrected = p.cost;
    r.validationCostQ = q.cost;
    const uint64_t choiceSeed = mixSeed(seed, static_cast<uint64_t>(predictive.replicate), 0x5e1);
    if (crossValidate)
        r.kept = chooseRuleByCrossValidation(validationP, {{"P", p.decisions}, {"q", q.decisions, false}}, yv, costs,
                                             offered, chosenFolds, choiceSeed, selectionGuard(selection))
                     .kept;
    else
        r.kept = selectionKeepsQ(selection, p, q, choiceSeed) ? "q" : "P";
    r.keptUncorrected = r.kept == "P";
    if (r.kept == "P")
        r.corrected = r.uncorrected;
    for (const auto& b : r.baselines)
        if (b.rule == r.kept)
            r.corrected = b.metrics;
    return r;
}

MethodSummary summarise(InferenceMethod method, std::vector<ReplicateOutcome> outcomes)
{
    std::sort(outcomes.begin(), outcomes.end(),
              [](const ReplicateOutcome& a, const ReplicateOutcome& b) { return a.replicate < b.replicate; });
    MethodSummary s;
    std::vector<double> u, c, d;
    for (const auto& o : outcomes) {
        u.push_back(o.uncorrected.averageCost);
        c.push_back(o.corrected.averageCost);
        d.push_back(o.uncorrected.averageCost - o.corrected.averageCost);
        s.collapsedReplicates += o.collapsed ? 1 : 0;
    }
    s.method = method;
    s.uncorrected = meanStd(u);
    s.corrected = meanStd(c);
    s.pairedDiff = meanStd(d);
    s.replicates = std::move(outcomes);
    return s;
}

std::vector<SyntheticPredictive> sampleAll(const SyntheticConfig& config, const JobContext& ctx)
{
    checkConfig(config);
    std::vector<std::pair<int, InferenceMethod>> tasks;
    for (int r = 0; r < config.replicates; ++r)
        for (auto m : config.methods)
            tasks.emplace_back(r, m);
    std::vector<SyntheticPredictive> out(tasks.size());
    parallelFor(
        tasks.size(), config.threads,
        [&](size_t i) { out[i] = inferSynthetic(config, tasks[i].first, tasks[i].second, ctx); }, ctx.cancel);
    return out;
}

std::vector<SyntheticCorrection> correctAll(const SyntheticConfig& config,
                                            const std::vector<SyntheticPredictive>& predictives,
                                            const CostMatrix& costs, const JobContext& ctx,
                                            const ObserverFactory& observers,
                                            const std::function<void(size_t, const SyntheticCorrection&)>& onDone)
{
    costs.validateFor(static_cast<int>(classCount(config)));
    std::vector<SyntheticCorrection> out(predictives.size());
    parallelFor(
        predictives.size(), config.threads,
        [&](size_t i) {
            out[i] = correctSynthetic(config, predictives[i], costs, ctx,
                                      observers ? observers(predictives[i]) : CorrectionObserver{});
            if (onDone)
                onDone(i, out[i]);
        },
        ctx.cancel);
    return out;
}

SyntheticResult tabulate(const SyntheticConfig& config, const std::vector<ReplicateOutcome>& outcomes, double seconds)
{
    SyntheticResult result;
    result.record.experiment = config.experiment;
    result.record.costs = config.costs;
    result.record.seed = config.seed;
    result.record.settings = config.table ? config.recordSettings : settingValues(syntheticSettings(), config);
    if (config.table)
        result.record.resolved[kCalibrationRowsKey] =
            config.table->unlabelled.dim(0) > 0 ? "the table's unlabelled rows" : kTrainingInputsCalibration;
    if (config.table)
        if (const auto missing = describeMissingValues(*config.table); !missing.empty())
            result.record.resolved[kMissingValuesKey] = missing;
    if (config.table)
        if (const auto formats = describeNumberFormats(*config.table); !formats.empty())
            result.record.resolved[kNumberFormatsKey] = formats;
    result.replicates = config.replicates;
    result.seed = config.seed;
    result.bbviPrior = config.bbvi.prior.kind;
    result.seconds = seconds;
    for (auto m : config.methods) {
        std::vector<ReplicateOutcome> mine;
        for (const auto& o : outcomes)
            if (o.method == m)
                mine.push_back(o);
        result.methods.push_back(summarise(m, std::move(mine)));
    }
    return result;
}

SyntheticResult runSynthetic(const SyntheticConfig& config, const JobContext& ctx, const ReplicateCallback& onReplicate)
{
    checkConfig(config);
    config.costs.validateFor(static_cast<int>(classCount(config)));
    const auto start = std::chrono::steady_clock::now();

    // Each (replicate, method) task runs inference then its correction, so results
    // arrive replicate by replicate; tasks run in parallel on config.threads.
    std::vector<std::pair<int, InferenceMethod>> tasks;
    for (int r = 0; r < config.replicates; ++r)
        for (auto m : config.methods)
            tasks.emplace_back(r, m);

    std::mutex mutex;  // guards outcomes, progress and the callback
    std::vector<ReplicateOutcome> outcomes;
    size_t done = 0;
    JobContext shared = ctx;
    if (ctx.progress) {
        shared.progress = [&](const Progress& p) {
            std::lock_guard<std::mutex> lock(mutex);
            Progress q = p;
            // Overall position for a progress bar across all tasks.
            q.tasks = TaskPosition{static_cast<long long>(done), static_cast<long long>(tasks.size())};
            ctx.progress(q);
        };
    }
    parallelFor(
        tasks.size(), config.threads,
        [&](size_t i) {
            const auto [replicate, method] = tasks[i];
            auto predictive = inferSynthetic(config, replicate, method, shared);
            auto correction = correctSynthetic(config, predictive, config.costs, shared);
            auto outcome = evaluateSynthetic(predictive, correction, config.costs, config.selection, config.seed, config.folds);
            std::lock_guard<std::mutex> lock(mutex);
            outcomes.push_back(outcome);
            ++done;
            if (onReplicate)
                onReplicate(outcome, predictive, correction);
            if (ctx.progress) {
                Progress p;
                p.phase = "replicate_done";
                p.detail = "replicate " + std::to_string(replicate) + ", " + methodName(method);
                p.step = static_cast<long long>(done);
                p.total = static_cast<long long>(tasks.size());
                p.outcome = TaskOutcome{outcome.uncorrected.averageCost, outcome.corrected.averageCost,
                                        outcome.collapsed};
                ctx.progress(p);
            }
        },
        ctx.cancel);
    return tabulate(config, outcomes,
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
}

} // namespace lcs
