#pragma once

#include <memory>

#include <QString>

#include "engine/experiments/experiment.h"
#include "engine/experiments/image/corruption_experiment.h"
#include "engine/experiments/image/image_experiments.h"
#include "engine/experiments/image/selective_experiment.h"
#include "tests/tiny_images.h"
#include "ui/experiments/image/image_job_runner.h"

/// The image job runner's test fixtures: presets shrunk to seconds on the tiny images.
namespace lcs::ui {

/// The tiny images, and presets shrunk to seconds on them.
inline ImageExperimentProviders tinyProviders()
{
    ImageExperimentProviders p;
    p.loadData = [](const ImageRunChoices&) { return tinyImages(40, 3); };
    p.tuneCorruption = [](CorruptionConfig& c) {
        shrinkImageRun(c, c.sgld, 16, 3, 2);
        c.cwSgd = c.map;
    };
    p.tuneSelective = [](SelectiveConfig& c) {
        shrinkImageRun(c, c.sghmc, 16, 3, 2);
        c.sghmc.keepSamples = 5;
        c.correctionNoS = c.correction;
        c.calibrationCopies = 1;
    };
    return p;
}

/// Puts both image experiments, with `providers`, in the registry in place of the
/// built-in ones: every route (the window's pages, runExperiment) then runs them.
inline void useImageProviders(const ImageExperimentProviders& providers = tinyProviders())
{
    ExperimentRegistry::global().replace(makeCorruptionExperiment(providers));
    ExperimentRegistry::global().replace(makeSelectiveExperiment(providers));
}

/// A small run of `experiment` on the tiny images, its settings checked as the window's.
inline ImageRunRequest tinySettings(const QString& experiment, nlohmann::json changes = nlohmann::json::object())
{
    nlohmann::json s = {{"data", "tiny"}, {"trials", 1}};
    if (experiment == "selective") {
        s["referral_costs"] = {0.1, 0.3};
        s["methods"] = {"sghmc", "lc_sghmc", "ours", "ours_no_s"};
    } else {
        s["rates"] = {0.2};
        s["methods"] = {"sgld_s", "cw_sgd", "ours"};
    }
    s.update(changes);
    const auto& entry = ExperimentRegistry::global().get(experiment.toStdString());
    return {experiment, checkedSettings(entry.settings(), s, "test")};
}

/// Starts `request` on `runner`.
inline bool startImageJob(ImageJobRunner& runner, JobRunner::Job job, const ImageRunRequest& request,
                          const CostMatrix& costs)
{
    return runner.start(job, request.experiment, request.settings, costs);
}

} // namespace lcs::ui
