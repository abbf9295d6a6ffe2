#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "base/core/cancel.h"

/// Plain job plumbing shared by every engine job: progress reports out, cancellation in.
/// Nothing here knows about threads or Qt; the UI layer adapts these to signals.
namespace lcs {

/// What went wrong, for a person: the exception's message, without the C++ backtrace
/// LibTorch appends to its own errors (c10::Error).
std::string errorMessage(const std::exception& e);

/// Figures of the optimisation a phase is running: running means over the current epoch
/// for the image trainers, the latest step for the 2-D ones. A field a phase does not
/// optimise stays empty, so readers never guess from names.
struct TrainingFigures {
    std::optional<double> loss;          ///< the objective being minimised
    std::optional<double> nll;           ///< a chain's data term (mean minibatch NLL)
    std::optional<double> kl;            ///< the objective's KL term (correction: KL(p || q); BBVI: KL(q || prior))
    std::optional<double> expectedCost;  ///< correction: expected decision cost under q
    std::optional<double> studentLoss;   ///< online distillation: the student's cross-entropy
    std::optional<int> keptSamples;      ///< a chain's stored draws so far

    bool empty() const { return !loss && !nll && !kl && !expectedCost && !studentLoss && !keptSamples; }
    /// (name, value) pairs of the set fields, in a fixed order, for logs and status bars.
    std::vector<std::pair<std::string, double>> named() const
    {
        std::vector<std::pair<std::string, double>> out;
        if (loss) out.emplace_back("loss", *loss);
        if (nll) out.emplace_back("nll", *nll);
        if (kl) out.emplace_back("kl", *kl);
        if (expectedCost) out.emplace_back("expected_cost", *expectedCost);
        if (studentLoss) out.emplace_back("student", *studentLoss);
        if (keptSamples) out.emplace_back("samples", static_cast<double>(*keptSamples));
        return out;
    }
};

/// Held-out figures of the network being trained, after one of its epochs (live curves).
struct EpochTestFigures {
    std::string model;                  ///< e.g. "SGLD + S", "ours"
    int epoch = 0;                      ///< 1-based
    double cost = 0, accuracy = 0, nll = 0;
    std::optional<double> meanIou;      ///< segmentation only
};

/// One task (a replicate of one method) finished.
struct TaskOutcome {
    double uncorrectedCost = 0, correctedCost = 0;
    bool collapsed = false;             ///< the correction collapsed to one decision
};

/// Position across tasks that run in parallel, for one overall progress bar.
struct TaskPosition {
    long long done = 0, total = 0;
};

/// Which task a report belongs to, as data: the network being trained (a method
/// catalogue id: "map", "sgld_s", "ours", ...), the value of the swept setting it was
/// trained for (a corruption rate, a referral cost; none for a network every value
/// shares) and the trial (0-based). Plans and views match reports on these fields, never
/// on the report's text, so no formatting of a number can lose a row. `stage` tells
/// apart the steps of one network that run as separate tasks (the synthetic experiment's
/// "sampling" and "correction"); empty where a network is one task.
struct TaskIdentity {
    TaskIdentity() = default;
    TaskIdentity(std::string networkId, std::optional<double> settingValue = std::nullopt, int trialIndex = 0,
                 std::string stageName = {})
        : network(std::move(networkId)), setting(settingValue), trial(trialIndex), stage(std::move(stageName))
    {
    }

    std::string network;
    std::optional<double> setting;
    int trial = 0;
    std::string stage;

    bool operator==(const TaskIdentity& o) const
    {
        return network == o.network && setting == o.setting && trial == o.trial && stage == o.stage;
    }
    bool operator!=(const TaskIdentity& o) const { return !(*this == o); }
};

/// One progress report. Plain data so it may be copied across threads.
struct Progress {
    std::string phase;                     ///< e.g. "sghmc", "correction"
    std::string detail;                    ///< e.g. "replicate 3, bbvi"
    long long step = 0;
    long long total = 0;
    TrainingFigures training;              ///< empty when the phase reports none
    std::optional<EpochTestFigures> test;  ///< set on the report after an epoch
    std::optional<TaskOutcome> outcome;    ///< set when a task finishes
    std::optional<TaskPosition> tasks;     ///< set by parallel drivers
    std::optional<TaskIdentity> task;      ///< set by experiments that run several tasks in sequence

    /// A report of `step` of `total` in `phase`, figures to be filled in.
    static Progress at(std::string phase, std::string detail, long long step, long long total)
    {
        Progress p;
        p.phase = std::move(phase);
        p.detail = std::move(detail);
        p.step = step;
        p.total = total;
        return p;
    }
};

using ProgressSink = std::function<void(const Progress&)>;

/// A run's tasks in the order it trains them, each weighted by its expected share of the
/// work; declared by each experiment beside its run function.
struct PlannedTask {
    TaskIdentity task;
    double weight = 1;
};
using TaskPlan = std::vector<PlannedTask>;

/// Turns reports of `step` of `total` within a planned task into a fraction of the whole
/// run (never decreasing); a report of a task the plan does not list keeps the last one.
/// Sequential plans (the default) count every task planned before the reporting one as
/// done; parallel plans (tasks on several threads at once) add up each task's own share.
class PlanProgress {
public:
    enum class Order { Sequential, Parallel };
    PlanProgress() = default;
    explicit PlanProgress(TaskPlan plan, Order order = Order::Sequential);
    /// The fraction of the whole run after a report of `step` of `total` within `task`.
    double update(const TaskIdentity& task, long long step, long long total);
    double fraction() const { return m_fraction; }
    bool empty() const { return m_plan.empty(); }

private:
    TaskPlan m_plan;
    Order m_order = Order::Sequential;
    std::vector<double> m_done;  ///< per planned task, the share of it done (parallel plans)
    double m_total = 0;
    double m_fraction = 0;
};

/// Follows a run's reports against its declared plan, for the window's progress bar and
/// the command line's percentages alike: a report counts for its task (its identity;
/// else the plan's only task; else, where the run names phases rather than tasks, its
/// phase).
class PlanTracker {
public:
    void setPlan(const TaskPlan& plan, PlanProgress::Order order = PlanProgress::Order::Sequential);
    void identifyByPhase() { m_byPhase = true; }
    /// The fraction of the whole run done after `p` (a report of no planned task leaves it).
    double report(const Progress& p);
    double fraction() const { return m_plan.fraction(); }
    bool hasPlan() const { return !m_plan.empty(); }

private:
    PlanProgress m_plan;
    std::optional<TaskIdentity> m_fallback;
    bool m_byPhase = false;
};

/// Seconds left when `fraction` of a run took `elapsedSeconds`, extrapolated linearly;
/// nothing before 2% is done (too early to say).
std::optional<double> etaSeconds(double elapsedSeconds, double fraction);

/// When a loop of `total` steps reports: about a hundred times over the loop (every 1%),
/// and besides whenever a second has passed since its last report, so that a loop of slow
/// steps (a wide network on the CPU: 1% can be minutes) still shows progress every second
/// or two, and the last step always. One per loop; not thread-safe.
class ReportPacer {
public:
    explicit ReportPacer(long long total, std::chrono::steady_clock::duration maxGap = std::chrono::seconds(1))
        : m_total(total), m_every(total / 100 > 1 ? total / 100 : 1), m_maxGap(maxGap),
          m_last(std::chrono::steady_clock::now())
    {
    }
    /// Whether step `step` (1-based) reports; when it does, the gap starts again.
    bool due(long long step)
    {
        const auto now = std::chrono::steady_clock::now();
        if (step % m_every != 0 && step != m_total && now - m_last < m_maxGap)
            return false;
        m_last = now;
        return true;
    }

private:
    long long m_total;
    long long m_every;
    std::chrono::steady_clock::duration m_maxGap;
    std::chrono::steady_clock::time_point m_last;
};

/// Receives a run's plan as soon as the run knows it (after its data are loaded).
using PlanSink = std::function<void(const TaskPlan&, PlanProgress::Order)>;

/// A line a run tells its user beside the progress: what it read (Info: the command line
/// prints it unless --quiet, the window logs it) or a warning (printed always).
enum class NoteKind { Info, Warning };
using NoteSink = std::function<void(NoteKind, const std::string&)>;

/// The typed views a run publishes for a front end to draw (decision comparisons, the
/// loaded data, the finished result), declared where the experiments are
/// (experiments/run_views.h): this layer only carries them.
struct RunViews;

/// What a job receives besides its config: where to report, and when to stop.
struct JobContext {
    JobContext() = default;
    JobContext(ProgressSink progressSink, const CancelToken* cancelToken)
        : progress(std::move(progressSink)), cancel(cancelToken)
    {
    }

    ProgressSink progress;
    const CancelToken* cancel = nullptr;
    PlanSink plan;
    NoteSink note;
    /// Null where nobody draws (the command line, sweeps); the window's pages set the
    /// views they show.
    const RunViews* views = nullptr;

    void tell(NoteKind kind, const std::string& line) const
    {
        if (note)
            note(kind, line);
    }
    void declarePlan(const TaskPlan& tasks, PlanProgress::Order order = PlanProgress::Order::Sequential) const
    {
        if (plan)
            plan(tasks, order);
    }

    void report(const Progress& p) const {
        if (progress)
            progress(p);
    }
    void checkCancelled() const {
        if (cancel)
            cancel->throwIfCancelled();
    }
};

} // namespace lcs
