#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

/// Class labels for rows a user already has (the labels of `correct`'s X, of a test set):
/// one per row, as a CSV or text column (a class name from the cost matrix, or a class
/// index 0..K-1; one header line allowed) or a 1-D .npy of whole numbers. Plain C++: fuzzed.
namespace lcs {

/// Parses `bytes` (the contents of `source`, whose `what` names the flag in messages) into
/// class indices in [0, classCount). `classNames` (may be empty) are accepted as labels.
/// Throws InputError naming the file, the row and the value: a label that is not one of
/// the classes, more than one column, a count other than `expectedRows`.
std::vector<int64_t> parseLabels(const std::string& bytes, const std::string& source, int classCount,
                                 const std::vector<std::string>& classNames, int64_t expectedRows);

/// Reads `path` (size-capped for expectedRows) and parses it.
std::vector<int64_t> readLabels(const std::string& path, const std::string& what, int classCount,
                                const std::vector<std::string>& classNames, int64_t expectedRows);

} // namespace lcs
