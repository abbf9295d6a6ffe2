#pragma once

#include <cstdint>
#include <vector>

#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/conv.h>

#include "engine/models/classifier.h"

/// SegNet (Badrinarayanan et al. 2017): an encoder of conv-BN-ReLU stages, each ending in
/// 2x2 max-pooling whose indices are passed to the mirrored decoder stage, which
/// unpools with them. Dropout (Kendall's Bayesian SegNet) follows the deeper decoder
/// stages; with mcDropout set it stays on in eval mode, so repeated forward passes are
/// MC-dropout samples. forward returns per-pixel logits [N, C, H, W] (H, W divisible
/// by 2^stages).
namespace lcs {

struct SegNetStageImpl : torch::nn::Module {
    SegNetStageImpl(int64_t in, int64_t out, int convs);
    torch::Tensor forward(torch::Tensor x);
    torch::nn::ModuleList layers;  ///< conv, bn pairs
};
TORCH_MODULE(SegNetStage);

struct SegNetImpl : ClassifierImpl {
    /// channels: per encoder stage; convs: conv layers per stage. The full network is
    /// channels {64, 128, 256, 512, 512}, convs {2, 2, 3, 3, 3} (VGG-16's encoder).
    SegNetImpl(int64_t inChannels, int64_t classes, std::vector<int64_t> channels, std::vector<int> convs,
               double dropout);
    torch::Tensor forward(torch::Tensor x) override;

    double dropout = 0.0;
    bool mcDropout = false;  ///< keep dropout on outside training (MC-dropout sampling)
    torch::nn::ModuleList encoder, decoder;
    torch::nn::Conv2d classifier{nullptr};
};

/// The SegNet named `architecture` in the architecture table (models/architectures.h):
/// "segnet", the paper's, or one of the light layouts for CPUs.
std::shared_ptr<SegNetImpl> makeSegNet(const std::string& architecture, int64_t inChannels, int64_t classes,
                                       double dropout);

} // namespace lcs
