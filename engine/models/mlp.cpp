#include "models/mlp.h"

#include "models/flat_parameters.h"

#include <cmath>

#include <ATen/CPUGeneratorImpl.h>
#include <torch/nn/functional/activation.h>
#include <torch/torch.h>

namespace lcs {

MlpImpl::MlpImpl(int64_t inputs_, std::vector<int64_t> hidden_, int64_t classes_)
    : inputs(inputs_), hidden(std::move(hidden_)), classes(classes_)
{
    TORCH_CHECK(inputs > 0 && classes > 0, "Mlp needs positive input and class counts");
    int64_t in = inputs;
    for (int64_t h : hidden) {
        TORCH_CHECK(h > 0, "Mlp hidden layer sizes must be positive");
        m_layers->push_back(torch::nn::Linear(in, h));
        in = h;
    }
    m_layers->push_back(torch::nn::Linear(in, classes));
    register_module("layers", m_layers);
}

torch::Tensor MlpImpl::forward(torch::Tensor x)
{
    const size_t n = m_layers->size();
    for (size_t i = 0; i < n; ++i) {
        x = m_layers[i]->as<torch::nn::LinearImpl>()->forward(x);
        if (i + 1 < n)
            x = torch::relu(x);
    }
    return x;
}

MlpImpl::Trace MlpImpl::trace(const torch::Tensor& x)
{
    torch::NoGradGuard noGrad;
    Trace t;
    torch::Tensor h = x;
    const size_t n = m_layers->size();
    for (size_t i = 0; i < n; ++i) {
        auto* layer = m_layers[i]->as<torch::nn::LinearImpl>();
        t.inputs.push_back(h);
        auto s = torch::addmm(layer->bias, h, layer->weight.t());
        t.preActivations.push_back(s);
        h = (i + 1 < n) ? torch::relu(s) : s;
    }
    t.logits = h;
    return t;
}

std::vector<torch::Tensor> MlpImpl::backpropagate(const Trace& t, const torch::Tensor& dLogits)
{
    torch::NoGradGuard noGrad;
    const size_t n = m_layers->size();
    std::vector<torch::Tensor> dS(n);
    dS[n - 1] = dLogits;
    for (size_t i = n - 1; i > 0; --i) {
        auto* layer = m_layers[i]->as<torch::nn::LinearImpl>();
        // dL/dh_{i-1} = dS_i W_i, then through the ReLU: zero where the pre-activation was <= 0.
        dS[i - 1] = dS[i].mm(layer->weight).mul_(t.preActivations[i - 1].gt(0));
    }
    return dS;
}

void MlpImpl::setGradients(const Trace& t, const std::vector<torch::Tensor>& dS)
{
    torch::NoGradGuard noGrad;
    for (size_t i = 0; i < dS.size(); ++i) {
        auto* layer = m_layers[i]->as<torch::nn::LinearImpl>();
        writeGradient(layer->weight, dS[i].t().mm(t.inputs[i]));
        writeGradient(layer->bias, dS[i].sum(0));
    }
}

std::pair<torch::Tensor, torch::Tensor> crossEntropyWithGradient(const torch::Tensor& logits, const torch::Tensor& labels)
{
    torch::NoGradGuard noGrad;
    auto logProbs = torch::log_softmax(logits, 1);
    auto picked = logProbs.gather(1, labels.unsqueeze(1));
    auto loss = -picked.mean();
    auto grad = logProbs.exp();
    grad.scatter_add_(1, labels.unsqueeze(1), torch::full_like(picked, -1.0));
    grad.div_(static_cast<double>(logits.size(0)));
    return {loss, grad};
}

std::vector<torch::nn::Linear> MlpImpl::linearLayers() const
{
    std::vector<torch::nn::Linear> out;
    for (const auto& m : *m_layers)
        out.emplace_back(std::dynamic_pointer_cast<torch::nn::LinearImpl>(m));
    return out;
}

void initialiseFrom(torch::nn::Module& module, at::Generator& generator)
{
    torch::NoGradGuard noGrad;
    for (auto& m : module.modules(/*include_self=*/true)) {
        auto* linear = m->as<torch::nn::LinearImpl>();
        if (!linear)
            continue;
        const double fanIn = static_cast<double>(linear->weight.size(1));
        // kaiming_uniform_(a = sqrt(5)) reduces to U(-1/sqrt(fan_in), 1/sqrt(fan_in)).
        const double bound = 1.0 / std::sqrt(fanIn);
        linear->weight.uniform_(-bound, bound, generator);
        if (linear->bias.defined())
            linear->bias.uniform_(-bound, bound, generator);
    }
}

at::Generator makeGenerator(uint64_t seed)
{
    return at::make_generator<at::CPUGeneratorImpl>(seed);
}

torch::Tensor standardNormalLike(const torch::Tensor& like, at::Generator& generator)
{
    auto z = torch::empty(like.sizes(), torch::dtype(torch::kFloat)).normal_(0.0, 1.0, generator);
    return z.to(like.device(), like.scalar_type());
}

uint64_t mixSeed(uint64_t a, uint64_t b, uint64_t c)
{
    auto splitmix = [](uint64_t x) {
        x += 0x9e3779b97f4a7c15ULL;
        x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
        x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
        return x ^ (x >> 31);
    };
    return splitmix(splitmix(splitmix(a) ^ b) ^ c);
}

} // namespace lcs
