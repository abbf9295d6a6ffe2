#include "engine/core/rows.h"

#include <cstring>
#include <vector>

#include <ATen/ATen.h>

namespace lcs {
namespace {

bool plainRows(const at::Tensor& data, const at::Tensor& index)
{
    return data.is_cpu() && data.is_contiguous() && data.dim() >= 1 && index.scalar_type() == at::kLong &&
           index.dim() == 1 && index.is_contiguous() && index.is_cpu();
}

void copyRows(char* target, const at::Tensor& data, const at::Tensor& index)
{
    const int64_t rows = index.size(0), n = data.size(0);
    const auto* picked = index.data_ptr<int64_t>();
    for (int64_t r = 0; r < rows; ++r)
        TORCH_CHECK(picked[r] >= 0 && picked[r] < n, "minibatch index ", picked[r], " out of ", n, " rows");
    const auto rowBytes = static_cast<size_t>(n > 0 ? data.numel() / n : 0) * data.element_size();
    const auto* source = static_cast<const char*>(data.data_ptr());
    for (int64_t r = 0; r < rows; ++r) {
        const char* row = source + static_cast<size_t>(picked[r]) * rowBytes;
        for (size_t b = 0; b < rowBytes; b += 64)
            __builtin_prefetch(row + b);
        if (rowBytes > 0)
            __builtin_prefetch(row + rowBytes - 1);  // a row need not start on a cache line
    }
    for (int64_t r = 0; r < rows; ++r)
        std::memcpy(target + static_cast<size_t>(r) * rowBytes, source + static_cast<size_t>(picked[r]) * rowBytes,
                    rowBytes);
}

} // namespace

at::Tensor gatherRows(const at::Tensor& data, const at::Tensor& index)
{
    if (!plainRows(data, index))
        return data.index_select(0, index);
    auto shape = data.sizes().vec();
    shape[0] = index.size(0);
    auto out = at::empty(shape, data.options());
    copyRows(static_cast<char*>(out.data_ptr()), data, index);
    return out;
}

void gatherRowsInto(at::Tensor& out, const at::Tensor& data, const at::Tensor& index)
{
    TORCH_CHECK(plainRows(data, index) && out.is_contiguous() && out.scalar_type() == data.scalar_type() &&
                    out.dim() == data.dim() && out.size(0) >= index.size(0) &&
                    out.sizes().slice(1) == data.sizes().slice(1),
                "gatherRowsInto: ", index.size(0), " rows of ", data.sizes(), " into ", out.sizes());
    copyRows(static_cast<char*>(out.data_ptr()), data, index);
    out.unsafeGetTensorImpl()->bump_version();
}

} // namespace lcs
