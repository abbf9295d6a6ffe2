#include "engine/fastpath/mlp_backward.h"

#include <algorithm>
#include <cmath>

#include <torch/torch.h>

#include "engine/core/thin_gemm.h"
#include "engine/fastpath/flat_parameters.h"

namespace lcs {

bool plainFloats(std::initializer_list<const at::Tensor*> tensors)
{
    for (const auto* t : tensors)
        if (!t->defined() || t->scalar_type() != at::kFloat || !t->is_contiguous() || t->device().type() != at::kCPU)
            return false;
    return true;
}

namespace {

bool plainFloat(const at::Tensor& t)
{
    return plainFloats({&t});
}

// The element-wise work around the products, as plain loops where the tensors are plain
// float arrays: at a minibatch's sizes LibTorch's dispatch and allocation for each of
// these small operations cost more than the arithmetic (about a tenth of a distillation
// step, docs/benchmarks.md).

/// s <- max(s, 0) in place; NaN stays NaN, as in LibTorch's relu (a diverging network
/// must still show in its loss).
void reluInPlace(at::Tensor& s)
{
    if (!plainFloat(s)) {
        s.relu_();
        return;
    }
    float* v = s.data_ptr<float>();
    for (int64_t i = 0, n = s.numel(); i < n; ++i)
        v[i] = 0.0f > v[i] ? 0.0f : v[i];  // this form GCC vectorises (a compare and a select)
}

/// d <- d where h > 0, else 0: the ReLU's backward, h being its output, as autograd's
/// (a select, not a product with the mask: 0 where d is infinite, too).
void passWherePositive(at::Tensor& d, const at::Tensor& h)
{
    if (!plainFloat(d) || !plainFloat(h) || d.sizes() != h.sizes()) {
        d.mul_(h.gt(0));
        return;
    }
    float* g = d.data_ptr<float>();
    const float* out = h.data_ptr<float>();
    for (int64_t i = 0, n = d.numel(); i < n; ++i)
        g[i] = out[i] > 0.0f ? g[i] : 0.0f;
}

/// out[i][r] <- out[i][r] + bias[i] over a layer kept with its units as rows, then the
/// ReLU (NaN kept) where `relu`.
void addBiasByUnits(at::Tensor& out, const at::Tensor& bias, bool relu)
{
    if (!plainFloat(out) || !plainFloat(bias) || out.dim() != 2 || bias.dim() != 1 || bias.size(0) != out.size(0)) {
        out.add_(bias.unsqueeze(1));
        if (relu)
            out.relu_();
        return;
    }
    const int64_t units = out.size(0), rows = out.size(1);
    const float* b = bias.data_ptr<float>();
    for (int64_t i = 0; i < units; ++i) {
        float* v = out.data_ptr<float>() + i * rows;
        const float add = b[i];
        if (relu)
            for (int64_t r = 0; r < rows; ++r)
                v[r] = 0.0f > v[r] + add ? 0.0f : v[r] + add;
        else
            for (int64_t r = 0; r < rows; ++r)
                v[r] += add;
    }
}

/// into[j] = sum_r d[r][j], the bias gradient.
void columnSumsInto(at::Tensor& into, const at::Tensor& d)
{
    if (!plainFloat(into) || !plainFloat(d) || d.dim() != 2 || into.dim() != 1 || into.size(0) != d.size(1)) {
        at::sum_out(into, d, {0});
        return;
    }
    const int64_t rows = d.size(0), cols = d.size(1);
    float* sum = into.data_ptr<float>();
    const float* v = d.data_ptr<float>();
    std::fill(sum, sum + cols, 0.0f);
    for (int64_t r = 0; r < rows; ++r)
        for (int64_t j = 0; j < cols; ++j)
            sum[j] += v[r * cols + j];
    into.unsafeGetTensorImpl()->bump_version();
}

/// Over the rows of plain float logits [rows, C > 0]: row r's gradient row d first holds
/// exp(l_c - m), m the row's largest logit; rowLoss(r, l, d, sum of d, log-sum-exp of l)
/// then makes d the row's gradient and returns the row's loss. Returns the mean loss and
/// the gradient.
template <typename RowLoss>
std::pair<double, at::Tensor> softmaxRows(const at::Tensor& logits, RowLoss rowLoss)
{
    const int64_t rows = logits.size(0), classes = logits.size(1);
    auto grad = at::empty_like(logits);
    const float* l = logits.data_ptr<float>();
    float* g = grad.data_ptr<float>();
    double loss = 0;
    for (int64_t r = 0; r < rows; ++r) {
        const float* row = l + r * classes;
        float* d = g + r * classes;
        float top = row[0];
        for (int64_t c = 1; c < classes; ++c)
            top = std::max(top, row[c]);
        float sum = 0;
        for (int64_t c = 0; c < classes; ++c) {
            d[c] = std::exp(row[c] - top);
            sum += d[c];
        }
        loss += rowLoss(r, row, d, sum, top + std::log(sum));
    }
    return {loss / static_cast<double>(rows), grad};
}

/// h W^T + b: at a minibatch's thin shapes by the thin kernels where they apply, else
/// LibTorch's product.
at::Tensor linearForward(const at::Tensor& h, const at::Tensor& weight, const at::Tensor& bias)
{
    // Shapes that do not fit go to LibTorch, which says what is wrong.
    if (plainFloats({&h, &weight, &bias}) && h.dim() == 2 && weight.dim() == 2 && bias.dim() == 1 &&
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
    if (plainFloats({&into, &dS, &h}) && into.dim() == 2 && dS.dim() == 2 && h.dim() == 2 &&
        dS.size(0) == h.size(0) && into.size(0) == dS.size(1) && into.size(1) == h.size(1) &&
        thinWeightGradient(into.data_ptr<float>(), dS.data_ptr<float>(), h.data_ptr<float>(), h.size(0),
                           dS.size(1), h.size(1))) {
        into.unsafeGetTensorImpl()->bump_version();  // written in place, as mm_out would say
        return;
    }
    at::mm_out(into, dS.t(), h);
}

/// dS W, the gradient with respect to a layer's input.
at::Tensor inputGradient(const at::Tensor& dS, const at::Tensor& weight)
{
    if (plainFloats({&dS, &weight}) && dS.dim() == 2 && weight.dim() == 2 && dS.size(1) == weight.size(0)) {
        auto out = at::empty({dS.size(0), weight.size(1)}, dS.options());
        if (thinInputGradient(out.data_ptr<float>(), dS.data_ptr<float>(), weight.data_ptr<float>(), dS.size(0),
                              weight.size(0), weight.size(1)))
            return out;
    }
    return dS.mm(weight);
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
        h = linearForward(h, layers[i]->weight, layers[i]->bias);  // a fresh tensor
        if (i + 1 < layers.size())
            reluInPlace(h);
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
        // dL/dh_{i-1} = dS_i W_i, then through the ReLU: zero where its output, layer i's
        // input, is not positive.
        dS[i - 1] = inputGradient(dS[i], layers[i]->weight);
        passWherePositive(dS[i - 1], t.inputs[i]);
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
            columnSumsInto(bias.mutable_grad(), dS[i]);
        else
            writeGradient(bias, dS[i].sum(0));
    }
}

std::pair<at::Tensor, at::Tensor> crossEntropyWithGradient(const at::Tensor& logits, const at::Tensor& labels)
{
    torch::NoGradGuard noGrad;
    if (plainFloat(logits) && logits.dim() == 2 && labels.defined() && labels.scalar_type() == at::kLong &&
        labels.is_cpu() && labels.is_contiguous() && labels.dim() == 1 && labels.size(0) == logits.size(0) &&
        logits.size(0) > 0 && logits.size(1) > 0) {
        const int64_t classes = logits.size(1);
        const int64_t* y = labels.data_ptr<int64_t>();
        const float perRow = 1.0f / static_cast<float>(logits.size(0));
        const auto [loss, grad] = softmaxRows(logits, [&](int64_t r, const float* row, float* d, float sum,
                                                          float logSum) {
            TORCH_CHECK(y[r] >= 0 && y[r] < classes, "cross-entropy: label ", y[r], " of row ", r, " is not one of ",
                        classes, " classes");
            // The gradient (softmax - onehot) / rows; the loss -log softmax(l)_y.
            const float scale = perRow / sum;
            for (int64_t c = 0; c < classes; ++c)
                d[c] *= scale;
            d[y[r]] -= perRow;
            return -static_cast<double>(row[y[r]] - logSum);
        });
        return {at::scalar_tensor(loss, logits.options()), grad};
    }
    auto logProbs = torch::log_softmax(logits, 1);
    auto picked = logProbs.gather(1, labels.unsqueeze(1));
    auto loss = -picked.mean();
    auto grad = logProbs.exp();
    grad.scatter_add_(1, labels.unsqueeze(1), torch::full_like(picked, -1.0));
    grad.div_(static_cast<double>(logits.size(0)));
    return {loss, grad};
}

std::pair<double, at::Tensor> softCrossEntropyWithGradient(const at::Tensor& logits, const at::Tensor& targets)
{
    torch::NoGradGuard noGrad;
    TORCH_CHECK(logits.dim() == 2 && logits.sizes() == targets.sizes() && logits.size(0) > 0 && logits.size(1) > 0,
                "soft cross-entropy: logits ", logits.sizes(), " against targets ", targets.sizes());
    const int64_t rows = logits.size(0), classes = logits.size(1);
    if (!plainFloat(logits) || !plainFloat(targets)) {
        const auto logProbs = torch::log_softmax(logits, 1);
        const double loss = -(targets * logProbs).sum(1).mean().item<double>();
        return {loss, logProbs.exp().sub_(targets).div_(static_cast<double>(rows))};
    }
    const float* t = targets.data_ptr<float>();
    const float perRow = 1.0f / static_cast<float>(rows);
    return softmaxRows(logits, [&](int64_t r, const float* row, float* d, float sum, float logSum) {
        // The gradient (softmax - target) / rows; the loss -sum_c target_c log softmax(l)_c.
        const float* target = t + r * classes;
        float rowLoss = 0;
        for (int64_t c = 0; c < classes; ++c) {
            rowLoss -= target[c] * (row[c] - logSum);
            d[c] = (d[c] / sum - target[c]) * perRow;
        }
        return static_cast<double>(rowLoss);
    });
}

at::Tensor rowSoftmax(const at::Tensor& logits)
{
    torch::NoGradGuard noGrad;
    if (!plainFloat(logits) || logits.dim() != 2 || logits.size(0) == 0 || logits.size(1) == 0)
        return torch::softmax(logits, 1);
    const int64_t classes = logits.size(1);
    return softmaxRows(logits, [classes](int64_t, const float*, float* d, float sum, float) {
               for (int64_t c = 0; c < classes; ++c)
                   d[c] /= sum;
               return 0.0;
           })
        .second;
}

at::Tensor unitsProduct(const at::Tensor& a, bool transposeA, const at::Tensor& b)
{
    const int64_t m = transposeA ? a.size(1) : a.size(0), k = b.size(0), n = b.size(1);
    if (plainFloats({&a, &b}) && a.dim() == 2 && b.dim() == 2 && (transposeA ? a.size(0) : a.size(1)) == k) {
        auto c = at::empty({m, n}, b.options());
        if (thinProduct(c.data_ptr<float>(), a.data_ptr<float>(), transposeA ? 1 : k, transposeA ? m : 1,
                        b.data_ptr<float>(), m, n, k))
            return c;
    }
    return (transposeA ? a.t() : a).mm(b);
}

bool FullBatchGradients::keeps(MlpImpl& mlp, const at::Tensor& x)
{
    if (!plainFloat(x) || x.dim() != 2 || x.size(0) <= kThinMaximumRows || !thinGemmAvailable())
        return false;
    const bool same = m_kept.defined() && m_kept.data_ptr() == x.data_ptr() && m_kept.sizes() == x.sizes() &&
                      m_keptVersion == static_cast<int64_t>(x._version());
    if (!same) {
        torch::NoGradGuard noGrad;
        m_kept = x;
        m_keptVersion = static_cast<int64_t>(x._version());
        m_rows = mlp.standardise(x).contiguous();
        m_transposed = m_rows.t().contiguous();
    }
    return true;
}

double FullBatchGradients::operator()(MlpImpl& mlp, const at::Tensor& x, const at::Tensor& y)
{
    if (!keeps(mlp, x))
        return crossEntropyGradients(mlp, x, y);
    torch::NoGradGuard noGrad;
    auto layers = mlp.linearLayers();
    const size_t n = layers.size();
    // Each layer's input, [in x rows]; a hidden one is the ReLU's output.
    std::vector<at::Tensor> inputs{m_transposed};
    at::Tensor h = m_transposed;
    for (size_t i = 0; i < n; ++i) {
        h = unitsProduct(layers[i]->weight, false, h);
        addBiasByUnits(h, layers[i]->bias, /*relu=*/i + 1 < n);
        if (i + 1 < n)
            inputs.push_back(h);
    }
    const auto [loss, dLogits] = crossEntropyWithGradient(h.t().contiguous(), y);
    at::Tensor d = dLogits.t().contiguous();  // dLoss/dS of the last layer, [classes x rows]
    for (size_t i = n; i-- > 0;) {
        // The first layer's weight gradient from the inputs' rows (the thin kernel's
        // operand as it lies); a hidden layer's, a small product, from the BLAS.
        writeGradient(layers[i]->weight, i == 0 ? unitsProduct(d, false, m_rows) : d.mm(inputs[i].t()));
        writeGradient(layers[i]->bias, d.sum(1));
        if (i == 0)
            break;
        d = unitsProduct(layers[i]->weight, true, d);
        passWherePositive(d, inputs[i]);
    }
    return loss.item<double>();
}

double crossEntropyGradients(MlpImpl& mlp, const at::Tensor& x, const at::Tensor& y)
{
    const auto trace = traceMlp(mlp, x);
    const auto [loss, dLogits] = crossEntropyWithGradient(trace.logits, y);
    setMlpGradients(mlp, trace, backpropagateMlp(mlp, trace, dLogits));
    return loss.item<double>();
}

} // namespace lcs
