#pragma once

#include <string>

#include <nlohmann/json.hpp>

/// What an experiment's kEvaluateAction is asked: the saved model's path (the setting
/// kSavedModelSetting) and the run's settings that name the data it decides.
namespace lcs {

struct SavedModelRequest {
    std::string path;
    nlohmann::json runSettings;  ///< the action's settings without the model's
};

/// Splits an evaluate action's settings; InputError where no model path is given.
SavedModelRequest savedModelRequest(const nlohmann::json& settings);

} // namespace lcs
