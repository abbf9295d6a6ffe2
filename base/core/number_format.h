#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace lcs {

/// The shortest decimal text that reads back as exactly `value` (std::to_chars), for
/// every double: subnormals, huge values and -0 included. NaN and infinities come out as
/// "nan", "inf", "-inf" (callers that write formats without them must check first).
std::string formatNumber(double value);

/// `text` padded with spaces to `width` characters (UTF-8 characters, not bytes: "±" is
/// two bytes), for columns of text tables.
std::string padded(std::string text, size_t width);

/// Strict parse of a whole token as a finite double: no surrounding text, no NaN or
/// infinity, no overflow or underflow to zero of a non-zero literal. nullopt otherwise.
/// Subnormal values are accepted: they are finite doubles.
std::optional<double> parseFiniteNumber(std::string_view text);

/// Strict parse of a whole token as an integer in [lo, hi]; nullopt otherwise.
std::optional<long long> parseInteger(std::string_view text, long long lo, long long hi);

/// Comma-separated finite numbers ("0.5,-1"), spaces around a number allowed; throws
/// InputError naming `what` for a bad item, an empty list or a trailing comma.
std::vector<double> parseNumberList(const std::string& what, const std::string& text);

} // namespace lcs
