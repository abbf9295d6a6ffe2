#pragma once

#include <torch/nn/module.h>

namespace lcs {

/// Makes every parameter of a module a view into one contiguous buffer, with gradients
/// likewise views into one gradient buffer. An optimizer given the single flat tensor
/// then updates all parameters with a handful of element-wise ops instead of a handful
/// per parameter tensor: on the small networks of the synthetic experiment the
/// per-tensor optimizer overhead was as large as the forward and backward passes.
///
/// Gradients must be written in place (see writeGradient). Call release() (or let the
/// object go) before the module outlives it if each parameter should own its storage.
class FlatParameters {
public:
    explicit FlatParameters(torch::nn::Module& module);
    ~FlatParameters();
    FlatParameters(const FlatParameters&) = delete;
    FlatParameters& operator=(const FlatParameters&) = delete;

    /// The flat leaf tensor to hand to an optimizer; its .grad() is the gradient buffer.
    torch::Tensor& tensor() { return m_flat; }
    int64_t size() const { return m_flat.numel(); }

    /// Gives every parameter its own storage again (values kept).
    void release();

private:
    torch::nn::Module* m_module = nullptr;
    torch::Tensor m_flat;
};

/// Writes `value` into p's gradient: in place when p already has one (a view into a
/// FlatParameters buffer must stay a view), otherwise assigns it.
void writeGradient(torch::Tensor& p, const torch::Tensor& value);

} // namespace lcs
