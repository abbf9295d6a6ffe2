#pragma once

#include <array>
#include <cstdint>

namespace lcs {

/// Standard normal draws in bulk, fast enough that SG-MCMC's one draw per parameter per
/// step and distillation's one per input value per step stay a small part of a step
/// (about 200 M draws an epoch at the Fashion-MNIST configuration). LibTorch's CPU
/// normal_ draws about 280 M a second here, most of it in its Mersenne twister; a scalar
/// ziggurat, which this class used before, about 700 M; these kernels 3-4 G (AVX-512).
///
/// fill() runs 16 xoshiro128++ generators (Blackman and Vigna 2018) side by side, one
/// per 32-bit lane, and turns each pair of 32-bit draws into two normals by Box and
/// Muller's transform: r = sqrt(-2 ln u1) with u1 in (0, 1] from 24 bits, the angle
/// from the other draw's top 2 bits (the quadrant) and next 22 (within it): 2^24 radii
/// by 2^24 angles, so the largest |z| is sqrt(2 ln 2^24) = 5.77 (|z| > 5.77 has
/// probability 8e-9 under the normal: a draw or two in a distillation epoch's 2e8) and
/// the far tail is coarse (about 60 distinct radii above 5).
/// ln, sin and cos are polynomials (Cephes' single-precision ones) in Horner's form with
/// every step one fused multiply-add, so the AVX-512 and AVX2+FMA kernels give
/// bit-identical numbers, as does the portable one where it is built for FMA (AArch64);
/// the one used is the widest this CPU runs. A call's draws are whole blocks of 32: a
/// call for n values uses ceil(n / 32) blocks, so the numbers depend on the seed and on
/// the sizes of the calls in order, not on the CPU, except on an x86 CPU without FMA
/// (before 2013, and low-power Atom cores), whose portable kernel rounds each product and
/// sum apart and so differs in the last bits. tst_sgmcmc checks the moments, the tails
/// and the distribution function against the closed form.
///
/// bits() and below() run a scalar xoshiro256++ of their own, so drawing row indices
/// does not move the normal draws. Deterministic given the seed; one stream per thread.
class NormalStream {
public:
    explicit NormalStream(uint64_t seed);

    /// out[i] = mean + std * z_i for n independent standard normals z_i.
    void fill(float* out, int64_t n, float mean = 0.0f, float std = 1.0f);
    void fill(double* out, int64_t n, double mean = 0.0, double std = 1.0);
    /// One standard normal (from a block of 32, the rest kept for the next calls).
    double next();
    /// 64 uniformly random bits.
    uint64_t bits();
    /// A uniform integer in [0, bound), bound >= 1 (Lemire's multiply-shift on 32 bits:
    /// each outcome's probability is within 2^-32 of 1/bound, a relative bias of
    /// bound / 2^32, 1.4e-5 for 60,000 rows).
    int64_t below(int64_t bound);

    /// The widest normal kernel this CPU runs, in 32-bit lanes: 16 (AVX-512), 8 (AVX2 and FMA)
    /// or 4 (portable).
    static int widestKernel();
    /// fill() through the kernel of `lanes` lanes (one this CPU runs), for the check
    /// that every kernel gives the same numbers (the portable one within a few ulps
    /// where it does not fuse).
    void fillWithKernel(int lanes, float* out, int64_t n, float mean, float std);
    /// Whether the portable kernel fuses its multiply-adds (built for a CPU with FMA) and
    /// so gives the other kernels' numbers bit for bit.
    static bool portableKernelFuses();

    static constexpr int kGenerators = 16;
    static constexpr int kBlock = 2 * kGenerators;  ///< normals per step of the generators

    /// The 16 generators' states, word-major: state[w][g] is word w of generator g.
    struct Lanes {
        alignas(64) uint32_t state[4][kGenerators];
    };

private:
    void fillBlocks(int lanes, float* out, int64_t blocks, float mean, float std);
    std::array<uint64_t, 4> m_state{};
    Lanes m_lanes{};
    std::array<float, kBlock> m_spare{};
    int m_spareLeft = 0;
};

} // namespace lcs
