// CamVid's settings, declared once for every action (the in-memory run and train,
// correct, eval and fps on a model folder), and the presets they start from.
#include "engine/experiments/camvid/camvid_experiment.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "base/core/input_error.h"
#include "base/core/number_format.h"

namespace lcs {

namespace {

using C = CamvidChoices;
using J = nlohmann::json;

/// The names of the settings each action reads (help and form list them in the order of
/// the declaration, camvidSettings).
const std::map<std::string, std::vector<std::string>>& actionSettingNames()
{
    static const std::map<std::string, std::vector<std::string>> names{
        {"run", {"data", "preset", "max_train", "max_eval", "mc_dropout", "measure_fps", "seed", "device"}},
        {"train",
         {"data", "preset", "train_split", "max_train", "methods", "epochs", "class_balance", "crop_scale", "jitter",
          "decision_step", "correction_epochs", "correction_lr", "calibration_noise", "held_out", "seed", "device",
          "threads"}},
        {"correct",
         {"data", "model", "preset", "train_split", "max_train", "decision_step", "correction_epochs", "correction_lr",
          "calibration_noise", "held_out", "seed", "device", "threads"}},
        {"eval", {"data", "model", "preset", "eval_split", "max_eval", "passes", "seed", "device", "threads"}},
        {"fps", {"model", "ensemble", "fps_frames", "device", "threads"}},
    };
    return names;
}

SettingSpec presetDefault(SettingSpec s)
{
    s.defaultText = "the preset's";
    return s;
}

J optionalNumber(const std::optional<double>& v) { return v ? J(*v) : J(); }

/// Each preset's value of a setting whose default is the preset's, read off the presets.
void fillPresetValues(std::vector<BoundSetting<C>>& s)
{
    auto at = [&](const char* name) -> SettingSpec& {
        for (auto& b : s)
            if (b.spec.name == name)
                return b.spec;
        throw std::logic_error(std::string("camvid settings: no ") + name);
    };
    auto count = [](int64_t n) { return n > 0 ? J(n) : J(); };
    for (const char* preset : {"demo", "cpu", "paper"}) {
        const auto p = CamvidWindowConfig::preset(preset);
        const auto& t = p.train;
        at("max_train").presetValues[preset] = count(t.maxFrames);
        at("max_eval").presetValues[preset] = count(p.maxEvalFrames);
        at("methods").presetValues[preset] = J(t.methods);
        at("epochs").presetValues[preset] = t.sgd.epochs;
        at("class_balance").presetValues[preset] = t.classBalancePower;
        at("correction_epochs").presetValues[preset] = t.correction.epochs;
        at("correction_lr").presetValues[preset] = t.correction.learningRate;
        at("calibration_noise").presetValues[preset] = t.correction.inputNoiseStd;
        at("held_out").presetValues[preset] = t.correction.heldOutShare;
    }
}

/// The data, the model folder and where to read them: every action's inputs.
void addInputs(std::vector<BoundSetting<C>>& s)
{
    auto data = textSetting(kDataSetting, "D", "a folder laid out like CamVid (train/, trainannot/, val/, valannot/)",
                            nullptr);
    data.required = true;
    data.browse = SettingBrowse::Folder;
    s.push_back({data, [](const C& c) { return c.data.empty() ? J() : J(c.data); },
                 [](C& c, const J& v) { c.data = v.get<std::string>(); }});
    auto model = textSetting("model", "DIR", "a CamVid model folder, as camvid train writes it", nullptr);
    model.browse = SettingBrowse::Folder;
    s.push_back({model, [](const C& c) { return c.model.empty() ? J() : J(c.model); },
                 [](C& c, const J& v) { c.model = v.get<std::string>(); }});
    s.push_back({choiceSetting("preset", "P",
                               "frame size, network and schedules: demo 90 x 120 (about a minute), cpu 180 x 240 (the "
                               "measured CPU preset), paper SegNet at 360 x 480",
                               "cpu", {"demo", "cpu", "paper"}),
                 [](const C& c) { return J(c.preset); }, [](C& c, const J& v) { c.preset = v.get<std::string>(); }});
    s.back().spec.windowValue = "demo";  // the window starts on the run that takes a minute
    s.push_back({textSetting("train_split", "S", "the split networks (and q, without its labels) train on", "train"),
                 [](const C& c) { return J(c.trainSplit); }, [](C& c, const J& v) { c.trainSplit = v.get<std::string>(); }});
    s.push_back({textSetting("eval_split", "S", "the split decisions are scored on (any split laid out like CamVid)",
                             "val"),
                 [](const C& c) { return J(c.evalSplit); }, [](C& c, const J& v) { c.evalSplit = v.get<std::string>(); }});
    s.push_back({withFormLabel(presetDefault(integerSetting("max_train", "N", "training frames (also the unlabelled "
                                                                              "frames q trains on)",
                                                            nullptr, 1, 1000000)),
                               "Training frames"),
                 [](const C& c) { return c.maxFrames > 0 ? J(c.maxFrames) : J(); },
                 [](C& c, const J& v) { c.maxFrames = v.get<int64_t>(); }});
    s.push_back({withFormLabel(presetDefault(integerSetting("max_eval", "N", "validation frames evaluated and shown",
                                                            nullptr, 1, 1000000)),
                               "Validation frames"),
                 [](const C& c) { return c.maxEvalFrames > 0 ? J(c.maxEvalFrames) : J(); },
                 [](C& c, const J& v) { c.maxEvalFrames = v.get<int64_t>(); }});
}

/// The networks train trains and how: methods, epochs, class weights, augmentation.
void addTraining(std::vector<BoundSetting<C>>& s)
{
    s.push_back({presetDefault(methodsSetting("methods",
                                              "networks to train: mc_dropout (SegNet, dropout 0.3), lc_mc_dropout (it "
                                              "fine-tuned with the loss-calibrated objective, T = 5), cw_sgd (class "
                                              "weights 1.4 on Car, Pedestrian, Bicyclist), sghmc_s (SGHMC from cw_sgd, "
                                              "student S distilled online), ours (q on S, on the frames without labels)",
                                              nullptr, camvidMethods())),
                 [](const C& c) { return c.methods.empty() ? J() : J(c.methods); },
                 [](C& c, const J& v) { c.methods = v.get<std::vector<std::string>>(); }});
    s.push_back({presetDefault(integerSetting("epochs", "N", "SGD epochs of mc_dropout and cw_sgd", nullptr, 1, 100000)),
                 [](const C& c) { return c.epochs > 0 ? J(c.epochs) : J(); },
                 [](C& c, const J& v) { c.epochs = v.get<int>(); }});
    s.push_back({presetDefault(numberSetting("class_balance", "P",
                                             "CW-SGD's class weights also times median-frequency balancing (median "
                                             "share / class share of the labelled pixels) to the power P; the chain "
                                             "and S start from that network",
                                             nullptr, 0, 1, false)),
                 [](const C& c) { return optionalNumber(c.classBalance); },
                 [](C& c, const J& v) { c.classBalance = v.get<double>(); }});
    auto crop = numberSetting("crop_scale", "S",
                              "augment the SGD networks' and the student's batches with random crops of a share in "
                              "[S, 1] of each side, resized back, and left-right flips (1: none)",
                              1.0, 0.1, 1, false);
    s.push_back({crop, [](const C& c) { return J(c.cropScale.value_or(1.0)); },
                 [](C& c, const J& v) { c.cropScale = v.get<double>(); }});
    s.push_back({numberSetting("jitter", "J",
                               "... and exposure jitter x -> a x + b, a in [1-J, 1+J], b in [-J, J] on the "
                               "standardised frames (0: none)",
                               0.0, 0, 1, false),
                 [](const C& c) { return J(c.jitter.value_or(0.0)); }, [](C& c, const J& v) { c.jitter = v.get<double>(); }});
}

/// q's training (train, correct).
void addCorrection(std::vector<BoundSetting<C>>& s)
{
    s.push_back({choiceSetting("decision_step", "D",
                               "how q's training picks each pixel's decision: coordinate (the paper's: Bayes under the "
                               "current q) or joint (the objective's optimum over q and c: Bayes under S with the "
                               "costs 1 - exp(-L/M))",
                               "coordinate", {"coordinate", "joint"}),
                 [](const C& c) { return J(c.decisionStep); }, [](C& c, const J& v) { c.decisionStep = v.get<std::string>(); }});
    s.push_back({presetDefault(integerSetting("correction_epochs", "N", "q's passes over the unlabelled frames", nullptr,
                                              0, 100000)),
                 [](const C& c) { return c.correctionEpochs ? J(*c.correctionEpochs) : J(); },
                 [](C& c, const J& v) { c.correctionEpochs = v.get<int>(); }});
    s.push_back({withLogScale(presetDefault(numberSetting("correction_lr", "X",
                                                          "peak learning rate of q's one-cycle schedule", nullptr, 0,
                                                          10, false))),
                 [](const C& c) { return optionalNumber(c.correctionLr); },
                 [](C& c, const J& v) { c.correctionLr = v.get<double>(); }});
    s.push_back({presetDefault(numberSetting("calibration_noise", "S",
                                             "N(0, S^2) added to the standardised frames at every step of q",
                                             nullptr, 0, 10, false)),
                 [](const C& c) { return optionalNumber(c.calibrationNoise); },
                 [](C& c, const J& v) { c.calibrationNoise = v.get<double>(); }});
    s.push_back({presetDefault(numberSetting("held_out", "F",
                                             "hold out a share F of the unlabelled frames and keep q from the epoch "
                                             "whose objective on them is lowest (0: none; labels are never used)",
                                             nullptr, 0, 0.5, false)),
                 [](const C& c) { return optionalNumber(c.heldOut); }, [](C& c, const J& v) { c.heldOut = v.get<double>(); }});
}

/// The run's switches, the evaluation's passes and the frames-per-second measurement.
void addMeasurement(std::vector<BoundSetting<C>>& s)
{
    s.push_back({withFormLabel(switchSetting("mc_dropout", "also train an MC-dropout network (frames per second of "
                                                          "real MC dropout against q)"),
                               "MC dropout too"),
                 [](const C& c) { return J(c.mcDropout); }, [](C& c, const J& v) { c.mcDropout = v.get<bool>(); }});
    // The window shows frames per second after every run; the command line asks.
    s.push_back({withWindowValue(withFormLabel(switchSetting("measure_fps", "after the evaluation, measure frames per "
                                                                            "second of 1-30 dropout passes against one "
                                                                            "pass of q"),
                                               "Frames per second"),
                                 true),
                 [](const C& c) { return J(c.measureFps); }, [](C& c, const J& v) { c.measureFps = v.get<bool>(); }});
    s.push_back({integerSetting("passes", "T", "MC-dropout passes at test time", 30, 1, 1000),
                 [](const C& c) { return J(c.passes); }, [](C& c, const J& v) { c.passes = v.get<int>(); }});
    auto ensemble = numbersSetting("ensemble", "dropout passes per frame to time, whole numbers (default 1,2,5,10,20,30)",
                                   nullptr, 1, 1000);
    s.push_back({ensemble, [](const C& c) { return c.ensembles.empty() ? J() : J(c.ensembles); },
                 [](C& c, const J& v) {
                     c.ensembles.clear();
                     for (const auto& x : v) {
                         const double k = x.get<double>();
                         if (k != std::floor(k))
                             throw InputError("--ensemble: " + formatNumber(k) +
                                              " is not a whole number of passes in 1..1000");
                         c.ensembles.push_back(static_cast<int>(k));
                     }
                 }});
    s.push_back({integerSetting("fps_frames", "N", "timed frames per ensemble size", 20, 1, 100000),
                 [](const C& c) { return J(c.fpsFrames); }, [](C& c, const J& v) { c.fpsFrames = v.get<int>(); }});
}

} // namespace

CamvidWindowConfig CamvidWindowConfig::preset(const std::string& name)
{
    if (name != "demo" && name != "cpu" && name != "paper")
        throw InputError("CamVid preset \"" + name + "\" is not demo, cpu or paper");
    CamvidWindowConfig c;
    if (name != "demo") {
        c.train = CamvidTrainConfig::preset(name);
        c.maxEvalFrames = 0;
        c.epochEvalFrames = 12;
        return c;
    }
    c.train = CamvidTrainConfig::preset("cpu");
    c.train.methods = {"cw_sgd", "sghmc_s", "ours"};
    c.train.height = 90;
    c.train.width = 120;
    c.train.model.inputShape = {3, c.train.height, c.train.width};
    c.train.maxFrames = 60;
    c.train.sgd.epochs = 30;
    // The demo keeps the light layout and CW-SGD's plain weights, and trains q on every
    // frame: segnet_light2, the balanced weights and the held-out frames were measured on
    // the whole train split only, and the light layout keeps the demo at about a minute.
    c.train.model.architecture = "segnet_light";
    c.train.classBalancePower = 0;
    c.train.correction.heldOutShare = 0;
    c.train.correction.learningRate = 0.01;
    // The chain: frames / batch steps per epoch; burn-in for the first epoch, then a
    // sample every other step.
    const long long stepsPerEpoch = (c.train.maxFrames + c.train.sghmc.batchSize - 1) / c.train.sghmc.batchSize;
    c.train.sghmc.epochs = 8;
    c.train.sghmc.burnInSteps = stepsPerEpoch;
    c.train.sghmc.thinning = 2;  // the chain stays cold (temperature 0.01), as in the cpu preset
    c.train.correction.epochs = 3;
    c.maxEvalFrames = 24;
    c.epochEvalFrames = 6;
    return c;
}

CamvidWindowConfig camvidConfigFor(const CamvidChoices& choices)
{
    auto config = CamvidWindowConfig::preset(choices.preset);
    auto& t = config.train;
    t.data = choices.data;
    t.split = choices.trainSplit;
    config.evalSplit = choices.evalSplit;
    if (choices.maxFrames > 0)
        t.maxFrames = choices.maxFrames;
    if (choices.maxEvalFrames > 0)
        config.maxEvalFrames = choices.maxEvalFrames;
    if (!choices.methods.empty())
        t.methods = choices.methods;
    if (choices.epochs > 0)
        t.sgd.epochs = choices.epochs;
    if (choices.classBalance)
        t.classBalancePower = *choices.classBalance;
    if (choices.cropScale.value_or(1.0) < 1.0 || choices.jitter.value_or(0.0) > 0) {
        // The SGD networks' batches and the student's D' batches, one augmentation.
        t.sgd.augmentation.cropScale = choices.cropScale.value_or(1.0);
        t.sgd.augmentation.jitter = choices.jitter.value_or(0.0);
        t.sgd.augmentation.flips = true;
        t.sghmc.student.augmentation = t.sgd.augmentation;
    }
    t.correction.jointDecision = choices.decisionStep == "joint";
    if (choices.correctionEpochs)
        t.correction.epochs = *choices.correctionEpochs;
    if (choices.correctionLr)
        t.correction.learningRate = *choices.correctionLr;
    if (choices.calibrationNoise)
        t.correction.inputNoiseStd = *choices.calibrationNoise;
    if (choices.heldOut)
        t.correction.heldOutShare = *choices.heldOut;
    config.trainMcDropout = choices.mcDropout;
    config.measureFps = choices.measureFps;
    t.seed = choices.seed;
    t.device = choices.device;
    return config;
}

const std::vector<BoundSetting<CamvidChoices>>& camvidSettings()
{
    static const std::vector<BoundSetting<C>> settings = [] {
        std::vector<BoundSetting<C>> s;
        addInputs(s);
        addTraining(s);
        addCorrection(s);
        addMeasurement(s);
        s.push_back({integerSetting("seed", "S", "base seed (initialisation, shuffles and dropout's masks)", 0, 0, std::numeric_limits<long long>::max()),
                     [](const C& c) { return J(c.seed); }, [](C& c, const J& v) { c.seed = v.get<uint64_t>(); }});
        s.push_back({deviceSetting("cpu"), [](const C& c) { return J(c.device); },
                     [](C& c, const J& v) { c.device = v.get<std::string>(); }});
        auto threads = presetDefault(integerSetting("threads", "T", "intra-op threads", nullptr, 1, 256));
        threads.defaultText = "every physical core";
        s.push_back({threads, [](const C& c) { return c.threads > 0 ? J(c.threads) : J(); },
                     [](C& c, const J& v) { c.threads = v.get<int>(); }});
        fillPresetValues(s);
        return s;
    }();
    return settings;
}

std::vector<SettingSpec> camvidActionSettings(const std::string& action)
{
    const auto found = actionSettingNames().find(action);
    if (found == actionSettingNames().end())
        throw InputError("camvid: no action \"" + action.substr(0, 40) + "\" (run, train, correct, eval or fps)");
    std::vector<SettingSpec> out;
    for (const auto& bound : camvidSettings()) {
        const auto& names = found->second;
        if (std::find(names.begin(), names.end(), bound.spec.name) == names.end())
            continue;
        out.push_back(bound.spec);
        if (out.back().name == "model")
            out.back().required = true;  // read wherever it is listed
    }
    return out;
}

} // namespace lcs
