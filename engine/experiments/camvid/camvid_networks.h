#pragma once

#include <ATen/core/Tensor.h>

#include "engine/models/classifier.h"

/// Forward passes of a segmentation network, shared by the CamVid commands and the
/// window's CamVid job.
namespace lcs {

struct JobContext;

/// Switches SegNet's test-time dropout (a no-op for other networks).
void setMcDropout(ClassifierImpl& net, bool on);
/// Mean softmax over `passes` forward passes with dropout on ([N, C, H, W]); with a
/// `ctx`, Cancelled between passes once it is cancelled (dropout switched off again).
at::Tensor mcPredictive(ClassifierImpl& net, const at::Tensor& x, int passes, const JobContext* ctx = nullptr);
/// Softmax of one forward pass in inference mode ([N, C, H, W]).
at::Tensor singlePass(ClassifierImpl& net, const at::Tensor& x);

} // namespace lcs
