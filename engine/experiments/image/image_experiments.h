#pragma once

#include <functional>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "engine/experiments/experiment.h"
#include "engine/experiments/image/image_experiment_support.h"
#include "engine/experiments/image/image_run_choices.h"

/// The two image experiments (label corruption, selective classification) as registry
/// entries, and what a front end may ask of them beyond a run: the data their settings
/// name (the window's File > Open Model decides that data with an exported classifier).
namespace lcs {

struct CorruptionConfig;
struct ImageDataset;
struct SelectiveConfig;

/// What a test injects into an image experiment through the registry
/// (ExperimentRegistry::replace): where its data come from and a last word on the
/// config (tests shrink a run to seconds on tiny images). Unset: the built-in behaviour.
struct ImageExperimentProviders {
    std::function<ImageDataset(const ImageRunChoices&)> loadData;
    std::function<void(CorruptionConfig&)> tuneCorruption;
    std::function<void(SelectiveConfig&)> tuneSelective;
};

/// An image experiment's registry entry.
class ImageExperiment : public Experiment {
public:
    /// The data `settings` (declared, checked) name, loaded as a run loads them. Throws
    /// DataError naming the data where they cannot be read.
    virtual ImageDataset loadData(const nlohmann::json& settings) const = 0;
    /// Decides the test images of that data with the classifier at `path`
    /// (evaluateImageModel: under `costs`, or its sidecar's matrix where they do not fit).
    ImageModelEvaluation evaluateModel(const std::string& path, const nlohmann::json& settings,
                                       const CostMatrix& costs, const JobContext& ctx) const;
    /// The window's kEvaluateAction (File > Open Model): the classifier at the setting
    /// kSavedModelSetting decides the test images the other settings name
    /// (evaluateModel); results: imageModelEvaluationOutput, and one line saying what
    /// decided what under which matrix.
    std::vector<ExperimentAction> actions() const override;
    ExperimentRun act(const std::string& action, const nlohmann::json& settings, const std::optional<CostMatrix>& costs,
                      const JobContext& ctx, const OutputPaths& outputs) const override;
};

std::shared_ptr<const Experiment> makeCorruptionExperiment(ImageExperimentProviders providers = {});
std::shared_ptr<const Experiment> makeSelectiveExperiment(ImageExperimentProviders providers = {});

} // namespace lcs
