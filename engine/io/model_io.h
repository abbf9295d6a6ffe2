#pragma once

#include <string>

#include "io/model_info.h"
#include "models/mlp.h"

namespace lcs {

/// Saves weights to `path` (a LibTorch archive) and then the sidecar `path + ".json"`,
/// each atomically. The sidecar is written last and records the weights' size and
/// checksum, so it acts as the manifest of the pair: a save killed between the two
/// renames, or weights from another save, are detected by loadMlp. Throws OutputError
/// naming the file when it cannot be written (nothing half-written is left behind).
void saveMlp(const Mlp& model, const ModelInfo& info, const std::string& path);

struct LoadedMlp {
    Mlp model{nullptr};
    ModelInfo info;
};

/// Reads the sidecar, checks the weights file against its checksum, rebuilds the
/// architecture and loads the weights. Throws InputError naming the file and the field.
LoadedMlp loadMlp(const std::string& path);

} // namespace lcs
