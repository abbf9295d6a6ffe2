#pragma once

#include <map>
#include <string>

#include "engine/experiments/camvid/camvid_experiment.h"
#include "engine/io/model_io.h"

/// A CamVid model folder (what `camvid train` writes and eval, correct and fps read): its
/// manifest (frame size, the training split's standardisation, one network file per
/// method) and the checks on loading one of its networks. Internal to the CamVid
/// experiment's files.
namespace lcs {

inline constexpr const char* kCamvidManifestFormat = "lcstudio-camvid-models";

struct CamvidManifest {
    int height = 0, width = 0;
    CamvidNormalisation norm;
    std::map<std::string, std::string> files;  ///< method -> file name in the folder
};

/// Reads DIR/camvid.json; InputError naming the file and the field.
CamvidManifest readCamvidManifest(const std::string& dir);
void writeCamvidManifest(const std::string& dir, const CamvidManifest& m);

/// Loads the network a manifest lists for `method` and checks it is that method's (by its
/// sidecar), decides the 11 classes on frames of the manifest's size, and standardises
/// its input as the manifest says.
LoadedClassifier loadManifestNetwork(const std::string& dir, const CamvidManifest& manifest, const std::string& method);

/// The sidecar of a network the CamVid commands save: raw RGB in [0, 1] standardised
/// with the training split's statistics, the 11 real classes.
ModelInfo camvidModelInfo(const std::string& method, const std::string& role, uint64_t seed, const CostMatrix& costs,
                          const CamvidNormalisation& norm, bool collapsed);

/// InputError unless `dir` is a folder (`what` says which).
void checkIsDirectory(const std::string& dir, const std::string& what);

/// An output folder, created once the inputs have been read (its parent was checked
/// by the output policy before any work).
void ensureOutputFolder(const std::string& dir, const std::string& what);

} // namespace lcs
