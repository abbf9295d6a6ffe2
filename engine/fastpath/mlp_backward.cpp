#include "fastpath/mlp_backward.h"

#include <torch/torch.h>

#include "core/thin_gemm.h"
#include "fastpath/flat_parameters.h"

namespace lcs {
namespace {

bool thinOperands(std::initializer_list<const at::Tensor*> tensors)
{
    for (const auto* t : tensors)
        if (!t->defined() || t->scalar_type() != at::kFloat || !t->is_contiguous() || t->device().type() != at::kCPU)
            return false;
    return true;
}

/// h W^T + b: at a minibatch's thin shapes by the thin kernels where they apply, else
/// LibTorch's product.
at::Tensor linearForward(const at::Tensor& h, const at::Tensor& weight, const at::Tensor& bias)
{
    // Shapes that do not fit go to LibTorch, which says what is wrong.
    if (thinOperands({&h, &weight, &bias}) && h.dim() == 2 && weight.dim() == 2 && bias.dim() == 1 &&
        h.size(1) == weight.size(1) && bias.size(0) == weight.size(0)) {
        auto out = at::empty({h.size(0), weight.size(0)}, h.options());
        if (thinLinearForward(out.data_ptr<float>(), h.data_ptr<float>(), weight.data_ptr<float>(),
                              bias.data_ptr<float>(), h.size(0), weight.size(0), weight.size(1)))
            return out;
    }
    return torch::addmm(bias, h, weight.t());
}

/// into = dS^T h, the weight gradient summed over the rows.
void weightGradientInto(at::Tensor& into, const at::Tensor& dS, const at::Tensor& h)
{
    if (thinOperands({&into, &dS, &h}) && into.dim() == 2 && dS.dim() == 2 && h.dim() == 2 &&
        dS.size(0) == h.size(0) && into.size(0) == dS.size(1) && into.size(1) == h.size(1) &&
        thinWeightGradient(into.data_ptr<float>(), dS.data_ptr<float>(), h.data_ptr<float>(), h.size(0),
                           dS.size(1), h.size(1))) {
        into.unsafeGetTensorImpl()->bump_version();  // written in place, as mm_out would say
        return;
    }
    at::mm_out(into, dS.t(), h);
}

} // namespace

MlpTrace traceMlp(MlpImpl& mlp, const at::Tensor& x)
{
    torch::NoGradGuard noGrad;
    const auto layers = mlp.linearLayers();
    MlpTrace t;
    at::Tensor h = mlp.standardise(x);
    for (size_t i = 0; i < layers.size(); ++i) {
        t.inputs.push_back(h);
        auto s = linearForward(h, layers[i]->weight, layers[i]->bias);
        t.preActivations.push_back(s);
        h = (i + 1 < layers.size()) ? torch::relu(s) : s;
    }
    t.logits = h;
    return t;
}

std::vector<at::Tensor> backpropagateMlp(MlpImpl& mlp, const MlpTrace& t, const at::Tensor& dLogits)
{
    torch::NoGradGuard noGrad;
    const auto layers = mlp.linearLayers();
    const size_t n = layers.size();
    std::vector<at::Tensor> dS(n);
    dS[n - 1] = dLogits;
    for (size_t i = n - 1; i > 0; --i) {
        // dL/dh_{i-1} = dS_i W_i, then through the ReLU: zero where the pre-activation was <= 0.
        dS[i - 1] = dS[i].mm(layers[i]->weight).mul_(t.preActivations[i - 1].gt(0));
    }
    return dS;
}

void setMlpGradients(MlpImpl& mlp, const MlpTrace& t, const std::vector<at::Tensor>& dS)
{
    torch::NoGradGuard noGrad;
    auto layers = mlp.linearLayers();
    for (size_t i = 0; i < dS.size(); ++i) {
        auto& weight = layers[i]->weight;
        auto& bias = layers[i]->bias;
        // Straight into gradient buffers that exist (views into a flat buffer): no copy.
        if (weight.grad().defined() && weight.grad().is_contiguous())
            weightGradientInto(weight.mutable_grad(), dS[i], t.inputs[i]);
        else
            writeGradient(weight, dS[i].t().mm(t.inputs[i]));
        if (bias.grad().defined() && bias.grad().is_contiguous())
            at::sum_out(bias.mutable_grad(), dS[i], {0});
        else
            writeGradient(bias, dS[i].sum(0));
    }
}

std::pair<at::Tensor, at::Tensor> crossEntropyWithGradient(const at::Tensor& logits, const at::Tensor& labels)
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

double crossEntropyGradients(MlpImpl& mlp, const at::Tensor& x, const at::Tensor& y)
{
    const auto trace = traceMlp(mlp, x);
    const auto [loss, dLogits] = crossEntropyWithGradient(trace.logits, y);
    setMlpGradients(mlp, trace, backpropagateMlp(mlp, trace, dLogits));
    return loss.item<double>();
}

} // namespace lcs
