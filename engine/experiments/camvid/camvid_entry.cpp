// CamVid segmentation (paper Fig. 5) as a registry entry: the window's run (CW-SGD, SGHMC
// with the student S, q on S, all in memory), then S against q on the validation frames.
// `lcstudio-cli camvid run`, camvid session files and the window's page run it. Its
// declared actions (train, correct, eval, fps) work on a saved model folder, with
// settings from the same declaration (camvid_settings.cpp).
#include "engine/experiments/camvid/camvid_entry.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <utility>

#include <torch/torch.h>

#include "base/core/atomic_file.h"
#include "base/core/input_error.h"
#include "datasets/camvid_reader.h"
#include "engine/core/threads.h"
#include "engine/experiments/run_views.h"
#include "engine/experiments/saved_model_request.h"

namespace lcs {

namespace {

ExperimentOutput camvidOutput(const CamvidEvalResult& result, const std::string& heading)
{
    auto out = camvidEvalOutput(result);
    out.table = heading + out.table;
    return out;
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
    CamvidFrameVisitor visit;
    if (showsViews(ctx)) {
        showView(ctx, CamvidEvaluating{evaluatedFrames(cache.train.data, cache.evalSplit, cache.maxEvalFrames)});
        visit = [&ctx](const CamvidVisitedFrame& frame) { showView(ctx, frame); };
    }
    const auto comparison = evaluateCamvidWindow(cache, visit, ctx);
    showView(ctx, CamvidEvaluated{comparison, recorrected, correctionSeconds});
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
    auto fps = camvidFramesPerSecond(ensembleNet, *cache.q, cache.costs, cache.train.height, cache.train.width,
                                     camvidFpsEnsembles(), kCamvidRunFpsFrames, cache.train.device, ctx);
    p.step = 1;
    ctx.report(p);
    showView(ctx, CamvidFpsMeasured{fps, static_cast<bool>(cache.mcDropout)});
    return fps;
}

/// train, correct, eval and fps: what each does and writes. Their settings come from
/// the one declaration (camvidActionSettings).
std::vector<ExperimentAction> camvidActions()
{
    auto withJson = [](std::vector<OutputSpec> outputs, const char* what) {
        outputs.push_back({"json", "FILE", PathKind::File, what});
        return outputs;
    };
    std::vector<ExperimentAction> actions;
    actions.push_back(
        {"train", "train and save every method's network into a model folder",
         "Trains the methods and saves each network (TorchScript, with a JSON sidecar) and the\n"
         "manifest camvid.json (frame size, normalisation, networks) into the folder --out names,\n"
         "all or nothing. Networks predict the 11 real classes; void pixels are left out of\n"
         "losses and metrics. q (ours) trains on the training frames without their labels.\n",
         camvidActionSettings("train"),
         withJson({{"out", "DIR", PathKind::Folder, "the model folder to write (required; created, all files or none)"}},
                  "write what was trained, with the run record, as JSON (atomically)"),
         true, ""});
    actions.push_back({"correct", "re-train only q on the S a model folder holds (after a cost edit, say)",
                       "Re-trains q on the S saved in --model (sghmc_s), on the frames of --train-split without\n"
                       "their labels, under the cost table; replaces the folder's ours.pt and its sidecar.\n",
                       camvidActionSettings("correct"),
                       withJson({}, "write q's training record as JSON (atomically)"), true, ""});
    auto evalOutputs = resultsOutputs("one row per method and decision rule, with per-class IoU, as CSV (atomically)");
    evalOutputs.push_back({"overlays", "DIR", PathKind::Folder,
                           "write frame | truth | S | q | where they differ, one PNG per frame"});
    actions.push_back({"eval", "per-class IoU, mIoU, pixel accuracy and decision cost of a model folder's networks",
                       "Streams the frames of --eval-split one at a time through every network the folder\n"
                       "holds (q's decisions are the corrected ones) and prints per-class IoU, mIoU, pixel\n"
                       "accuracy and decision cost; each network's expected cost under its own predictive; S\n"
                       "decided at the correction objective's optimum (a reference row); where q changed S's\n"
                       "decisions, what each kind of change gained or lost on the labels, and q against S\n"
                       "frame by frame with intervals. Without --costs, the matrix the folder's q was\n"
                       "trained for.\n",
                       camvidActionSettings("eval"), evalOutputs, true,
                       "cost matrix (.json or .cost; 12 classes with void last, or the 11 real ones); default: "
                       "the matrix the folder's q was trained for"});
    auto openSettings = camvidActionSettings("run");
    openSettings.push_back(savedModelSetting("a CamVid model folder, as camvid train writes it", /*folder=*/true));
    actions.push_back({kEvaluateAction, "a model folder evaluated on the run's validation frames",
                       "The window's File > Open Model: the eval action on the frames the run's settings name.\n",
                       openSettings, {}, true, "", /*onCommandLine=*/false});
    actions.push_back({"fps", "frames per second of MC-dropout ensembles against q",
                       "Times the folder's MC-dropout predictive (or S's dropout passes) at each ensemble size,\n"
                       "one pass of q with its Bayes decision, and the raw network's forward pass, on random\n"
                       "frames of the folder's size.\n",
                       camvidActionSettings("fps"), withJson({}, "write the figures as JSON (atomically)"), false, ""});
    return actions;
}

/// The record of an action's figures: its settings as given (checked), the costs, the seed.
RunRecord actionRecord(const std::string& action, const nlohmann::json& settings, const CostMatrix& costs,
                       uint64_t seed)
{
    RunRecord record{kCamvidExperiment, costs, {}, settings, seed, nlohmann::json::object(), action};
    return record;
}

nlohmann::json heldOutJson(const CamvidHeldOutCheck& check)
{
    if (check.objective.empty())
        return nullptr;
    return {{"objective", check.objective}, {"kept_epoch", check.keptEpoch}};
}

/// The run's heading: data, preset, training time per network, q's collapse.
std::string runHeading(const CamvidChoices& choices, const CamvidWindowConfig& config, const CamvidWindowRun& run)
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

class CamvidExperiment : public Experiment {
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
    std::vector<SettingSpec> settings() const override { return camvidActionSettings("run"); }
    std::vector<ExperimentAction> actions() const override { return camvidActions(); }
    CostMatrix defaultCosts(const nlohmann::json&) const override { return costPreset("camvid"); }
    CostMatrix acceptedCosts(const CostMatrix& costs) const override
    {
        camvidDecisionCosts(costs);  // 12 x 12 (void last) or 11 x 11, no referral
        return costs;
    }
    /// SegNet's convolutions gain from every core, unless the threads setting says otherwise.
    int intraOpThreads(const nlohmann::json& settings, int cores) const override
    {
        const auto asked = settings.find("threads");
        return asked != settings.end() && asked->is_number_integer() ? asked->get<int>() : cores;
    }

    /// The folder's splits found and the table fitted, by run()'s own first step.
    std::string checkInputs(const nlohmann::json& settings, const std::optional<CostMatrix>& costs) const override
    {
        const auto config = preparedRun(settings, costs);
        return "CamVid folder " + config.train.data + ": " +
               std::to_string(findCamvidSplit(config.train.data, config.train.split).size()) + " " +
               config.train.split + " and " + std::to_string(findCamvidSplit(config.train.data, config.evalSplit).size()) +
               " " + config.evalSplit + " frames";
    }

    ExperimentRun run(const nlohmann::json& settings, const std::optional<CostMatrix>& costs, const JobContext& ctx,
                      const OutputPaths&) const override
    {
        const auto choices = choicesFrom(settings);
        auto config = preparedRun(settings, costs);
        const CostMatrix table = costs ? *costs : costPreset("camvid");
        keepFrameBuffers();  // frames' activations stay in the heap between frames
        ctx.declarePlan(camvidWindowPlan(config, config.measureFps));
        const auto& t = config.train;
        showView(ctx, CamvidRunStarted{t.data, t.maxFrames, static_cast<int>(t.width), static_cast<int>(t.height),
                                       t.model.architecture, t.sgd.epochs, t.sghmc.epochs, t.correction.epochs,
                                       config.trainMcDropout});
        // SegNet's dropout draws from LibTorch's global generator, not the job's: seeded
        // so that the same settings give the same run.
        torch::manual_seed(choices.seed);
        CamvidWindowConfig training = config;
        if (showsViews(ctx))
            training.preview = [&ctx](const CamvidPreview& preview) { showView(ctx, preview); };
        const auto run = trainCamvidWindow(training, ctx);
        auto state = std::make_shared<CamvidState>(config, run.cache, table);
        showState(ctx, state);
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

    ExperimentRun act(const std::string& action, const nlohmann::json& settings, const std::optional<CostMatrix>& costs,
                      const JobContext& ctx, const OutputPaths& outputs) const override
    {
        keepFrameBuffers();  // frames' activations stay in the heap between frames
        ExperimentRun out;
        if (action == "train")
            out.output = trainModels(settings, costs, ctx, outputs);
        else if (action == "correct")
            out.output = correctModels(settings, costs, ctx);
        else if (action == "eval")
            out.output = camvidOutput(evaluateFolder(settings, costs, ctx, outputs), "");
        else if (action == "fps")
            out.output = measureFolder(settings, ctx);
        else if (action == kEvaluateAction)
            out.output = openFolder(settings, costs, ctx);
        else
            return Experiment::act(action, settings, costs, ctx, outputs);
        return out;
    }

private:
    /// The window's kEvaluateAction (File > Open Model): the model folder at the setting
    /// kSavedModelSetting evaluated on the validation frames the run's other settings
    /// name, as `camvid eval` does; the result is shown as a view too.
    ExperimentOutput openFolder(const nlohmann::json& settings, const std::optional<CostMatrix>& costs,
                                const JobContext& ctx) const
    {
        const auto [folder, runSettings] = savedModelRequest(settings);
        const auto result = evaluateModels(folder, runSettings,
                                           costs ? *costs : costPreset("camvid"), ctx);
        showView(ctx, result);
        return camvidOutput(result, "");
    }

    /// Checks the model folder `dir` and evaluates it on the validation frames `settings`
    /// (the run's) name under `costs`. Publishes CamvidModelsOpened once the folder checks
    /// out, then CamvidEvaluating and every frame where it holds S and q. Throws DataError
    /// when the data cannot be read, InputError for a bad folder.
    CamvidEvalResult evaluateModels(const std::string& dir, const nlohmann::json& settings, const CostMatrix& costs,
                                    const JobContext& ctx) const
    {
        // The run's form names the data, preset and frames; the eval action's settings
        // record them with the folder, so `camvid eval` repeats this evaluation.
        auto asked = nlohmann::json::object();
        for (const auto& spec : camvidActionSettings("eval"))
            if (settings.contains(spec.name) && !settings.at(spec.name).is_null())
                asked[spec.name] = settings.at(spec.name);
        asked["model"] = dir;
        // Data that cannot be read is the window's "data unavailable", said before the folder.
        checkCamvidData(configFor(choicesFrom(settings)), /*training=*/false);
        const auto evalSettings = checkedSettings(camvidActionSettings("eval"), asked, "camvid eval");
        keepFrameBuffers();
        return evaluateFolder(evalSettings, costs, ctx, {});
    }

    /// train: the networks into a new model folder, all files or none.
    ExperimentOutput trainModels(const nlohmann::json& settings, const std::optional<CostMatrix>& costs,
                                 const JobContext& ctx, const OutputPaths& outputs) const
    {
        const std::string dir = outputs.path("out");
        if (dir.empty())
            throw InputError("camvid train: --out MODEL_DIR is required (the model folder to write)");
        // A model folder is one run's: training some methods into another run's folder
        // would rewrite its camvid.json and orphan the networks it no longer lists.
        if (std::error_code ec; std::filesystem::exists(dir + "/" + kCamvidManifestFile, ec))
            throw InputError("--out: " + dir + " already holds a CamVid model (camvid.json); train into a new "
                             "folder, or remove that one first");
        auto config = configFor(choicesFrom(settings));
        const CostMatrix table = costs ? *costs : costPreset("camvid");
        config.train.costs = camvidDecisionCosts(table);
        OutputFolder staged(outputs, "out");  // every network and the manifest, or nothing
        const auto result = trainCamvid(config.train, staged.path(), ctx);
        staged.commit();
        // The text names the files where they are now, not where they were staged.
        std::string text = camvidTrainText(result);
        for (auto at = text.find(staged.path()); at != std::string::npos; at = text.find(staged.path(), at))
            text.replace(at, staged.path().size(), dir);
        nlohmann::json saved = nlohmann::json::object(), seconds = nlohmann::json::object();
        for (const auto& [method, path] : result.saved)
            saved[method] = std::filesystem::path(path).filename().string();
        for (const auto& [method, s] : result.seconds)
            seconds[method] = s;
        ExperimentOutput out;
        out.experiment = kCamvidExperiment;
        out.record = actionRecord("train", settings, table, config.train.seed);
        out.fields = {{"model", dir},
                      {"frames", result.frames},
                      {"saved", saved},
                      {"seconds", seconds},
                      {"total_seconds", result.totalSeconds},
                      {"held_out", heldOutJson(result.heldOut)}};
        out.table = text;
        return out;
    }

    /// correct: q re-trained on the folder's S, replacing its ours.pt.
    ExperimentOutput correctModels(const nlohmann::json& settings, const std::optional<CostMatrix>& costs,
                                   const JobContext& ctx) const
    {
        const auto choices = choicesFrom(settings);
        auto config = configFor(choices);
        const CostMatrix table = costs ? *costs : costPreset("camvid");
        config.train.costs = camvidDecisionCosts(table);
        const auto result = correctCamvidModels(config.train, choices.model, ctx);
        char head[160];
        std::snprintf(head, sizeof head, "q retrained on %lld unlabelled frames in %.1f s%s: ",
                      static_cast<long long>(result.frames), result.seconds,
                      result.collapsed ? " (its decisions collapsed to one class)" : "");
        const std::string line = head + result.path + "\n";
        ExperimentOutput out;
        out.experiment = kCamvidExperiment;
        out.record = actionRecord("correct", settings, table, config.train.seed);
        out.fields = {{"model", choices.model},
                      {"q", result.path},
                      {"frames", result.frames},
                      {"collapsed", result.collapsed},
                      {"seconds", result.seconds},
                      {"held_out", heldOutJson(result.heldOut)}};
        out.table = line + camvidHeldOutText(result.heldOut);
        return out;
    }

    /// eval: every network of the folder on the evaluation split, streaming; the frames
    /// (where the folder holds S and q) go to the views; overlays where asked.
    CamvidEvalResult evaluateFolder(const nlohmann::json& settings, const std::optional<CostMatrix>& costs,
                                    const JobContext& ctx, const OutputPaths& outputs) const
    {
        const auto choices = choicesFrom(settings);
        const auto config = configFor(choices);
        const auto description = checkCamvidModelFolder(choices.model);  // the folder first: no frame is read for a bad one
        checkCamvidData(config, /*training=*/false);
        showView(ctx, CamvidModelsOpened{choices.model, description});
        CamvidEvalConfig ec;
        ec.data = config.train.data;
        ec.split = config.evalSplit;
        ec.modelDir = choices.model;
        ec.costs = costs;
        ec.mcPasses = choices.passes;
        ec.maxFrames = config.maxEvalFrames;
        ec.device = config.train.device;
        ec.seed = choices.seed;
        OutputFolder staged(outputs, "overlays");  // every overlay, or none
        if (staged.asked())
            ec.overlayDir = staged.path();
        ctx.declarePlan({{TaskIdentity{"eval", std::nullopt, 0}, 1.0}});
        // Frames come only where the folder holds S and q: the viewer starts at the first.
        bool started = false;
        auto result = evaluateCamvid(ec, ctx, [&](const CamvidVisitedFrame& f) {
            if (!std::exchange(started, true))
                showView(ctx,
                         CamvidEvaluating{evaluatedFrames(ec.data, ec.split, ec.maxFrames)});
            showView(ctx, f);
        });
        staged.commit();
        result.record.settings = settings;
        return result;
    }

    /// fps: the folder's networks timed on random frames of its size.
    static ExperimentOutput measureFolder(const nlohmann::json& settings, const JobContext& ctx)
    {
        const auto choices = choicesFrom(settings);
        const auto fps = camvidFramesPerSecond(
            choices.model, choices.ensembles.empty() ? camvidFpsEnsembles() : choices.ensembles, choices.fpsFrames,
            choices.device, ctx);
        return camvidFpsOutput(fps);
    }

    /// A run's configuration: the table checked first, then the folder's splits.
    CamvidWindowConfig preparedRun(const nlohmann::json& settings, const std::optional<CostMatrix>& costs) const
    {
        auto config = configFor(choicesFrom(settings));
        config.declaredSettings = settings;
        const CostMatrix table = costs ? *costs : costPreset("camvid");
        config.train.costs = camvidDecisionCosts(table);  // refuses a matrix of the wrong size first
        checkCamvidData(config, /*training=*/true);
        return config;
    }

    static CamvidChoices choicesFrom(const nlohmann::json& settings)
    {
        CamvidChoices choices;
        applySettings(camvidSettings(), settings, choices);
        return choices;
    }
    CamvidWindowConfig configFor(const CamvidChoices& choices) const
    {
        auto config = camvidConfigFor(choices);
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
    if (showsViews(ctx))
        preview = [&ctx](const CamvidPreview& p) { showView(ctx, p); };
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
