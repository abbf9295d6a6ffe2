#pragma once

#include <memory>

#include "ui/experiments/camvid/camvid_types.h"
#include "ui/job_runner.h"

namespace lcs::ui {

class CamvidWorker;

/// The CamVid segmentation experiment on the one JobRunner: training (with live
/// validation curves), evaluation of the validation frames (overlays and IoU) and frames
/// per second; the worker keeps S, q and the unlabelled frames, so a cost edit re-trains
/// only q and re-evaluates. Adds the page's views: curves, previews, frames, IoU, FPS.
class CamvidJobRunner : public JobRunner {
    Q_OBJECT
public:
    explicit CamvidJobRunner(QObject* parent = nullptr);

    /// False (and nothing done) while another job runs.
    /// `settings`: the experiment's declared settings, checked (checkedSettings).
    bool start(Job job, const nlohmann::json& settings, const CostMatrix& costs);
    /// Writes the cached run's networks into `dir` as a CamVid model folder (what
    /// `lcstudio-cli camvid train` writes), all files or none, on the job thread; answers
    /// with modelsSaved. False (nothing done) while a job runs or with nothing cached.
    bool saveModels(const QString& dir);
    /// Checks the model folder `dir` and evaluates it on the validation frames the
    /// settings name, under `costs`: a kOpenModel job that fills the viewer and the IoU
    /// views where the folder holds S and q, and whose results are the evaluation's.
    bool openModels(const QString& dir, const nlohmann::json& settings, const CostMatrix& costs);

Q_SIGNALS:
    /// The data checked out and the previous run's cache is dropped: views may clear.
    void trainingStarted();
    void epochPoints(const QVector<lcs::ui::CamvidEpochPoint>& points);
    /// The first validation frames as the network just trained decides them (after an
    /// epoch of S or q; at most about 10 a second, the latest wins).
    void preview(const lcs::ui::CamvidPreviewView& preview);
    /// Evaluation starts: `frames` frames will follow (the viewer drops the old ones).
    void evaluationStarted(int frames);
    void frames(const QVector<lcs::ui::CamvidFrameView>& frames);
    void comparison(const lcs::ui::CamvidIouView& view);
    void framesPerSecond(const lcs::ui::CamvidFpsView& view);
    /// saveModels ended: the files written into `dir`, or the error (nothing written).
    void modelsSaved(const QString& dir, const QStringList& files, const QString& error);
    /// An opened model folder checked out (`description`: what it holds); its
    /// evaluation follows: the views may clear.
    void modelEvaluationStarted(const QString& dir, const QString& description);
};

} // namespace lcs::ui
