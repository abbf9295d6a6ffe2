#pragma once

#include <initializer_list>
#include <utility>
#include <vector>

#include <ATen/core/Tensor.h>

#include "engine/models/mlp.h"

/// The fast path of the synthetic experiment's small networks: hand-written backward
/// passes that skip the autograd engine, whose fixed cost per call is comparable to the
/// work of a 2-50-2 network. MAP, SGHMC/SGLD, KFAC and the synthetic correction use this
/// path; every other network (the image and segmentation models) trains with autograd
/// (calibration/image_training). Benchmark: bench/bench_fastpath.cpp (lcs_bench_fastpath)
/// times the correction both ways through the same loop on one thread: 1.43-1.46x faster
/// here at the paper's 50 hidden units, 1.11x at 400 (three runs, November 2026), so the
/// path is worth it for the small networks only.
///
/// It applies only to MlpImpl (Linear layers with ReLU between) and to the BBVI network
/// in bayes_mlp.h; the type of the network chooses it. Its contract is the tests that
/// compare every gradient here with autograd on the same expression
/// (tst_inference: mlpHandGradientsMatchAutograd, bbviHandGradientsMatchAutograd, the
/// KFAC factor tests; tst_calibration: the correction's gradient).
namespace lcs {

/// Whether each tensor is a plain float array the hand-written loops and the thin kernels
/// can read as it lies: defined, float, contiguous, in the CPU's memory. Elsewhere (CUDA,
/// double, a strided view) the same steps run as LibTorch ops.
bool plainFloats(std::initializer_list<const at::Tensor*> tensors);

/// What a hand-written backward pass needs: each layer's input. For i >= 1 that is
/// ReLU of layer i-1's output, positive exactly where the ReLU passes gradient on.
struct MlpTrace {
    std::vector<at::Tensor> inputs;          ///< input of layer i
    at::Tensor logits;
};

/// Forward pass without autograd, keeping activations.
MlpTrace traceMlp(MlpImpl& mlp, const at::Tensor& x);

/// Back-propagates dLoss/dLogits [N, C] through the ReLU layers; returns dLoss/dS_i for
/// every layer (row n = sample n's own gradient when the loss is a sum over rows).
std::vector<at::Tensor> backpropagateMlp(MlpImpl& mlp, const MlpTrace& trace, const at::Tensor& dLogits);

/// Sets every weight's and bias's .grad() from per-layer dLoss/dS_i.
void setMlpGradients(MlpImpl& mlp, const MlpTrace& trace, const std::vector<at::Tensor>& dPreActivations);

/// Sets every parameter's .grad() to the gradient of the mean cross-entropy of the
/// network on rows x [N, D] against labels y [N]; returns that cross-entropy.
double crossEntropyGradients(MlpImpl& mlp, const at::Tensor& x, const at::Tensor& y);

/// crossEntropyGradients for a training loop that may pass the same rows step after step
/// (a full batch): for such rows, more than a minibatch (kThinMaximumRows) and where the
/// CPU runs the thin kernel, their standardised inputs are kept in both layouts and every
/// product runs with each layer's units as rows, the thin kernel's vectors along the
/// batch's rows (full at any layer width, where a row-major [rows x 50] output fills 50
/// of a panel's 64 lanes and the BLAS ran at 60% of the core's peak). Other rows go to
/// crossEntropyGradients. The rows are known again by their storage, shape and version,
/// so a tensor changed in place is read afresh.
class FullBatchGradients {
public:
    double operator()(MlpImpl& mlp, const at::Tensor& x, const at::Tensor& y);

private:
    bool keeps(MlpImpl& mlp, const at::Tensor& x);
    at::Tensor m_kept;                 // the rows as the caller passed them
    int64_t m_keptVersion = -1;
    at::Tensor m_rows, m_transposed;   // their standardised inputs, [rows x in] and [in x rows]
};

/// a b, or a^T b where `transposeA` (a [m x k] or [k x m], b [k x n]), through the thin
/// kernel where it applies: the products of a layer kept with its units as rows.
at::Tensor unitsProduct(const at::Tensor& a, bool transposeA, const at::Tensor& b);

/// Mean cross-entropy of logits [N, C] against labels [N] and its gradient with respect
/// to the logits, (softmax - onehot) / N.
std::pair<at::Tensor, at::Tensor> crossEntropyWithGradient(const at::Tensor& logits, const at::Tensor& labels);

/// softmax(logits) along each row of logits [N, C]: exp(l_c - max l) / sum_c' exp(l_c' - max l).
at::Tensor rowSoftmax(const at::Tensor& logits);

/// Mean over rows of -sum_c target_c log softmax(logits)_c against targets [N, C] (rows
/// of probabilities), and its gradient with respect to the logits, (softmax - target) / N.
std::pair<double, at::Tensor> softCrossEntropyWithGradient(const at::Tensor& logits, const at::Tensor& targets);

} // namespace lcs
