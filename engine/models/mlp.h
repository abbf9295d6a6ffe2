#pragma once

#include <cstdint>
#include <vector>

#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/linear.h>

namespace lcs {

/// Fully connected classifier with ReLU between layers; forward returns logits.
/// The paper uses one hidden layer of 50 (synthetic) or 200 (MNIST) units.
struct MlpImpl : torch::nn::Module {
    MlpImpl(int64_t inputs, std::vector<int64_t> hidden, int64_t classes);

    torch::Tensor forward(torch::Tensor x);

    /// What a hand-written backward pass needs: each layer's input and pre-activation.
    struct Trace {
        std::vector<torch::Tensor> inputs;          ///< input of layer i
        std::vector<torch::Tensor> preActivations;  ///< output of layer i before ReLU
        torch::Tensor logits;
    };
    /// Forward pass without autograd, keeping activations.
    Trace trace(const torch::Tensor& x);
    /// Back-propagates dLoss/dLogits [N, C] through the ReLU layers; returns dLoss/dS_i
    /// for every layer (row n = sample n's own gradient when the loss is a sum over rows).
    std::vector<torch::Tensor> backpropagate(const Trace& trace, const torch::Tensor& dLogits);
    /// Sets every weight's and bias's .grad() from per-layer dLoss/dS_i.
    void setGradients(const Trace& trace, const std::vector<torch::Tensor>& dPreActivations);

    /// The Linear layers in order (for KFAC, which needs each layer's input and output).
    std::vector<torch::nn::Linear> linearLayers() const;

    int64_t inputs = 0;
    std::vector<int64_t> hidden;
    int64_t classes = 0;

private:
    torch::nn::ModuleList m_layers;
};
TORCH_MODULE(Mlp);

/// Re-draws every Linear layer of `module` as PyTorch's default (Kaiming-uniform
/// weights, U(-1/sqrt(fan_in), 1/sqrt(fan_in)) biases) from `generator`, so that
/// initialisation is reproducible per job without touching the global RNG (jobs run
/// in parallel threads).
void initialiseFrom(torch::nn::Module& module, at::Generator& generator);

/// Mean cross-entropy of logits [N, C] against labels [N] and its gradient with respect
/// to the logits, (softmax - onehot) / N. The small networks of the synthetic experiment
/// train with this and MlpImpl::backpropagate instead of autograd: on two cores the
/// autograd engine's fixed cost per backward call dominated these tiny layers.
std::pair<torch::Tensor, torch::Tensor> crossEntropyWithGradient(const torch::Tensor& logits,
                                                                 const torch::Tensor& labels);

/// A generator seeded with `seed` (CPU; CUDA jobs draw on CPU and move the result).
at::Generator makeGenerator(uint64_t seed);

/// N(0, 1) noise shaped like `like`, drawn on the CPU from `generator` (a CPU generator
/// cannot fill a CUDA tensor) and moved to `like`'s device and dtype.
torch::Tensor standardNormalLike(const torch::Tensor& like, at::Generator& generator);

/// Deterministic 64-bit mixing of several seeds (splitmix64), for per-(seed, replicate,
/// method) streams that do not overlap.
uint64_t mixSeed(uint64_t a, uint64_t b, uint64_t c = 0);

} // namespace lcs
