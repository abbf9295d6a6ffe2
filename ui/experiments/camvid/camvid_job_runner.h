#pragma once

#include <memory>

#include "camvid_types.h"
#include "job_runner.h"

namespace lcs::ui {

struct CamvidJobHooks;
class CamvidWorker;

/// The CamVid segmentation experiment on the one JobRunner: training (with live
/// validation curves), evaluation of the validation frames (overlays and IoU) and frames
/// per second; the worker keeps S, q and the unlabelled frames, so a cost edit re-trains
/// only q and re-evaluates. Adds the page's views: curves, previews, frames, IoU, FPS.
class CamvidJobRunner : public JobRunner {
    Q_OBJECT
public:
    explicit CamvidJobRunner(QObject* parent = nullptr, std::shared_ptr<const CamvidJobHooks> hooks = {});

    /// False (and nothing done) while another job runs.
    /// `settings`: the experiment's declared settings, checked (checkedSettings).
    bool start(Job job, const nlohmann::json& settings, const CostMatrix& costs);

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
};

} // namespace lcs::ui
