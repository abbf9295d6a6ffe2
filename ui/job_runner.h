#pragma once

#include <QElapsedTimer>
#include <QObject>
#include <QThread>

#include "core/job.h"
#include "ui_types.h"

namespace lcs::ui {

class SyntheticWorker;

/// Runs the synthetic experiment's phases on an owned worker thread and reports through
/// queued signals carrying plain data. The posterior predictive of the last sampling run
/// stays cached on the worker, so a new cost matrix re-runs only the correction.
class JobRunner : public QObject {
    Q_OBJECT
public:
    enum class Job { RunAll, Sample, Correct };
    Q_ENUM(Job)

    explicit JobRunner(QObject* parent = nullptr);
    ~JobRunner() override;  ///< cancels a running job and joins the thread

    bool isBusy() const { return m_busy; }
    /// True once a sampling run has finished (a correction can run on its cache).
    bool hasPosterior() const { return m_hasPosterior; }
    /// Settings the cached posterior was sampled with.
    const ExperimentSettings& posteriorSettings() const { return m_posteriorSettings; }
    /// Number of (replicate, method) inference runs performed so far: a correction-only
    /// job must leave it unchanged.
    int inferenceRuns() const;

    static QString jobName(Job job);
    /// Whether this LibTorch build can run jobs on CUDA here.
    static bool cudaAvailable();

public Q_SLOTS:
    /// Each returns false (and does nothing) while another job is running.
    bool start(lcs::ui::JobRunner::Job job, const lcs::ui::ExperimentSettings& settings, const lcs::CostMatrix& costs);
    /// Takes effect at the engine's next step (well under a second).
    void cancel();
    /// Saves q of (replicate, method) from the last correction (plus MAP / last sample)
    /// with JSON sidecars; answers with modelSaved. False while a job runs.
    bool saveModel(int replicate, const QString& method, const QString& path);
    /// Loads a saved q and decides with it over the plane; answers with modelLoaded.
    bool loadModel(const QString& path, const lcs::CostMatrix& costs, int gridResolution);

Q_SIGNALS:
    void started(lcs::ui::JobRunner::Job job);
    void progress(const lcs::ui::JobProgress& progress);
    void taskUpdated(const lcs::ui::TaskView& view);
    void resultRow(const lcs::ui::ResultRow& row);
    /// JSON and CSV of the finished run in the CLI's formats (empty after sampling only).
    void finished(lcs::ui::JobRunner::Job job, double seconds, const QString& resultsJson, const QString& resultsCsv);
    void cancelled(lcs::ui::JobRunner::Job job);
    void failed(lcs::ui::JobRunner::Job job, const QString& message);
    void logMessage(const QString& line);
    void modelSaved(const QString& paths, const QString& error);
    void modelLoaded(const lcs::ui::TaskView& view, const QString& error);

private:

    QThread m_thread;
    SyntheticWorker* m_worker = nullptr;
    CancelToken m_cancel;
    bool m_busy = false;
    bool m_hasPosterior = false;
    ExperimentSettings m_posteriorSettings;
};

} // namespace lcs::ui

Q_DECLARE_METATYPE(lcs::ui::JobRunner::Job)
