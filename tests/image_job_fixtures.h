#pragma once

#include <memory>

#include <QString>

#include "engine/experiments/experiment.h"
#include "engine/experiments/image/corruption_experiment.h"
#include "engine/experiments/image/image_experiments.h"
#include "engine/experiments/image/selective_experiment.h"
#include "tests/tiny_images.h"
#include "ui/experiments/image/image_experiment_page.h"
#include "ui/job_runner.h"

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
inline JobRequest tinySettings(const QString& experiment, nlohmann::json changes = nlohmann::json::object())
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
    return {experiment, checkedSettings(entry.settings(), s, "test"), {"save_models"}};
}

/// The image page's runner: its jobs, with the image views converted as the page's are.
class ImageRunner : public JobRunner {
public:
    ImageRunner() : JobRunner(ImageExperimentPage::jobNames(), ImageExperimentPage::viewAdapter()) {}
};

/// Starts `request` on `runner` (its networks kept for export, as the page asks).
inline bool startImageJob(JobRunner& runner, JobRunner::Job job, const JobRequest& request, const CostMatrix& costs)
{
    return runner.start(job, request, costs);
}

/// File > Open Model: the classifier at `path` decides the test images `request` names.
inline bool openImageModel(JobRunner& runner, const QString& path, JobRequest request, const CostMatrix& costs)
{
    request.settings[kSavedModelSetting] = path.toStdString();
    request.keptOutputs.clear();
    return runner.start(JobRunner::kOpenModel, request, costs);
}

} // namespace lcs::ui
