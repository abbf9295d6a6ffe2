#pragma once

#include <ATen/core/Tensor.h>

/// A minibatch's rows copied out of a data set far larger than the caches.
namespace lcs {

/// data.index_select(0, index) (index: 1-D int64 on the CPU), with every row asked of
/// memory before the first is copied: the rows lie anywhere in the set, and copying them
/// one after another waited on memory for each in turn. Other layouts and devices go to
/// index_select. An index outside the rows is refused (c10::Error), naming it.
at::Tensor gatherRows(const at::Tensor& data, const at::Tensor& index);

/// The same into out[0:index.size(0)] (contiguous, data's dtype, data's row shape).
void gatherRowsInto(at::Tensor& out, const at::Tensor& data, const at::Tensor& index);

} // namespace lcs
