#pragma once

/// The built-in experiments' ids: each one's command, registry entry, and the
/// "experiment" of its session files and results. Written here once, with no other
/// include, so that light headers (the window's plain data types) can name them too.
namespace lcs {

inline constexpr const char* kSyntheticExperiment = "synthetic";
inline constexpr const char* kCorruptionExperiment = "corruption";
inline constexpr const char* kSelectiveExperiment = "selective";
inline constexpr const char* kCamvidExperiment = "camvid";
inline constexpr const char* kTabularExperiment = "tabular";

} // namespace lcs
