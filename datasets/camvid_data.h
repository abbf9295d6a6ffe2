#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <ATen/core/Generator.h>
#include <ATen/core/Tensor.h>

#include "datasets/camvid_reader.h"

/// CamVid frames as tensors for training and evaluation. Networks predict the 11 real
/// classes (0..10); label 11 (void) is ignored in losses and metrics.
namespace lcs {

inline constexpr int64_t kCamvidRealClasses = 11;

/// Per-channel mean and std of RGB in [0, 1], from the training split.
struct CamvidNormalisation {
    std::array<double, 3> mean{0.5, 0.5, 0.5};
    std::array<double, 3> std{0.25, 0.25, 0.25};
};

struct CamvidSet {
    at::Tensor images;   ///< [N, 3, H, W] float, standardised
    at::Tensor labels;   ///< [N, H, W] int64, 0..10 and 11 = void
    std::vector<std::string> frames;  ///< frame paths
    int64_t size() const { return labels.defined() ? labels.size(0) : 0; }
};

/// One decoded frame as tensors: image [3, H, W] standardised, labels [H, W].
std::pair<at::Tensor, at::Tensor> camvidFrameTensors(const CamvidFrame& frame, const CamvidNormalisation& norm);

/// Loads up to maxFrames (0 = all) frames of `split`, resized to height x width.
CamvidSet loadCamvidSplit(const std::string& dir, const std::string& split, int height, int width,
                          const CamvidNormalisation& norm, int64_t maxFrames = 0);

/// Throws InputError naming `dir` and `split` when every pixel of `set` is void: a
/// network trained on it would learn nothing and still be saved.
void requireLabelledPixels(const CamvidSet& set, const std::string& dir, const std::string& split);

/// The mean and std of the frames of `split` (at the given size).
CamvidNormalisation camvidNormalisation(const std::string& dir, const std::string& split, int height, int width,
                                        int64_t maxFrames = 0);

/// An RGB [H, W, 3] uint8 tensor of a standardised image [3, H, W].
at::Tensor camvidDisplayImage(const at::Tensor& image, const CamvidNormalisation& norm);

/// Colours labels or decisions [H, W] with the CamVid palette: [H, W, 3] uint8.
at::Tensor camvidColourise(const at::Tensor& labels);

} // namespace lcs
