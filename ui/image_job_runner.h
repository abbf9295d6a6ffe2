#pragma once

#include <atomic>
#include <memory>

#include <QObject>
#include <QThread>

#include "core/job.h"
#include "image_types.h"
#include "ui_types.h"

namespace lcs::ui {

struct ImageJobHooks;
class ImageWorker;

/// Runs the image experiments (label corruption, selective classification) on an owned
/// worker thread, like JobRunner does for the synthetic one: engine progress becomes
/// queued signals with plain data, throttled to about 10 Hz. The worker keeps the last
/// run's student S (the engine's CorrectionCache), so a cost edit re-trains only q.
class ImageJobRunner : public QObject {
    Q_OBJECT
public:
    enum class Job { Run, Recorrect };
    Q_ENUM(Job)

    explicit ImageJobRunner(QObject* parent = nullptr, std::shared_ptr<const ImageJobHooks> hooks = {});
    ~ImageJobRunner() override;  ///< cancels a running job and joins the thread

    bool isBusy() const { return m_busy; }
    /// True once a run has left a student S to re-correct (cleared when a run starts).
    bool hasCache() const { return m_hasCache; }
    /// "corruption" or "selective": the experiment whose S is cached.
    QString cacheExperiment() const { return m_cacheExperiment; }
    /// Full experiment runs started on the worker (sampling and distillation included):
    /// a re-correction must leave it unchanged.
    int experimentRuns() const;
    /// Re-corrections finished.
    int recorrections() const;

    static QString jobName(Job job);

public Q_SLOTS:
    /// Each returns false (and does nothing) while another job is running.
    bool start(lcs::ui::ImageJobRunner::Job job, const lcs::ui::ImageExperimentSettings& settings,
               const lcs::CostMatrix& costs);
    /// Takes effect at the engine's next minibatch.
    void cancel();

Q_SIGNALS:
    void started(lcs::ui::ImageJobRunner::Job job);
    void progress(const lcs::ui::JobProgress& progress);
    /// The data set is loaded; `info.costs` is the matrix the run decides with.
    void dataReady(const lcs::ui::ImageDataInfo& info);
    void epochPoints(const QVector<lcs::ui::EpochPoint>& points);
    void trainingPoints(const QVector<lcs::ui::TrainingPoint>& points);
    void comparison(const lcs::ui::ComparisonView& view);
    void summary(const lcs::ui::SummaryView& view);
    void trainingTime(const lcs::ui::TrainingTimeView& view);
    /// A student S is cached; `costs` is the matrix its q was last trained for (the one
    /// the cost editor should show, so that an edit starts from it).
    void cacheReady(const QString& description, const lcs::CostMatrix& costs);
    /// JSON and CSV in the CLI's formats (empty after a re-correction).
    void finished(lcs::ui::ImageJobRunner::Job job, double seconds, const QString& resultsJson,
                  const QString& resultsCsv);
    void cancelled(lcs::ui::ImageJobRunner::Job job);
    /// `dataUnavailable`: the data set could not be loaded (missing folder, bad files).
    void failed(lcs::ui::ImageJobRunner::Job job, const QString& message, bool dataUnavailable);
    void logMessage(const QString& line);

private:
    QThread m_thread;
    ImageWorker* m_worker = nullptr;
    CancelToken m_cancel;
    bool m_busy = false;
    bool m_hasCache = false;
    QString m_cacheExperiment;
};

} // namespace lcs::ui

Q_DECLARE_METATYPE(lcs::ui::ImageJobRunner::Job)
