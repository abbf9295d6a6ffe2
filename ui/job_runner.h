#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include <QObject>
#include <QStringList>
#include <QThread>
#include <QVariant>

#include <nlohmann/json.hpp>

#include "base/decision/cost_matrix.h"
#include "engine/core/job.h"
#include "engine/experiments/run_views.h"
#include "ui/ui_types.h"
#include "ui/worker_thread.h"

namespace lcs {
class Experiment;
}

/// The window's one job runner: every page runs its experiments through it. A job is a
/// registry experiment's run, one of its declared actions (sampling alone, evaluating a
/// saved model) or a re-correction on the state the last run left, all under the one
/// thread policy on an owned worker thread, with cancel, progress (fraction and ETA from
/// the run's plan) and the job's ending (finished with the results JSON/CSV, cancelled,
/// failed). The run's views arrive as plain values through one signal, view(): a page
/// gives a ViewAdapter that turns the engine's plain view events into what it draws,
/// on the job's thread, and draws what arrives.
namespace lcs::ui {

/// Run: the experiment's run. Sample: its kSampleAction (the posterior alone). Recorrect:
/// q re-trained on the cached state for new costs. Evaluate: its kEvaluateAction (a saved
/// model decides the page's data: File > Open Model), nothing trained.
enum class JobKind { Run, Sample, Recorrect, Evaluate };

/// What a job runs: a registry experiment and its declared settings (name -> value,
/// checked before anything is dropped), or a re-correction's settings for q.
struct JobRequest {
    QString experiment;
    nlohmann::json settings = nlohmann::json::object();
    /// Folder outputs of the run (OutputSpec names, such as "save_models") written into a
    /// temporary folder the runner keeps until the next run, so the page can export
    /// them (keptFiles(), exportKept()).
    QStringList keptOutputs;
};

/// How the log and the status bar name a page's jobs.
struct JobNames {
    QString run, recorrect = QObject::tr("Re-correction"), sample = QObject::tr("Sampling"),
                  evaluate = QObject::tr("Model evaluation");
};

class ProgressChannel;

/// Where a ViewAdapter sends what the page draws, from the job's thread: each value
/// arrives on the GUI thread through JobRunner::view, in the order sent.
class ViewSink {
public:
    explicit ViewSink(ProgressChannel& channel) : m_channel(channel) {}
    /// A plain value (a registered metatype) for the page.
    template <class T>
    void send(const T& value) const
    {
        sendVariant(QVariant::fromValue(value));
    }
    void sendVariant(const QVariant& value) const;
    void log(const QString& line) const;
    /// Sends the progress and everything the adapter holds back now (before a view that
    /// must follow them).
    void flush() const;
    /// The same when the last sending is kEmitInterval old (after an adapter gathered more).
    void maybeFlush() const;

private:
    ProgressChannel& m_channel;
};

/// A page's conversion of the run's views into what it draws, called on the job's
/// thread one call at a time. Values it holds back (curve points, frames) go out in
/// flush(), at most about 10 times a second and once at the job's end.
class ViewAdapter {
public:
    virtual ~ViewAdapter() = default;
    /// A job starts (before any view of it).
    virtual void begin(JobKind /*job*/, const JobRequest& /*request*/) {}
    virtual void show(const ViewEvent& event, const ViewSink& sink) = 0;
    /// Every progress report (curves are read off them).
    virtual void collect(const Progress& /*report*/) {}
    /// The run declared its tasks.
    virtual void planned(const TaskPlan& /*plan*/) {}
    virtual void flush(const ViewSink& /*sink*/) {}
};

/// Lives on the runner's thread and runs one job at a time; what it sends out is plain data.
class JobWorker;

/// Runs a page's jobs on an owned worker thread; only plain data crosses threads.
class JobRunner : public QObject {
    Q_OBJECT
public:
    using Job = JobKind;
    /// The job that decides a page's data with an opened model (File > Open Model).
    static constexpr Job kOpenModel = Job::Evaluate;

    /// `adapter` (may be null: the job's results and log only) turns the run's views
    /// into the page's values; `experiment` is the one start(job, settings, costs) runs.
    JobRunner(JobNames names, std::unique_ptr<ViewAdapter> adapter, QString experiment = {},
              QObject* parent = nullptr);
    /// The registry's page of `experiment`: its results and table, no views.
    explicit JobRunner(const Experiment& experiment, QObject* parent = nullptr);
    ~JobRunner() override;  ///< cancels a running job and joins the thread

    bool isBusy() const { return m_busy; }
    /// True once a run has left state to re-correct (cleared when a new run drops it).
    bool hasCache() const { return m_hasCache; }
    /// The experiment and settings of the run whose state is cached (empty without one).
    QString cacheExperiment() const { return m_cacheExperiment; }
    const nlohmann::json& cacheSettings() const { return m_cacheSettings; }
    /// Runs started (sampling included): a re-correction must leave it unchanged.
    int runs() const;
    /// Re-corrections finished.
    int recorrections() const;
    /// Posterior predictives sampled so far (a re-correction samples none).
    int predictivesSampled() const;
    QString jobName(Job job) const;
    /// Whether this LibTorch build can run jobs on CUDA here.
    static bool cudaAvailable();

    /// Returns false (and does nothing) while another job runs. A re-correction with
    /// nothing cached fails with a message saying what to run first.
    bool start(Job job, const JobRequest& request, const CostMatrix& costs);
    /// The same for this runner's experiment with `settings`.
    bool start(Job job, const nlohmann::json& settings, const CostMatrix& costs);
    /// Takes effect at the engine's next step (well under a second).
    void cancel();

    /// Saves the model of (replicate, series) of the cached state at `path`
    /// (RecorrectionState::saveModel); answers with modelsSaved. False while a job runs.
    bool saveModel(int replicate, const QString& series, const QString& path);
    /// Writes the cached state's networks as a model folder `dir` (RecorrectionState::
    /// saveModels); answers with modelsSaved. False while a job runs or with nothing cached.
    bool saveModels(const QString& dir);
    /// The files the last finished run wrote into its kept outputs ("<stem>.pt"; each
    /// has its sidecar "<stem>.pt.json" beside it) and that run's experiment.
    QStringList keptFiles() const { return m_keptFiles; }
    QString keptExperiment() const { return m_keptExperiment; }
    /// Copies those files with their sidecars into `dir`, all or none; answers with
    /// modelsSaved. False while a job runs or with none kept.
    bool exportKept(const QString& dir);

Q_SIGNALS:
    void started(lcs::ui::JobKind job);
    void progress(const lcs::ui::JobProgress& progress);
    /// A run left state to re-correct; `costs` is the matrix q was trained for (the one a
    /// cost editor should show, so that an edit starts from it).
    void cacheReady(const QString& description, const lcs::CostMatrix& costs);
    /// JSON and CSV of the finished job in the CLI's formats (empty when it has none).
    void finished(lcs::ui::JobKind job, double seconds, const QString& resultsJson, const QString& resultsCsv);
    void cancelled(lcs::ui::JobKind job);
    /// `dataUnavailable`: the data could not be read (missing folder, bad files).
    void failed(lcs::ui::JobKind job, const QString& message, bool dataUnavailable);
    void logMessage(const QString& line);
    /// The finished job's text table (what the CLI prints), before finished().
    void table(const QString& text);
    /// One value of what the page draws, from its ViewAdapter.
    void view(const QVariant& value);
    /// saveModel / saveModels / exportKept ended: the files written (at `target`), or the
    /// error (nothing written).
    void modelsSaved(const QString& target, const QStringList& files, const QString& error);
    /// The kept outputs of a finished run (keptFiles()); empty when a run starts.
    void keptChanged(const QString& experiment, const QStringList& files);

private:
    QThread m_thread;
    JobWorker* m_worker = nullptr;
    CancelToken m_cancel;
    QString m_experiment;
    bool m_busy = false;
    bool m_hasCache = false;
    QString m_cacheExperiment;
    nlohmann::json m_cacheSettings;
    QString m_keptExperiment;
    QStringList m_keptFiles;
};

/// Connects `handler` (taking `const T&`) to the runner's views of type T, in `context`.
template <class T, class Handler>
QMetaObject::Connection onView(JobRunner* runner, QObject* context, Handler handler)
{
    return QObject::connect(runner, &JobRunner::view, context, [handler](const QVariant& value) {
        if (value.metaType() == QMetaType::fromType<T>())
            handler(value.value<T>());
    });
}

/// An adapter that forwards the engine's plain views of types Views... as they are.
template <class... Views>
class ForwardingAdapter : public ViewAdapter {
public:
    void show(const ViewEvent& event, const ViewSink& sink) override
    {
        std::visit(
            [&](const auto* e) {
                using E = std::decay_t<decltype(*e)>;
                if constexpr ((std::is_same_v<E, Views> || ...))
                    sink.send(*e);
            },
            event);
    }
};

} // namespace lcs::ui

Q_DECLARE_METATYPE(lcs::ui::JobKind)
Q_DECLARE_METATYPE(lcs::ui::JobRequest)
Q_DECLARE_METATYPE(nlohmann::json)
