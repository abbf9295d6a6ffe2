// lcstudio-cli camvid train | eval | fps: the paper's segmentation experiment.
#include <algorithm>
#include <cstdio>
#include <optional>
#include <filesystem>
#include <thread>

#include <ATen/Parallel.h>

#include "cli_commands.h"
#include "core/threads.h"
#include "cli_flags.h"
#include "experiments/experiment.h"
#include "cli_support.h"
#include "core/atomic_file.h"
#include "core/number_format.h"
#include "experiments/camvid_experiment.h"

#include <torch/torch.h>

namespace cli {
namespace {

const char* kCamvidHelp = R"(lcstudio-cli camvid - CamVid segmentation (paper section 5.3, Fig. 5)

Usage:
  lcstudio-cli camvid run --data DIR [options]     (the window's run; see camvid run --help)
  lcstudio-cli camvid train --data DIR --out MODEL_DIR [options]
  lcstudio-cli camvid correct --data DIR --model MODEL_DIR [options]
  lcstudio-cli camvid eval --data DIR --model MODEL_DIR [--split val] [options]
  lcstudio-cli camvid fps --model MODEL_DIR [--ensemble 1,2,5,10,20,30]

--threads T sets intra-op threads everywhere (default: the physical cores). DIR is any
folder in the CamVid layout: SPLIT/ with SPLITannot/ (label images, values 0..11,
11 = void), or SPLIT.txt listing "image label" pairs. Networks predict the 11
real classes; void pixels are left out of losses and metrics.

train: trains and saves (with JSON sidecars and MODEL_DIR/camvid.json)
  mc_dropout     SegNet with dropout 0.3 (MC dropout at test time)
  lc_mc_dropout  the MC-dropout net fine-tuned with the loss-calibrated objective (T = 5)
  cw_sgd         class weights 1.4 on Car, Pedestrian, Bicyclist
  sghmc_s        SGHMC from the CW-SGD net with a student S distilled online
  ours           q, warm-started from S and trained on the frames without labels
  --data DIR  --out MODEL_DIR (created)  --split S (default train)
  --preset P           cpu (default: light SegNet at 180x240) or paper (SegNet, 360x480)
  --methods LIST       from mc_dropout, lc_mc_dropout, cw_sgd, sghmc_s, ours (default all)
  --max-frames N       train on the first N frames (default all)
  --epochs N           SGD epochs of mc_dropout and cw_sgd (default: cpu 40, paper 160)
  --decision-step D    how q's training picks each pixel's decision: coordinate
                       (default, the paper's: Bayes under the current q) or joint (the
                       objective's optimum over q and c: Bayes under S with the costs
                       1 - exp(-L/M))
  --class-balance P    CW-SGD's class weights also times median-frequency balancing
                       (SegNet's: median share / class share of the labelled pixels) to
                       the power P in [0, 1] (default: cpu 0.75, paper 0: none);
                       the chain and S start from that network
  --crop-scale S       augment the SGD networks' training batches and the student's D'
                       batches with random crops of a share in [S, 1] of each side,
                       resized back (default 1: none), and left-right flips
  --jitter J           ... and exposure jitter x -> a x + b, a in [1-J, 1+J], b in
                       [-J, J] on the standardised frames (default 0: none)
  --seed S  --threads T  --device D  --quiet
  q's training (also for correct; default: the preset's):
  --correction-epochs N   passes over the unlabelled frames
  --correction-lr X       peak learning rate of its one-cycle schedule
  --calibration-noise S   N(0, S^2) added to the standardised frames at every step
  --held-out F            hold out a share F in [0, 0.5] of the unlabelled frames
                          and keep q from the epoch whose objective on them is lowest
                          (0: none; labels are never used)

correct: retrains only q on the S saved in MODEL_DIR (after a cost edit, say), on the
frames of --split without labels; replaces MODEL_DIR/ours.pt
  --data DIR  --model MODEL_DIR  --split S (default train)  --costs FILE
  --preset P (the correction's settings, default cpu)  --decision-step D
  --correction-epochs N  --correction-lr X  --calibration-noise S  --held-out F
  --max-frames N  --seed S  --threads T  --device D  --quiet

eval: per-class IoU, mIoU, pixel accuracy and decision cost of every saved method
(q's decisions are the corrected ones), streaming one frame at a time
  --data DIR  --model MODEL_DIR  --split S (default val; any split laid out like CamVid)
  --costs FILE         decide under this 12- (void last) or 11-class matrix
  --passes T           MC-dropout passes at test time (default 30)
  Also printed: each network's expected cost under its own predictive, S decided at
  the correction objective's optimum (a reference row), and where q changed S's decisions
  with what each kind of change gained or lost on the labels.
  --overlays DIR       write frame | truth | S | q | where they differ, one PNG per frame
  --json FILE          the results (as the window's File > Export Results writes them)
  --csv FILE           the same, one row per method and decision rule, per-class IoU
  --max-frames N  --threads T  --device D  --quiet

fps: frames per second of the MC-dropout predictive with each ensemble size, of q, and
of the raw network
  --model MODEL_DIR  --ensemble LIST (default 1,2,5,10,20,30)  --frames N (default 20)
  --json FILE  --threads T  --device D
)";

/// q's training settings given on the command line (train and correct), over the preset's.
struct CorrectionOverrides {
    std::optional<int> epochs;
    std::optional<double> learningRate, noise, heldOut;
    void applyTo(lcs::CorrectionConfig& c) const
    {
        if (epochs)
            c.epochs = *epochs;
        if (learningRate)
            c.learningRate = *learningRate;
        if (noise)
            c.inputNoiseStd = *noise;
        if (heldOut)
            c.heldOutShare = *heldOut;
    }
};

/// A finite number in [lo, hi], or a UsageError naming the flag and saying what it must be.
double parseNumberInRange(const std::string& flag, const std::string& value, double lo, double hi,
                          const char* what)
{
    const auto v = lcs::parseFiniteNumber(value);
    if (!v || *v < lo || *v > hi)
        throw UsageError(flag + ": \"" + value.substr(0, 40) + "\" is not " + what);
    return *v;
}

/// Intra-op threads when --threads is not given: the physical cores, as for the other
/// image commands (BLAS single-threaded: configureThreads).
int defaultThreads()
{
    return lcs::physicalCores();
}

std::vector<int> parseEnsembles(const std::string& value)
{
    std::vector<int> out;
    for (double v : parseNumbers("--ensemble", value)) {
        if (v < 1 || v > 1000 || v != static_cast<int>(v))
            throw UsageError("--ensemble: " + lcs::formatNumber(v) + " is not a whole number of passes in 1..1000");
        if (std::find(out.begin(), out.end(), static_cast<int>(v)) != out.end())
            throw UsageError("--ensemble: " + lcs::formatNumber(v) + " is listed twice");
        out.push_back(static_cast<int>(v));
    }
    return out;
}

} // namespace

namespace {

/// The flags of the model-folder subcommands (train, correct, eval, fps), as given.
struct CamvidFlags {
    std::string data, model, split, preset = "cpu", costsPath, device = "cpu", ensembles, decisionStep;
    std::vector<std::string> methods;
    long long maxFrames = 0, epochs = 0, passes = 30, frames = 20, threads = 0;
    uint64_t seed = 0;
    bool quiet = false;
    std::optional<double> classBalance, cropScale, jitter;
    CorrectionOverrides correction;
};

/// Each subcommand's outputs, declared once: their flags and the output policy's checks.
std::vector<lcs::OutputSpec> camvidOutputs(const std::string& sub)
{
    if (sub == "train")
        return {{"out", "DIR", lcs::PathKind::Folder, "the model folder"}};
    if (sub == "eval") {
        auto declared = lcs::resultsOutputs();
        declared.push_back({"overlays", "DIR", lcs::PathKind::Folder, "overlay PNGs"});
        return declared;
    }
    if (sub == "fps")
        return {lcs::resultsOutputs().front()};
    return {};
}

std::vector<FlagSpec> camvidFlagSpecs(const std::string& sub, const std::vector<lcs::OutputSpec>& declared)
{
    std::vector<FlagSpec> specs = outputFlagSpecs(declared);
    specs.insert(specs.end(), {{"--threads", true}, {"--device", true}});
    if (sub == "train")
        specs.insert(specs.end(), {{"--data", true}, {"--split", true}, {"--preset", true},
                                   {"--methods", true}, {"--max-frames", true}, {"--epochs", true}, {"--seed", true},
                                   {"--decision-step", true}, {"--class-balance", true}, {"--crop-scale", true},
                                   {"--jitter", true}, {"--quiet", false}});
    else if (sub == "correct")
        specs.insert(specs.end(), {{"--data", true}, {"--model", true}, {"--split", true}, {"--costs", true},
                                   {"--preset", true}, {"--max-frames", true}, {"--seed", true},
                                   {"--decision-step", true}, {"--quiet", false}});
    if (sub == "train" || sub == "correct")
        specs.insert(specs.end(), {{"--correction-epochs", true}, {"--correction-lr", true},
                                   {"--calibration-noise", true}, {"--held-out", true}});
    else if (sub == "eval")
        specs.insert(specs.end(), {{"--data", true}, {"--model", true}, {"--split", true}, {"--costs", true},
                                   {"--passes", true}, {"--max-frames", true}, {"--quiet", false}});
    else
        specs.insert(specs.end(), {{"--model", true}, {"--ensemble", true}, {"--frames", true}});
    return specs;
}

std::vector<std::string> camvidMethodList(const std::string& value)
{
    auto methods = splitNames(value);
    const auto& known = lcs::camvidMethods();
    for (size_t i = 0; i < methods.size(); ++i) {
        if (std::find(known.begin(), known.end(), methods[i]) == known.end())
            throw UsageError("--methods: unknown method \"" + methods[i].substr(0, 40) +
                             "\" (choose from mc_dropout, lc_mc_dropout, cw_sgd, sghmc_s, ours)");
        if (std::find(methods.begin(), methods.begin() + static_cast<long>(i), methods[i]) !=
            methods.begin() + static_cast<long>(i))
            throw UsageError("--methods: method \"" + methods[i] + "\" is listed twice");
    }
    return methods;
}

/// The given flags' values, each checked.
CamvidFlags readCamvidFlags(const ParsedFlags& parsed)
{
    CamvidFlags f;
    f.quiet = parsed.switches.count("--quiet") > 0;
    for (const auto& [flag, value] : parsed.values) {
        if (flag == "--data") {
            f.data = value;
        } else if (flag == "--model") {
            f.model = value;
        } else if (flag == "--split") {
            f.split = value;
        } else if (flag == "--preset") {
            if (value != "cpu" && value != "paper")
                throw UsageError("--preset: \"" + value.substr(0, 40) + "\" is not cpu or paper");
            f.preset = value;
        } else if (flag == "--methods") {
            f.methods = camvidMethodList(value);
        } else if (flag == "--max-frames") {
            f.maxFrames = parseIntegerFlag(flag, value, 1, 1000000);
        } else if (flag == "--epochs") {
            f.epochs = parseIntegerFlag(flag, value, 1, 100000);
        } else if (flag == "--passes") {
            f.passes = parseIntegerFlag(flag, value, 1, 1000);
        } else if (flag == "--frames") {
            f.frames = parseIntegerFlag(flag, value, 1, 100000);
        } else if (flag == "--seed") {
            f.seed = static_cast<uint64_t>(parseIntegerFlag(flag, value, 0, std::numeric_limits<long long>::max()));
        } else if (flag == "--threads") {
            f.threads = parseIntegerFlag(flag, value, 1, 256);
        } else if (flag == "--device") {
            f.device = value;
            checkDeviceFlag(value);
        } else if (flag == "--costs") {
            f.costsPath = value;
        } else if (flag == "--ensemble") {
            f.ensembles = value;
        } else if (flag == "--class-balance") {
            f.classBalance = parseNumberInRange(flag, value, 0, 1, "a number in [0, 1]");
        } else if (flag == "--crop-scale") {
            f.cropScale = parseNumberInRange(flag, value, 0.1, 1, "a share in [0.1, 1]");
        } else if (flag == "--jitter") {
            f.jitter = parseNumberInRange(flag, value, 0, 1, "a number in [0, 1]");
        } else if (flag == "--correction-epochs") {
            f.correction.epochs = static_cast<int>(parseIntegerFlag(flag, value, 0, 100000));
        } else if (flag == "--correction-lr") {
            f.correction.learningRate = parseNumberInRange(flag, value, 0, 10, "a learning rate in [0, 10]");
        } else if (flag == "--calibration-noise") {
            f.correction.noise = parseNumberInRange(flag, value, 0, 10, "a standard deviation in [0, 10]");
        } else if (flag == "--held-out") {
            f.correction.heldOut = parseNumberInRange(flag, value, 0, 0.5, "a share in [0, 0.5]");
        } else if (flag == "--decision-step") {
            if (value != "joint" && value != "coordinate")
                throw UsageError("--decision-step: \"" + value.substr(0, 40) + "\" is not joint or coordinate");
            f.decisionStep = value;
        }
    }
    return f;
}

/// The preset with what train and correct share: data, split, frames, seed, device and
/// the correction's flags.
lcs::CamvidTrainConfig camvidConfigFrom(const CamvidFlags& f)
{
    auto config = lcs::CamvidTrainConfig::preset(f.preset);
    config.data = f.data;
    if (!f.split.empty())
        config.split = f.split;
    config.maxFrames = f.maxFrames;
    config.seed = f.seed;
    config.device = f.device;
    if (!f.decisionStep.empty())
        config.correction.jointDecision = f.decisionStep == "joint";
    f.correction.applyTo(config.correction);
    return config;
}

int camvidTrain(const CamvidFlags& f, const std::string& out, ProgressLines& lines)
{
    if (f.data.empty() || out.empty())
        throw UsageError("camvid train: --data DIR and --out MODEL_DIR are required");
    // A model folder is one run's: training some methods into another run's folder
    // would rewrite its camvid.json and orphan the networks it no longer lists.
    if (std::error_code ec; std::filesystem::exists(out + "/camvid.json", ec))
        throw UsageError("--out: " + out + " already holds a CamVid model (camvid.json); train into a new "
                         "folder, or remove that one first");
    auto config = camvidConfigFrom(f);
    if (!f.methods.empty())
        config.methods = f.methods;
    if (f.epochs > 0)
        config.sgd.epochs = static_cast<int>(f.epochs);
    if (f.classBalance)
        config.classBalancePower = *f.classBalance;
    if (f.cropScale || f.jitter) {
        // The SGD networks' batches and the student's D' batches, one augmentation.
        auto& augmentation = config.sgd.augmentation;
        if (f.cropScale)
            augmentation.cropScale = *f.cropScale;
        if (f.jitter)
            augmentation.jitter = *f.jitter;
        augmentation.flips = true;
        config.sghmc.student.augmentation = augmentation;
    }
    lcs::StagedFolder staged(out);  // every network and the manifest, or nothing
    const auto result = lcs::trainCamvid(config, staged.path(), lines.context());
    staged.commit();
    lines.finish();
    // The text names the files where they are now, not where they were staged.
    std::string text = lcs::camvidTrainText(result);
    for (auto at = text.find(staged.path()); at != std::string::npos; at = text.find(staged.path(), at))
        text.replace(at, staged.path().size(), out);
    std::fputs(text.c_str(), stdout);
    return kExitOk;
}

int camvidCorrect(const CamvidFlags& f, ProgressLines& lines)
{
    if (f.data.empty() || f.model.empty())
        throw UsageError("camvid correct: --data DIR and --model MODEL_DIR are required");
    auto config = camvidConfigFrom(f);
    if (!f.costsPath.empty())
        config.costs = lcs::camvidDecisionCosts(lcs::loadCostMatrix(f.costsPath));
    const auto result = lcs::correctCamvidModels(config, f.model, lines.context());
    lines.finish();
    std::printf("q retrained on %lld unlabelled frames in %.1f s%s: %s\n", static_cast<long long>(result.frames),
                result.seconds, result.collapsed ? " (its decisions collapsed to one class)" : "",
                result.path.c_str());
    std::fputs(lcs::camvidHeldOutText(result.heldOut).c_str(), stdout);
    return kExitOk;
}

int camvidEval(const CamvidFlags& f, const CommandOutputs& outputs, ProgressLines& lines)
{
    if (f.data.empty() || f.model.empty())
        throw UsageError("camvid eval: --data DIR and --model MODEL_DIR are required");
    lcs::CamvidEvalConfig config;
    config.data = f.data;
    config.split = f.split.empty() ? "val" : f.split;
    config.modelDir = f.model;
    if (!f.costsPath.empty())
        config.costs = lcs::loadCostMatrix(f.costsPath);
    config.mcPasses = static_cast<int>(f.passes);
    std::optional<lcs::StagedFolder> staged;  // every overlay, or none
    if (const auto overlays = outputs.path("overlays"); !overlays.empty()) {
        staged.emplace(overlays);
        config.overlayDir = staged->path();
    }
    config.maxFrames = f.maxFrames;
    config.device = f.device;
    const auto result = lcs::evaluateCamvid(config, lines.context());
    if (staged)
        staged->commit();
    lines.finish();
    std::fputs(lcs::camvidEvalTable(result).c_str(), stdout);
    outputs.writeResults(lcs::camvidEvalJson(result), lcs::camvidEvalCsv(result));
    return kExitOk;
}

int camvidFps(const CamvidFlags& f, const CommandOutputs& outputs)
{
    if (f.model.empty())
        throw UsageError("camvid fps: --model MODEL_DIR is required");
    const auto result = lcs::camvidFramesPerSecond(
        f.model, f.ensembles.empty() ? lcs::camvidFpsEnsembles() : parseEnsembles(f.ensembles),
        static_cast<int>(f.frames), f.device);
    std::fputs(lcs::camvidFpsTable(result).c_str(), stdout);
    outputs.writeResults(lcs::camvidFpsJson(result), {});
    return kExitOk;
}

} // namespace

int runCamvidCommand(int argc, char** argv)
{
    if (argc < 3 || std::string(argv[2]) == "--help" || std::string(argv[2]) == "-h") {
        std::fputs(kCamvidHelp, argc < 3 ? stderr : stdout);
        return argc < 3 ? kExitUsage : kExitOk;
    }
    const std::string sub = argv[2];
    if (sub == "run")  // the window's job headless, from the registry's declaration
        return runExperimentCommand(lcs::ExperimentRegistry::global().get(lcs::kCamvidExperiment), argc, argv, 3);
    if (sub != "train" && sub != "correct" && sub != "eval" && sub != "fps")
        throw UsageError("camvid: unknown subcommand \"" + sub.substr(0, 40) + "\" (run, train, correct, eval or fps)");
    const auto declared = camvidOutputs(sub);
    const auto parsed = parseFlags(argc, argv, 3, "camvid " + sub, {}, camvidFlagSpecs(sub, declared), kCamvidHelp);
    if (parsed.help) {
        std::fputs(kCamvidHelp, stdout);
        return kExitOk;
    }
    const CamvidFlags f = readCamvidFlags(parsed);
    const CommandOutputs outputs(declared, parsed.values,
                                 {{"--data", f.data, lcs::PathKind::Folder},
                                  {"--model", f.model, lcs::PathKind::Folder},
                                  {"--costs", f.costsPath, lcs::PathKind::File}});
    lcs::configureThreads(static_cast<int>(f.threads > 0 ? f.threads : defaultThreads()));
    lcs::keepFrameBuffers();
    ProgressLines lines(f.quiet);
    if (sub == "train")
        return camvidTrain(f, outputs.path("out"), lines);
    if (sub == "correct")
        return camvidCorrect(f, lines);
    if (sub == "eval")
        return camvidEval(f, outputs, lines);
    return camvidFps(f, outputs);
}

} // namespace cli
