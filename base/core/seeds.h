#pragma once

#include <cstdint>
#include <initializer_list>

/// Seed derivation, in one place for the engine and the data sources. Every random stream
/// of a run is named by the run's seed and the task's coordinates (a method's seed tag, a
/// replicate, a swept setting's value, a trial), never by a position in a list, so adding
/// or removing a method or a setting value leaves every other stream unchanged.
namespace lcs {

/// Deterministic 64-bit mixing of several seeds (splitmix64), for streams that do not overlap.
uint64_t mixSeed(uint64_t a, uint64_t b, uint64_t c = 0);

/// The bits of a swept setting's value (a corruption rate, a referral cost) as a seed
/// coordinate: 0.125 and 0.12 name different streams, and -0.0 the same one as 0.0.
uint64_t settingCoordinate(double value);

/// The coordinate of the held-out evidence's bootstrap draws (rows, frames), mixed with
/// the run's seed: the intervals are the same on every rerun of the same run.
inline constexpr uint64_t kEvidenceStream = 17;

/// mixSeed over any number of coordinates: mixSeed(mixSeed(seed, c0), c1), ...
uint64_t seedFor(uint64_t seed, std::initializer_list<uint64_t> coordinates);

} // namespace lcs
