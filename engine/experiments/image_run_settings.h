#pragma once

#include <vector>

#include "core/settings.h"
#include "experiments/image_run_choices.h"

/// The image experiments' settings, declared once: `lcstudio-cli corruption` and
/// `selective` derive their flags, their parsing and their help from these lists.
namespace lcs {

const std::vector<BoundSetting<ImageRunChoices>>& corruptionSettings();
const std::vector<BoundSetting<ImageRunChoices>>& selectiveSettings();

} // namespace lcs
