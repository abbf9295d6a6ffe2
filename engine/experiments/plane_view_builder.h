#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <utility>

#include <ATen/core/Tensor.h>

#include "base/decision/cost_matrix.h"
#include "engine/core/job.h"
#include "engine/experiments/plane_views.h"

/// Builds the plain views of a synthetic, tabular or own-predictive run (TaskView,
/// ResultRow, EvidenceShown) from the run's tensors and networks, on the run's threads,
/// and hands them to the context's RunViews. A run makes one for each of its phases; with
/// no RunViews::show set it does nothing and costs nothing.
namespace lcs {

struct CorrectionStep;
struct MlpImpl;
struct OwnCorrectionResult;
struct OwnPredictive;
struct ReplicateOutcome;
struct SyntheticConfig;
struct SyntheticCorrection;
struct SyntheticPredictive;
struct SyntheticDataConfig;

/// q's live decision regions are predicted at most this often per task: a grid of
/// predictions costs about as much as several training steps, and a window redraws no
/// faster.
inline constexpr auto kLiveRegionInterval = std::chrono::milliseconds(100);

/// Above this many features a table's rows are not projected on their principal plane
/// (the eigen-decomposition of a D x D covariance on every task would stall the run).
inline constexpr int64_t kMaxPlaneFeatures = 2000;

class PlaneViewBuilder {
public:
    explicit PlaneViewBuilder(const JobContext& ctx);

    /// Whether anyone draws these views (RunViews::show set).
    bool active() const { return m_views != nullptr; }

    /// A task has its posterior predictive: its data and P's decisions.
    void sampled(const SyntheticConfig& config, const SyntheticPredictive& p);
    /// A step of a task's correction with q as it stands (the training thread's q, read
    /// here during the call): the curve, and at most every kLiveRegionInterval q's regions.
    void correcting(const SyntheticConfig& config, const SyntheticPredictive& p, const CorrectionStep& step, MlpImpl& q);
    /// A task's correction finished and was scored: its view and its ResultRow.
    void corrected(const SyntheticConfig& config, const SyntheticPredictive& p, const SyntheticCorrection& c,
                   const ReplicateOutcome& outcome);

    /// The same for a user's own predictive, decided under `costs`.
    void ownCorrecting(const OwnPredictive& own, const CostMatrix& costs, const CorrectionStep& step, MlpImpl& q,
                       bool residual);
    void ownCorrected(const OwnPredictive& own, const OwnCorrectionResult& r, const CostMatrix& costs);

private:
    struct LiveTask {
        std::chrono::steady_clock::time_point last{};
        TaskView view;
    };
    LiveTask& liveTask(const SyntheticConfig& config, const SyntheticPredictive& p);
    const at::Tensor& grid(const SyntheticDataConfig& box, int resolution);

    const RunViews* m_views = nullptr;
    std::mutex m_mutex;
    std::map<std::pair<int, int>, LiveTask> m_live;
    at::Tensor m_grid;
    std::optional<LiveTask> m_own;
};

/// The decision regions of a saved q (an MLP on two inputs) under `costs` on `plane`'s
/// grid (its box, or a 2-feature table's, at its gridResolution). Refused, naming
/// `path`, for a residual q, a network that does not take two inputs or a plane of
/// other than two features.
TaskView savedModelRegions(const std::string& path, const CostMatrix& costs, const SyntheticConfig& plane);

} // namespace lcs
