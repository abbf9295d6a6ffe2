#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/decision/cost_matrix.h"
#include "engine/core/job.h"
#include "engine/experiments/plane_views.h"

/// What a run shows while it runs, as typed events: a front end that draws (the window's
/// pages) sets the callbacks it wants in a RunViews and hands it to the run through
/// JobContext::views; the command line sets none. Each event is valid during the call
/// only and arrives on the job's thread, so a receiver copies what it keeps into its own
/// plain data before the call returns.
namespace lcs {

struct CamvidComparison;
struct CamvidEvalResult;
struct CamvidFpsResult;
struct CamvidPreview;
struct CamvidVisitedFrame;
struct CamvidWindowConfig;
class RecorrectionState;
struct CorruptionResult;
struct DecisionComparison;
struct SelectiveResult;

/// An image as 8-bit pixels, row-major, channels interleaved (1: grey, 3: RGB).
struct Pixels {
    int width = 0, height = 0, channels = 0;
    std::vector<uint8_t> bytes;  ///< height * width * channels
    bool empty() const { return bytes.empty(); }
};

/// An image run has loaded its data and fixed its network and matrix, before any training.
struct ImageRunStarted {
    std::string experiment;
    std::string dataset;                  ///< the data's name
    std::vector<std::string> classNames;
    std::vector<int64_t> inputShape;      ///< {C, H, W}
    int64_t trainImages = 0, testImages = 0;
    std::string model;                    ///< the network, described ("MLP 784-200-10")
    CostMatrix costs;                     ///< the matrix the run decides under (selective: without referral), classes named
};

/// q compared with the rule it corrects on the test images both decided: live after each
/// trained q, and once after every re-correction.
struct ComparisonShown {
    const std::string& experiment;
    const DecisionComparison& comparison;
    /// The test image of each of comparison.changed, in its order, as the data shows it
    /// (the standardisation undone); empty where the run kept no images.
    std::vector<Pixels> changedImages;
    const std::vector<std::string>& classNames;
    std::string uncorrectedMethod;     ///< catalogue id of the rule q is compared with ("sgld_s")
    bool recorrected = false;          ///< q re-trained for new costs on the cached S
    double seconds = 0;                ///< a re-correction's training time
    bool collapsed = false;            ///< q collapsed to one decision
};

/// A CamVid run has checked its data and fixed its networks, before any training.
struct CamvidRunStarted {
    const CamvidWindowConfig& config;
};

/// The validation frames are about to be decided by S and q (after a run, a
/// re-correction or for a saved model folder): `frames` CamvidVisitedFrame views follow.
struct CamvidEvaluating {
    int frames = 0;
};

/// S against q on the validation frames of a run (recorrected: q re-trained on the
/// cached S for new costs, in `correctionSeconds`).
struct CamvidEvaluated {
    const CamvidComparison& comparison;
    bool recorrected = false;
    double correctionSeconds = 0;
};

/// A saved model folder checked out, before its evaluation (File > Open Model):
/// `description` says what it holds.
struct CamvidModelsOpened {
    const std::string& folder;
    const std::string& description;
};

/// Frames per second of the run's ensemble network (MC dropout where trained, else S's
/// dropout passes) against one pass of q.
struct CamvidFpsMeasured {
    const CamvidFpsResult& fps;
    bool mcDropout = false;
};

/// The views a front end draws; an unset callback is not called. The plane views (task,
/// taskScored) may come from several training threads at once (one per task).
struct RunViews {
    std::function<void(const ImageRunStarted&)> imageRunStarted;
    std::function<void(const ComparisonShown&)> comparison;
    std::function<void(const CorruptionResult&)> corruptionFinished;
    std::function<void(const SelectiveResult&)> selectiveFinished;
    /// A synthetic, tabular or own-predictive task as it stands (sampled, correcting,
    /// corrected); built by PlaneViewBuilder.
    std::function<void(const TaskView&)> task;
    std::function<void(const ResultRow&)> taskScored;  ///< a task finished and scored
    std::function<void(const EvidenceShown&)> evidence;  ///< a user's predictive's held-out evidence
    std::function<void(const std::string&)> log;  ///< a warning for the front end's log
    std::function<void(const CamvidRunStarted&)> camvidStarted;
    std::function<void(const CamvidPreview&)> camvidPreview;  ///< after each epoch of S and q
    std::function<void(const CamvidEvaluating&)> camvidEvaluating;
    std::function<void(const CamvidVisitedFrame&)> camvidFrame;  ///< each evaluated frame
    std::function<void(const CamvidEvaluated&)> camvidEvaluated;
    std::function<void(const CamvidModelsOpened&)> camvidModelsOpened;
    /// A model folder evaluated on the validation frames (the window's Open Model).
    std::function<void(const CamvidEvalResult&)> camvidModelsEvaluated;
    std::function<void(const CamvidFpsMeasured&)> camvidFps;
    /// The run's state for re-correction exists (the posteriors sampled, S trained, X and
    /// P read), before the run's remaining work: a front end that keeps it can re-correct
    /// even when that work fails or is cancelled. The run still returns the same state.
    std::function<void(const std::shared_ptr<RecorrectionState>&)> stateCached;
};

/// Calls `member` of the context's views with `event`, where both are set.
template <class Event>
void showView(const JobContext& ctx, std::function<void(const Event&)> RunViews::*member, const Event& event)
{
    if (ctx.views && ctx.views->*member)
        (ctx.views->*member)(event);
}

} // namespace lcs
