#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/inference/method_catalog.h"
#include "engine/models/classifier.h"

/// What a user chooses for an image experiment (label corruption, selective
/// classification), whether from the CLI's flags or the window's form. One function per
/// experiment applies the choices to its preset, so both front ends run the same config.
namespace lcs {

struct ImageRunChoices {
    std::string data;                     ///< a data folder or a known name (see loadImageDataset); required
    int64_t maxTrain = 0;                 ///< a seeded random subset of this many training images; 0: all
    int64_t maxTest = 0;                  ///< the same for the test set
    std::string preset = "cpu";           ///< "cpu" or "paper"
    std::vector<double> values;           ///< corruption rates or referral costs; empty: the preset's
    std::vector<ImageMethod> methods;     ///< empty: the preset's
    int trials = 1;
    uint64_t seed = 0;
    std::string device = "cpu";
    int epochs = 0;                       ///< SGLD / SGHMC epochs; 0: the preset's
    int mapEpochs = 0;                    ///< epochs of the MAP start; 0: the preset's
    int width = 0;                        ///< ResNet-18 width multiplier; 0: the preset's
    int copies = 0;                       ///< selective: rotated copies of D'; 0: the preset's
    int threads = 0;                      ///< intra-op threads; 0: the physical cores (Experiment::intraOpThreads)
    /// A preview: the same run on this fraction of the chosen training and test images,
    /// which ends by saying how long the whole run would take. 1: the whole run.
    double preview = 1;
};

/// How long the whole run would take when a preview on `fraction` of the images took
/// `previewSeconds` (training and evaluation, not loading): every phase of an image
/// experiment passes over its training or test images a number of times that does not
/// depend on their count, so the time grows linearly with it.
double fullRunSecondsEstimate(double previewSeconds, double fraction);

/// The preview's closing line: what it ran on, how long it took and the estimate.
std::string previewSummary(double previewSeconds, double fraction, int64_t trainImages, int64_t testImages);

struct RunRecord;
/// After a run of `choices` on `trainImages` / `testImages` that took `seconds`: for a
/// preview, records "whole_run_seconds_estimate" in the run record's resolved values and
/// returns previewSummary's line; for a whole run, leaves the record and returns "".
std::string notePreview(const ImageRunChoices& choices, double seconds, int64_t trainImages, int64_t testImages,
                        RunRecord& record);

/// Sets a ResNet-18's width; throws InputError for a model without one (the MLP).
void applyModelWidth(int width, ModelSpec& model);

/// The choices both image experiments share, applied to `config` (a CorruptionConfig or a
/// SelectiveConfig) whose swept values are `values` and whose chain trains `chainEpochs`.
template <class Config>
void applySharedChoices(const ImageRunChoices& choices, Config& config, std::vector<double>& values, int& chainEpochs)
{
    if (!choices.values.empty())
        values = choices.values;
    if (!choices.methods.empty())
        config.methods = choices.methods;
    config.trials = choices.trials;
    config.seed = choices.seed;
    config.device = choices.device;
    if (choices.epochs > 0)
        chainEpochs = choices.epochs;
    if (choices.mapEpochs > 0)
        config.map.epochs = choices.mapEpochs;
    applyModelWidth(choices.width, config.model);
}

} // namespace lcs
