#include "base/core/number_format.h"

#include <charconv>
#include <cmath>
#include <sstream>
#include <system_error>

#include "base/core/input_error.h"

namespace lcs {

std::string formatNumber(double value)
{
    // to_chars without a precision gives the shortest round-trip form. strtod/stod would
    // refuse to read some of its own output back (subnormals set ERANGE), so the library
    // reads with from_chars too.
    char buffer[64];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
    if (result.ec != std::errc())
        return std::isnan(value) ? "nan" : (value < 0 ? "-inf" : "inf");
    return std::string(buffer, result.ptr);
}

std::optional<double> parseFiniteNumber(std::string_view text)
{
    if (text.empty())
        return std::nullopt;
    // from_chars takes no leading '+'; JSON and Weka never write one, but people do.
    if (text.front() == '+')
        text.remove_prefix(1);
    double v = 0;
    const auto result = std::from_chars(text.data(), text.data() + text.size(), v);
    if (result.ec != std::errc() || result.ptr != text.data() + text.size() || !std::isfinite(v))
        return std::nullopt;
    return v;
}

std::optional<long long> parseInteger(std::string_view text, long long lo, long long hi)
{
    if (!text.empty() && text.front() == '+')
        text.remove_prefix(1);
    long long v = 0;
    const auto result = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || result.ec != std::errc() || result.ptr != text.data() + text.size() || v < lo || v > hi)
        return std::nullopt;
    return v;
}

std::vector<double> parseNumberList(const std::string& what, const std::string& text)
{
    std::vector<double> out;
    std::stringstream ss(text);
    std::string field;
    while (std::getline(ss, field, ',')) {
        const auto first = field.find_first_not_of(" \t");
        const auto last = field.find_last_not_of(" \t");
        const std::string trimmed = first == std::string::npos ? "" : field.substr(first, last - first + 1);
        const auto v = parseFiniteNumber(trimmed);
        if (!v)
            throw InputError(what + ": \"" + field.substr(0, 40) + "\" is not a finite number");
        out.push_back(*v);
    }
    if (out.empty() || (!text.empty() && text.back() == ','))
        throw InputError(what + ": \"" + text.substr(0, 40) + "\" is not a comma-separated list of numbers");
    return out;
}

std::string padded(std::string text, size_t width)
{
    size_t characters = 0;
    for (unsigned char c : text)
        characters += (c & 0xC0) != 0x80;  // not a continuation byte
    if (characters < width)
        text.append(width - characters, ' ');
    return text;
}

} // namespace lcs
