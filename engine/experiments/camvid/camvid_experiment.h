#pragma once

#include "engine/experiments/experiment_names.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/core/settings.h"
#include "base/decision/cost_matrix.h"
#include "datasets/camvid_data.h"
#include "engine/calibration/image_training.h"
#include "engine/core/job.h"
#include "engine/decision/decisions.h"
#include "engine/decision/grouped_evidence.h"
#include "engine/decision/metrics_accumulator.h"
#include "engine/experiments/camvid/camvid_kept_rule.h"
#include "engine/experiments/results_document.h"
#include "engine/experiments/run_record.h"
#include "engine/models/classifier.h"

/// The paper's segmentation experiment (CamVid, SegNet): train and save every method's
/// network, evaluate any split laid out like CamVid with per-class IoU, mIoU, pixel
/// accuracy and decision cost (uncorrected and corrected), write overlays, and time
/// frames per second of MC-dropout ensembles against q.
namespace lcs {

/// Method names of the segmentation experiment.
const std::vector<std::string>& camvidMethods();  ///< mc_dropout, lc_mc_dropout, cw_sgd, sghmc_s, ours

/// Car, Pedestrian, Bicyclist (8, 9, 10): the classes the paper's cost table favours,
/// weighted up by CW-SGD and compared one by one in the held-out evidence.
const std::vector<int>& camvidFavouredClasses();


/// The 11 x 11 decision costs: the paper's 12 x 12 CamVid table without the void row
/// and column (void is never decided and never scored).
CostMatrix camvidDecisionCosts(const CostMatrix& table12);

struct CamvidTrainConfig {
    std::string data;                 ///< CamVid folder
    std::string split = "train";
    int height = 180, width = 240;    ///< frames are resized to this
    int64_t maxFrames = 0;            ///< 0 = every frame of the split
    std::vector<std::string> methods = camvidMethods();
    ModelSpec model;                  ///< segnet_light2 (cpu) or segnet (paper), dropout 0.3, 11 classes
    SgdConfig sgd;                    ///< mc_dropout's and cw_sgd's training
    double cwWeight = 1.4;            ///< on Car, Pedestrian, Bicyclist
    /// CW-SGD's weights also times medianFrequencyWeights to this power (0: none; 1:
    /// SegNet's balancing; 0.5: its square root): rare classes (Pedestrian, Bicyclist,
    /// Pole) are otherwise never decided by the light network. The chain and S start from
    /// this network.
    double classBalancePower = 0;
    SgldDistillationConfig sghmc;     ///< from the CW-SGD network, with the student S
    SgdConfig lcFineTune;             ///< LC-MC-dropout: fine-tuning of the MC-dropout net
    int lcPasses = 5;                 ///< dropout passes per LC step (Cobb et al.: T = 5)
    CorrectionConfig correction; ///< q on S, on unlabelled frames
    CostMatrix costs;                 ///< 11 x 11 (see camvidDecisionCosts)
    uint64_t seed = 0;
    std::string device = "cpu";

    static CamvidTrainConfig preset(const std::string& name);
};

/// Median-frequency balancing (Eigen and Fergus; SegNet's class weights): weight_k =
/// median_j f_j / f_k, with f_k the share of class k among the labelled pixels of
/// `labels` (entries equal to `ignoreLabel` left out) and the median over the classes
/// present; a class with no pixel gets 1. [classes] weights.
std::vector<double> medianFrequencyWeights(const at::Tensor& labels, int64_t classes, int64_t ignoreLabel);

/// CW-SGD's class weights for `config` trained on `trainLabels`: cwWeight on Car,
/// Pedestrian and Bicyclist and 1 elsewhere, times medianFrequencyWeights to the power
/// config.classBalancePower. The one place both the command and the window take them from.
std::vector<double> cwSgdClassWeights(const CamvidTrainConfig& config, const at::Tensor& trainLabels);

/// q's held-out check (see CorrectionRun): the objective on the held-out frames per
/// epoch (0: before training) and the epoch q was kept from; empty without a held-out share.
struct CamvidHeldOutCheck {
    std::vector<double> objective;
    int keptEpoch = -1;
};

struct CamvidTrainResult {
    std::vector<std::pair<std::string, std::string>> saved;  ///< (method, path)
    std::vector<std::pair<std::string, double>> seconds;     ///< training time per method
    double trainingFramesPerSecond = 0;  ///< frames through SGD training per second (0 = no SGD network trained)
    std::string trainingFramesNetwork;   ///< the network it was measured on: mc_dropout, else cw_sgd
    int64_t frames = 0;
    double totalSeconds = 0;
    CamvidHeldOutCheck heldOut;  ///< q's, when q was trained with a held-out share
};

/// The manifest of a CamVid model folder, beside its networks.
inline constexpr const char* kCamvidManifestFile = "camvid.json";

/// A CamVid model folder as `camvid train` writes it and `camvid correct`, `eval` and
/// `fps` read it: `<method>.pt` (TorchScript) with its sidecar per network, and the
/// manifest camvid.json naming them with the frame size and the input standardisation.
/// The one writer of that layout, for the command and the window's Save Model alike.
class CamvidModelFolderWriter {
public:
    /// `spec`: the networks' architecture at the frame size ({3, H, W}); `costs`: the
    /// 11 x 11 matrix every sidecar records; `seed`: the run's.
    CamvidModelFolderWriter(std::string dir, ModelSpec spec, const CamvidNormalisation& norm, uint64_t seed,
                            CostMatrix costs);
    /// Writes `net` as `method`'s network (`role`: "network", "student" or "q"); returns
    /// its path. Throws OutputError naming the file.
    std::string save(const std::string& method, const ClassifierImpl& net, const std::string& role, bool collapsed);
    /// Writes the manifest listing every network saved: last, since a folder with a
    /// manifest is taken to be complete.
    void finish() const;
    /// method -> file name in the folder, of the networks saved so far.
    const std::map<std::string, std::string>& files() const { return m_files; }

private:
    std::string m_dir;
    ModelSpec m_spec;
    CamvidNormalisation m_norm;
    uint64_t m_seed = 0;
    CostMatrix m_costs;
    std::map<std::string, std::string> m_files;
};

/// Trains the methods and saves each network (and S, q) into outDir with sidecars, plus
/// outDir/camvid.json (frame size, normalisation, methods). Throws InputError for bad data.
CamvidTrainResult trainCamvid(const CamvidTrainConfig& config, const std::string& outDir, const JobContext& ctx);

struct CamvidCorrectResult {
    std::string path;     ///< the q written (modelDir/ours.pt)
    int64_t frames = 0;   ///< unlabelled frames q was trained on
    bool collapsed = false;
    double seconds = 0;
    CamvidHeldOutCheck heldOut;
};

/// Retrains only q on the S saved in modelDir (sghmc_s), on the frames of config.split
/// without their labels, under config.costs and config.correction; writes ours.pt with
/// its sidecar and adds it to camvid.json (the headless twin of the window's
/// re-correction after a cost edit). Throws InputError for a folder without S.
CamvidCorrectResult correctCamvidModels(const CamvidTrainConfig& config, const std::string& modelDir,
                                        const JobContext& ctx);

/// The LC-MC-dropout loss (Cobb et al. 2018) on one batch of T dropout passes:
///   mean over labelled pixels of [ -log pbar(y) - log sum_c u(c, h*) pbar(c) ],
/// pbar the mean of the passes' softmax, u = M - L, h* = argmin_d sum_c pbar(c) L[c, d]
/// (held fixed). passLogits: T tensors [N, C, H, W]; labels [N, H, W].
at::Tensor lcMcDropoutLoss(const std::vector<at::Tensor>& passLogits, const at::Tensor& labels, const at::Tensor& costs,
                           double utilityConstant, int64_t ignoreLabel);

struct CamvidEvalConfig {
    std::string data;
    std::string split = "val";
    std::string modelDir;
    std::optional<CostMatrix> costs;  ///< decide under this 11- or 12-class matrix instead
    int mcPasses = 30;                ///< MC-dropout passes at test time
    std::string overlayDir;           ///< empty: no overlays
    int64_t maxFrames = 0;
    std::string device = "cpu";
    /// Seeds LibTorch's global generator, from which MC dropout draws its masks: the same
    /// seed gives the same MC-dropout rows, whatever ran before in the process.
    uint64_t seed = 0;
};

struct FpsPoint {
    int ensemble = 0;
    double ensembleFps = 0;   ///< MC-dropout predictive with this many passes
};
struct CamvidFpsResult {
    std::vector<FpsPoint> points;
    double qFps = 0;          ///< one forward pass of q and a Bayes decision
    double rawFps = 0;        ///< the same network's forward pass alone, no decision
    int height = 0, width = 0;
};

struct CamvidMethodMetrics {
    std::string method;           ///< e.g. "mc_dropout", "sghmc_s", "ours"
    std::string rule;             ///< "uncorrected" or "corrected"
    DecisionMetrics metrics;
};

/// CamVid's one results format, from the CLI's `camvid eval` and from the window alike.
struct CamvidEvalResult {
    RunRecord record;             ///< costs, settings and seed behind the figures
    std::vector<CamvidMethodMetrics> rows;
    /// Where q's decisions depart from S's and what each kind of change gained or lost on
    /// the labels (only when the model folder holds both sghmc_s and ours).
    std::optional<DecisionChanges> studentToCorrected;
    /// q against S with intervals over the split's frames (with both S and q).
    std::optional<GroupedComparison> evidence;
    /// The decisions kept among S, q and the calibrations of S, chosen on the split's
    /// first half and scored on the second (with both S and q, and 4 frames or more).
    std::optional<CamvidKeptRule> keptRule;
    std::vector<std::string> classNames;  ///< the 11 scored classes
    int64_t frames = 0;
    int overlays = 0;
    double seconds = 0;
    size_t peakHeldFrames = 1;   ///< frames held at once while streaming (always 1)
    std::optional<CamvidFpsResult> fps;  ///< frames per second, when measured with the figures
};

struct CamvidVisitedFrame;

/// Streams the frames of a split (one at a time), decides with every saved method and
/// accumulates metrics; writes overlay PNGs (frame | truth | S | q | where S and q
/// differ) when overlayDir is set. Where the folder holds both S (sghmc_s) and q (ours),
/// `visit` (may be empty) gets every frame with both rules' decisions on the calling
/// thread, as evaluateCamvidWindow hands them over.
CamvidEvalResult evaluateCamvid(const CamvidEvalConfig& config, const JobContext& ctx,
                                const std::function<void(const CamvidVisitedFrame&)>& visit = {});

/// Reads a model folder's manifest and loads every network it lists, with the checks
/// eval and fps apply (sidecars, checksums, class count, frame size); one line saying
/// what is there, or InputError naming the file and the field.
std::string checkCamvidModelFolder(const std::string& dir);

/// Stops with Cancelled within a frame once ctx is cancelled (a signal, the window's Stop).
CamvidFpsResult camvidFramesPerSecond(const std::string& modelDir, const std::vector<int>& ensembles, int frames,
                                      const std::string& device, const JobContext& ctx = JobContext{});

/// Frames per second of the same measurement on networks already in memory: `ensembleNet`
/// with dropout on for k passes per frame (an MC-dropout predictive, or any k-member
/// ensemble of this architecture: the work per frame is the same), and one pass of q with
/// a Bayes decision under `costs` (11 x 11). Random input of height x width.
CamvidFpsResult camvidFramesPerSecond(ClassifierImpl& ensembleNet, ClassifierImpl& q, const CostMatrix& costs,
                                      int height, int width, const std::vector<int>& ensembles, int frames,
                                      const std::string& device, const JobContext& ctx = JobContext{});

/// The ensemble sizes frames per second are measured at (paper Fig. 5 right), by a run
/// that measures them and by `camvid fps` unless told others.
inline const std::vector<int>& camvidFpsEnsembles()
{
    static const std::vector<int> sizes{1, 2, 5, 10, 20, 30};
    return sizes;
}
/// Timed frames per ensemble size in a run's measurement (fewer are noisy on a shared machine).
inline constexpr int kCamvidRunFpsFrames = 10;

// ---------------------------------------------------------------------------------
// The window's CamVid job: everything in memory, so that a cost edit retrains only q.
// ---------------------------------------------------------------------------------

/// One evaluated frame as plain data, row-major H x W.
struct CamvidVisitedFrame {
    int64_t index = 0;                ///< position in the split (after the frame cap)
    std::string name;                 ///< the frame's file name
    int height = 0, width = 0;
    std::vector<uint8_t> rgb;         ///< H * W * 3, interleaved RGB at the networks' size
    std::vector<uint8_t> truth;       ///< 0..10, 11 = void
    std::vector<uint8_t> uncorrected; ///< Bayes decisions of S under the cache's costs
    std::vector<uint8_t> corrected;   ///< Bayes decisions of q under the same costs
};
/// A few validation frames decided by a network just trained: after every epoch of the
/// student S and of q the window's job hands these to a CamvidPreviewSink, so the
/// overlays change while the run trains. Plain data only (no tensors).
struct CamvidPreview {
    std::string network;              ///< "sghmc_s" (S after an SGHMC epoch) or "ours" (q after one of its epochs)
    int epoch = 0;                    ///< 1-based epoch of `network`
    bool recorrection = false;        ///< q retrained for edited costs (recorrectCamvid)
    /// The first validation frames. uncorrected: S's Bayes decisions (the S being trained
    /// for "sghmc_s", the finished S for "ours"); corrected: q's, empty while S trains.
    std::vector<CamvidVisitedFrame> frames;
};
/// Called on the job's thread after an epoch; the preview is only valid during the call.
using CamvidPreviewSink = std::function<void(const CamvidPreview&)>;

/// A run for the desktop window: CW-SGD (the chain's start), SGHMC with the student S,
/// q on S, optionally an MC-dropout network (for frames per second against ensembles).
/// After every epoch of each network its validation mIoU and decision cost go out as
/// Progress::test, with the network in EpochTestFigures::model ("cw_sgd", "sghmc_s",
/// "ours", "mc_dropout").
struct CamvidWindowConfig {
    CamvidTrainConfig train;          ///< data, train split, frame size, frame cap, networks, costs (11 x 11)
    std::string evalSplit = "val";
    int64_t maxEvalFrames = 0;        ///< frames the final evaluation streams; 0 = all
    int64_t epochEvalFrames = 8;      ///< validation frames held in memory for the per-epoch figures
    bool trainMcDropout = false;      ///< also train an MC-dropout network (otherwise FPS times S's architecture)
    int64_t previewFrames = 3;        ///< validation frames previewed after each epoch of S and q (0: none)
    bool measureFps = false;          ///< after the evaluation, frames per second of ensembles against q
    CamvidPreviewSink preview;        ///< receives the previews on the job's thread; empty: none are made
    /// The declared settings this config came from (camvidConfigFor), recorded as
    /// the results' run.settings so that the file replays as a session; empty for a
    /// config built in code.
    nlohmann::json declaredSettings = nlohmann::json::object();

    /// "demo" (90 x 120, 60 training frames, the light SegNet: about a minute on one core),
    /// "cpu" (CamvidTrainConfig's cpu preset: 180 x 240, every frame) or "paper" (SegNet
    /// at 360 x 480, the paper's schedules).
    static CamvidWindowConfig preset(const std::string& name);
};

/// What a user chooses for any CamVid action (the run, or train / correct / eval / fps
/// on a model folder), from the window's form, a command line or a session file. Each
/// action reads the fields its declaration lists (camvidActionSettings).
struct CamvidChoices {
    std::string preset = "cpu";   ///< see CamvidWindowConfig::preset
    std::string data;             ///< a folder laid out like CamVid
    std::string model;            ///< a model folder, as train writes it (correct, eval and fps read it)
    std::string trainSplit = "train";
    std::string evalSplit = "val";
    int64_t maxFrames = 0;        ///< training (and unlabelled) frames; 0: the preset's
    int64_t maxEvalFrames = 0;    ///< validation frames evaluated; 0: the preset's
    std::vector<std::string> methods;  ///< networks train trains; empty: the preset's
    int epochs = 0;               ///< SGD epochs of mc_dropout and cw_sgd; 0: the preset's
    std::optional<double> classBalance, cropScale, jitter;  ///< unset: the preset's
    std::string decisionStep = "coordinate";  ///< how q's training picks decisions: coordinate or joint
    std::optional<int> correctionEpochs;
    std::optional<double> correctionLr, calibrationNoise, heldOut;
    bool mcDropout = false;       ///< the run: also train an MC-dropout network
    bool measureFps = false;      ///< the run: measure frames per second after the evaluation
    int passes = 30;              ///< MC-dropout passes at test time (eval)
    std::vector<int> ensembles;   ///< fps's ensemble sizes; empty: camvidFpsEnsembles()
    int fpsFrames = 20;           ///< timed frames per ensemble size (fps)
    int threads = 0;              ///< intra-op threads; 0: every physical core
    uint64_t seed = 0;
    std::string device = "cpu";
};

/// The preset with the choices applied: the run's config, whose `train` the train and
/// correct actions take and whose data, evaluation split and frame cap eval reads.
CamvidWindowConfig camvidConfigFor(const CamvidChoices& choices);

/// CamVid's settings, declared once for every action: the registry's "camvid" entry and
/// its actions, their commands (`lcstudio-cli camvid run|train|correct|eval|fps`), session
/// files and the window's form derive from them.
const std::vector<BoundSetting<CamvidChoices>>& camvidSettings();

/// The declarations of the settings the action `action` (run, train, correct, eval, fps)
/// reads, in declaration order; the model folder is required where it is read.
std::vector<SettingSpec> camvidActionSettings(const std::string& action);

/// The phases of a window run, each weighted by its measured share of the work (one SGD
/// epoch = 1; an SGHMC epoch also trains S, about twice; a correction epoch runs S and q,
/// about 1.6). The engine names its phases, not its tasks: the identities are the phase
/// names. "fps" only where the caller measures frames per second.
TaskPlan camvidWindowPlan(const CamvidWindowConfig& config, bool withFps);

/// What a window run keeps between cost edits. Lives on the job's thread; never shared
/// with a GUI thread (only the plain data the evaluation visits leaves it).
struct CamvidWindowCache {
    ModelSpec spec;
    Classifier student;               ///< S, distilled from the SGHMC chain
    Classifier q;                     ///< the latest correction
    Classifier mcDropout;             ///< null unless trained
    CamvidNormalisation norm;
    at::Tensor unlabelled;            ///< D': the training frames without labels [N, 3, H, W]
    at::Tensor epochImages, epochLabels;  ///< the per-epoch validation frames
    std::vector<CamvidFrame> previewFrames;    ///< the previewed validation frames, as read (RGB, labels)
    std::vector<std::string> previewNames;     ///< their file names
    CostMatrix costs;                 ///< the 11 x 11 matrix q was trained for
    /// The run's settings: q's (re-corrections train with them), the device, the seed,
    /// the frame size and where the evaluation reads its frames.
    CamvidTrainConfig train;
    std::string evalSplit;
    int64_t maxEvalFrames = 0;
    int corrections = 0;              ///< q trainings so far: 1 after the run, +1 per re-correction
    bool qCollapsed = false;          ///< the latest q collapsed to one decision
};

struct CamvidWindowRun {
    std::shared_ptr<CamvidWindowCache> cache;
    std::vector<std::pair<std::string, double>> seconds;  ///< training time per network
    int64_t trainFrames = 0, epochEvalFrames = 0;
    bool collapsed = false;           ///< q collapsed to one decision
    double totalSeconds = 0;
};

/// Trains the window's networks in memory. Throws InputError for bad data (the message
/// names the path), Cancelled when ctx's token is set.
CamvidWindowRun trainCamvidWindow(const CamvidWindowConfig& config, const JobContext& ctx);

/// Writes the cache's networks (mc_dropout when trained, S as sghmc_s, the latest q as
/// ours) into `dir` as a CamVid model folder (CamvidModelFolderWriter), all files or none;
/// returns the file names written, the manifest last. Refuses (OutputError) a folder
/// that already holds a CamVid model: its manifest would be replaced and the networks
/// only it listed orphaned.
std::vector<std::string> saveCamvidWindowModels(const CamvidWindowCache& cache, const std::string& dir);

struct CamvidRecorrection {
    double seconds = 0;
    bool collapsed = false;
};

/// Retrains only q, from the cached S on the cached unlabelled frames, for `costs`
/// (11 or 12 classes; void dropped). The cache's q and costs are replaced only when the
/// training finishes (a cancelled re-correction leaves the cache as it was). `preview`
/// (may be empty) gets the cached preview frames decided by q after each epoch.
CamvidRecorrection recorrectCamvid(CamvidWindowCache& cache, const CostMatrix& costs, const JobContext& ctx,
                                   const CamvidPreviewSink& preview = {});

using CamvidFrameVisitor = std::function<void(const CamvidVisitedFrame&)>;

struct CamvidComparison {
    std::vector<std::string> classNames;  ///< the 11 scored classes
    DecisionMetrics uncorrected;      ///< S: per-class IoU, mIoU, pixel accuracy, decision cost
    DecisionMetrics corrected;        ///< q
    DecisionMetrics optimum;          ///< S decided at the correction objective's pointwise optimum
    DecisionChanges changes;          ///< where q's decisions depart from S's, per kind
    GroupedComparison evidence;       ///< q against S with intervals over frames
    std::optional<CamvidKeptRule> keptRule;  ///< as CamvidEvalResult::keptRule
    int64_t frames = 0;
    double seconds = 0;
};

/// Streams the cache's evaluation split from disk one frame at a time, decides with S and
/// q under the cache's costs, accumulates the metrics and hands every frame to `visit`
/// (may be empty) on the calling thread.
CamvidComparison evaluateCamvidWindow(const CamvidWindowCache& cache, const CamvidFrameVisitor& visit,
                                      const JobContext& ctx);

std::string camvidTrainText(const CamvidTrainResult& r);
/// "held-out objective by epoch (0 = S): ...; q kept from epoch K" (train and correct
/// alike), or "" when q was trained without held-out frames.
std::string camvidHeldOutText(const CamvidHeldOutCheck& check);
std::string camvidEvalTable(const CamvidEvalResult& r);
/// The evaluation's results: the run record, the long table (CSV: one row per (method,
/// decision rule) with the per-class IoU), "frames", "methods" (each row's figures and
/// confusion), "changes_s_to_q", the evidence, "kept_rule", "fps" where measured, the table.
ExperimentOutput camvidEvalOutput(const CamvidEvalResult& r);
/// The window's job (and a camvid session's replay) in the results format: S's rows
/// (uncorrected, and decided at the correction's optimum), q's row, the changes between
/// them, the run record of `config` and `cache`, and the frames per second when measured.
CamvidEvalResult camvidWindowResults(const CamvidComparison& comparison, const CamvidWindowConfig& config,
                                     const CamvidWindowCache& cache, const std::optional<CamvidFpsResult>& fps = {});
std::string camvidFpsTable(const CamvidFpsResult& r);
/// The measurement as results ("experiment": "camvid_fps", no run record) and its table.
ExperimentOutput camvidFpsOutput(const CamvidFpsResult& r);

} // namespace lcs
