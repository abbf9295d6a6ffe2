#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

/// Reading JSON from outside the program with limits and typed fields, so that every
/// reader gives the same clear messages: the file, the field's path, what was expected
/// and (an excerpt of) what was found. Nothing here throws anything but InputError.
namespace lcs {

/// Limits every JSON reader applies before parsing: the size, and the nesting depth
/// (checked by a scan first, because deep nesting overflows the stack in recursive code
/// such as json::dump, which error messages use).
struct JsonLimits {
    size_t maxBytes = size_t{1} << 20;
    int maxDepth = 32;
};

/// Parses `text`; throws InputError naming `source` when it is too large, too deep or
/// not valid JSON (including numbers out of double range).
nlohmann::json parseJsonInput(const std::string& text, const std::string& source, const JsonLimits& limits = {});

/// A short, single-line excerpt of a value for error messages (at most ~40 characters).
std::string jsonExcerpt(const nlohmann::json& value);

/// Typed access to the fields of one JSON object. `path` is the object's place in the
/// document ("" for the top level, "architecture." for a nested one), used in messages.
class JsonObjectReader {
public:
    /// Throws InputError when `value` is not an object.
    JsonObjectReader(const nlohmann::json& value, std::string source, std::string path = "");

    bool has(const char* key) const;
    /// Present and not null.
    bool hasValue(const char* key) const;
    const nlohmann::json& require(const char* key) const;

    /// An integral JSON number (not 2.7, not 1e3) in [lo, hi].
    long long integer(const char* key, long long lo, long long hi) const;
    long long integerOr(const char* key, long long fallback, long long lo, long long hi) const;
    /// A finite number.
    double number(const char* key) const;
    std::string string(const char* key) const;
    std::string stringOr(const char* key, const std::string& fallback) const;
    bool boolean(const char* key) const;
    /// An array of at most maxItems integers, each in [lo, hi].
    std::vector<long long> integers(const char* key, size_t maxItems, long long lo, long long hi) const;
    std::vector<std::string> strings(const char* key, size_t maxItems) const;
    /// An array of at most maxItems finite numbers.
    std::vector<double> numbers(const char* key, size_t maxItems) const;
    JsonObjectReader object(const char* key) const;

    /// Refuses keys outside `known`: a misspelt field must not be silently ignored.
    void refuseUnknown(std::initializer_list<const char*> known) const;

    [[noreturn]] void fail(const std::string& key, const std::string& what) const;
    const std::string& source() const { return m_source; }
    const nlohmann::json& json() const { return *m_value; }

private:
    std::string where(const std::string& key) const;

    const nlohmann::json* m_value;
    std::string m_source;
    std::string m_path;
};

} // namespace lcs
