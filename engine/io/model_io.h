#pragma once

#include <string>

#include "io/model_info.h"
#include "models/classifier.h"
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

/// The same pair for any Classifier (parameters and buffers, e.g. BatchNorm statistics):
/// the architecture comes from `spec` and is recorded in the sidecar.
void saveClassifier(const ClassifierImpl& model, const ModelSpec& spec, const ModelInfo& info, const std::string& path);

struct LoadedClassifier {
    Classifier model;
    ModelSpec spec;
    ModelInfo info;
};
/// Reads the sidecar, checks the weights' checksum, rebuilds the network (an "mlp"
/// sidecar gives a FlatMlp) and loads its parameters and buffers, checking each shape.
LoadedClassifier loadClassifier(const std::string& path);

ModelSpec modelSpecFromInfo(const ModelInfo& info);

} // namespace lcs
