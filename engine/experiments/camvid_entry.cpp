// CamVid segmentation (paper Fig. 5) as a registry entry: the window's run (CW-SGD, SGHMC
// with the student S, q on S, all in memory), then S against q on the validation frames.
// `lcstudio-cli camvid run`, camvid session files and the window's page run it; the
// separate train / correct / eval / fps commands work on saved model folders.
#include "experiments/camvid_entry.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include <torch/torch.h>

#include "camvid_reader.h"
#include "core/input_error.h"
#include "core/threads.h"
#include "experiments/run_views.h"

namespace lcs {

namespace {

ExperimentOutput camvidOutput(const CamvidEvalResult& result, const std::string& heading)
{
    return {camvidEvalJson(result), camvidEvalCsv(result), heading + camvidEvalTable(result)};
}

/// Refuses a missing folder, or one without the train (where `training`) and evaluation
/// splits, naming the path, before anything is trained: the data are unavailable.
void checkCamvidData(const CamvidWindowConfig& config, bool training)
{
    const auto& dir = config.train.data;
    if (dir.find_first_not_of(" \t") == std::string::npos)
        throw DataError("camvid: no CamVid folder given (set the data folder, --data or LCS_CAMVID_DIR)");
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec))
        throw DataError(dir + ": no such folder (expected CamVid's train/, trainannot/, " + config.evalSplit + "/ and " +
                        config.evalSplit + "annot/)");
    try {
        if (training)
            findCamvidSplit(dir, config.train.split);
        findCamvidSplit(dir, config.evalSplit);
    } catch (const DataError&) {
        throw;
    } catch (const InputError& e) {
        throw DataError(e.what());
    }
}

/// The validation frames an evaluation of `config` decides: the split, after the cap.
int evaluatedFrames(const std::string& data, const std::string& split, int64_t cap)
{
    const auto pairs = findCamvidSplit(data, split);
    return static_cast<int>(cap > 0 ? std::min<int64_t>(cap, int64_t(pairs.size())) : int64_t(pairs.size()));
}

/// Streams the validation frames through S and q, publishing each, then the comparison.
CamvidComparison evaluateAndShow(const CamvidWindowCache& cache, const JobContext& ctx, bool recorrected,
                                 double correctionSeconds)
{
    if (ctx.views && ctx.views->camvidEvaluating)
        showView(ctx, &RunViews::camvidEvaluating,
                 CamvidEvaluating{evaluatedFrames(cache.data, cache.evalSplit, cache.maxEvalFrames)});
    CamvidFrameVisitor visit;
    if (ctx.views && ctx.views->camvidFrame)
        visit = ctx.views->camvidFrame;
    const auto comparison = evaluateCamvidWindow(cache, visit, ctx);
    showView(ctx, &RunViews::camvidEvaluated, CamvidEvaluated{comparison, recorrected, correctionSeconds});
    return comparison;
}

/// The run's networks' frames per second: the ensemble network (MC dropout where
/// trained, else S's dropout passes) at each ensemble size, against one pass of q.
CamvidFpsResult measureFps(const CamvidWindowCache& cache, const JobContext& ctx)
{
    Progress p;
    p.phase = "fps";
    p.detail = "ensembles 1..30";
    p.total = 1;
    ctx.report(p);
    auto& ensembleNet = cache.mcDropout ? *cache.mcDropout : *cache.student;
    auto fps = camvidFramesPerSecond(ensembleNet, *cache.q, cache.costs, cache.height, cache.width,
                                     camvidFpsEnsembles(), kCamvidRunFpsFrames, cache.device);
    p.step = 1;
    ctx.report(p);
    showView(ctx, &RunViews::camvidFps, CamvidFpsMeasured{fps, static_cast<bool>(cache.mcDropout)});
    return fps;
}

/// The run's heading: data, preset, training time per network, q's collapse.
std::string runHeading(const CamvidWindowChoices& choices, const CamvidWindowConfig& config, const CamvidWindowRun& run)
{
    char line[200];
    std::snprintf(line, sizeof line, "CamVid: %s preset, %lld training frames at %dx%d, seed %llu\n",
                  choices.preset.c_str(), static_cast<long long>(run.trainFrames), config.train.width,
                  config.train.height, static_cast<unsigned long long>(choices.seed));
    std::string heading = line;
    for (const auto& [network, seconds] : run.seconds) {
        std::snprintf(line, sizeof line, "  %-12s %7.1f s\n", network.c_str(), seconds);
        heading += line;
    }
    if (run.collapsed)
        heading += "warning: q collapsed to one decision on the unlabelled frames\n";
    return heading;
}

class CamvidExperiment : public CamvidEntry {
public:
    explicit CamvidExperiment(CamvidProviders providers) : m_providers(std::move(providers)) {}

    std::string name() const override { return kCamvidExperiment; }
    std::string command() const override { return "camvid run"; }
    std::string title() const override { return "CamVid segmentation (paper Fig. 5)"; }
    std::string description() const override
    {
        return "Trains in memory, as the window does: CW-SGD (the chain's start), SGHMC with a student\n"
               "S distilled online, and q on S (optionally an MC-dropout network too); then decides\n"
               "every validation pixel with S and with q under the cost table and prints per-class\n"
               "IoU, mIoU and decision cost of both, and the pixels where they differ.\n";
    }
    std::vector<SettingSpec> settings() const override { return specsOf(camvidWindowSettings()); }
    CostMatrix defaultCosts(const nlohmann::json&) const override { return costPreset("camvid"); }
    CostMatrix acceptedCosts(const CostMatrix& costs) const override
    {
        camvidDecisionCosts(costs);  // 12 x 12 (void last) or 11 x 11, no referral
        return costs;
    }
    /// SegNet's convolutions gain from every core.
    int intraOpThreads(const nlohmann::json&, int cores) const override { return cores; }

    ExperimentRun run(const nlohmann::json& settings, const std::optional<CostMatrix>& costs, const JobContext& ctx,
                      const OutputPaths&) const override
    {
        const auto choices = choicesFrom(settings);
        auto config = configFor(choices);
        const CostMatrix table = costs ? *costs : costPreset("camvid");
        config.train.costs = camvidDecisionCosts(table);  // refuses a matrix of the wrong size first
        checkCamvidData(config, /*training=*/true);
        keepFrameBuffers();  // frames' activations stay in the heap between frames
        ctx.declarePlan(camvidWindowPlan(config, config.measureFps));
        showView(ctx, &RunViews::camvidStarted, CamvidRunStarted{config});
        // SegNet's dropout draws from LibTorch's global generator, not the job's: seeded
        // so that the same settings give the same run.
        torch::manual_seed(choices.seed);
        CamvidWindowConfig training = config;
        if (ctx.views && ctx.views->camvidPreview)
            training.preview = ctx.views->camvidPreview;
        const auto run = trainCamvidWindow(training, ctx);
        auto state = std::make_shared<CamvidState>(config, run.cache, table);
        showView(ctx, &RunViews::stateCached, std::shared_ptr<RecorrectionState>(state));
        const auto comparison = evaluateAndShow(*run.cache, ctx, false, run.seconds.back().second);
        std::optional<CamvidFpsResult> fps;
        if (config.measureFps) {
            fps = measureFps(*run.cache, ctx);
            state->setFps(*fps);
        }
        auto result = camvidWindowResults(comparison, config, *run.cache, fps);
        result.seconds = run.totalSeconds + comparison.seconds;
        ExperimentRun out;
        out.output = camvidOutput(result, runHeading(choices, config, run));
        out.cache = std::move(state);
        return out;
    }

    CamvidEvalResult evaluateModels(const std::string& dir, const nlohmann::json& settings, const CostMatrix& costs,
                                    const JobContext& ctx) const override
    {
        const auto config = configFor(choicesFrom(settings));
        checkCamvidData(config, /*training=*/false);
        const auto description = checkCamvidModelFolder(dir);
        showView(ctx, &RunViews::camvidModelsOpened, CamvidModelsOpened{dir, description});
        keepFrameBuffers();
        CamvidEvalConfig ec;
        ec.data = config.train.data;
        ec.split = config.evalSplit;
        ec.modelDir = dir;
        ec.costs = costs;
        ec.maxFrames = config.maxEvalFrames;
        ec.device = config.train.device;
        ctx.declarePlan({{TaskIdentity{"eval", std::nullopt, 0}, 1.0}});
        // Frames come only where the folder holds S and q: the viewer starts at the first.
        bool started = false;
        const auto result = evaluateCamvid(ec, ctx, [&](const CamvidVisitedFrame& f) {
            if (!std::exchange(started, true))
                showView(ctx, &RunViews::camvidEvaluating,
                         CamvidEvaluating{evaluatedFrames(ec.data, ec.split, ec.maxFrames)});
            showView(ctx, &RunViews::camvidFrame, f);
        });
        return result;
    }

private:
    static CamvidWindowChoices choicesFrom(const nlohmann::json& settings)
    {
        CamvidWindowChoices choices;
        applySettings(camvidWindowSettings(), settings, choices);
        return choices;
    }
    CamvidWindowConfig configFor(const CamvidWindowChoices& choices) const
    {
        auto config = camvidWindowConfigFor(choices);
        if (m_providers.tune)
            m_providers.tune(config);
        return config;
    }

    CamvidProviders m_providers;
};

} // namespace

CamvidState::CamvidState(CamvidWindowConfig config, std::shared_ptr<CamvidWindowCache> cache, CostMatrix table)
    : m_config(std::move(config)), m_cache(std::move(cache)), m_table(std::move(table))
{
    m_config.preview = nullptr;  // a run's sink belongs to that run's front end
}

std::string CamvidState::describe() const
{
    return "S and " + std::to_string(m_cache->unlabelled.size(0)) +
           " unlabelled frames cached: editing costs re-trains only q.";
}

ExperimentOutput CamvidState::recorrect(const CostMatrix& costs, const JobContext& ctx)
{
    ctx.declarePlan({{TaskIdentity{"correction", std::nullopt, 0}, 1.6 * m_config.train.correction.epochs},
                     {TaskIdentity{"eval", std::nullopt, 0}, 0.5}});
    CamvidPreviewSink preview;
    if (ctx.views && ctx.views->camvidPreview)
        preview = ctx.views->camvidPreview;
    const auto r = recorrectCamvid(*m_cache, costs, ctx, preview);
    m_table = costs;
    const auto comparison = evaluateAndShow(*m_cache, ctx, true, r.seconds);
    auto result = camvidWindowResults(comparison, m_config, *m_cache, m_fps);
    result.seconds = r.seconds + comparison.seconds;
    return camvidOutput(result, std::string("Re-correction: q re-trained from the cached S") +
                                    (r.collapsed ? " (q collapsed to one decision)" : "") + "\n");
}

std::vector<std::string> CamvidState::saveModels(const std::string& dir) const
{
    return saveCamvidWindowModels(*m_cache, dir);
}

std::shared_ptr<const Experiment> makeCamvidExperiment(CamvidProviders providers)
{
    return std::make_shared<CamvidExperiment>(std::move(providers));
}

} // namespace lcs
