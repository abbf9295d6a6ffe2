#pragma once

#include <functional>

#include "experiments/camvid_experiment.h"

namespace lcs::ui {

/// Optional replacements for what the CamVid worker does by default, called on the
/// job's thread: tests shrink the preset to seconds on tiny generated frames.
struct CamvidJobHooks {
    /// Applied after the panel's settings, before the run.
    std::function<void(CamvidWindowConfig&)> tuneConfig;
};

} // namespace lcs::ui
