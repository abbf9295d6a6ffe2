#pragma once

#include <vector>

namespace lcs {

/// The JSON files of resources/presets, compiled into the engine by CMake so that the
/// CLI, the engine and the GUI share one definition of the paper's matrices.
struct EmbeddedPreset {
    const char* name;
    const char* json;
};
const std::vector<EmbeddedPreset>& embeddedCostPresets();

} // namespace lcs
