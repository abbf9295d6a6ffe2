#include "models/mlp.h"

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
