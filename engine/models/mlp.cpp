#include "engine/models/mlp.h"

#include <algorithm>
#include <cmath>
#include <mutex>

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

void MlpImpl::setInputStandardisation(const std::vector<double>& mean, const std::vector<double>& std)
{
    TORCH_CHECK(mean.size() == std.size() && (mean.empty() || static_cast<int64_t>(mean.size()) == inputs),
                "Mlp: one mean and one std per input feature are needed");
    if (mean.empty()) {
        inputMean = inputStd = at::Tensor();
        return;
    }
    inputMean = torch::tensor(mean, torch::kDouble).to(torch::kFloat);
    inputStd = torch::tensor(std, torch::kDouble).to(torch::kFloat);
}

at::Tensor MlpImpl::standardise(const at::Tensor& x) const
{
    if (!inputMean.defined())
        return x;
    return (x - inputMean.to(x.device())) / inputStd.to(x.device());
}

torch::Tensor MlpImpl::forward(torch::Tensor x)
{
    x = standardise(x);
    const size_t n = m_layers->size();
    for (size_t i = 0; i < n; ++i) {
        x = m_layers[i]->as<torch::nn::LinearImpl>()->forward(x);
        if (i + 1 < n)
            x = torch::relu(x);
    }
    return x;
}

std::vector<torch::nn::Linear> MlpImpl::linearLayers() const
{
    std::vector<torch::nn::Linear> out;
    for (const auto& m : *m_layers)
        out.emplace_back(std::dynamic_pointer_cast<torch::nn::LinearImpl>(m));
    return out;
}

InputStandardisation fitInputStandardisation(const torch::Tensor& x)
{
    const auto xd = x.to(torch::kDouble).contiguous();
    const auto mean = xd.mean(0).contiguous();
    const auto std = xd.std(0, /*unbiased=*/false).contiguous();
    InputStandardisation s;
    for (int64_t j = 0; j < x.size(1); ++j) {
        s.mean.push_back(mean.data_ptr<double>()[j]);
        const double v = std.data_ptr<double>()[j];
        // A constant column keeps its scale rather than being divided by zero.
        s.std.push_back(v > 1e-6 * std::max(1.0, std::abs(s.mean.back())) ? v : 1.0);
    }
    return s;
}

torch::Tensor applyInputStandardisation(const InputStandardisation& fit, const torch::Tensor& x)
{
    if (fit.mean.empty())
        return x;
    const auto m = torch::tensor(fit.mean, torch::kDouble), s = torch::tensor(fit.std, torch::kDouble);
    return ((x.to(torch::kDouble) - m.to(x.device())) / s.to(x.device())).to(torch::kFloat);
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

uint64_t drawSeed(at::Generator& generator)
{
    std::lock_guard<std::mutex> lock(generator.mutex());
    return generator.get<at::CPUGeneratorImpl>()->random64();
}

torch::Tensor standardNormalLike(const torch::Tensor& like, at::Generator& generator)
{
    auto z = torch::empty(like.sizes(), torch::dtype(torch::kFloat)).normal_(0.0, 1.0, generator);
    return z.to(like.device(), like.scalar_type());
}

} // namespace lcs
