#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <ATen/core/Generator.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/linear.h>

#include "engine/models/mlp.h"

/// Image classifiers behind one interface, so that samplers, distillation and the
/// correction train any of them with autograd. (The 2-D experiment's MLP keeps its
/// hand-written gradients as a fast path; see models/mlp.h.)
namespace lcs {

/// A network mapping inputs [N, ...] to logits with the class dimension second: [N, C]
/// for classifiers, [N, C, H, W] for per-pixel (segmentation) networks.
struct ClassifierImpl : torch::nn::Module {
    virtual torch::Tensor forward(torch::Tensor x) = 0;
};
using Classifier = std::shared_ptr<ClassifierImpl>;

/// MLP on flattened inputs: 784-200-10 with ReLU is the paper's MNIST network (the
/// authors' released code left out the activation; this one has it).
struct FlatMlpImpl : ClassifierImpl {
    FlatMlpImpl(int64_t inputs, std::vector<int64_t> hidden, int64_t classes);
    torch::Tensor forward(torch::Tensor x) override;
    Mlp mlp{nullptr};
};

/// ResNet-18 (He et al. 2016) with the CIFAR stem: a 3x3 stride-1 convolution and no
/// max-pooling, four stages of two basic blocks with width, 2x, 4x, 8x channels
/// (width 64 = the paper's network; narrower widths for CPU presets).
struct BasicBlockImpl : torch::nn::Module {
    BasicBlockImpl(int64_t in, int64_t out, int64_t stride);
    torch::Tensor forward(torch::Tensor x);
    torch::nn::Conv2d conv1{nullptr}, conv2{nullptr};
    torch::nn::BatchNorm2d bn1{nullptr}, bn2{nullptr};
    torch::nn::Sequential shortcut{nullptr};  ///< empty when shapes agree
};
TORCH_MODULE(BasicBlock);

struct ResNet18Impl : ClassifierImpl {
    ResNet18Impl(int64_t inChannels, int64_t classes, int64_t width);
    torch::Tensor forward(torch::Tensor x) override;
    torch::nn::Conv2d stem{nullptr};
    torch::nn::BatchNorm2d stemBn{nullptr};
    torch::nn::Sequential stages{nullptr};
    torch::nn::Linear head{nullptr};
};

/// What rebuilds a network: the architecture and its sizes.
struct ModelSpec {
    std::string architecture = "mlp";      ///< a name in the architecture table (models/architectures.h)
    std::vector<int64_t> inputShape{1, 28, 28};
    int64_t classes = 10;
    std::vector<int64_t> hidden{200};      ///< mlp
    int64_t width = 64;                    ///< resnet18
    double dropout = 0.0;                  ///< segnet: decoder dropout (0.3 in the paper)

    /// A fresh network, initialised from `generator` (PyTorch's default schemes:
    /// Kaiming-uniform Linear layers, Kaiming-normal convolutions, BatchNorm 1 / 0).
    Classifier build(at::Generator& generator) const;
    std::string describe() const;          ///< e.g. "mlp 784-200-10", "resnet18 width 16"
};

/// Copies every parameter and buffer (BatchNorm statistics included) of `from` into
/// `to`, which must have the same structure: how q is warm-started from S.
void copyParametersAndBuffers(const torch::nn::Module& from, torch::nn::Module& to);

/// A new network of `spec` holding a copy of `from`'s parameters and buffers.
Classifier cloneClassifier(const ModelSpec& spec, const ClassifierImpl& from);

/// Class probabilities of `model` on x [N, ...] in eval mode, in batches, without
/// autograd; returned on the CPU as float [N, C]. The model's train/eval mode is restored.
at::Tensor predictClassProbabilities(ClassifierImpl& model, const at::Tensor& x, int64_t batchSize = 1000);

} // namespace lcs
