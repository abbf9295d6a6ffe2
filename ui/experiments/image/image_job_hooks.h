#pragma once

#include <functional>

#include "experiments/corruption_experiment.h"
#include "experiments/selective_experiment.h"
#include "experiments/image_run_choices.h"
#include "image_data.h"
#include "image_types.h"

namespace lcs::ui {

/// Optional replacements for what the image worker does by default, called on the job's
/// thread (so tensors never cross threads): tests load a generated data set and shrink
/// the presets to seconds.
struct ImageJobHooks {
    /// Default: loadChosenData(choices) (the data, its subsets, seeded).
    std::function<ImageDataset(const ImageRunChoices&)> loadData;
    /// Applied after the panel's settings, before the run.
    std::function<void(CorruptionConfig&)> tuneCorruption;
    std::function<void(SelectiveConfig&)> tuneSelective;
};

} // namespace lcs::ui
