#include "engine/core/normal_stream.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

// This file is compiled with -ffp-contract=off (engine/CMakeLists.txt): the kernels fuse
// exactly the multiply-adds written as fma() and no others, so their numbers agree.

namespace lcs {
namespace {

#define LCS_ALWAYS_INLINE __attribute__((always_inline)) inline

uint64_t splitmix64(uint64_t& x)
{
    uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

inline uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

/// One step of xoshiro256++: the next 64 random bits.
inline uint64_t advance(std::array<uint64_t, 4>& s)
{
    const uint64_t result = rotl(s[0] + s[3], 23) + s[0];
    const uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

template <typename To, typename From>
LCS_ALWAYS_INLINE To bitCast(From from)
{
    static_assert(sizeof(To) == sizeof(From));
    To to;
    std::memcpy(&to, &from, sizeof to);
    return to;
}

#if defined(__FP_FAST_FMAF) || defined(__FMA__)
constexpr bool kPortableFuses = true;
#else
constexpr bool kPortableFuses = false;
#endif

/// Box-Muller over W lanes of xoshiro128++ at once (GCC vector extensions: AVX-512,
/// AVX2 or SSE2 instructions, by the function it is inlined into). Written once, so
/// every width does the same operations in the same order.
template <int W>
struct VectorsOf {
    typedef uint32_t U __attribute__((vector_size(4 * W)));
    typedef int32_t I __attribute__((vector_size(4 * W)));
    typedef float F __attribute__((vector_size(4 * W)));
};

template <int W>
struct BoxMuller {
    // (GCC keeps the vector attribute of a dependent typedef only through a member of
    // another template.)
    using U = typename VectorsOf<W>::U;
    using I = typename VectorsOf<W>::I;
    using F = typename VectorsOf<W>::F;

    static LCS_ALWAYS_INLINE F splat(float x) { return F{} + x; }
    static LCS_ALWAYS_INLINE U rotate(U x, int k) { return (x << k) | (x >> (32 - k)); }

    /// One step of xoshiro128++ in every lane.
    static LCS_ALWAYS_INLINE U advance(U& s0, U& s1, U& s2, U& s3)
    {
        const U result = rotate(s0 + s3, 7) + s0;
        const U t = s1 << 9;
        s2 ^= s0;
        s3 ^= s1;
        s1 ^= s2;
        s0 ^= s3;
        s2 ^= t;
        s3 = rotate(s3, 11);
        return result;
    }

    /// ln u for u in (0, 1]: u = m 2^e with m in [sqrt(1/2), sqrt(2)), then Cephes'
    /// logf polynomial in m - 1 (about one ulp).
    static LCS_ALWAYS_INLINE F log(F u)
    {
        const I bits = bitCast<I>(u);
        I exponent = ((bits >> 23) & 0xff) - 127;
        F m = bitCast<F>((bits & 0x7fffff) | 0x3f800000);
        const I large = m > splat(1.41421356f);
        m = large ? m * 0.5f : m;
        exponent = large ? exponent + 1 : exponent;
        const F x = m - 1.0f, x2 = x * x;
        F p = fma(splat(7.0376836292e-2f), x, -1.1514610310e-1f);
        p = fma(p, x, 1.1676998740e-1f);
        p = fma(p, x, -1.2420140846e-1f);
        p = fma(p, x, 1.4249322787e-1f);
        p = fma(p, x, -1.6668057665e-1f);
        p = fma(p, x, 2.0000714765e-1f);
        p = fma(p, x, -2.4999993993e-1f);
        p = fma(p, x, 3.3333331174e-1f);
        const F e = __builtin_convertvector(exponent, F);
        // ln 2 split in two (0.693359375 + -2.12194440e-4) so that e ln 2 stays exact.
        const F y = fma(x * x2, p, fma(e, -2.12194440e-4f, -0.5f * x2));
        return fma(e, 0.693359375f, x + y);
    }

    /// a b + c rounded once, in every lane: one vfmadd where the kernel's target has FMA
    /// (AVX-512, AVX2+FMA, and the portable kernel wherever the compiler targets FMA,
    /// AArch64 say). The portable kernel built without FMA rounds the product and the
    /// sum apart: an exact fmaf there takes glibc's software routine (tens of
    /// nanoseconds a call, ten calls a normal), so it stays fast and differs from the
    /// fused kernels in the last bits instead (NormalStream::portableKernelFuses).
    static LCS_ALWAYS_INLINE F fma(F a, F b, F c)
    {
        if constexpr (W == 4 && !kPortableFuses)
            return a * b + c;
        for (int k = 0; k < W; ++k)
            a[k] = __builtin_fmaf(a[k], b[k], c[k]);
        return a;
    }
    static LCS_ALWAYS_INLINE F fma(F a, float b, F c) { return fma(a, splat(b), c); }
    static LCS_ALWAYS_INLINE F fma(F a, F b, float c) { return fma(a, b, splat(c)); }
    static LCS_ALWAYS_INLINE F fma(F a, float b, float c) { return fma(a, splat(b), splat(c)); }

    static LCS_ALWAYS_INLINE F sqrt(F x)
    {
        for (int k = 0; k < W; ++k)
            x[k] = __builtin_sqrtf(x[k]);  // one vsqrtps when W lanes fit a register
        return x;
    }

    /// `blocks` blocks of 32 normals into out: out[32 b + g] and out[32 b + 16 + g] are
    /// the pair generator g gives at its step b.
    static LCS_ALWAYS_INLINE void fill(NormalStream::Lanes& lanes, float* out, int64_t blocks, float mean, float std)
    {
        constexpr int G = NormalStream::kGenerators;
        static_assert(G % W == 0);
        for (int first = 0; first < G; first += W) {
            U s0, s1, s2, s3;
            std::memcpy(&s0, lanes.state[0] + first, sizeof s0);
            std::memcpy(&s1, lanes.state[1] + first, sizeof s1);
            std::memcpy(&s2, lanes.state[2] + first, sizeof s2);
            std::memcpy(&s3, lanes.state[3] + first, sizeof s3);
            for (int64_t b = 0; b < blocks; ++b) {
                const U a = advance(s0, s1, s2, s3), c = advance(s0, s1, s2, s3);
                // r from u1 = (top 24 bits + 1) / 2^24, in (0, 1]: never ln 0.
                const F u1 = __builtin_convertvector(bitCast<I>((a >> 8) + 1), F) * 0x1.0p-24f;
                const F r = sqrt(-2.0f * log(u1));
                // The angle: quadrant q from the top 2 bits, and within it the midpoint of
                // one of 2^22 equal steps across (-pi/4, pi/4) (an angle uniform over a
                // whole turn, offset by -pi/4).
                const U quadrant = c >> 30;
                const F angle = fma(__builtin_convertvector(bitCast<I>((c >> 8) & 0x3fffff), F) + 0.5f,
                                    0x1.0p-22f * 1.57079632679f, -0.785398163397f);
                const F a2 = angle * angle;
                // Cephes' sinf and cosf polynomials on [-pi/4, pi/4].
                const F sine =
                    fma(angle * a2, fma(fma(splat(-1.9515295891e-4f), a2, 8.3321608736e-3f), a2, -1.6666654611e-1f),
                        angle);
                const F cosine = fma(a2 * a2,
                                     fma(fma(splat(2.443315711809948e-5f), a2, -1.388731625493765e-3f), a2,
                                         4.166664568298827e-2f),
                                     fma(a2, -0.5f, 1.0f));
                // Turned by q quarter turns: (c, s), (-s, c), (-c, -s), (s, -c).
                const I odd = (quadrant & 1) != 0;
                U x = bitCast<U>(odd ? sine : cosine), y = bitCast<U>(odd ? cosine : sine);
                x ^= ((quadrant ^ (quadrant >> 1)) & 1) << 31;
                y ^= (quadrant >> 1) << 31;
                const F z0 = fma(r * bitCast<F>(x), std, mean);
                const F z1 = fma(r * bitCast<F>(y), std, mean);
                std::memcpy(out + b * NormalStream::kBlock + first, &z0, sizeof z0);
                std::memcpy(out + b * NormalStream::kBlock + G + first, &z1, sizeof z1);
            }
            std::memcpy(lanes.state[0] + first, &s0, sizeof s0);
            std::memcpy(lanes.state[1] + first, &s1, sizeof s1);
            std::memcpy(lanes.state[2] + first, &s2, sizeof s2);
            std::memcpy(lanes.state[3] + first, &s3, sizeof s3);
        }
    }
};

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx512f"))) void fillAvx512(NormalStream::Lanes& lanes, float* out, int64_t blocks,
                                                   float mean, float std)
{
    BoxMuller<16>::fill(lanes, out, blocks, mean, std);
}

__attribute__((target("avx2,fma"))) void fillAvx2(NormalStream::Lanes& lanes, float* out, int64_t blocks, float mean,
                                              float std)
{
    BoxMuller<8>::fill(lanes, out, blocks, mean, std);
}
#endif

void fillPortable(NormalStream::Lanes& lanes, float* out, int64_t blocks, float mean, float std)
{
    BoxMuller<4>::fill(lanes, out, blocks, mean, std);
}

int detectWidestKernel()
{
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f"))
        return 16;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return 8;
#endif
    return 4;
}

} // namespace

NormalStream::NormalStream(uint64_t seed)
{
    for (auto& s : m_state)
        s = splitmix64(seed);
    for (int g = 0; g < kGenerators; ++g) {
        uint32_t any = 0;
        for (int w = 0; w < 4; w += 2) {
            const uint64_t r = splitmix64(seed);
            m_lanes.state[w][g] = static_cast<uint32_t>(r);
            m_lanes.state[w + 1][g] = static_cast<uint32_t>(r >> 32);
            any |= m_lanes.state[w][g] | m_lanes.state[w + 1][g];
        }
        if (any == 0)  // the one state xoshiro never leaves; splitmix64 all but never gives it
            m_lanes.state[0][g] = 1;
    }
}

uint64_t NormalStream::bits()
{
    return advance(m_state);
}

int64_t NormalStream::below(int64_t bound)
{
    const auto product = static_cast<unsigned __int128>(bits() >> 32) * static_cast<uint64_t>(bound);
    return static_cast<int64_t>(product >> 32);
}

bool NormalStream::portableKernelFuses()
{
    return kPortableFuses;
}

int NormalStream::widestKernel()
{
    static const int widest = detectWidestKernel();
    return widest;
}

void NormalStream::fillBlocks(int lanes, float* out, int64_t blocks, float mean, float std)
{
#if defined(__x86_64__) && defined(__GNUC__)
    if (lanes == 16)
        return fillAvx512(m_lanes, out, blocks, mean, std);
    if (lanes == 8)
        return fillAvx2(m_lanes, out, blocks, mean, std);
#endif
    fillPortable(m_lanes, out, blocks, mean, std);
}

void NormalStream::fillWithKernel(int lanes, float* out, int64_t n, float mean, float std)
{
    if ((lanes != 16 && lanes != 8 && lanes != 4) || lanes > widestKernel())
        throw std::invalid_argument("NormalStream: no " + std::to_string(lanes) + "-lane kernel on this CPU (widest " +
                                    std::to_string(widestKernel()) + ")");
    if (n <= 0)
        return;
    const int64_t whole = n / kBlock;
    fillBlocks(lanes, out, whole, mean, std);
    if (const int64_t rest = n - whole * kBlock; rest > 0) {
        // The last block's draws beyond n are dropped, so a call's draws are whole blocks.
        alignas(64) float last[kBlock];
        fillBlocks(lanes, last, 1, mean, std);
        std::copy(last, last + rest, out + whole * kBlock);
    }
}

void NormalStream::fill(float* out, int64_t n, float mean, float std)
{
    fillWithKernel(widestKernel(), out, n, mean, std);
}

void NormalStream::fill(double* out, int64_t n, double mean, double std)
{
    // Float draws (Box-Muller in single precision), widened and scaled in double.
    constexpr int64_t kChunk = 128 * kBlock;
    alignas(64) float z[kChunk];
    for (int64_t start = 0; start < n; start += kChunk) {
        const int64_t len = std::min(kChunk, n - start);
        fill(z, len);
        for (int64_t i = 0; i < len; ++i)
            out[start + i] = mean + std * static_cast<double>(z[i]);
    }
}

double NormalStream::next()
{
    if (m_spareLeft == 0) {
        fillBlocks(widestKernel(), m_spare.data(), 1, 0.0f, 1.0f);
        m_spareLeft = kBlock;
    }
    return m_spare[static_cast<size_t>(kBlock - m_spareLeft--)];
}

} // namespace lcs
