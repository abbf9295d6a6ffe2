#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <tuple>
#include <type_traits>

#include <QObject>
#include <QThread>
#include <QVariant>

#include <nlohmann/json.hpp>

#include "base/decision/cost_matrix.h"
#include "engine/core/job.h"
#include "ui/ui_types.h"
#include "ui/worker_thread.h"

namespace lcs {
class Experiment;
}

/// The window's one job runner: an owned worker thread, cancel, progress with the
/// job's fraction and ETA, and the job's ending (finished with the results JSON/CSV,
/// cancelled, failed). What a job does is its ExperimentWorker's: the registry's generic
/// worker runs any lcs::Experiment; an experiment whose page shows more than the results
/// (decision regions, overlays) gives a worker subclass that also sends those views.
namespace lcs::ui {

/// Evaluate: a saved model decides the page's data (File > Open Model), nothing trained.
enum class JobKind { Run, Sample, Recorrect, Evaluate };

/// Lives on the runner's thread and runs one job at a time. Everything it sends out is
/// plain data.
class ExperimentWorker : public QObject {
    Q_OBJECT
public:
    /// The names of its jobs for the log and the status bar ("Image experiment",
    /// "Re-correction"; sampling only where the experiment samples on its own).
    explicit ExperimentWorker(QString runName, QString recorrectName = tr("Re-correction"),
                              QString sampleName = tr("Sampling"), QString evaluateName = tr("Model evaluation"));

    /// Full runs started (sampling included): a re-correction must leave it unchanged.
    std::atomic<int> runs{0};
    /// Re-corrections finished.
    std::atomic<int> recorrections{0};

    QString jobName(JobKind job) const;
    /// Set by the JobRunner that owns this worker: where stop requests come from and
    /// where views go.
    void attach(const CancelToken* cancel, QObject* runner)
    {
        m_cancel = cancel;
        m_runner = runner;
    }

public Q_SLOTS:
    /// Runs `job` (a JobKind) and answers with done(); nothing it throws escapes.
    void run(int job, const QVariant& settings, const lcs::CostMatrix& costs);

Q_SIGNALS:
    void progress(const lcs::ui::JobProgress& progress);
    void logMessage(const QString& line);
    /// A run left state to re-correct; `costs` is the matrix q was trained for (the one a
    /// cost editor should show, so that an edit starts from it).
    void cacheReady(const QString& description, const lcs::CostMatrix& costs);
    /// The previous run's state is gone (a new run replaces it).
    void cacheDropped();
    void done(int job, double seconds, const QString& json, const QString& csv, const QString& error, bool cancelled,
              bool dataUnavailable);

protected:
    /// The job's work, on this thread: fill `json` / `csv` with the results (empty for a
    /// job that has none) or throw (DataError, InputError, Cancelled, ...).
    virtual void execute(JobKind job, const QVariant& settings, const CostMatrix& costs, QString& json,
                         QString& csv) = 0;
    const CancelToken* cancelToken() const { return m_cancel; }
    /// Emits a view signal of the runner (a JobRunner subclass) on the GUI thread with
    /// `values` copied now, queued behind what this worker sent before: the view signals
    /// are declared once, on the runner.
    template <class Runner, class... Args, class... Values>
    void emitView(void (Runner::*signal)(Args...), Values&&... values)
    {
        auto* runner = static_cast<Runner*>(m_runner);
        QMetaObject::invokeMethod(
            runner,
            [runner, signal, copies = std::make_tuple(std::decay_t<Values>(std::forward<Values>(values))...)] {
                std::apply([&](const auto&... v) { (runner->*signal)(v...); }, copies);
            },
            Qt::QueuedConnection);
    }
    void throwIfCancelled() const
    {
        if (m_cancel)
            m_cancel->throwIfCancelled();
    }

private:
    QString m_runName, m_recorrectName, m_sampleName, m_evaluateName;
    const CancelToken* m_cancel = nullptr;
    QObject* m_runner = nullptr;
};

/// Engine progress -> JobProgress signals at most every kEmitInterval (and once more by
/// flush()), the fraction of the whole job from the run's plan. Subclasses collect their
/// own views (curves, frames) in collect() and send them in flushViews(). Reports may
/// come from several engine threads at once: the channel serialises them.
class ProgressChannel {
public:
    /// `phasePrefix` heads the phase shown ("corruption (sgld)").
    ProgressChannel(ExperimentWorker* worker, QString phasePrefix);
    virtual ~ProgressChannel() = default;

    /// A plan of one task also names every report that carries no identity (a
    /// re-correction's).
    void setPlan(const TaskPlan& plan, PlanProgress::Order order = PlanProgress::Order::Sequential);
    /// Reports without an identity are matched on their phase name (CamVid's plan).
    void identifyByPhase() { m_plan.identifyByPhase(); }

    void operator()(const Progress& p);
    void flush();
    /// The engine context that reports here, cancelled by `cancel` (declared plans
    /// replace this channel's).
    JobContext context(const CancelToken* cancel);

protected:
    /// A report's views (curve points, frames): called under the channel's lock.
    virtual void collect(const Progress&) {}
    /// Sends what collect() gathered: called under the channel's lock.
    virtual void flushViews() {}
    /// Flushes when the last emission is kEmitInterval old; call with the lock held.
    void maybeFlushLocked();
    std::recursive_mutex m_mutex;

private:
    void flushLocked();
    ExperimentWorker* m_worker;
    QString m_prefix;
    PlanTracker m_plan;
    Progress m_last;
    bool m_hasLast = false;
    WorkerClock::time_point m_lastEmit{};
};

/// Runs an experiment's jobs on an owned worker thread; only plain data crosses threads.
class JobRunner : public QObject {
    Q_OBJECT
public:
    using Job = JobKind;
    /// The job that decides a page's data with an opened model (File > Open Model).
    static constexpr Job kOpenModel = Job::Evaluate;

    /// Takes `worker` (no parent) and moves it to a new thread called `threadName`.
    JobRunner(ExperimentWorker* worker, const QString& threadName, QObject* parent = nullptr);
    ~JobRunner() override;  ///< cancels a running job and joins the thread

    bool isBusy() const { return m_busy; }
    /// True once a run has left state to re-correct (cleared when a new run drops it).
    bool hasCache() const { return m_hasCache; }
    /// Full runs started on the worker (ExperimentWorker::runs).
    int runs() const { return m_worker ? m_worker->runs.load() : 0; }
    /// Re-corrections finished (ExperimentWorker::recorrections).
    int recorrections() const { return m_worker ? m_worker->recorrections.load() : 0; }
    QString jobName(Job job) const;
    /// Whether this LibTorch build can run jobs on CUDA here.
    static bool cudaAvailable();

    /// Returns false (and does nothing) while another job runs. A re-correction with
    /// nothing cached fails with a message saying what to run first.
    bool start(Job job, const QVariant& settings, const CostMatrix& costs);
    /// Takes effect at the engine's next step (well under a second).
    void cancel();

Q_SIGNALS:
    void started(lcs::ui::JobKind job);
    void progress(const lcs::ui::JobProgress& progress);
    void cacheReady(const QString& description, const lcs::CostMatrix& costs);
    /// JSON and CSV of the finished job in the CLI's formats (empty when it has none).
    void finished(lcs::ui::JobKind job, double seconds, const QString& resultsJson, const QString& resultsCsv);
    void cancelled(lcs::ui::JobKind job);
    /// `dataUnavailable`: the data could not be read (missing folder, bad files).
    void failed(lcs::ui::JobKind job, const QString& message, bool dataUnavailable);
    void logMessage(const QString& line);

protected:
    template <class Worker>
    Worker* workerAs() const
    {
        return static_cast<Worker*>(m_worker);
    }

private:
    QThread m_thread;
    ExperimentWorker* m_worker = nullptr;
    CancelToken m_cancel;
    bool m_busy = false;
    bool m_hasCache = false;
};

/// Runs any registered experiment through its declaration: start() takes the settings
/// object (name -> value) as QVariant::fromValue(json), checked by checkedSettings before
/// anything is dropped; results come in the experiment's one format; a re-correction
/// runs on the state the last run left.
class ExperimentJobRunner : public JobRunner {
    Q_OBJECT
public:
    explicit ExperimentJobRunner(const Experiment& experiment, QObject* parent = nullptr);

Q_SIGNALS:
    /// The finished job's text table (what the CLI prints), before finished().
    void table(const QString& text);
};

} // namespace lcs::ui

Q_DECLARE_METATYPE(lcs::ui::JobKind)
Q_DECLARE_METATYPE(nlohmann::json)
