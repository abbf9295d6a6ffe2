#include "engine/experiments/image/image_run_settings.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "base/core/number_format.h"
#include "engine/experiments/image/corruption_experiment.h"
#include "engine/experiments/image/selective_experiment.h"
#include "engine/experiments/run_record.h"

namespace lcs {

namespace {

using C = ImageRunChoices;
using J = nlohmann::json;

std::vector<std::string> ids(const std::vector<ImageMethod>& methods)
{
    std::vector<std::string> out;
    for (auto m : methods)
        out.push_back(imageMethodName(m));
    return out;
}

SettingSpec presetDefault(SettingSpec s, std::string text)
{
    s.defaultText = std::move(text);
    return s;
}

SettingSpec dataSetting()
{
    auto s = textSetting(kDataSetting, "D", "an MNIST-like IDX folder or CIFAR-10 binary folder, or a name: "
                         "fashion-mnist (Debian's dataset-fashion-mnist), mnist, cifar10 "
                         "($LCS_MNIST_DIR / $LCS_CIFAR10_DIR)", nullptr);
    s.required = true;
    s.suggestions = {"fashion-mnist", "mnist", "cifar10"};
    s.browse = SettingBrowse::Folder;
    return s;
}

/// The settings both image experiments take, after the swept values: `experiment` names
/// the catalogue's method list, `defaults` the preset's methods, `chain` the sampler. A
/// value the choices leave at 0 ("the preset's") is written as null, which reads back
/// the same: a results file's record is a session.
void addShared(std::vector<BoundSetting<C>>& s, const std::string& experiment, const std::vector<ImageMethod>& defaults,
               const std::string& chain)
{
    s.push_back({methodsSetting("methods", "methods", ids(defaults), methodIdsFor(experiment)),
                 [](const C& c) { return J(ids(c.methods)); },
                 [experiment](C& c, const J& v) {
                     c.methods = parseImageMethodList(v.get<std::vector<std::string>>(), "--methods",
                                                      imageMethodsFor(experiment));
                 }});
    s.push_back({integerSetting("trials", "N", "trials per swept value", 1, 1, 1000),
                 [](const C& c) { return J(c.trials); }, [](C& c, const J& v) { c.trials = v.get<int>(); }});
    s.push_back({choiceSetting("preset", "P", "network sizes and epochs, minutes here or the appendix's", "cpu",
                               {"cpu", "paper"}),
                 [](const C& c) { return J(c.preset); }, [](C& c, const J& v) { c.preset = v.get<std::string>(); }});
    s.push_back({presetDefault(integerSetting("epochs", "N", chain + " epochs", nullptr, 1, 100000), "the preset's"),
                 [](const C& c) { return c.epochs > 0 ? J(c.epochs) : J(); }, [](C& c, const J& v) { c.epochs = v.get<int>(); }});
    s.push_back({withFormLabel(presetDefault(integerSetting("map_epochs", "N",
                                                       "epochs of the MAP network the chains start from", nullptr, 1,
                                                       100000),
                                        "the preset's"),
                          "MAP epochs"),
                 [](const C& c) { return c.mapEpochs > 0 ? J(c.mapEpochs) : J(); }, [](C& c, const J& v) { c.mapEpochs = v.get<int>(); }});
    s.push_back({presetDefault(integerSetting("width", "W", "ResNet-18 width multiplier, colour data only (64 = the "
                                              "paper's)", nullptr, 1, 512),
                               "the preset's"),
                 [](const C& c) { return c.width > 0 ? J(c.width) : J(); }, [](C& c, const J& v) { c.width = v.get<int>(); }});
    s.push_back({integerSetting("seed", "S", "base seed", 0, 0, std::numeric_limits<long long>::max()),
                 [](const C& c) { return J(c.seed); }, [](C& c, const J& v) { c.seed = v.get<uint64_t>(); }});
    s.push_back({deviceSetting(),
                 [](const C& c) { return J(c.device); }, [](C& c, const J& v) { c.device = v.get<std::string>(); }});
    s.push_back({presetDefault(integerSetting("threads", "T", "intra-op threads (BLAS stays single-threaded, so no "
                                              "idle thread spins)", nullptr, 1, 256),
                               "all cores; the window leaves one"),
                 [](const C& c) { return c.threads > 0 ? J(c.threads) : J(); }, [](C& c, const J& v) { c.threads = v.get<int>(); }});
    s.push_back({dataSetting(),
                 [](const C& c) { return c.data.empty() ? J() : J(c.data); },
                 [](C& c, const J& v) { c.data = v.get<std::string>(); }});
    // The window starts on subsets that train in minutes.
    s.push_back({withWindowValue(withFormLabel(presetDefault(integerSetting("max_train", "N",
                                                                            "a seeded random subset of N training images",
                                                                            nullptr, 1, 100000000),
                                                             "all"),
                                               "Training images"),
                                 10000),
                 [](const C& c) { return c.maxTrain > 0 ? J(c.maxTrain) : J(); },
                 [](C& c, const J& v) { c.maxTrain = v.get<int64_t>(); }});
    s.push_back({withWindowValue(withFormLabel(presetDefault(integerSetting("max_test", "N", "the same for the test set",
                                                                            nullptr, 1, 100000000),
                                                             "all"),
                                               "Test images"),
                                 2000),
                 [](const C& c) { return c.maxTest > 0 ? J(c.maxTest) : J(); },
                 [](C& c, const J& v) { c.maxTest = v.get<int64_t>(); }});
    s.push_back({withFormLabel(presetDefault(numberSetting(kPreviewSetting, "F",
                                                           "a preview: the same run on this fraction of the chosen "
                                                           "training and test images, ending with how long the whole "
                                                           "run would take here",
                                                           nullptr, 0, 1, /*minExclusive=*/true),
                                             "the whole run"),
                               "Preview fraction"),
                 [](const C& c) { return c.preview < 1 ? J(c.preview) : J(); },
                 [](C& c, const J& v) { c.preview = v.get<double>(); }});
}

/// The data first: what a run reads comes before how it runs (in --help and the form).
void dataFirst(std::vector<BoundSetting<C>>& settings)
{
    std::stable_partition(settings.begin(), settings.end(),
                          [](const BoundSetting<C>& s) { return s.spec.name == kDataSetting; });
}

/// Stand-ins for the two kinds of data the image presets tell apart (only the shape
/// and the classes matter to them).
ImageDataset standIn(bool colour)
{
    ImageDataset d;
    d.inputShape = colour ? std::vector<int64_t>{3, 32, 32} : std::vector<int64_t>{1, 28, 28};
    for (int k = 0; k < 10; ++k)
        d.classNames.push_back("class " + std::to_string(k));
    return d;
}

/// Each preset's value of the setting `name` for grayscale and colour data, read off the
/// presets themselves (`field`; 0 means "does not apply": left out).
template <class Config>
void declarePresetValues(std::vector<BoundSetting<C>>& settings, const char* name, int (*field)(const Config&))
{
    for (auto& s : settings) {
        if (s.spec.name != name)
            continue;
        for (const char* preset : {"cpu", "paper"}) {
            auto values = nlohmann::json::object();
            for (const bool colour : {false, true})
                if (const int v = field(Config::preset(preset, standIn(colour))); v > 0)
                    values[colour ? "colour" : "grayscale"] = v;
            s.spec.presetValues[preset] = values;
        }
    }
}

} // namespace

const std::vector<BoundSetting<ImageRunChoices>>& corruptionSettings()
{
    static const std::vector<BoundSetting<C>> settings = [] {
        const CorruptionConfig d;
        std::vector<BoundSetting<C>> s;
        s.push_back({withFormLabel(numbersSetting("rates", "corruption rates", d.rates, 0, 1), "Corruption rates"),
                     [](const C& c) { return J(c.values); },
                     [](C& c, const J& v) { c.values = v.get<std::vector<double>>(); }});
        addShared(s, kCorruptionExperiment, d.methods, "SGLD + S");
        using K = CorruptionConfig;
        declarePresetValues<K>(s, "epochs", [](const K& c) { return c.sgld.epochs; });
        declarePresetValues<K>(s, "map_epochs", [](const K& c) { return c.map.epochs; });
        declarePresetValues<K>(s, "width", [](const K& c) { return c.model.architecture == "mlp" ? 0 : static_cast<int>(c.model.width); });
        dataFirst(s);
        return s;
    }();
    return settings;
}

const std::vector<BoundSetting<ImageRunChoices>>& selectiveSettings()
{
    static const std::vector<BoundSetting<C>> settings = [] {
        const SelectiveConfig d;
        std::vector<BoundSetting<C>> s;
        s.push_back({withFormLabel(numbersSetting("referral_costs", "referral costs r", d.referralCosts, 0, 1000),
                              "Referral costs r"),
                     [](const C& c) { return J(c.values); },
                     [](C& c, const J& v) { c.values = v.get<std::vector<double>>(); }});
        addShared(s, kSelectiveExperiment, d.methods, "SGHMC + S");
        s.push_back({withFormLabel(presetDefault(integerSetting("copies", "N", "rotated copies of each training image in D'",
                                                           nullptr, 1, 100),
                                            "the preset's"),
                              "Copies in D'"),
                     [](const C& c) { return c.copies > 0 ? J(c.copies) : J(); }, [](C& c, const J& v) { c.copies = v.get<int>(); }});
        using K = SelectiveConfig;
        declarePresetValues<K>(s, "epochs", [](const K& c) { return c.sghmc.epochs; });
        declarePresetValues<K>(s, "map_epochs", [](const K& c) { return c.map.epochs; });
        declarePresetValues<K>(s, "width", [](const K& c) { return c.model.architecture == "mlp" ? 0 : static_cast<int>(c.model.width); });
        declarePresetValues<K>(s, "copies", [](const K& c) { return c.calibrationCopies; });
        dataFirst(s);
        return s;
    }();
    return settings;
}

ImageDataset loadChosenData(const ImageRunChoices& choices)
{
    ImageDataLimits limits;
    limits.maxTrain = choices.maxTrain;
    limits.maxTest = choices.maxTest;
    limits.subsetSeed = choices.seed;
    limits.fraction = choices.preview;
    return loadImageDataset(choices.data, limits);
}

double fullRunSecondsEstimate(double previewSeconds, double fraction)
{
    return previewSeconds / fraction;
}

std::string notePreview(const ImageRunChoices& choices, double seconds, int64_t trainImages, int64_t testImages,
                        RunRecord& record)
{
    if (choices.preview >= 1)
        return {};
    record.resolved["whole_run_seconds_estimate"] = std::round(fullRunSecondsEstimate(seconds, choices.preview));
    return previewSummary(seconds, choices.preview, trainImages, testImages);
}

std::string previewSummary(double previewSeconds, double fraction, int64_t trainImages, int64_t testImages)
{
    const double full = fullRunSecondsEstimate(previewSeconds, fraction);
    const auto minutes = static_cast<long long>(std::floor(full / 60));
    const auto seconds = static_cast<long long>(std::lround(full - 60.0 * static_cast<double>(minutes)));
    const std::string duration = minutes > 0 ? std::to_string(minutes) + " min " + std::to_string(seconds) + " s"
                                             : std::to_string(seconds) + " s";
    return "Preview on " + formatNumber(100 * fraction) + "% of the images (" + std::to_string(trainImages) +
           " training, " + std::to_string(testImages) + " test) took " + formatNumber(std::round(previewSeconds)) +
           " s; the whole run would take about " + duration + " here.\n";
}

} // namespace lcs
