#pragma once

#include <vector>

#include "base/core/settings.h"
#include "datasets/image_data.h"
#include "engine/experiments/image/image_run_choices.h"

/// The image experiments' settings, declared once: `lcstudio-cli corruption` and
/// `selective` derive their flags, their parsing and their help from these lists.
namespace lcs {

const std::vector<BoundSetting<ImageRunChoices>>& corruptionSettings();
const std::vector<BoundSetting<ImageRunChoices>>& selectiveSettings();

/// The data set the choices name, as a seeded subset when they cap it (the seed is the
/// run's, so a run's subset repeats with its seed).
ImageDataset loadChosenData(const ImageRunChoices& choices);

} // namespace lcs
