#pragma once

#include <cstdint>
#include <vector>

#include <ATen/core/Generator.h>
#include <torch/nn/module.h>

#include "engine/core/normal_stream.h"

/// BBVI's network on the fast path (see mlp_backward.h): Gaussian weights trained with
/// the local reparameterisation trick and a hand-written backward pass, tested against
/// autograd on the same expression (forwardLocalAutograd).
namespace lcs {

/// The Gaussian prior of a BBVI network. The paper states N(0, I); the authors' code puts
/// N(0, 1/fan_in) on each layer's weights and N(0, 1) on its biases. The two differ where
/// it matters for Table 2: under the fan-in prior BBVI over-decides the rare class, as
/// the paper's BBVI row does, and only then has the correction something to remove
/// (docs/design-notes.md, "Measured Table 2 sign"). The fan-in prior is the default so that the synthetic
/// experiment reproduces the paper's figures; "isotropic" gives the paper's text.
struct BbviPrior {
    enum class Kind { FanIn, Isotropic };
    Kind kind = Kind::FanIn;
    double precision = 1.0;  ///< Isotropic: tau of N(0, 1/tau) on every weight and bias

    double weightPrecision(int64_t fanIn) const
    {
        return kind == Kind::FanIn ? static_cast<double>(fanIn) : precision;
    }
    double biasPrecision() const { return kind == Kind::FanIn ? 1.0 : precision; }
    static const char* name(Kind kind) { return kind == Kind::FanIn ? "fan_in" : "isotropic"; }
};

/// Linear layer with a factorised Gaussian over weights and biases, trained with the
/// local reparameterisation trick (Kingma et al. 2015): pre-activations are sampled from
/// N(x mu + mu_b, x^2 sigma^2 + sigma_b^2) instead of sampling weights.
struct BayesLinearImpl : torch::nn::Module {
    BayesLinearImpl(int64_t in, int64_t out, double initialLogVariance);

    /// What the hand-written backward pass needs, in the units-as-rows layout every
    /// product of a step runs in ([features x rows]: the thin kernel's vectors then run
    /// along a whole batch's rows, full at any layer width, where a row-major [rows x 50]
    /// output filled 50 of a panel's 64 lanes and the BLAS ran at 60% of the core's peak).
    struct Trace {
        torch::Tensor xT, xSquaredT;  ///< the layer's input and its squares, transposed
        torch::Tensor x, xSquared;    ///< the same as rows, where held (the data's): the weight gradients' fast operand
        torch::Tensor epsT, sdT;      ///< the noise drawn and the pre-activations' sd, [out x rows]
    };
    /// Local-reparameterisation forward without autograd, from the trace's inputs (set
    /// by the caller); fills the rest of `trace` and returns the output [out x rows],
    /// through a ReLU where `relu`. The noise comes from a NormalStream: one draw per
    /// pre-activation per step (about 10^5 a step for a 5,000-row table), which
    /// LibTorch's generator made half of BBVI's time.
    torch::Tensor forwardLocal(NormalStream& noise, Trace& trace, bool relu);
    /// Sets .grad() of the four parameters from dLoss/dOutput [out x rows]; returns
    /// dLoss/dx [in x rows], or an undefined tensor without `inputGradient` (the first
    /// layer's input is the data: its two products are a third of a step's work for
    /// nothing).
    torch::Tensor backwardLocal(const Trace& trace, const torch::Tensor& dOutT, bool inputGradient = true);
    /// The same forward as a differentiable expression (autograd) on x [rows x in],
    /// drawing the same noise from `noise` in the same order; the reference the hand-written gradient is tested against.
    torch::Tensor forwardLocalAutograd(const torch::Tensor& x, NormalStream& noise);
    /// One weight sample shared by all rows (a coherent function sample).
    torch::Tensor forwardSampled(const torch::Tensor& x, at::Generator& generator);
    /// KL(q || prior) summed over all weights and biases, the prior N(0, 1/tauWeight) on
    /// each weight and N(0, 1/tauBias) on each bias.
    torch::Tensor kl(double tauWeight, double tauBias) const;
    /// Adds scale * dKL/dparameter to the parameters' gradients.
    void addKlGradient(double tauWeight, double tauBias, double scale);
    int64_t fanIn() const { return weightMean.size(1); }

    torch::Tensor weightMean, weightLogVar, biasMean, biasLogVar;
};
TORCH_MODULE(BayesLinear);

/// A batch's inputs as a BBVI step reads them: the rows as they lie, transposed, and the
/// squares of both (the variance's input). A full-batch caller builds it once.
struct BbviInputs {
    explicit BbviInputs(const torch::Tensor& rows);
    torch::Tensor x, xSquared, xT, xSquaredT;
};

struct BayesMlpImpl : torch::nn::Module {
    BayesMlpImpl(int64_t inputs, std::vector<int64_t> hidden, int64_t classes, double initialLogVariance);
    torch::Tensor forwardSampled(torch::Tensor x, at::Generator& generator);
    torch::Tensor forwardLocalAutograd(torch::Tensor x, NormalStream& noise);
    torch::Tensor kl(const BbviPrior& prior) const;

    /// Negative ELBO per training point, mean NLL + KL / numData, with its gradient
    /// written into every parameter's .grad(). Returns the NLL.
    double lossAndGradients(const BbviInputs& inputs, const torch::Tensor& y, const BbviPrior& prior,
                            double numData, NormalStream& noise);

    std::vector<BayesLinear> layers;
};
TORCH_MODULE(BayesMlp);

} // namespace lcs
