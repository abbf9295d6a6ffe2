#pragma once

#include <cstdint>
#include <vector>

#include <ATen/core/Generator.h>
#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>
#include <torch/optim/optimizer.h>

/// What every training loop here shares: learning-rate schedules, the optimisers' choice,
/// minibatches drawn as epochs of a random permutation, and class rows of per-pixel output.
namespace lcs {

enum class LrSchedule { Constant, OneCycle, Cosine };

/// The learning rate at `step` (0-based) of `total` steps. OneCycle is PyTorch's
/// OneCycleLR with its defaults: from maxLr/25 up to maxLr over the first 30% of steps,
/// then down to maxLr/(25 * 1e4), both halves cosine-shaped. Cosine is PyTorch's
/// CosineAnnealingLR stepped once per step with T_max = total:
/// maxLr (1 + cos(pi step / total)) / 2, from maxLr towards 0.
double scheduledLearningRate(LrSchedule schedule, double maxLr, long long step, long long total);

/// Throws ResultError when a training step's loss is not finite: every later step, the
/// network and the results would be NaN. `what` names the training ("map", "correction").
void requireFiniteLoss(double loss, const char* what, long long step);

/// Sets every parameter group's learning rate (any torch optimiser).
void setLearningRate(torch::optim::Optimizer& optimizer, double lr);

/// Batches of a random permutation of 0..n-1 (the last one may be smaller).
std::vector<at::Tensor> shuffledBatches(int64_t n, int64_t batchSize, at::Generator& generator);

/// ceil(n / batchSize).
long long batchesPerEpoch(int64_t n, int64_t batchSize);

/// One epoch's minibatches as index tensors: shuffledBatches, or, when batchSize is 0 or
/// covers all n rows, one undefined index meaning "the whole set, in order" (nothing is
/// drawn from the generator for it).
std::vector<at::Tensor> epochBatches(int64_t n, int64_t batchSize, at::Generator& generator);

/// How many steps an epoch of epochBatches takes.
long long stepsPerEpoch(int64_t n, int64_t batchSize);

/// The device of a module's first parameter (the CPU for a module without any).
torch::Device deviceOf(const torch::nn::Module& m);

/// Rows of class scores: [N, C] as it is, per-pixel [N, C, H, W] as [N*H*W, C].
at::Tensor classRows(const at::Tensor& t);

} // namespace lcs
