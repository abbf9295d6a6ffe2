#include "base/core/json_input.h"

#include <set>

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "base/core/input_error.h"

namespace lcs {

namespace {

/// Bracket depth outside strings; the first offset that passes `maxDepth`, or npos.
size_t firstTooDeep(const std::string& text, int maxDepth)
{
    int depth = 0;
    bool inString = false, escaped = false;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            if (escaped)
                escaped = false;
            else if (c == '\\')
                escaped = true;
            else if (c == '"')
                inString = false;
            continue;
        }
        if (c == '"')
            inString = true;
        else if (c == '[' || c == '{') {
            if (++depth > maxDepth)
                return i;
        } else if (c == ']' || c == '}')
            --depth;
    }
    return std::string::npos;
}

} // namespace

nlohmann::json parseJsonInput(const std::string& text, const std::string& source, const JsonLimits& limits)
{
    if (text.size() > limits.maxBytes)
        throw InputError(source + ": " + std::to_string(text.size()) + " bytes; at most "
                         + std::to_string(limits.maxBytes) + " are read");
    // nlohmann's lexer takes a NUL byte for the end of the input, so whatever follows one
    // would go unread; JSON text holds none (a NUL in a string is written \u0000).
    if (const size_t nul = text.find('\0'); nul != std::string::npos)
        throw InputError(source + ": not valid JSON (a NUL byte at byte " + std::to_string(nul) + ")");
    const size_t deep = firstTooDeep(text, limits.maxDepth);
    if (deep != std::string::npos)
        throw InputError(source + ": nested deeper than " + std::to_string(limits.maxDepth) + " levels (at byte "
                         + std::to_string(deep) + ")");
    // A key given twice in one object: nlohmann keeps the last silently, so a file could
    // say two things and be read as one of them. Refused, naming the key.
    std::vector<std::set<std::string>> keysPerObject;
    const auto refuseDuplicateKeys = [&](int, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
        using Event = nlohmann::json::parse_event_t;
        if (event == Event::object_start) {
            keysPerObject.emplace_back();
        } else if (event == Event::object_end) {
            if (!keysPerObject.empty())
                keysPerObject.pop_back();
        } else if (event == Event::key && !keysPerObject.empty()) {
            const auto key = parsed.get<std::string>();
            if (!keysPerObject.back().insert(key).second)
                throw InputError(source + ": key \"" + (key.size() > 40 ? key.substr(0, 37) + "..." : key) +
                                 "\" appears twice in one object; which value is meant is unclear");
        }
        return true;
    };
    try {
        return nlohmann::json::parse(text, refuseDuplicateKeys);
    } catch (const nlohmann::json::exception& e) {
        // parse_error for syntax, out_of_range for numbers such as 1e400.
        throw InputError(source + ": not valid JSON (" + e.what() + ")");
    }
}

std::string jsonExcerpt(const nlohmann::json& value)
{
    // Depth is capped on input, so dump cannot recurse far; the size can still be large.
    std::string s = value.dump(-1, ' ', /*ensure_ascii=*/true, nlohmann::json::error_handler_t::replace);
    if (s.size() > 40)
        s = s.substr(0, 37) + "...";
    return s;
}

JsonObjectReader::JsonObjectReader(const nlohmann::json& value, std::string source, std::string path)
    : m_value(&value), m_source(std::move(source)), m_path(std::move(path))
{
    if (!value.is_object())
        throw InputError(m_source + ": " + (m_path.empty() ? std::string("the top level")
                                                            : "field \"" + m_path.substr(0, m_path.size() - 1) + "\"")
                         + " must be an object, got " + jsonExcerpt(value));
}

std::string JsonObjectReader::where(const std::string& key) const
{
    return m_source + ": field \"" + m_path + key + "\"";
}

void JsonObjectReader::fail(const std::string& key, const std::string& what) const
{
    throw InputError(where(key) + " " + what);
}

bool JsonObjectReader::has(const char* key) const
{
    return m_value->contains(key);
}

bool JsonObjectReader::hasValue(const char* key) const
{
    return m_value->contains(key) && !(*m_value)[key].is_null();
}

const nlohmann::json& JsonObjectReader::require(const char* key) const
{
    if (!m_value->contains(key))
        throw InputError(m_source + ": missing field \"" + m_path + key + "\"");
    return (*m_value)[key];
}

namespace {

bool integral(const nlohmann::json& v)
{
    return v.is_number_integer();
}

long long checkedInteger(const JsonObjectReader& r, const std::string& key, const nlohmann::json& v, long long lo,
                         long long hi)
{
    const std::string range = "an integer in " + std::to_string(lo) + ".." + std::to_string(hi);
    if (!integral(v))
        r.fail(key, "must be " + range + ", got " + jsonExcerpt(v));
    // Unsigned values above int64 range arrive as number_unsigned.
    if (v.is_number_unsigned() && v.get<unsigned long long>() > static_cast<unsigned long long>(hi))
        r.fail(key, "must be " + range + ", got " + jsonExcerpt(v));
    const long long x = v.is_number_unsigned() ? static_cast<long long>(v.get<unsigned long long>()) : v.get<long long>();
    if (x < lo || x > hi)
        r.fail(key, "must be " + range + ", got " + jsonExcerpt(v));
    return x;
}

} // namespace

long long JsonObjectReader::integer(const char* key, long long lo, long long hi) const
{
    return checkedInteger(*this, key, require(key), lo, hi);
}

long long JsonObjectReader::integerOr(const char* key, long long fallback, long long lo, long long hi) const
{
    return has(key) ? integer(key, lo, hi) : fallback;
}

double JsonObjectReader::number(const char* key) const
{
    const auto& v = require(key);
    if (!v.is_number() || !std::isfinite(v.get<double>()))
        fail(key, "must be a finite number, got " + jsonExcerpt(v));
    return v.get<double>();
}

std::string JsonObjectReader::string(const char* key) const
{
    const auto& v = require(key);
    if (!v.is_string())
        fail(key, "must be a string, got " + jsonExcerpt(v));
    return v.get<std::string>();
}

std::string JsonObjectReader::stringOr(const char* key, const std::string& fallback) const
{
    return has(key) ? string(key) : fallback;
}

bool JsonObjectReader::boolean(const char* key) const
{
    const auto& v = require(key);
    if (!v.is_boolean())
        fail(key, "must be true or false, got " + jsonExcerpt(v));
    return v.get<bool>();
}

std::vector<long long> JsonObjectReader::integers(const char* key, size_t maxItems, long long lo, long long hi) const
{
    const auto& v = require(key);
    if (!v.is_array() || v.size() > maxItems)
        fail(key, "must be an array of at most " + std::to_string(maxItems) + " integers, got " + jsonExcerpt(v));
    std::vector<long long> out;
    for (size_t i = 0; i < v.size(); ++i)
        out.push_back(checkedInteger(*this, std::string(key) + "[" + std::to_string(i) + "]", v[i], lo, hi));
    return out;
}

std::vector<double> JsonObjectReader::numbers(const char* key, size_t maxItems) const
{
    const auto& v = require(key);
    if (!v.is_array() || v.size() > maxItems)
        fail(key, "must be an array of at most " + std::to_string(maxItems) + " numbers, got " + jsonExcerpt(v));
    std::vector<double> out;
    for (size_t i = 0; i < v.size(); ++i) {
        if (!v[i].is_number() || !std::isfinite(v[i].get<double>()))
            fail(std::string(key) + "[" + std::to_string(i) + "]", "must be a finite number, got " + jsonExcerpt(v[i]));
        out.push_back(v[i].get<double>());
    }
    return out;
}

std::vector<std::string> JsonObjectReader::strings(const char* key, size_t maxItems) const
{
    const auto& v = require(key);
    if (!v.is_array() || v.size() > maxItems)
        fail(key, "must be an array of at most " + std::to_string(maxItems) + " strings, got " + jsonExcerpt(v));
    std::vector<std::string> out;
    for (size_t i = 0; i < v.size(); ++i) {
        if (!v[i].is_string())
            fail(std::string(key) + "[" + std::to_string(i) + "]", "must be a string, got " + jsonExcerpt(v[i]));
        out.push_back(v[i].get<std::string>());
    }
    return out;
}

JsonObjectReader JsonObjectReader::object(const char* key) const
{
    return JsonObjectReader(require(key), m_source, m_path + key + ".");
}

void JsonObjectReader::refuseUnknown(std::initializer_list<const char*> known) const
{
    for (auto it = m_value->begin(); it != m_value->end(); ++it) {
        const bool isKnown = std::any_of(known.begin(), known.end(), [&](const char* k) { return it.key() == k; });
        if (!isKnown) {
            std::string list;
            for (const char* k : known)
                list += (list.empty() ? "" : ", ") + std::string(k);
            throw InputError(m_source + ": unknown field \"" + m_path + it.key().substr(0, 40) + "\" (known: " + list + ")");
        }
    }
}

} // namespace lcs
