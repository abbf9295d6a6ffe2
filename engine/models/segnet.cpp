#include "engine/models/segnet.h"

#include <stdexcept>

#include <torch/torch.h>

#include "base/models/architectures.h"

namespace lcs {

SegNetStageImpl::SegNetStageImpl(int64_t in, int64_t out, int convs)
{
    for (int i = 0; i < convs; ++i) {
        layers->push_back(torch::nn::Conv2d(torch::nn::Conv2dOptions(i == 0 ? in : out, out, 3).padding(1).bias(false)));
        layers->push_back(torch::nn::BatchNorm2d(out));
    }
    register_module("layers", layers);
}

torch::Tensor SegNetStageImpl::forward(torch::Tensor x)
{
    for (size_t i = 0; i < layers->size(); i += 2) {
        x = layers[i]->as<torch::nn::Conv2d>()->forward(x);
        x = torch::relu(layers[i + 1]->as<torch::nn::BatchNorm2d>()->forward(x));
    }
    return x;
}

SegNetImpl::SegNetImpl(int64_t inChannels, int64_t classes, std::vector<int64_t> channels, std::vector<int> convs,
                       double dropout_)
    : dropout(dropout_)
{
    if (channels.empty() || channels.size() != convs.size())
        throw std::invalid_argument("SegNet: one conv count per stage is needed");
    int64_t in = inChannels;
    for (size_t s = 0; s < channels.size(); ++s) {
        encoder->push_back(SegNetStage(in, channels[s], convs[s]));
        in = channels[s];
    }
    // Decoder stage s mirrors encoder stage s (deepest first): channels[s] -> channels[s-1].
    for (size_t k = channels.size(); k-- > 0;) {
        const int64_t out = k == 0 ? channels[0] : channels[k - 1];
        decoder->push_back(SegNetStage(channels[k], out, convs[k]));
    }
    register_module("encoder", encoder);
    register_module("decoder", decoder);
    classifier = register_module("classifier", torch::nn::Conv2d(torch::nn::Conv2dOptions(channels[0], classes, 3).padding(1)));
}

torch::Tensor SegNetImpl::forward(torch::Tensor x)
{
    std::vector<torch::Tensor> indices;
    std::vector<std::vector<int64_t>> sizes;
    for (auto& stage : *encoder) {
        x = stage->as<SegNetStage>()->forward(x);
        sizes.push_back(x.sizes().vec());
        auto [pooled, index] = torch::max_pool2d_with_indices(x, {2, 2}, {2, 2});
        x = pooled;
        indices.push_back(index);
    }
    const bool dropping = dropout > 0 && (is_training() || mcDropout);
    const size_t stages = decoder->size();
    for (size_t k = 0; k < stages; ++k) {
        const size_t level = stages - 1 - k;
        const auto& size = sizes[level];
        x = torch::max_unpool2d(x, indices[level], {size[2], size[3]});
        x = decoder[k]->as<SegNetStage>()->forward(x);
        // Bayesian SegNet's placement: dropout after the deeper half of the decoder.
        if (dropping && k < (stages + 1) / 2)
            x = torch::dropout(x, dropout, /*train=*/true);
    }
    return classifier->forward(x);
}

std::shared_ptr<SegNetImpl> makeSegNet(const std::string& architecture, int64_t inChannels, int64_t classes,
                                       double dropout)
{
    const auto* a = findArchitecture(architecture);
    if (!a || a->family != ArchitectureFamily::SegNet)
        throw std::invalid_argument("\"" + architecture + "\" is not a SegNet");
    return std::make_shared<SegNetImpl>(inChannels, classes, a->stageChannels, a->stageConvs, dropout);
}

} // namespace lcs
