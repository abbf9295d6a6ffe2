#pragma once

#include <memory>

#include <QString>

#include "image_job_hooks.h"
#include "tiny_images.h"

/// The image job runner's test fixtures: presets shrunk to seconds on the tiny images.
namespace lcs::ui {

/// Presets shrunk to seconds on the tiny images.
inline std::shared_ptr<const ImageJobHooks> tinyHooks()
{
    auto hooks = std::make_shared<ImageJobHooks>();
    hooks->loadData = [](const ImageExperimentSettings&) { return tinyImages(40, 3); };
    hooks->tuneCorruption = [](CorruptionConfig& c) {
        shrinkImageRun(c, c.sgld, 16, 3, 2);
        c.cwSgd = c.map;
    };
    hooks->tuneSelective = [](SelectiveConfig& c) {
        shrinkImageRun(c, c.sghmc, 16, 3, 2);
        c.sghmc.keepSamples = 5;
        c.correctionNoS = c.correction;
        c.calibrationCopies = 1;
    };
    return hooks;
}

inline ImageExperimentSettings tinySettings(const QString& experiment)
{
    ImageExperimentSettings s;
    s.experiment = experiment;
    s.data = "tiny";
    if (experiment == "selective") {
        s.values = {0.1, 0.3};
        s.methods = {"sghmc", "lc_sghmc", "ours", "ours_no_s"};
    } else {
        s.values = {0.2};
        s.methods = {"sgld_s", "cw_sgd", "ours"};
    }
    s.trials = 1;
    return s;
}

} // namespace lcs::ui
