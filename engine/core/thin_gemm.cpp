#include "engine/core/thin_gemm.h"

#include <immintrin.h>

#include <algorithm>
#include <vector>

namespace lcs {
namespace {

bool applies(int64_t rows, int64_t n, int64_t k)
{
    return thinGemmAvailable() && rows >= 1 && n >= 1 && k >= 1 && rows <= kThinMaximumRows &&
           rows * n * k >= kThinMinimumMultiplyAdds;
}

} // namespace

// Everything between push_options and pop_options is compiled for AVX-512 and runs only
// behind thinGemmAvailable().
#pragma GCC push_options
#pragma GCC target("avx512f,fma")
// GCC 12's AVX-512 shuffles pass _mm512_undefined_ps() as their unused masked-off
// source, which its own flow analysis then reports as uninitialised.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

namespace {

/// C[MR x 16 NV] = (bias or 0) + sum_k a(i, k) b(k, j), where a(i, k) = A[i as + k ks]
/// and b(k, j) = B[k ldb + j]: each step broadcasts one value of A against 16 NV of B's
/// row, MR x NV accumulators held in registers across the whole sum. The last vector
/// column of B, the bias and C is read and written under `last` (the columns past the
/// matrix's edge are never touched).
template <int MR, int NV>
inline __attribute__((always_inline)) void tile(int64_t K, const float* A, int64_t as, int64_t ks, const float* B,
                                                int64_t ldb, float* C, int64_t ldc, const float* bias,
                                                __mmask16 last)
{
    const auto maskOf = [last](int v) { return v == NV - 1 ? last : static_cast<__mmask16>(0xFFFF); };
    __m512 acc[MR][NV];
    for (int v = 0; v < NV; ++v) {
        const __m512 start = bias ? _mm512_maskz_loadu_ps(maskOf(v), bias + 16 * v) : _mm512_setzero_ps();
        for (int i = 0; i < MR; ++i)
            acc[i][v] = start;
    }
    for (int64_t k = 0; k < K; ++k) {
        __m512 b[NV];
        for (int v = 0; v < NV; ++v)
            b[v] = _mm512_maskz_loadu_ps(maskOf(v), B + 16 * v);
        for (int i = 0; i < MR; ++i) {
            const __m512 a = _mm512_set1_ps(A[i * as]);
            for (int v = 0; v < NV; ++v)
                acc[i][v] = _mm512_fmadd_ps(a, b[v], acc[i][v]);
        }
        A += ks;
        B += ldb;
    }
    for (int i = 0; i < MR; ++i)
        for (int v = 0; v < NV; ++v)
            _mm512_mask_storeu_ps(C + i * ldc + 16 * v, maskOf(v), acc[i][v]);
}

constexpr int kRows = 8;     // MR: rows of C a tile holds
constexpr int kColumns = 32; // 16 NV: columns of C a tile holds

template <int NV>
void edgeTile(int rows, int64_t K, const float* A, int64_t as, int64_t ks, const float* B, int64_t ldb, float* C,
              int64_t ldc, const float* bias, __mmask16 last)
{
    switch (rows) {
    case 1: tile<1, NV>(K, A, as, ks, B, ldb, C, ldc, bias, last); break;
    case 2: tile<2, NV>(K, A, as, ks, B, ldb, C, ldc, bias, last); break;
    case 3: tile<3, NV>(K, A, as, ks, B, ldb, C, ldc, bias, last); break;
    case 4: tile<4, NV>(K, A, as, ks, B, ldb, C, ldc, bias, last); break;
    case 5: tile<5, NV>(K, A, as, ks, B, ldb, C, ldc, bias, last); break;
    case 6: tile<6, NV>(K, A, as, ks, B, ldb, C, ldc, bias, last); break;
    case 7: tile<7, NV>(K, A, as, ks, B, ldb, C, ldc, bias, last); break;
    default: tile<8, NV>(K, A, as, ks, B, ldb, C, ldc, bias, last); break;
    }
}

/// C[M x N] (row stride ldc) = bias + sum over K of a(i, k) B[k, j], a(i, k) = A[i as + k ks].
/// Column panels of 32 outside, so a panel of B stays in the caches over all of C's rows.
void product(int64_t M, int64_t N, int64_t K, const float* A, int64_t as, int64_t ks, const float* B, int64_t ldb,
             float* C, int64_t ldc, const float* bias)
{
    for (int64_t n0 = 0; n0 < N; n0 += kColumns) {
        const int width = static_cast<int>(std::min<int64_t>(kColumns, N - n0));
        const int vectors = (width + 15) / 16;
        const int rest = width - 16 * (vectors - 1);
        const auto last = static_cast<__mmask16>(rest == 16 ? 0xFFFF : (1u << rest) - 1);
        const float* panelBias = bias ? bias + n0 : nullptr;
        for (int64_t m0 = 0; m0 < M; m0 += kRows) {
            const int rows = static_cast<int>(std::min<int64_t>(kRows, M - m0));
            const float* a = A + m0 * as;
            float* c = C + m0 * ldc + n0;
            if (rows == kRows && vectors == 2)
                tile<kRows, 2>(K, a, as, ks, B + n0, ldb, c, ldc, panelBias, last);
            else if (vectors == 2)
                edgeTile<2>(rows, K, a, as, ks, B + n0, ldb, c, ldc, panelBias, last);
            else
                edgeTile<1>(rows, K, a, as, ks, B + n0, ldb, c, ldc, panelBias, last);
        }
    }
}

/// dst[j, i] = src[i, j] for the `rows` x `columns` block at src (rows, columns <= 16):
/// a 16 x 16 transpose in registers, the block's edges read and written under masks.
void transposeBlock(const float* src, int64_t lds, int rows, int columns, float* dst, int64_t ldd)
{
    const auto columnMask = static_cast<__mmask16>(columns == 16 ? 0xFFFF : (1u << columns) - 1);
    const auto rowMask = static_cast<__mmask16>(rows == 16 ? 0xFFFF : (1u << rows) - 1);
    __m512 r[16], t[16], u[16];
    for (int i = 0; i < 16; ++i)
        r[i] = i < rows ? _mm512_maskz_loadu_ps(columnMask, src + i * lds) : _mm512_setzero_ps();
    // Pairs of rows interleaved, then pairs of pairs: each 128-bit lane holds a 4 x 4 block.
    for (int i = 0; i < 8; ++i) {
        t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
    }
    for (int i = 0; i < 4; ++i) {
        u[4 * i + 0] = _mm512_shuffle_ps(t[4 * i], t[4 * i + 2], 0x44);
        u[4 * i + 1] = _mm512_shuffle_ps(t[4 * i], t[4 * i + 2], 0xEE);
        u[4 * i + 2] = _mm512_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0x44);
        u[4 * i + 3] = _mm512_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0xEE);
    }
    // Then the 4 x 4 blocks moved between lanes.
    __m512 out[16];
    for (int j = 0; j < 4; ++j) {
        const __m512 a = _mm512_shuffle_f32x4(u[j], u[4 + j], 0x88), b = _mm512_shuffle_f32x4(u[j], u[4 + j], 0xDD);
        const __m512 c = _mm512_shuffle_f32x4(u[8 + j], u[12 + j], 0x88);
        const __m512 d = _mm512_shuffle_f32x4(u[8 + j], u[12 + j], 0xDD);
        out[j] = _mm512_shuffle_f32x4(a, c, 0x88);
        out[8 + j] = _mm512_shuffle_f32x4(a, c, 0xDD);
        out[4 + j] = _mm512_shuffle_f32x4(b, d, 0x88);
        out[12 + j] = _mm512_shuffle_f32x4(b, d, 0xDD);
    }
    for (int j = 0; j < columns; ++j)
        _mm512_mask_storeu_ps(dst + j * ldd, rowMask, out[j]);
}

/// wt[k x n] = w[n x k]^T.
void transpose(const float* w, int64_t n, int64_t k, float* wt)
{
    for (int64_t i = 0; i < n; i += 16)
        for (int64_t j = 0; j < k; j += 16)
            transposeBlock(w + i * k + j, k, static_cast<int>(std::min<int64_t>(16, n - i)),
                           static_cast<int>(std::min<int64_t>(16, k - j)), wt + j * n + i, n);
}

/// `transposed` holds n x k floats: the kernel wants the weights' rows along its
/// vectors, w^T, made per call (a tenth of the product's time at 200 x 784); taken where
/// that is fewer values to move than linearForwardByRowsAvx512's.
void linearForwardAvx512(float* y, const float* x, const float* w, const float* bias, int64_t m, int64_t n, int64_t k,
                         float* transposed)
{
    transpose(w, n, k, transposed);
    product(m, n, k, x, k, 1, transposed, n, y, n, bias);
}

/// The same product as y^T = w x^T, transposing x [m x k] and y^T [n x m] instead of w:
/// fewer values to move where the rows are fewer than the weights' rows and columns
/// (a 64-row minibatch against 200 x 784 weights moves 63 thousand instead of 157).
/// `xt` holds k x m floats, `yt` n x m.
void linearForwardByRowsAvx512(float* y, const float* x, const float* w, const float* bias, int64_t m, int64_t n,
                               int64_t k, float* xt, float* yt)
{
    transpose(x, m, k, xt);
    // Row j of y^T is w's row j against x^T: w read along its rows, x^T's rows as vectors.
    product(n, m, k, w, k, 1, xt, m, yt, m, nullptr);
    transpose(yt, n, m, y);
    if (bias)
        for (int64_t r = 0; r < m; ++r)
            for (int64_t j = 0; j < n; ++j)
                y[r * n + j] += bias[j];
}

void weightGradientAvx512(float* dw, const float* g, const float* x, int64_t m, int64_t n, int64_t k)
{
    // Row i of dw is column i of g against x's rows: g read down a column, x along rows.
    product(n, k, m, g, 1, n, x, k, dw, k, nullptr);
}

void inputGradientAvx512(float* dx, const float* g, const float* w, int64_t m, int64_t n, int64_t k)
{
    // Row r of dx is g's row r against w's rows: both read along their rows as they lie.
    product(m, k, n, g, n, 1, w, k, dx, k, nullptr);
}

void unitsProductAvx512(float* c, const float* a, int64_t rowStride, int64_t innerStride, const float* b, int64_t m,
                        int64_t n, int64_t k)
{
    product(m, n, k, a, rowStride, innerStride, b, n, c, n, nullptr);
}

} // namespace

#pragma GCC diagnostic pop
#pragma GCC pop_options

bool thinGemmAvailable()
{
    static const bool available = __builtin_cpu_supports("avx512f");
    return available;
}

bool thinLinearForward(float* y, const float* x, const float* w, const float* bias, int64_t m, int64_t n, int64_t k)
{
    if (!applies(m, n, k))
        return false;
    // Buffers each thread keeps, sized here, outside the AVX-512 code.
    if (m * k + n * m < n * k) {
        thread_local std::vector<float> xt, yt;
        xt.resize(static_cast<size_t>(k * m));
        yt.resize(static_cast<size_t>(n * m));
        linearForwardByRowsAvx512(y, x, w, bias, m, n, k, xt.data(), yt.data());
        return true;
    }
    thread_local std::vector<float> transposed;
    transposed.resize(static_cast<size_t>(n * k));
    linearForwardAvx512(y, x, w, bias, m, n, k, transposed.data());
    return true;
}

bool thinWeightGradient(float* dw, const float* g, const float* x, int64_t m, int64_t n, int64_t k)
{
    if (!applies(m, n, k))
        return false;
    weightGradientAvx512(dw, g, x, m, n, k);
    return true;
}

bool thinInputGradient(float* dx, const float* g, const float* w, int64_t m, int64_t n, int64_t k)
{
    if (!applies(m, n, k))
        return false;
    inputGradientAvx512(dx, g, w, m, n, k);
    return true;
}

bool thinProduct(float* c, const float* a, int64_t rowStride, int64_t innerStride, const float* b, int64_t m,
                 int64_t n, int64_t k)
{
    if (!applies(m, n, k))
        return false;
    unitsProductAvx512(c, a, rowStride, innerStride, b, m, n, k);
    return true;
}

} // namespace lcs
