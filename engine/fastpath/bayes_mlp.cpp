#include "fastpath/bayes_mlp.h"

#include <cmath>
#include <tuple>

#include <torch/torch.h>

#include "core/thin_gemm.h"
#include "fastpath/flat_parameters.h"
#include "fastpath/mlp_backward.h"
#include "models/mlp.h"

namespace lcs {
namespace {

/// Standard normals of `like`'s shape, device and type, drawn on the CPU in float.
torch::Tensor standardNormals(const torch::Tensor& like, NormalStream& noise)
{
    auto z = torch::empty(like.sizes(), torch::dtype(torch::kFloat));
    noise.fill(z.data_ptr<float>(), z.numel());
    return z.to(like.device(), like.scalar_type());
}

/// dVar = dOut eps / (2 sd), element by element, at the CPU's widest vectors (this file
/// is built without contracted multiply-adds, so every clone gives the same numbers).
__attribute__((target_clones("avx512f", "avx2", "default"))) void
varianceGradient(const float* __restrict g, const float* __restrict e, const float* __restrict sd,
                 float* __restrict dv, int64_t n)
{
    for (int64_t i = 0; i < n; ++i)
        dv[i] = 0.5f * g[i] * e[i] / sd[i];
}

/// d = 0 where the pre-activation a was not positive (the gradient through a ReLU).
__attribute__((target_clones("avx512f", "avx2", "default"))) void
throughRelu(float* __restrict d, const float* __restrict a, int64_t n)
{
    for (int64_t i = 0; i < n; ++i)
        d[i] = a[i] > 0.0f ? d[i] : 0.0f;
}

/// Whether a full batch's products go through the thin kernels in row blocks: a general
/// BLAS at BBVI's shapes (thousands of rows by 57 inputs by 50 units) ran at about 60% of
/// the core's peak.
bool blockedThin(const at::Tensor& x, int64_t n, int64_t k)
{
    return thinGemmAvailable() && std::min(kThinMaximumRows, x.size(0)) * n * k >= kThinMinimumMultiplyAdds;
}

/// g^T x summed over the rows ([n, k] for g [m, n], x [m, k]), in the same blocks: each
/// block's sum into its own slice, then one sum over the blocks.
at::Tensor blockedWeightGradient(const at::Tensor& g, const at::Tensor& x)
{
    const int64_t m = x.size(0), n = g.size(1), k = x.size(1);
    if (!plainFloats({&g, &x}) || !blockedThin(x, n, k))
        return g.t().mm(x);
    const int64_t blocks = (m + kThinMaximumRows - 1) / kThinMaximumRows;
    auto parts = torch::empty({blocks, n, k}, x.options());
    for (int64_t b = 0; b < blocks; ++b) {
        const int64_t r = b * kThinMaximumRows, rows = std::min(kThinMaximumRows, m - r);
        if (!thinWeightGradient(parts.data_ptr<float>() + b * n * k, g.data_ptr<float>() + r * n,
                                x.data_ptr<float>() + r * k, rows, n, k)) {
            auto part = parts[b];
            at::mm_out(part, g.slice(0, r, r + rows).t(), x.slice(0, r, r + rows));
        }
    }
    return blocks == 1 ? parts[0] : parts.sum(0);
}

} // namespace

BayesLinearImpl::BayesLinearImpl(int64_t in, int64_t out, double initialLogVariance)
{
    const double bound = 1.0 / std::sqrt(static_cast<double>(in));
    weightMean = register_parameter("weight_mean", torch::empty({out, in}).uniform_(-bound, bound));
    weightLogVar = register_parameter("weight_log_var", torch::full({out, in}, initialLogVariance));
    biasMean = register_parameter("bias_mean", torch::empty({out}).uniform_(-bound, bound));
    biasLogVar = register_parameter("bias_log_var", torch::full({out}, initialLogVariance));
}

torch::Tensor BayesLinearImpl::forwardLocal(const torch::Tensor& x, NormalStream& noise, Trace& t)
{
    torch::NoGradGuard noGrad;
    auto mean = torch::addmm(biasMean, x, weightMean.t());
    t.x = x;
    if (!t.xSquared.defined())
        t.xSquared = x.square();
    // The 1e-16 that keeps sd's gradient finite rides in the bias: one pass fewer.
    auto var = torch::addmm(biasLogVar.exp().add_(1e-16), t.xSquared, weightLogVar.exp().t());
    t.eps = standardNormals(mean, noise);
    t.sd = var.sqrt_();
    return mean.addcmul_(t.sd, t.eps);
}

torch::Tensor BayesLinearImpl::backwardLocal(const Trace& t, const torch::Tensor& dOut, bool inputGradient)
{
    torch::NoGradGuard noGrad;
    // out = m + sd * eps, m = x W^T + b, sd^2 = x^2 s2W^T + s2b, s2 = exp(logVar).
    torch::Tensor dVar;
    if (plainFloats({&dOut, &t.eps, &t.sd})) {
        dVar = torch::empty_like(dOut);
        varianceGradient(dOut.data_ptr<float>(), t.eps.data_ptr<float>(), t.sd.data_ptr<float>(),
                         dVar.data_ptr<float>(), dOut.numel());
    } else {
        dVar = dOut.mul(t.eps).div_(t.sd).mul_(0.5);
    }
    auto varW = weightLogVar.exp();
    auto varB = biasLogVar.exp();
    writeGradient(weightMean, blockedWeightGradient(dOut, t.x));
    writeGradient(biasMean, dOut.sum(0));
    writeGradient(weightLogVar, blockedWeightGradient(dVar, t.xSquared).mul_(varW));
    writeGradient(biasLogVar, dVar.sum(0).mul_(varB));
    if (!inputGradient)
        return {};
    return dOut.mm(weightMean).addcmul_(t.x, dVar.mm(varW), 2.0);
}

torch::Tensor BayesLinearImpl::forwardLocalAutograd(const torch::Tensor& x, NormalStream& noise)
{
    auto mean = torch::addmm(biasMean, x, weightMean.t());
    auto var = torch::addmm(biasLogVar.exp(), x.pow(2), weightLogVar.exp().t());
    return mean + (var + 1e-16).sqrt() * standardNormals(mean, noise);
}

torch::Tensor BayesLinearImpl::forwardSampled(const torch::Tensor& x, at::Generator& generator)
{
    torch::NoGradGuard noGrad;
    auto w = weightMean + (0.5 * weightLogVar).exp() * standardNormalLike(weightMean, generator);
    auto b = biasMean + (0.5 * biasLogVar).exp() * standardNormalLike(biasMean, generator);
    return torch::addmm(b, x, w.t());
}

torch::Tensor BayesLinearImpl::kl(double tauWeight, double tauBias) const
{
    // KL(N(mu, s2) || N(0, 1/tau)) = 0.5 (tau s2 + tau mu^2 - 1 - log(tau s2)).
    auto term = [](double tau, const torch::Tensor& mu, const torch::Tensor& logVar) {
        return 0.5 * (tau * logVar.exp() + tau * mu.pow(2) - 1.0 - std::log(tau) - logVar).sum();
    };
    return term(tauWeight, weightMean, weightLogVar) + term(tauBias, biasMean, biasLogVar);
}

void BayesLinearImpl::addKlGradient(double tauWeight, double tauBias, double scale)
{
    torch::NoGradGuard noGrad;
    // dKL/dmu = tau mu, dKL/dlogVar = 0.5 (tau s2 - 1).
    for (auto [tau, mean, logVar] : {std::tuple{tauWeight, &weightMean, &weightLogVar},
                                     std::tuple{tauBias, &biasMean, &biasLogVar}}) {
        mean->mutable_grad().add_(*mean, scale * tau);
        logVar->mutable_grad().add_(logVar->exp().mul_(tau).sub_(1.0), 0.5 * scale);
    }
}

BayesMlpImpl::BayesMlpImpl(int64_t inputs, std::vector<int64_t> hidden, int64_t classes, double initialLogVariance)
{
    int64_t in = inputs;
    hidden.push_back(classes);
    for (size_t i = 0; i < hidden.size(); ++i) {
        layers.push_back(register_module("layer" + std::to_string(i), BayesLinear(in, hidden[i], initialLogVariance)));
        in = hidden[i];
    }
}

torch::Tensor BayesMlpImpl::forwardLocalAutograd(torch::Tensor x, NormalStream& noise)
{
    for (size_t i = 0; i < layers.size(); ++i) {
        x = layers[i]->forwardLocalAutograd(x, noise);
        if (i + 1 < layers.size())
            x = torch::relu(x);
    }
    return x;
}

torch::Tensor BayesMlpImpl::forwardSampled(torch::Tensor x, at::Generator& generator)
{
    for (size_t i = 0; i < layers.size(); ++i) {
        x = layers[i]->forwardSampled(x, generator);
        if (i + 1 < layers.size())
            x = torch::relu(x);
    }
    return x;
}

torch::Tensor BayesMlpImpl::kl(const BbviPrior& prior) const
{
    torch::Tensor total = torch::zeros({}, layers.front()->weightMean.options());
    for (const auto& l : layers)
        total = total + l->kl(prior.weightPrecision(l->fanIn()), prior.biasPrecision());
    return total;
}

double BayesMlpImpl::lossAndGradients(const torch::Tensor& x, const torch::Tensor& y, const BbviPrior& prior,
                                      double numData, NormalStream& noise, const torch::Tensor& xSquared)
{
    torch::NoGradGuard noGrad;
    std::vector<BayesLinearImpl::Trace> traces(layers.size());
    traces.front().xSquared = xSquared;
    std::vector<torch::Tensor> preActivations;
    torch::Tensor h = x;
    for (size_t i = 0; i < layers.size(); ++i) {
        auto s = layers[i]->forwardLocal(h, noise, traces[i]);
        preActivations.push_back(s);
        h = (i + 1 < layers.size()) ? torch::relu(s) : s;
    }
    auto [nll, dOut] = crossEntropyWithGradient(h, y);
    for (size_t i = layers.size(); i-- > 0;) {
        auto dIn = layers[i]->backwardLocal(traces[i], dOut, /*inputGradient=*/i > 0);
        if (i == 0)
            continue;
        // Through the ReLU: zero where the pre-activation was not positive.
        const auto& pre = preActivations[i - 1];
        if (plainFloats({&dIn, &pre})) {
            throughRelu(dIn.data_ptr<float>(), pre.data_ptr<float>(), dIn.numel());
            dOut = dIn;
        } else {
            dOut = dIn.mul_(pre.gt(0));
        }
    }
    for (auto& l : layers)
        l->addKlGradient(prior.weightPrecision(l->fanIn()), prior.biasPrecision(), 1.0 / numData);
    return nll.item<double>();
}

} // namespace lcs
