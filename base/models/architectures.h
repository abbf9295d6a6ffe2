#pragma once

#include <cstdint>
#include <string>
#include <vector>

/// Every network architecture a model file can name, in one table. The builder
/// (ModelSpec::build, makeSegNet), the sidecar reader and every "this is a segmentation
/// network" check read it, so a new SegNet layout is one row here. Plain data: the
/// readers in lcs_base use it without LibTorch.
namespace lcs {

enum class ArchitectureFamily {
    Mlp,     ///< fully connected on flattened inputs; one class per input
    ResNet,  ///< image classifier; one class per image
    SegNet,  ///< encoder-decoder with pooling indices; one class per pixel
};

struct Architecture {
    std::string name;
    ArchitectureFamily family;
    /// SegNets only: channels and conv layers of each encoder stage (the decoder mirrors them).
    std::vector<int64_t> stageChannels;
    std::vector<int> stageConvs;
};

/// The table, in the order the names are listed in messages.
const std::vector<Architecture>& architectures();

/// The row named `name`, or nullptr.
const Architecture* findArchitecture(const std::string& name);

/// True when `name` is a SegNet: a network deciding every pixel of a frame.
bool isSegNetArchitecture(const std::string& name);

/// The table's names joined as "a, b or c": for messages refusing an unknown name.
std::string architectureNames();

} // namespace lcs
