#include "core/normal_stream.h"

#include <algorithm>
#include <cmath>
#include <type_traits>

namespace lcs {
namespace {

// 256 strips (Marsaglia and Tsang's second table): 99.3% of draws are accepted by the
// rectangle test alone; the rest cost an exponential.
constexpr int kStrips = 256;
constexpr double kTailStart = 3.6541528853610088;    // r: where the base strip's tail begins
constexpr double kStripArea = 0.00492867323399;      // v: the area of every strip
constexpr double kTwo31 = 2147483648.0;

/// The ziggurat's tables for 32-bit signed draws: a draw hz in strip i is accepted at
/// once when |hz| < k[i]; its value is hz * w[i]; f[i] is the density at strip i's edge.
struct Ziggurat {
    std::array<double, kStrips> k{}, w{}, f{};
    std::array<uint32_t, kStrips> kBits{};  ///< k as integers: |hz| < kBits[i] iff |hz| < k[i]
    std::array<float, kStrips> wFloat{};
    Ziggurat()
    {
        double d = kTailStart, t = d;
        const double q = kStripArea / std::exp(-0.5 * d * d);
        k[0] = (d / q) * kTwo31;
        k[1] = 0;
        w[0] = q / kTwo31;
        w[kStrips - 1] = d / kTwo31;
        f[0] = 1.0;
        f[kStrips - 1] = std::exp(-0.5 * d * d);
        for (int i = kStrips - 2; i >= 1; --i) {
            d = std::sqrt(-2.0 * std::log(kStripArea / d + std::exp(-0.5 * d * d)));
            k[i + 1] = (d / t) * kTwo31;
            t = d;
            f[i] = std::exp(-0.5 * d * d);
            w[i] = d / kTwo31;
        }
        for (int i = 0; i < kStrips; ++i) {
            // k[i] <= 2^31 except for the base strip, whose rectangle holds all of its
            // in-range draws; ceil keeps "|hz| < k" exact for integer |hz|.
            kBits[static_cast<size_t>(i)] =
                static_cast<uint32_t>(std::min(std::ceil(k[static_cast<size_t>(i)]), 4294967295.0));
            wFloat[static_cast<size_t>(i)] = static_cast<float>(w[static_cast<size_t>(i)]);
        }
    }
};

const Ziggurat& tables()
{
    static const Ziggurat z;
    return z;
}

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

/// A uniform double in (0, 1): never 0, so its logarithm is finite.
inline double openUniform(uint64_t r)
{
    return (static_cast<double>(r >> 11) + 0.5) * 0x1.0p-53;
}

} // namespace

NormalStream::NormalStream(uint64_t seed)
{
    for (auto& s : m_state)
        s = splitmix64(seed);
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

double NormalStream::tail(int64_t hz, int strip)
{
    const auto& z = tables();
    for (;;) {
        const double x = static_cast<double>(hz) * z.w[static_cast<size_t>(strip)];
        if (strip == 0) {
            // Beyond r: Marsaglia's exponential rejection for the normal tail.
            double tx, ty;
            do {
                tx = -std::log(openUniform(bits())) / kTailStart;
                ty = -std::log(openUniform(bits()));
            } while (ty + ty < tx * tx);
            return hz > 0 ? kTailStart + tx : -kTailStart - tx;
        }
        // The wedge between the strip's rectangle and the density.
        const double lower = z.f[static_cast<size_t>(strip)];
        const double upper = z.f[static_cast<size_t>(strip - 1)];
        if (lower + openUniform(bits()) * (upper - lower) < std::exp(-0.5 * x * x))
            return x;
        const uint64_t r = bits();
        strip = static_cast<int>(r & (kStrips - 1));
        hz = static_cast<int32_t>(r >> 32);  // a fresh draw: here all 32 bits of value
        if (std::fabs(static_cast<double>(hz)) < z.k[static_cast<size_t>(strip)])
            return static_cast<double>(hz) * z.w[static_cast<size_t>(strip)];
    }
}

double NormalStream::next()
{
    const auto& z = tables();
    const uint64_t r = bits();
    const int strip = static_cast<int>(r & (kStrips - 1));
    const int64_t hz = static_cast<int32_t>(r >> 32);
    if (std::fabs(static_cast<double>(hz)) < z.k[static_cast<size_t>(strip)])
        return static_cast<double>(hz) * z.w[static_cast<size_t>(strip)];
    return tail(hz, strip);
}

template <typename T>
void NormalStream::fillAny(T* out, int64_t n, T mean, T std)
{
    const auto& z = tables();
    // Two draws per 64 random bits, each an 8-bit strip and a signed 24-bit value in the
    // top of an int32 (as many bits as a float holds), disjoint; the state in registers.
    auto s = m_state;
    const auto one = [&](uint32_t half) -> T {
        const auto strip = static_cast<size_t>(half & (kStrips - 1));
        const auto hz = static_cast<int32_t>(half & 0xffffff00u);
        const uint32_t magnitude = hz < 0 ? 0u - static_cast<uint32_t>(hz) : static_cast<uint32_t>(hz);
        if (magnitude < z.kBits[strip]) {
            if constexpr (std::is_same_v<T, float>)
                return static_cast<float>(hz) * z.wFloat[strip];
            else
                return static_cast<double>(hz) * z.w[strip];
        }
        m_state = s;
        const auto value = static_cast<T>(tail(hz, static_cast<int>(strip)));
        s = m_state;
        return value;
    };
    for (int64_t i = 0; i < n; i += 2) {
        const uint64_t r = advance(s);  // a copy of the state, in registers
        out[i] = mean + std * one(static_cast<uint32_t>(r));
        if (i + 1 < n)
            out[i + 1] = mean + std * one(static_cast<uint32_t>(r >> 32));
    }
    m_state = s;
}

void NormalStream::fill(float* out, int64_t n, float mean, float std)
{
    fillAny(out, n, mean, std);
}

void NormalStream::fill(double* out, int64_t n, double mean, double std)
{
    fillAny(out, n, mean, std);
}

} // namespace lcs
