#pragma once

#include <string>

#include "decision/cost_matrix.h"
#include "models/mlp.h"

namespace lcs {

/// What is written next to a saved model (`<file>.json`), so that LC Studio or the CLI
/// can rebuild the network and make decisions again without the run that made it.
struct ModelInfo {
    std::string role;          ///< "q" (correction), "map", "bbvi_mean", ...
    std::string experiment;    ///< e.g. "synthetic"
    std::string method;        ///< inference method the model belongs to
    int replicate = -1;
    unsigned long long seed = 0;
    int64_t inputs = 0;
    std::vector<int64_t> hidden;
    int64_t classes = 0;
    CostMatrix costs;          ///< the matrix q was trained for
};

/// Saves weights to `path` (TorchScript archive) and the sidecar to `path + ".json"`,
/// both atomically. Throws std::runtime_error naming the file.
void saveMlp(const Mlp& model, const ModelInfo& info, const std::string& path);

struct LoadedMlp {
    Mlp model{nullptr};
    ModelInfo info;
};

/// Reads the sidecar, rebuilds the architecture and loads the weights. Errors name the
/// file and the field.
LoadedMlp loadMlp(const std::string& path);

std::string modelInfoToJson(const ModelInfo& info);
ModelInfo modelInfoFromJson(const std::string& text, const std::string& source);

} // namespace lcs
