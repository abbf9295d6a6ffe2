#include "engine/fastpath/bayes_mlp.h"

#include <cmath>
#include <tuple>

#include <torch/torch.h>

#include "engine/core/thin_gemm.h"
#include "engine/fastpath/flat_parameters.h"
#include "engine/fastpath/mlp_backward.h"
#include "engine/models/mlp.h"

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

/// d = 0 where the ReLU's output a is not positive (the gradient through a ReLU).
__attribute__((target_clones("avx512f", "avx2", "default"))) void
throughRelu(float* __restrict d, const float* __restrict a, int64_t n)
{
    for (int64_t i = 0; i < n; ++i)
        d[i] = a[i] > 0.0f ? d[i] : 0.0f;
}

/// The local reparameterisation's output, in place and unit by unit (the rows of the
/// units-as-rows layout): sd = sqrt(var + varBias), out = mean + meanBias + sd eps, then
/// the ReLU where `relu`. var's storage becomes sd's. One pass where LibTorch's ops made
/// four.
__attribute__((target_clones("avx512f", "avx2", "default"))) void
reparameterise(float* __restrict mean, float* __restrict var, const float* __restrict eps,
               const float* __restrict meanBias, const float* __restrict varBias, int64_t units, int64_t rows,
               bool relu)
{
    for (int64_t i = 0; i < units; ++i) {
        float* __restrict out = mean + i * rows;
        float* __restrict sd = var + i * rows;
        const float* __restrict e = eps + i * rows;
        const float b = meanBias[i], vb = varBias[i];
        for (int64_t r = 0; r < rows; ++r) {
            sd[r] = std::sqrt(sd[r] + vb);
            out[r] = (out[r] + b) + sd[r] * e[r];
        }
        if (relu)
            for (int64_t r = 0; r < rows; ++r)
                out[r] = 0.0f > out[r] ? 0.0f : out[r];  // NaN kept, as LibTorch's relu keeps it
    }
}

/// g x summed over the rows ([out x in] for g [out x rows]): through the thin kernel
/// from x's rows where the trace holds them, else the BLAS on x^T's transpose.
torch::Tensor weightGradient(const torch::Tensor& gT, const torch::Tensor& rows, const torch::Tensor& transposed)
{
    return rows.defined() ? unitsProduct(gT, false, rows) : gT.mm(transposed.t());
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

torch::Tensor BayesLinearImpl::forwardLocal(NormalStream& noise, Trace& t, bool relu)
{
    torch::NoGradGuard noGrad;
    auto outT = unitsProduct(weightMean, false, t.xT);
    auto sdT = unitsProduct(weightLogVar.exp(), false, t.xSquaredT);
    t.epsT = standardNormals(outT, noise);
    // The 1e-16 keeps sd's gradient finite where every variance underflows.
    const auto varBias = biasLogVar.exp().add_(1e-16);
    if (plainFloats({&outT, &sdT, &t.epsT, &biasMean, &varBias})) {
        reparameterise(outT.data_ptr<float>(), sdT.data_ptr<float>(), t.epsT.data_ptr<float>(),
                       biasMean.data_ptr<float>(), varBias.data_ptr<float>(), outT.size(0), outT.size(1), relu);
    } else {
        sdT.add_(varBias.unsqueeze(1)).sqrt_();
        outT.add_(biasMean.unsqueeze(1)).addcmul_(sdT, t.epsT);
        if (relu)
            outT.relu_();
    }
    t.sdT = sdT;
    return outT;
}

torch::Tensor BayesLinearImpl::backwardLocal(const Trace& t, const torch::Tensor& dOutT, bool inputGradient)
{
    torch::NoGradGuard noGrad;
    // out = m + sd * eps, m = W x + b, sd^2 = s2W x^2 + s2b, s2 = exp(logVar) (units as rows).
    torch::Tensor dVarT;
    if (plainFloats({&dOutT, &t.epsT, &t.sdT})) {
        dVarT = torch::empty_like(dOutT);
        varianceGradient(dOutT.data_ptr<float>(), t.epsT.data_ptr<float>(), t.sdT.data_ptr<float>(),
                         dVarT.data_ptr<float>(), dOutT.numel());
    } else {
        dVarT = dOutT.mul(t.epsT).div_(t.sdT).mul_(0.5);
    }
    auto varW = weightLogVar.exp();
    auto varB = biasLogVar.exp();
    writeGradient(weightMean, weightGradient(dOutT, t.x, t.xT));
    writeGradient(biasMean, dOutT.sum(1));
    writeGradient(weightLogVar, weightGradient(dVarT, t.xSquared, t.xSquaredT).mul_(varW));
    writeGradient(biasLogVar, dVarT.sum(1).mul_(varB));
    if (!inputGradient)
        return {};
    return unitsProduct(weightMean, true, dOutT).addcmul_(t.xT, unitsProduct(varW, true, dVarT), 2.0);
}

torch::Tensor BayesLinearImpl::forwardLocalAutograd(const torch::Tensor& x, NormalStream& noise)
{
    auto mean = torch::addmm(biasMean, x, weightMean.t());
    auto var = torch::addmm(biasLogVar.exp(), x.pow(2), weightLogVar.exp().t());
    // Drawn unit by unit, as the fast path's units-as-rows layout draws them.
    return mean + (var + 1e-16).sqrt() * standardNormals(mean.t(), noise).t();
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

BbviInputs::BbviInputs(const torch::Tensor& rows)
    : x(rows.contiguous()), xSquared(x.square()), xT(x.t().contiguous()), xSquaredT(xSquared.t().contiguous())
{
}

double BayesMlpImpl::lossAndGradients(const BbviInputs& inputs, const torch::Tensor& y, const BbviPrior& prior,
                                      double numData, NormalStream& noise)
{
    torch::NoGradGuard noGrad;
    std::vector<BayesLinearImpl::Trace> traces(layers.size());
    traces.front().x = inputs.x;
    traces.front().xSquared = inputs.xSquared;
    traces.front().xT = inputs.xT;
    traces.front().xSquaredT = inputs.xSquaredT;
    torch::Tensor hT;
    for (size_t i = 0; i < layers.size(); ++i) {
        if (i > 0) {
            traces[i].xT = hT;
            traces[i].xSquaredT = hT.square();
        }
        hT = layers[i]->forwardLocal(noise, traces[i], /*relu=*/i + 1 < layers.size());
    }
    auto [nll, dOut] = crossEntropyWithGradient(hT.t().contiguous(), y);
    torch::Tensor dOutT = dOut.t().contiguous();
    for (size_t i = layers.size(); i-- > 0;) {
        auto dInT = layers[i]->backwardLocal(traces[i], dOutT, /*inputGradient=*/i > 0);
        if (i == 0)
            continue;
        // Through the ReLU: zero where the layer's input (the ReLU's output) is not
        // positive, which is where its pre-activation was not.
        const auto& input = traces[i].xT;
        if (plainFloats({&dInT, &input})) {
            throughRelu(dInT.data_ptr<float>(), input.data_ptr<float>(), dInT.numel());
            dOutT = dInT;
        } else {
            dOutT = dInT.mul_(input.gt(0));
        }
    }
    for (auto& l : layers)
        l->addKlGradient(prior.weightPrecision(l->fanIn()), prior.biasPrecision(), 1.0 / numData);
    return nll.item<double>();
}

} // namespace lcs
