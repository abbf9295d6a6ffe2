#pragma once

#include <string>
#include <vector>

#include <torch/csrc/jit/api/module.h>

#include "base/io/input_columns.h"
#include "base/io/model_info.h"
#include "engine/models/classifier.h"
#include "engine/models/mlp.h"

/// Every network LC Studio saves is a TorchScript module that Python's
/// `torch.jit.load(path)` loads and calls as `model(x)`: x holds raw inputs (points as
/// they are, pixels in [0, 1]) of shape [N, *input_shape], and the result is class
/// probabilities, [N, C] or per pixel [N, C, H, W]. The module holds the network's
/// parameters and buffers as attributes and a forward written as TorchScript source from
/// `torch.*` ops (`torch.addmm`, `torch.conv2d`, `torch.batch_norm`,
/// `torch.max_pool2d_with_indices`, `torch.max_unpool2d`), so it needs nothing of LC
/// Studio to run. The forward is the network in eval mode (BatchNorm on its running
/// statistics, no dropout) after the input standardisation the network was trained with.
namespace lcs {

/// The TorchScript module for `model` (built from `spec`), its parameters and buffers
/// copied, with what `info` adds around the network: the input standardisation
/// (inputMean, inputStd); with `inputColumns` that impute (a missingIndicator column), a
/// NaN in such a column's value takes its fill and sets the 0/1 feature after it, before
/// the standardisation (what `decide` does when it encodes a missing cell). With
/// `residualOnPredictive` the forward is forward(x, p): softmax(log p + network(x)), p
/// the predictive [N, C] a residual q corrects; with a predictiveScale and Shift (one
/// per class) p is first calibrated to softmax(scale * log p + shift), with isotonic
/// knots its second class's probability is first mapped through them.
/// Throws std::invalid_argument for an architecture it cannot write.
torch::jit::Module scriptClassifier(const torch::nn::Module& model, const ModelSpec& spec, const ModelInfo& info);

/// The attribute name under which a parameter or buffer ("stages.0.conv1.weight") is
/// stored in the module: dots become "__", which TorchScript names allow.
std::string scriptAttributeName(const std::string& dotted);

} // namespace lcs
