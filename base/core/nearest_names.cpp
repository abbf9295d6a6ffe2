#include "base/core/nearest_names.h"

#include <algorithm>
#include <cctype>
#include <utility>

namespace lcs {

size_t editDistance(const std::string& a, const std::string& b)
{
    std::vector<size_t> row(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j)
        row[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
        size_t diagonal = row[0];
        row[0] = i;
        for (size_t j = 1; j <= b.size(); ++j) {
            const size_t up = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diagonal = up;
        }
    }
    return row[b.size()];
}

namespace {

std::string lowered(std::string s)
{
    for (auto& c : s)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

} // namespace

std::vector<std::string> nearestNames(const std::string& given, const std::vector<std::string>& names,
                                      size_t maxEdits, size_t most)
{
    std::vector<std::pair<size_t, std::string>> near;
    const auto givenLower = lowered(given);
    for (const auto& name : names)
        if (lowered(name) == givenLower)
            near.emplace_back(0, name);
    if (near.empty())
        for (const auto& name : names) {
            // Names far longer than the given one cannot be within the edits: skip the work.
            if (name.size() > given.size() + maxEdits || given.size() > name.size() + maxEdits)
                continue;
            const size_t d = editDistance(given, name);
            if (d <= maxEdits)
                near.emplace_back(d, name);
        }
    std::stable_sort(near.begin(), near.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<std::string> out;
    for (size_t i = 0; i < near.size() && i < most; ++i)
        out.push_back(near[i].second);
    return out;
}

std::string nameList(const std::vector<std::string>& names, size_t most)
{
    std::string out;
    for (size_t i = 0; i < names.size() && i < most; ++i)
        out += (out.empty() ? "" : ", ") + names[i];
    if (names.size() > most)
        out += " and " + std::to_string(names.size() - most) + " more";
    return out;
}

} // namespace lcs
