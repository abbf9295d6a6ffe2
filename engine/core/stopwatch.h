#pragma once

#include <chrono>

/// Wall-clock seconds for the figures the engine reports (training time, frames/s).
namespace lcs {

using Clock = std::chrono::steady_clock;

inline double secondsSince(Clock::time_point start)
{
    return std::chrono::duration<double>(Clock::now() - start).count();
}

} // namespace lcs
