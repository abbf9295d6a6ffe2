#include "engine/fastpath/flat_parameters.h"

#include <torch/torch.h>

namespace lcs {

FlatParameters::FlatParameters(torch::nn::Module& module) : m_module(&module)
{
    auto params = module.parameters();
    TORCH_CHECK(!params.empty(), "FlatParameters: module has no parameters");
    int64_t total = 0;
    for (const auto& p : params)
        total += p.numel();
    torch::NoGradGuard noGrad;
    auto values = torch::empty({total}, params.front().options().requires_grad(false));
    auto grads = torch::zeros({total}, params.front().options().requires_grad(false));
    int64_t offset = 0;
    for (auto& p : params) {
        const int64_t n = p.numel();
        values.narrow(0, offset, n).copy_(p.detach().reshape(-1));
        p.set_data(values.narrow(0, offset, n).view(p.sizes()));
        p.mutable_grad() = grads.narrow(0, offset, n).view(p.sizes());
        offset += n;
    }
    m_flat = values.detach().requires_grad_(true);
    m_flat.mutable_grad() = grads;
}

FlatParameters::~FlatParameters()
{
    release();
}

void FlatParameters::release()
{
    if (!m_module)
        return;
    torch::NoGradGuard noGrad;
    for (auto& p : m_module->parameters()) {
        p.set_data(p.detach().clone());
        p.mutable_grad() = torch::Tensor();
    }
    m_module = nullptr;
}

void writeGradient(torch::Tensor& p, const torch::Tensor& value)
{
    if (p.grad().defined())
        p.mutable_grad().copy_(value);
    else
        p.mutable_grad() = value;
}

} // namespace lcs
