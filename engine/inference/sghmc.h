#pragma once

#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include <ATen/core/Generator.h>
#include <torch/optim/optimizer.h>

namespace lcs {

class NormalStream;

/// Options of the SGHMC sampler (Chen et al. 2014), in this form: with N
/// training points, g the gradient of the minibatch *mean* NLL, tau the prior precision:
///   v <- m v - lr (g + (tau/N) theta) + sqrt(2 (1-m) lr T / N) * eps
///   theta <- theta + v
/// which is SGHMC on U(theta) = N * meanNLL + tau/2 |theta|^2 with step size lr/N and
/// friction 1-m. momentum = 0 gives SGLD.
struct SghmcOptions : public torch::optim::OptimizerCloneableOptions<SghmcOptions> {
    SghmcOptions(double lr = 0.1) : lr_(lr) {}
    TORCH_ARG(double, lr);
    TORCH_ARG(double, momentum) = 0.5;
    TORCH_ARG(double, prior_precision) = 1.0;
    TORCH_ARG(double, num_data) = 1.0;
    TORCH_ARG(double, temperature) = 1.0;

    double get_lr() const override { return lr_; }
    void set_lr(const double lr) override { lr_ = lr; }
};

struct SghmcParamState : public torch::optim::OptimizerCloneableParamState<SghmcParamState> {
    TORCH_ARG(torch::Tensor, velocity);
};

/// The sampler as a torch optimizer: call step() after backward() on the mean NLL.
/// Noise for CPU parameters comes from a NormalStream seeded from `generator` at the
/// first step (reproducible per job); CUDA parameters use the device's default generator.
class Sghmc : public torch::optim::Optimizer {
public:
    Sghmc(std::vector<torch::Tensor> params, SghmcOptions options,
          std::optional<at::Generator> generator = std::nullopt);
    ~Sghmc() override;

    torch::Tensor step(LossClosure closure = nullptr) override;

    /// The next step's noise drawn elsewhere (on another thread, ahead of time):
    /// `standardNormals` holds `count` standard normals, one per element of every
    /// parameter in order, all of them float tensors on the CPU; the step scales them by
    /// its noise sd, so they give the same step as draws of its own with those values.
    /// Used by that step only; the buffer must outlive it.
    void useStandardNoise(const float* standardNormals, int64_t count);

private:
    std::optional<at::Generator> m_generator;
    /// CPU noise: drawn in bulk, seeded once from m_generator (or the default generator).
    std::unique_ptr<NormalStream> m_noise;
    const float* m_givenNoise = nullptr;  ///< useStandardNoise's, for the next step
    int64_t m_givenNoiseCount = 0;
};

} // namespace lcs
