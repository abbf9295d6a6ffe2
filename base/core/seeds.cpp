#include "base/core/seeds.h"

#include <cstring>

namespace lcs {

uint64_t mixSeed(uint64_t a, uint64_t b, uint64_t c)
{
    auto splitmix = [](uint64_t x) {
        x += 0x9e3779b97f4a7c15ULL;
        x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
        x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
        return x ^ (x >> 31);
    };
    return splitmix(splitmix(splitmix(a) ^ b) ^ c);
}

uint64_t settingCoordinate(double value)
{
    if (value == 0)
        value = 0;  // -0.0 and 0.0 are the same setting
    uint64_t bits = 0;
    std::memcpy(&bits, &value, sizeof bits);
    return bits;
}

uint64_t seedFor(uint64_t seed, std::initializer_list<uint64_t> coordinates)
{
    uint64_t s = seed;
    for (uint64_t c : coordinates)
        s = mixSeed(s, c);
    return s;
}

} // namespace lcs
