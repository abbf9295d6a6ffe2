#pragma once

#include <string>

namespace lcs {

/// Writes `contents` to `path` through a temporary file in the same directory and a
/// rename, so a reader never sees a half-written file and a failed write leaves the
/// old file intact. Throws std::runtime_error naming the path.
void writeFileAtomically(const std::string& path, const std::string& contents);

/// Whole file as a string; throws std::runtime_error naming the path.
std::string readFile(const std::string& path);

/// Runs `writer(tmpPath)` then renames tmpPath over `path` (for writers that need a
/// path, such as torch::save). Removes the temporary file on failure.
template <typename Writer>
void writeAtomicallyWith(const std::string& path, Writer&& writer);

std::string temporaryPathFor(const std::string& path);
void commitTemporary(const std::string& tmpPath, const std::string& path);
void discardTemporary(const std::string& tmpPath) noexcept;

template <typename Writer>
void writeAtomicallyWith(const std::string& path, Writer&& writer)
{
    const std::string tmp = temporaryPathFor(path);
    try {
        writer(tmp);
        commitTemporary(tmp, path);
    } catch (...) {
        discardTemporary(tmp);
        throw;
    }
}

} // namespace lcs
