#pragma once

#include <cstddef>
#include <string>
#include <vector>

/// What a user most likely meant by a name that is not there (a flag, a column): one
/// rule for every "did you mean" the program prints.
namespace lcs {

/// Edits (insert, delete, replace) between a and b.
size_t editDistance(const std::string& a, const std::string& b);

/// Up to `most` of `names` closest to `given`, nearest first: those equal to it but for
/// letter case, else those within `maxEdits` edits.
std::vector<std::string> nearestNames(const std::string& given, const std::vector<std::string>& names,
                                      size_t maxEdits, size_t most = 3);

/// "a, b, c" of every name, whole, at most `most` of them, then "and N more".
std::string nameList(const std::vector<std::string>& names, size_t most = 30);

} // namespace lcs
