#pragma once

#include <cstdint>

/// Matrix products at a minibatch's thin shapes (64 rows by a few hundred), where a
/// general BLAS packs a whole weight matrix for every call and reaches two thirds of
/// the core's multiply-add peak: register-blocked AVX-512 kernels that read the rows as
/// they lie and keep to one thread (the caller's). Plain row-major float arrays.
///
/// Each returns false, touching nothing, where it does not apply: a CPU without
/// AVX-512 (F), an empty size, more than 256 rows (m: no longer thin, and LibTorch
/// would spread it over its threads), or a product too small to gain (under 2^16
/// multiply-adds); the caller then computes it its own way. In the distillation's MLP
/// 784-200-10 at batch 64 that is every product of both layers (a last, 32-row batch's
/// output layer, 64000, stays LibTorch's). The
/// sums run in a different order from a BLAS's, so results agree with one to float
/// rounding, not bit for bit.
namespace lcs {

/// The most rows a kernel takes: above it the product is no longer thin (a whole
/// training or evaluation set's forward, which LibTorch spreads over the intra-op threads
/// while these kernels keep to the caller's one, and which each column panel would read
/// again). A product over more rows keeps them as columns instead: thinProduct with the
/// layer's units as rows (BBVI's step, FullBatchGradients).
inline constexpr int64_t kThinMaximumRows = 256;

/// The fewest multiply-adds (rows x n x k) a call must hold: below it a call's fixed
/// costs (the transposes, the call) outweigh the kernel's gain over LibTorch's product,
/// and small networks keep their BLAS results (the synthetic experiment's 2-feature
/// 2-50-2 at 128 rows: 12800; a table of 11 features or more at 128 rows crosses it). A
/// 784-200-10 network's output layer at 64 rows (128000) gains: LibTorch's dispatch and
/// allocation cost more than its arithmetic.
inline constexpr int64_t kThinMinimumMultiplyAdds = int64_t{1} << 16;

/// y[m x n] = x[m x k] w[n x k]^T + bias[n] (a Linear layer's forward; w in PyTorch's
/// [out, in] layout, bias may be null).
bool thinLinearForward(float* y, const float* x, const float* w, const float* bias, int64_t m, int64_t n, int64_t k);

/// dw[n x k] = g[m x n]^T x[m x k] (a Linear layer's weight gradient, summed over the
/// m rows).
bool thinWeightGradient(float* dw, const float* g, const float* x, int64_t m, int64_t n, int64_t k);

/// dx[m x k] = g[m x n] w[n x k] (a Linear layer's input gradient; w as above).
bool thinInputGradient(float* dx, const float* g, const float* w, int64_t m, int64_t n, int64_t k);

/// c[m x n] = a b for a [m x k] read as a(i, l) = a[i rowStride + l innerStride] (a
/// matrix or its transpose, read as it lies) and b [k x n] row-major: the products of a
/// layer kept with its units as rows (m the units, n a whole batch's rows, any number),
/// where every vector of c is full and b's panels stay in the caches.
bool thinProduct(float* c, const float* a, int64_t rowStride, int64_t innerStride, const float* b, int64_t m,
                 int64_t n, int64_t k);

/// Whether this CPU runs the kernels (tests compare them with a plain loop only there).
bool thinGemmAvailable();

} // namespace lcs
