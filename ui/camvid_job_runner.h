#pragma once

#include <memory>

#include <QObject>
#include <QThread>

#include "camvid_types.h"
#include "core/job.h"
#include "decision/cost_matrix.h"
#include "ui_types.h"

namespace lcs::ui {

struct CamvidJobHooks;
class CamvidWorker;

/// Runs the CamVid segmentation experiment on an owned worker thread: training (with
/// live validation curves), evaluation of the validation frames (overlays and IoU) and
/// frames per second; the worker keeps S, q and the unlabelled frames, so a cost edit
/// re-trains only q and re-evaluates. Only plain data leaves the worker, throttled to
/// about 10 Hz.
class CamvidJobRunner : public QObject {
    Q_OBJECT
public:
    enum class Job { Train, Recorrect };
    Q_ENUM(Job)

    explicit CamvidJobRunner(QObject* parent = nullptr, std::shared_ptr<const CamvidJobHooks> hooks = {});
    ~CamvidJobRunner() override;  ///< cancels a running job and joins the thread

    bool isBusy() const { return m_busy; }
    /// True once a run has left S to re-correct (cleared when a run starts).
    bool hasCache() const { return m_hasCache; }
    /// Training runs started on the worker: a re-correction must leave it unchanged.
    int trainingRuns() const;
    /// Re-corrections finished (q retrained on the cached S).
    int recorrections() const;

    static QString jobName(Job job);

public Q_SLOTS:
    /// Returns false (and does nothing) while another job runs or, for a re-correction,
    /// when nothing is cached.
    bool start(lcs::ui::CamvidJobRunner::Job job, const lcs::ui::CamvidSettings& settings, const lcs::CostMatrix& costs);
    /// Takes effect at the engine's next minibatch or frame.
    void cancel();

Q_SIGNALS:
    void started(lcs::ui::CamvidJobRunner::Job job);
    /// The data checked out and the previous run's cache is dropped: views may clear.
    void trainingStarted();
    void progress(const lcs::ui::JobProgress& progress);
    void epochPoints(const QVector<lcs::ui::CamvidEpochPoint>& points);
    /// The first validation frames as the network just trained decides them (after an
    /// epoch of S or q; at most about 10 a second, the latest wins).
    void preview(const lcs::ui::CamvidPreviewView& preview);
    /// Evaluation starts: `frames` frames will follow (the viewer drops the old ones).
    void evaluationStarted(int frames);
    void frames(const QVector<lcs::ui::CamvidFrameView>& frames);
    void comparison(const lcs::ui::CamvidIouView& view);
    void framesPerSecond(const lcs::ui::CamvidFpsView& view);
    /// S is cached; `costs` is the matrix q was trained for.
    void cacheReady(const QString& description, const lcs::CostMatrix& costs);
    void finished(lcs::ui::CamvidJobRunner::Job job, double seconds, const QString& resultsJson,
                  const QString& resultsCsv);
    void cancelled(lcs::ui::CamvidJobRunner::Job job);
    /// `dataUnavailable`: the data folder is missing or not laid out like CamVid.
    void failed(lcs::ui::CamvidJobRunner::Job job, const QString& message, bool dataUnavailable);
    void logMessage(const QString& line);

private:
    QThread m_thread;
    CamvidWorker* m_worker = nullptr;
    CancelToken m_cancel;
    bool m_busy = false;
    bool m_hasCache = false;
};

} // namespace lcs::ui

Q_DECLARE_METATYPE(lcs::ui::CamvidJobRunner::Job)
