#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/core/settings.h"
#include "engine/experiments/cost_benefit.h"
#include "engine/experiments/experiment.h"
#include "engine/experiments/synthetic/synthetic_experiment.h"

/// What a synthetic or tabular run leaves, and the one way both run: sampling every
/// (replicate, method)'s posterior predictive, then correcting them all. The window's
/// "Sample Posterior Only" stops after the first half and its re-corrections run the
/// second on the same cache, so every route scores with the same code.
namespace lcs {

/// The cached posterior predictives of every (replicate, method), and the corrections
/// last trained on them: a cost edit, or new settings for q, re-train only q.
class SyntheticState : public RecorrectionState {
public:
    /// `bindings`: the experiment's declared settings (synthetic or tabular), through
    /// which a re-correction takes q's settings.
    SyntheticState(SyntheticConfig config, std::vector<SyntheticPredictive> predictives,
                   const std::vector<BoundSetting<SyntheticConfig>>& bindings);

    std::string describe() const override;
    CostMatrix costs() const override { return m_config.costs; }
    ExperimentOutput recorrect(const CostMatrix& costs, const JobContext& ctx) override;
    /// As recorrect(costs, ctx), with q's settings (epochs, learning rate, form, ... and
    /// the threads and device it trains on) taken from `settings`, the experiment's
    /// settings checked. What the cache holds (data, replicates, methods, the posteriors)
    /// stays the sampled run's: changing those needs a new run.
    ExperimentOutput recorrect(const CostMatrix& costs, const nlohmann::json& settings,
                               const JobContext& ctx) override;
    /// saveNetworks of the method named `series` (methodName).
    std::vector<std::string> saveModel(int replicate, const std::string& series,
                                       const std::string& path) const override;
    int predictiveCount() const override { return static_cast<int>(m_predictives.size()); }
    /// The corrections under `costs` and the table; its seconds count from `start`. With
    /// `modelDir`, every q and the network it corrects are saved there.
    ExperimentOutput correct(const CostMatrix& costs, const JobContext& ctx,
                             std::chrono::steady_clock::time_point start, const std::string& modelDir);

    /// The cost-benefit curve around the last correction's matrix (costBenefitAxis with
    /// `points`): at each value, every cached predictive's q re-trained and scored as
    /// the run scores it. The state keeps its own corrections.
    CostBenefit costBenefit(int points, const JobContext& ctx) const;
    /// The last correction's output again, its wall time `seconds` (a run that went on to
    /// the cost-benefit curve reports the time of everything it did).
    ExperimentOutput lastOutput(double seconds) const;
    /// The run's config (its costs the last correction's).
    const SyntheticConfig& config() const { return m_config; }
    const std::vector<SyntheticPredictive>& predictives() const { return m_predictives; }
    /// Whether q has been trained on the cache (not after sampling alone).
    bool corrected() const { return !m_corrections.empty(); }
    /// Saves the last q of (replicate, method) at `path` and, where the method keeps one
    /// as an MLP, the network it corrects beside it (PATH_ROLE.pt; MAP or last sample),
    /// each with its JSON sidecar. Returns the paths written; throws InputError when there
    /// is no such corrected task.
    std::vector<std::string> saveNetworks(int replicate, InferenceMethod method, const std::string& path) const;

private:
    /// The corrections under `costs` with `next` (the cached run's config, q's settings
    /// perhaps changed); the state takes `next` only once every q is trained.
    ExperimentOutput correctWith(SyntheticConfig next, const CostMatrix& costs, const JobContext& ctx,
                                 std::chrono::steady_clock::time_point start, const std::string& modelDir);

    SyntheticConfig m_config;
    std::vector<SyntheticPredictive> m_predictives;
    std::vector<SyntheticCorrection> m_corrections;
    SyntheticResult m_lastResult;  ///< what the last correction tabulated
    const std::vector<BoundSetting<SyntheticConfig>>* m_bindings;
};

/// Sampling, then the corrections (the predictives cached for re-correction), with the
/// streams of runSynthetic, so the table is the same: the synthetic and tabular
/// experiments' run. Publishes the synthetic views (RunViews) through ctx.
ExperimentRun runSyntheticConfig(const SyntheticConfig& config, const JobContext& ctx, const OutputPaths& outputs,
                                 const std::vector<BoundSetting<SyntheticConfig>>& bindings);

/// The points of the cost-benefit curve a run of `config` writing `outputs` draws (0:
/// none), refused before any work where the matrix cannot draw it: runSyntheticConfig
/// starts with this, and a session's check calls it with no outputs.
int checkedCurvePoints(const SyntheticConfig& config, const OutputPaths& outputs);

/// The sampling half of runSyntheticConfig alone (its plan the sampling stage's): the
/// predictives cached, no q trained.
std::shared_ptr<SyntheticState> sampleSyntheticConfig(const SyntheticConfig& config, const JobContext& ctx,
                                                      const std::vector<BoundSetting<SyntheticConfig>>& bindings);

/// The experiments that sample a posterior first (synthetic, tabular): one configuration
/// from the settings for every route, and the window's two actions on it (declared, not
/// on the command line): kSampleAction stops after sampling, leaving the predictives to
/// correct (SyntheticState::recorrect); kEvaluateAction draws a saved q's decision
/// regions on the plane the settings name.
class PosteriorExperiment : public Experiment {
public:
    /// The configuration a run of `settings` (checked) under `costs` uses, its data read.
    virtual SyntheticConfig configOf(const nlohmann::json& settings, const std::optional<CostMatrix>& costs) const = 0;
    /// The declaration that binds its settings to the configuration.
    virtual const std::vector<BoundSetting<SyntheticConfig>>& bindings() const = 0;

    ExperimentRun run(const nlohmann::json& settings, const std::optional<CostMatrix>& costs, const JobContext& ctx,
                      const OutputPaths& outputs) const override;
    std::vector<ExperimentAction> actions() const override;
    /// kSampleAction: every (replicate, method) sampled and published (a TaskView each),
    /// no q trained; the state in ExperimentRun::cache, no results. kEvaluateAction: the
    /// q saved at the setting kSavedModelSetting decides the plane's grid under the
    /// costs (published as one TaskView); a results file naming the model.
    ExperimentRun act(const std::string& action, const nlohmann::json& settings, const std::optional<CostMatrix>& costs,
                      const JobContext& ctx, const OutputPaths& outputs) const override;
};

} // namespace lcs
