#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "base/decision/cost_matrix.h"
#include "engine/core/job.h"
#include "engine/experiments/plane_views.h"

/// What a run shows while it runs, as events of plain data: a front end that draws (the
/// window's pages) sets RunViews::show and hands it to the run through JobContext::views;
/// the command line sets none. Each event is valid during the call only and arrives on
/// the job's thread, so a receiver copies what it keeps before the call returns.
namespace lcs {

struct CamvidComparison;
struct CamvidEvalResult;
struct CamvidFpsResult;
struct CamvidPreview;
struct CamvidVisitedFrame;
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
    std::string data;                       ///< the CamVid folder
    int64_t maxFrames = 0;                  ///< training frames at most (0: every one)
    int width = 0, height = 0;              ///< the networks' frame size
    std::string architecture;               ///< the SegNet of the preset
    int sgdEpochs = 0, sghmcEpochs = 0, correctionEpochs = 0;
    bool mcDropout = false;                 ///< an MC-dropout network trained too
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

/// A warning for a front end's log, said while the run works.
struct ViewLog {
    std::string line;
};

/// Every view a run shows, one type: a pointer to the event, valid during the call.
/// The plane views (TaskView, ResultRow) may come from several training threads at once
/// (one per task).
using ViewEvent =
    std::variant<const ImageRunStarted*, const ComparisonShown*, const CorruptionResult*, const SelectiveResult*,
                 const TaskView*, const ResultRow*, const EvidenceShown*, const ViewLog*, const CamvidRunStarted*,
                 const CamvidPreview*, const CamvidEvaluating*, const CamvidVisitedFrame*, const CamvidEvaluated*,
                 const CamvidModelsOpened*, const CamvidEvalResult*, const CamvidFpsMeasured*>;

/// What a front end observes of a run: every view through one callback (unset: none is
/// built), and the state it may keep.
struct RunViews {
    std::function<void(const ViewEvent&)> show;
    /// The run's state for re-correction exists (the posteriors sampled, S trained, X and
    /// P read), before the run's remaining work: a front end that keeps it can re-correct
    /// even when that work fails or is cancelled. The run still returns the same state.
    std::function<void(const std::shared_ptr<RecorrectionState>&)> stateCached;
};

/// Whether anyone observes the run's views (work done only for them can be skipped).
inline bool showsViews(const JobContext& ctx)
{
    return ctx.views && ctx.views->show;
}

/// Shows `event` to the context's views, where there are any.
template <class Event>
void showView(const JobContext& ctx, const Event& event)
{
    if (showsViews(ctx))
        ctx.views->show(ViewEvent{&event});
}

/// Hands the run's state to the context's views, where they keep it.
inline void showState(const JobContext& ctx, const std::shared_ptr<RecorrectionState>& state)
{
    if (ctx.views && ctx.views->stateCached)
        ctx.views->stateCached(state);
}

namespace detail {
template <class... Handlers>
struct Overloaded : Handlers... {
    using Handlers::operator()...;
};
template <class... Handlers>
Overloaded(Handlers...) -> Overloaded<Handlers...>;
} // namespace detail

/// One callback from a handler per event type a front end draws (each taking `const
/// Event&`); the events it has no handler for are passed over.
template <class... Handlers>
std::function<void(const ViewEvent&)> viewHandlers(Handlers... handlers)
{
    return [handle = detail::Overloaded{std::move(handlers)..., [](const auto&) {}}](const ViewEvent& event) {
        std::visit([&handle](const auto* e) { handle(*e); }, event);
    };
}

} // namespace lcs
