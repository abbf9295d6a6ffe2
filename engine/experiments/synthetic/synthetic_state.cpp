#include "engine/experiments/synthetic/synthetic_state.h"

#include "base/core/atomic_file.h"
#include "base/core/input_error.h"
#include "base/inference/method_catalog.h"
#include <cmath>
#include <limits>
#include "engine/experiments/plane_view_builder.h"
#include "engine/experiments/run_record.h"
#include "engine/experiments/run_views.h"
#include "engine/experiments/saved_model_request.h"
#include "engine/experiments/synthetic/synthetic_settings.h"
#include "engine/experiments/synthetic/synthetic_report.h"
#include "engine/io/model_io.h"

namespace lcs {

namespace {

double secondsSince(std::chrono::steady_clock::time_point t)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

/// Saves q, and the MAP or last-sample network it corrects, as TorchScript with JSON
/// sidecars: Q_PATH and NETWORK_STEM_ROLE.pt. Returns the paths written.
/// q, the rule the run kept (STEM_kept_rule.pt: q, or P or a calibration of P over a zero
/// network, taking the predictive) and the MAP / last-sample network, each with its sidecar.
std::vector<std::string> saveTaskNetworks(const SyntheticConfig& config, const SyntheticPredictive& p,
                                          const SyntheticCorrection& c, const ReplicateOutcome& outcome,
                                          const std::string& qPath, const std::string& networkStem)
{
    const auto infos = syntheticModelInfos(config, config.costs, p, c);
    saveModel(c.q, infos.q, qPath);
    std::vector<std::string> written{qPath};
    written.push_back(networkStem + "_kept_rule.pt");
    saveKeptRule(c.q, infos.q, outcome.kept, outcome.keptCalibration(), written.back());
    if (infos.network) {
        written.push_back(networkStem + "_" + infos.network->role + ".pt");
        saveModel(Mlp(std::dynamic_pointer_cast<MlpImpl>(p.model)), *infos.network, written.back());
    }
    return written;
}

const ReplicateOutcome& outcomeOf(const SyntheticResult& result, int replicate, InferenceMethod method)
{
    for (const auto& m : result.methods)
        for (const auto& o : m.replicates)
            if (o.replicate == replicate && o.method == method)
                return o;
    throw std::logic_error("no outcome for replicate " + std::to_string(replicate) + ", " + methodName(method));
}

} // namespace

SyntheticState::SyntheticState(SyntheticConfig config, std::vector<SyntheticPredictive> predictives,
                               const std::vector<BoundSetting<SyntheticConfig>>& bindings)
    : m_config(std::move(config)), m_predictives(std::move(predictives)), m_bindings(&bindings)
{
}

std::string SyntheticState::describe() const
{
    return "Posterior predictives of " + std::to_string(m_config.replicates) + " replicate(s) x " +
           std::to_string(m_config.methods.size()) + " method(s) cached: editing costs re-trains only q.";
}

CostBenefit SyntheticState::costBenefit(int points, const JobContext& ctx) const
{
    CostBenefit out;
    out.axis = costBenefitAxis(m_config.costs, points);
    for (const double value : out.axis.values) {
        const CostMatrix costs = costsAt(m_config.costs, out.axis.setting, value);
        std::vector<ReplicateOutcome> outcomes(m_predictives.size());
        correctAll(m_config, m_predictives, costs, ctx, {}, [&](size_t i, const SyntheticCorrection& c) {
            outcomes[i] = evaluateSynthetic(m_predictives[i], c, costs, m_config.selection, m_config.seed, m_config.folds);
        });
        for (const auto& o : outcomes) {
            const std::string method = methodName(o.method);
            out.rows.push_back({value, method, o.replicate, "uncorrected", o.uncorrected.averageCost,
                                o.uncorrected.referralRate});
            out.rows.push_back({value, method, o.replicate, "corrected", o.corrected.averageCost,
                                o.corrected.referralRate});
            for (const auto& b : o.baselines)
                out.rows.push_back({value, method, o.replicate, b.rule, b.metrics.averageCost, b.metrics.referralRate});
        }
    }
    return out;
}

ExperimentOutput SyntheticState::recorrect(const CostMatrix& costs, const JobContext& ctx)
{
    return correct(costs, ctx, std::chrono::steady_clock::now(), {});
}

ExperimentOutput SyntheticState::correct(const CostMatrix& costs, const JobContext& ctx,
                                         std::chrono::steady_clock::time_point start, const std::string& modelDir)
{
    return correctWith(m_config, costs, ctx, start, modelDir);
}

ExperimentOutput SyntheticState::recorrect(const CostMatrix& costs, const nlohmann::json& settings,
                                           const JobContext& ctx)
{
    SyntheticConfig asked;
    applySettings(*m_bindings, settings, asked);
    SyntheticConfig next = m_config;
    next.correction = asked.correction;
    next.threads = asked.threads;
    next.device = asked.device;
    // The record names what the table was made with: q's new settings, the cache's rest.
    if (next.table)
        next.recordSettings = settingValues(*m_bindings, next);
    return correctWith(std::move(next), costs, ctx, std::chrono::steady_clock::now(), {});
}

ExperimentOutput SyntheticState::correctWith(SyntheticConfig next, const CostMatrix& costs, const JobContext& ctx,
                                             std::chrono::steady_clock::time_point start, const std::string& modelDir)
{
    costs.validateFor(static_cast<int>(classCount(next)));
    next.costs = costs;
    TaskPlan plan;
    for (const auto& t : syntheticPlan(next))
        if (t.task.stage == kCorrectionStage)
            plan.push_back(t);
    ctx.declarePlan(plan, PlanProgress::Order::Parallel);
    // Each task is scored as it finishes (on its own thread), so that a view of it need
    // not wait for the others.
    std::vector<ReplicateOutcome> outcomes(m_predictives.size());
    PlaneViewBuilder views(ctx);
    ObserverFactory observers;
    if (views.active())
        observers = [&next, &views](const SyntheticPredictive& p) -> CorrectionObserver {
            return [&next, &views, &p](const CorrectionStep& step, MlpImpl& q) { views.correcting(next, p, step, q); };
        };
    auto corrections = correctAll(
        next, m_predictives, costs, ctx, observers, [&](size_t i, const SyntheticCorrection& c) {
            outcomes[i] = evaluateSynthetic(m_predictives[i], c, costs, next.selection, next.seed, next.folds);
            views.corrected(next, m_predictives[i], c, outcomes[i]);
        });
    if (!modelDir.empty())
        for (size_t i = 0; i < corrections.size(); ++i) {
            const std::string stem =
                modelDir + "/" + methodName(outcomes[i].method) + "_r" + std::to_string(outcomes[i].replicate);
            saveTaskNetworks(next, m_predictives[i], corrections[i], outcomes[i], stem + "_q.pt", stem);
        }
    // Only a finished correction replaces the last one: its q, costs and settings go together.
    m_config = std::move(next);
    m_corrections = std::move(corrections);
    m_lastResult = tabulate(m_config, outcomes, secondsSince(start));
    return lastOutput(m_lastResult.seconds);
}

ExperimentOutput SyntheticState::lastOutput(double seconds) const
{
    auto result = m_lastResult;
    result.seconds = seconds;
    return syntheticOutput(result);
}

std::vector<std::string> SyntheticState::saveModel(int replicate, const std::string& series,
                                                   const std::string& path) const
{
    const auto method = parseMethod(series);
    if (!method)
        throw InputError("\"" + series + "\" is not an inference method of this run");
    return saveNetworks(replicate, *method, path);
}

std::vector<std::string> SyntheticState::saveNetworks(int replicate, InferenceMethod method,
                                                      const std::string& path) const
{
    for (size_t i = 0; i < m_corrections.size(); ++i) {
        const auto& p = m_predictives[i];
        if (p.replicate != replicate || p.method != method)
            continue;
        const std::string stem = path.size() > 3 && path.compare(path.size() - 3, 3, ".pt") == 0
                                     ? path.substr(0, path.size() - 3)
                                     : path;
        return saveTaskNetworks(m_config, p, m_corrections[i], outcomeOf(m_lastResult, replicate, method), path,
                                stem);
    }
    throw InputError("no corrected model for replicate " + std::to_string(replicate) + ", " + methodName(method) +
                     ": run the correction first");
}

int checkedCurvePoints(const SyntheticConfig& config, const OutputPaths& outputs)
{
    const int curvePoints = config.costBenefitPoints > 0              ? config.costBenefitPoints
                            : !outputs.path("cost_benefit").empty() ? 9
                                                                      : 0;
    if (curvePoints > 0)
        costBenefitAxis(config.costs, curvePoints);
    return curvePoints;
}

ExperimentRun runSyntheticConfig(const SyntheticConfig& config, const JobContext& ctx, const OutputPaths& outputs,
                                 const std::vector<BoundSetting<SyntheticConfig>>& bindings)
{
    const auto start = std::chrono::steady_clock::now();
    const int curvePoints = checkedCurvePoints(config, outputs);  // before any work
    // The networks go into a staging folder moved into place once every one is saved:
    // all of them, or none.
    OutputFolder models(outputs, "save_models");
    ctx.declarePlan(syntheticPlan(config), PlanProgress::Order::Parallel);
    auto predictives = sampleAll(config, ctx);
    PlaneViewBuilder views(ctx);
    for (const auto& p : predictives)
        views.sampled(config, p);
    auto state = std::make_shared<SyntheticState>(config, std::move(predictives), bindings);
    showState(ctx, state);
    ExperimentRun out;
    // The correction's plan would replace the run's: keep reporting into the run's.
    JobContext correcting = ctx;
    correcting.plan = nullptr;
    out.output = state->correct(config.costs, correcting, start, models.path());
    // The cost-benefit curve, where asked for: by the setting, or by its output alone.
    if (curvePoints > 0) {
        const auto curve = state->costBenefit(curvePoints, correcting);
        out.output = state->lastOutput(secondsSince(start));  // the wall time the whole run took
        out.output.costBenefit = curve;
    }
    models.commit();
    out.cache = std::move(state);
    return out;
}

std::shared_ptr<SyntheticState> sampleSyntheticConfig(const SyntheticConfig& config, const JobContext& ctx,
                                                      const std::vector<BoundSetting<SyntheticConfig>>& bindings)
{
    TaskPlan plan;
    for (const auto& t : syntheticPlan(config))
        if (t.task.stage == kSamplingStage)
            plan.push_back(t);
    ctx.declarePlan(plan, PlanProgress::Order::Parallel);
    auto predictives = sampleAll(config, ctx);
    PlaneViewBuilder views(ctx);
    for (const auto& p : predictives)
        views.sampled(config, p);
    return std::make_shared<SyntheticState>(config, std::move(predictives), bindings);
}

ExperimentRun PosteriorExperiment::run(const nlohmann::json& settings, const std::optional<CostMatrix>& costs,
                                       const JobContext& ctx, const OutputPaths& outputs) const
{
    return runSyntheticConfig(configOf(settings, costs), ctx, outputs, bindings());
}

std::vector<ExperimentAction> PosteriorExperiment::actions() const
{
    ExperimentAction sample{kSampleAction, "the posterior sampled for every replicate and method, no q trained",
                            "Samples every (replicate, method) and keeps the predictives, so that a correction "
                            "(a cost edit) trains only q.",
                            settings(), {}, true, {}, /*onCommandLine=*/false};
    auto specs = settings();
    specs.push_back(savedModelSetting("a saved q (.pt with its sidecar, as --save-models writes it) on two inputs"));
    ExperimentAction evaluate{kEvaluateAction, "a saved q's decision regions on the plane",
                              "Decides the plane's grid with a saved q under the cost matrix.", specs, {}, true, {},
                              /*onCommandLine=*/false};
    return {sample, evaluate};
}

ExperimentRun PosteriorExperiment::act(const std::string& action, const nlohmann::json& settings,
                                       const std::optional<CostMatrix>& costs, const JobContext& ctx,
                                       const OutputPaths& outputs) const
{
    if (action == kSampleAction) {
        ExperimentRun out;
        out.cache = sampleSyntheticConfig(configOf(settings, costs), ctx, bindings());
        return out;
    }
    if (action != kEvaluateAction)
        return Experiment::act(action, settings, costs, ctx, outputs);
    const auto [path, runSettings] = savedModelRequest(settings);
    auto plane = configOf(runSettings, costs);
    plane.gridResolution = windowRegionGrid(plane.gridResolution);
    const auto view = savedModelRegions(path, plane.costs, plane);
    showView(ctx, view);
    RunRecord record;
    record.experiment = name();
    record.action = kEvaluateAction;
    record.costs = plane.costs;
    record.settings = settings;
    record.seed = plane.seed;
    ExperimentOutput output;
    output.experiment = name();
    output.record = record;
    output.fields = {{"model", path},
                     {"method", view.method},
                     {"replicate", view.replicate},
                     {"classes", view.numClasses},
                     {"grid_resolution", plane.gridResolution}};
    output.table = path + ": q of " + view.method + ", replicate " + std::to_string(view.replicate) +
                   ", decides the plane's " + std::to_string(plane.gridResolution) + " x " +
                   std::to_string(plane.gridResolution) + " grid\n";
    return {output, nullptr};
}

} // namespace lcs
