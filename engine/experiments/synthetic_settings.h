#pragma once

#include <vector>

#include "core/settings.h"
#include "experiments/synthetic_experiment.h"

/// The synthetic experiment's settings, declared once: `lcstudio-cli synthetic` derives its
/// flags, their parsing and its help from this list, and the results file records the
/// values of the same list.
namespace lcs {

const std::vector<BoundSetting<SyntheticConfig>>& syntheticSettings();

} // namespace lcs
