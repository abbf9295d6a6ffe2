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

    /// The Linear layers in order (for KFAC and the hand-written backward pass of
    /// fastpath/mlp_backward.h, which need each layer's input and output).
    std::vector<torch::nn::Linear> linearLayers() const;

    /// Per-feature standardisation (x - mean) / std applied before the first layer, as
    /// fitted on the rows the network learns from; undefined: inputs as they are. Plain
    /// members, not buffers: the optimisers and the parameter copies never see them, and
    /// the model file stores them in its sidecar and its TorchScript forward.
    void setInputStandardisation(const std::vector<double>& mean, const std::vector<double>& std);
    at::Tensor standardise(const at::Tensor& x) const;
    at::Tensor inputMean, inputStd;  ///< [D] float on the CPU, or undefined

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

/// The standardisation a network applies to its raw inputs, (x - mean) / std along
/// dimension 1: per column of a table, per channel of an image. Empty means none.
/// Saved models carry it (sidecar and TorchScript forward alike).
struct InputStandardisation {
    std::vector<double> mean, std;
};
/// Each column's mean and population std over the rows of x [N, D] (as scikit-learn's
/// StandardScaler), a constant column's std set to 1: fitted on the rows a network on a
/// table learns from.
InputStandardisation fitInputStandardisation(const torch::Tensor& x);
/// (x - mean) / std by column, float; x as it is when `fit` is empty.
torch::Tensor applyInputStandardisation(const InputStandardisation& fit, const torch::Tensor& x);

/// A generator seeded with `seed` (CPU; CUDA jobs draw on CPU and move the result).
at::Generator makeGenerator(uint64_t seed);

/// 64 random bits from a CPU generator: the seed of a stream derived from it (a
/// NormalStream, a thread's own generator).
uint64_t drawSeed(at::Generator& generator);

/// N(0, 1) noise shaped like `like`, drawn on the CPU from `generator` (a CPU generator
/// cannot fill a CUDA tensor) and moved to `like`'s device and dtype.
torch::Tensor standardNormalLike(const torch::Tensor& like, at::Generator& generator);

} // namespace lcs
