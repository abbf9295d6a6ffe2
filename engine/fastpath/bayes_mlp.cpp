#include "fastpath/bayes_mlp.h"

#include <cmath>
#include <tuple>

#include <torch/torch.h>

#include "fastpath/flat_parameters.h"
#include "fastpath/mlp_backward.h"
#include "models/mlp.h"

namespace lcs {

BayesLinearImpl::BayesLinearImpl(int64_t in, int64_t out, double initialLogVariance)
{
    const double bound = 1.0 / std::sqrt(static_cast<double>(in));
    weightMean = register_parameter("weight_mean", torch::empty({out, in}).uniform_(-bound, bound));
    weightLogVar = register_parameter("weight_log_var", torch::full({out, in}, initialLogVariance));
    biasMean = register_parameter("bias_mean", torch::empty({out}).uniform_(-bound, bound));
    biasLogVar = register_parameter("bias_log_var", torch::full({out}, initialLogVariance));
}

torch::Tensor BayesLinearImpl::forwardLocal(const torch::Tensor& x, at::Generator& generator, Trace& t)
{
    torch::NoGradGuard noGrad;
    auto mean = torch::addmm(biasMean, x, weightMean.t());
    auto var = torch::addmm(biasLogVar.exp(), x.pow(2), weightLogVar.exp().t());
    t.x = x;
    t.eps = standardNormalLike(mean, generator);
    t.sd = var.add_(1e-16).sqrt_();
    return mean.addcmul_(t.sd, t.eps);
}

torch::Tensor BayesLinearImpl::backwardLocal(const Trace& t, const torch::Tensor& dOut)
{
    torch::NoGradGuard noGrad;
    // out = m + sd * eps, m = x W^T + b, sd^2 = x^2 s2W^T + s2b, s2 = exp(logVar).
    auto dVar = dOut * t.eps / (2.0 * t.sd);
    auto varW = weightLogVar.exp();
    auto varB = biasLogVar.exp();
    writeGradient(weightMean, dOut.t().mm(t.x));
    writeGradient(biasMean, dOut.sum(0));
    writeGradient(weightLogVar, dVar.t().mm(t.x.pow(2)).mul_(varW));
    writeGradient(biasLogVar, dVar.sum(0).mul_(varB));
    return dOut.mm(weightMean).add_(2.0 * t.x * dVar.mm(varW));
}

torch::Tensor BayesLinearImpl::forwardLocalAutograd(const torch::Tensor& x, at::Generator& generator)
{
    auto mean = torch::addmm(biasMean, x, weightMean.t());
    auto var = torch::addmm(biasLogVar.exp(), x.pow(2), weightLogVar.exp().t());
    return mean + (var + 1e-16).sqrt() * standardNormalLike(mean, generator);
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

torch::Tensor BayesMlpImpl::forwardLocalAutograd(torch::Tensor x, at::Generator& generator)
{
    for (size_t i = 0; i < layers.size(); ++i) {
        x = layers[i]->forwardLocalAutograd(x, generator);
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
                                      double numData, at::Generator& generator)
{
    torch::NoGradGuard noGrad;
    std::vector<BayesLinearImpl::Trace> traces(layers.size());
    std::vector<torch::Tensor> preActivations;
    torch::Tensor h = x;
    for (size_t i = 0; i < layers.size(); ++i) {
        auto s = layers[i]->forwardLocal(h, generator, traces[i]);
        preActivations.push_back(s);
        h = (i + 1 < layers.size()) ? torch::relu(s) : s;
    }
    auto [nll, dOut] = crossEntropyWithGradient(h, y);
    for (size_t i = layers.size(); i-- > 0;) {
        auto dIn = layers[i]->backwardLocal(traces[i], dOut);
        if (i > 0)
            dOut = dIn.mul_(preActivations[i - 1].gt(0));
    }
    for (auto& l : layers)
        l->addKlGradient(prior.weightPrecision(l->fanIn()), prior.biasPrecision(), 1.0 / numData);
    return nll.item<double>();
}

} // namespace lcs
