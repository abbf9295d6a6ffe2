#pragma once

#include <array>
#include <cstdint>

namespace lcs {

/// Standard normal draws in bulk, several times faster than LibTorch's CPU normal_
/// (measured here: about 280 M draws/s there, most of it spent in its Mersenne
/// twister). SG-MCMC needs one draw per parameter per step, and distillation one per
/// input value per step: at the Fashion-MNIST configuration that is about 200 M draws
/// an epoch, a third of a core-second through normal_.
///
/// The uniform bits come from xoshiro256++ (Blackman and Vigna 2018), seeded through
/// splitmix64; the normals from the ziggurat method (Marsaglia and Tsang 2000) with 256
/// strips, taking the strip index and the value from disjoint bits (sharing them, as
/// the original does, correlates the two; Doornik 2005). fill() takes two normals from
/// each 64-bit draw, each with 24 random bits of value: float precision, also when it
/// fills doubles. The result is exact up to that rounding; tst_sgmcmc checks its
/// moments, tails and distribution function. Deterministic given the seed, one stream
/// per thread.
class NormalStream {
public:
    explicit NormalStream(uint64_t seed);

    /// out[i] = mean + std * z_i for n independent standard normals z_i.
    void fill(float* out, int64_t n, float mean = 0.0f, float std = 1.0f);
    void fill(double* out, int64_t n, double mean = 0.0, double std = 1.0);
    /// One standard normal.
    double next();
    /// 64 uniformly random bits.
    uint64_t bits();
    /// A uniform integer in [0, bound), bound >= 1 (Lemire's multiply-shift; the bias
    /// is below 2^-32 for the bounds used here, data-set sizes).
    int64_t below(int64_t bound);

private:
    double tail(int64_t hz, int strip);
    template <typename T>
    void fillAny(T* out, int64_t n, T mean, T std);
    std::array<uint64_t, 4> m_state{};
};

} // namespace lcs
