#include "base/core/settings.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "base/core/input_error.h"
#include "base/core/number_format.h"
#include "base/inference/method_catalog.h"

namespace lcs {

namespace {

constexpr size_t kHelpColumn = 22;  ///< where the help text starts after the flag
constexpr size_t kHelpWidth = 88;   ///< help lines wrap before this column

/// A bound held as a double, as a whole number: saturated, since 2^63 - 1 has no exact
/// double and converting it back would overflow.
long long wholeBound(double v)
{
    if (v >= 9.2e18)
        return std::numeric_limits<long long>::max();
    if (v <= -9.2e18)
        return std::numeric_limits<long long>::min();
    return static_cast<long long>(v);
}

} // namespace

std::string helpEntry(const std::string& head, const std::string& text)
{
    std::string out = head, line;
    size_t column = head.size();
    if (column >= kHelpColumn) {  // a long flag: its help starts on the next line
        out += "\n" + std::string(kHelpColumn, ' ');
        column = kHelpColumn;
    } else {
        out += std::string(kHelpColumn - column, ' ');
        column = kHelpColumn;
    }
    size_t start = 0;
    bool first = true;
    while (start < text.size()) {
        size_t end = text.find(' ', start);
        if (end == std::string::npos)
            end = text.size();
        const std::string word = text.substr(start, end - start);
        if (!first && column + 1 + word.size() > kHelpWidth) {
            out += "\n" + std::string(kHelpColumn, ' ');
            column = kHelpColumn;
            first = true;
        }
        if (!first) {
            out += ' ';
            ++column;
        }
        out += word;
        column += word.size();
        first = false;
        start = end + 1;
    }
    return out + "\n";
}

namespace {

std::string joined(const std::vector<std::string>& items, const std::string& separator)
{
    std::string out;
    for (const auto& item : items)
        out += (out.empty() ? "" : separator) + item;
    return out;
}

std::string valueText(const nlohmann::json& v)
{
    if (v.is_string())
        return v.get<std::string>();
    if (v.is_number_integer())
        return std::to_string(v.get<long long>());
    if (v.is_number())
        return formatNumber(v.get<double>());
    if (v.is_array()) {
        std::vector<std::string> items;
        for (const auto& item : v)
            items.push_back(valueText(item));
        return joined(items, ",");
    }
    return v.dump();
}

} // namespace

namespace {

SettingSpec declared(std::string name, SettingKind kind, std::string valueName, std::string help,
                     nlohmann::json defaultValue)
{
    SettingSpec s;
    s.name = std::move(name);
    s.kind = kind;
    s.valueName = std::move(valueName);
    s.help = std::move(help);
    s.defaultValue = std::move(defaultValue);
    return s;
}

} // namespace

SettingSpec integerSetting(std::string name, std::string valueName, std::string help, nlohmann::json defaultValue,
                           long long min, long long max)
{
    auto s = declared(std::move(name), SettingKind::Integer, std::move(valueName), std::move(help),
                      std::move(defaultValue));
    s.min = static_cast<double>(min);
    s.max = static_cast<double>(max);
    return s;
}

SettingSpec numberSetting(std::string name, std::string valueName, std::string help, nlohmann::json defaultValue,
                          double min, double max, bool minExclusive)
{
    auto s = declared(std::move(name), SettingKind::Number, std::move(valueName), std::move(help),
                      std::move(defaultValue));
    s.min = min;
    s.max = max;
    s.minExclusive = minExclusive;
    return s;
}

SettingSpec choiceSetting(std::string name, std::string valueName, std::string help, nlohmann::json defaultValue,
                          std::vector<std::string> choices)
{
    auto s = declared(std::move(name), SettingKind::Choice, std::move(valueName), std::move(help),
                      std::move(defaultValue));
    s.choices = std::move(choices);
    return s;
}

SettingSpec methodsSetting(std::string name, std::string help, nlohmann::json defaultValue,
                           std::vector<std::string> choices)
{
    auto s = declared(std::move(name), SettingKind::Methods, "LIST", std::move(help), std::move(defaultValue));
    s.choices = std::move(choices);
    return s;
}

SettingSpec numbersSetting(std::string name, std::string help, nlohmann::json defaultValue, double min, double max)
{
    auto s = declared(std::move(name), SettingKind::Numbers, "LIST", std::move(help), std::move(defaultValue));
    s.min = min;
    s.max = max;
    return s;
}

SettingSpec textSetting(std::string name, std::string valueName, std::string help, nlohmann::json defaultValue)
{
    return declared(std::move(name), SettingKind::Text, std::move(valueName), std::move(help), std::move(defaultValue));
}

SettingSpec withLogScale(SettingSpec spec)
{
    spec.logScale = true;
    return spec;
}

SettingSpec withFormLabel(SettingSpec spec, std::string label)
{
    spec.label = std::move(label);
    return spec;
}

SettingSpec withWindowValue(SettingSpec spec, nlohmann::json value)
{
    spec.windowValue = std::move(value);
    return spec;
}

nlohmann::json windowValues(const std::vector<SettingSpec>& specs)
{
    nlohmann::json values = nlohmann::json::object();
    for (const auto& spec : specs)
        if (!spec.windowValue.is_null())
            values[spec.name] = spec.windowValue;
    return values;
}

SettingSpec switchSetting(std::string name, std::string help)
{
    return declared(std::move(name), SettingKind::Switch, "", std::move(help), false);
}

SettingSpec deviceSetting(std::string defaultValue)
{
    auto s = textSetting("device", "D", "cpu or cuda[:N] when this LibTorch build has CUDA", std::move(defaultValue));
    s.suggestions = {"cpu", "cuda"};
    // The form only; whether this build and machine have the device is checked by the run.
    s.problem = [](const std::string& d) -> std::string {
        if (d == "cpu" || d == "cuda" || (d.rfind("cuda:", 0) == 0 && parseInteger(d.substr(5), 0, 64)))
            return {};
        return "is not cpu, cuda or cuda:N";
    };
    return s;
}

std::string settingFlag(const SettingSpec& spec)
{
    std::string flag = "--" + spec.name;
    std::replace(flag.begin(), flag.end(), '_', '-');
    return flag;
}

const SettingSpec* findSetting(const std::vector<SettingSpec>& specs, const std::string& name)
{
    for (const auto& s : specs)
        if (s.name == name)
            return &s;
    return nullptr;
}

nlohmann::json parseSettingValue(const SettingSpec& spec, const std::string& text)
{
    const std::string flag = settingFlag(spec);
    const std::string shown = "\"" + text.substr(0, 40) + "\"";
    switch (spec.kind) {
    case SettingKind::Integer: {
        const long long lo = wholeBound(spec.min), hi = wholeBound(spec.max);
        const auto v = parseInteger(text, lo, hi);
        if (!v)
            throw InputError(flag + ": " + shown + " is not an integer in " + std::to_string(lo) + ".." +
                             std::to_string(hi));
        if (spec.problem) {
            const auto problem = spec.problem(text);
            if (!problem.empty())
                throw InputError(flag + ": " + shown + " " + problem);
        }
        return *v;
    }
    case SettingKind::Number: {
        const auto v = parseFiniteNumber(text);
        const bool aboveMin = v && (spec.minExclusive ? *v > spec.min : *v >= spec.min);
        if (!v || !aboveMin || *v > spec.max)
            throw InputError(flag + ": " + shown + " is not a number in " + (spec.minExclusive ? "(" : "[") +
                             formatNumber(spec.min) + ", " + formatNumber(spec.max) + "]");
        return *v;
    }
    case SettingKind::Choice:
        if (std::find(spec.choices.begin(), spec.choices.end(), text) == spec.choices.end())
            throw InputError(flag + ": " + shown + " is not " +
                             (spec.choices.size() == 2 ? spec.choices[0] + " or " + spec.choices[1]
                                                       : "one of " + joined(spec.choices, ", ")));
        return text;
    case SettingKind::Methods: {
        // A trailing comma leaves an empty name, which the list parser refuses by name.
        std::vector<std::string> names;
        size_t start = 0;
        while (true) {
            const size_t comma = text.find(',', start);
            names.push_back(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
            if (comma == std::string::npos)
                break;
            start = comma + 1;
        }
        return parseMethodIds(names, flag, spec.choices);
    }
    case SettingKind::Numbers: {
        const auto values = parseNumberList(flag, text);
        for (size_t i = 0; i < values.size(); ++i) {
            if (values[i] < spec.min || values[i] > spec.max)
                throw InputError(flag + ": " + formatNumber(values[i]) + " is outside [" + formatNumber(spec.min) + ", " +
                                 formatNumber(spec.max) + "]");
            // A value listed twice would run twice and understate the spread.
            if (std::find(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(i), values[i]) !=
                values.begin() + static_cast<std::ptrdiff_t>(i))
                throw InputError(flag + ": " + formatNumber(values[i]) + " is listed twice");
        }
        return values;
    }
    case SettingKind::Text:
        if (text.empty())
            throw InputError(flag + " needs a non-empty value");
        if (spec.problem) {
            const auto problem = spec.problem(text);
            if (!problem.empty())
                throw InputError(flag + ": " + shown + " " + problem);
        }
        return text;
    case SettingKind::Switch:
        if (text == "true")
            return true;
        if (text == "false")
            return false;
        throw InputError(flag + ": " + shown + " is not true or false");
    }
    return nullptr;
}

namespace {

/// A JSON value as the text a flag would carry, so one parser checks both.
std::optional<std::string> flagText(const SettingSpec& spec, const nlohmann::json& v)
{
    auto joinedItems = [&](auto&& item) -> std::optional<std::string> {
        if (!v.is_array())
            return std::nullopt;
        std::string out;
        for (const auto& x : v) {
            auto t = item(x);
            if (!t)
                return std::nullopt;
            out += (out.empty() ? "" : ",") + *t;
        }
        return out;
    };
    switch (spec.kind) {
    case SettingKind::Integer:
        if (v.is_number_integer())
            return v.dump();
        // 31.0 is 31 (JSON writers differ); 31.5 is not an integer.
        if (v.is_number_float() && std::isfinite(v.get<double>()) && std::floor(v.get<double>()) == v.get<double>() &&
            std::abs(v.get<double>()) < 9.0e15)
            return std::to_string(static_cast<long long>(v.get<double>()));
        return std::nullopt;
    case SettingKind::Number:
        if (v.is_number())
            return formatNumber(v.get<double>());
        return std::nullopt;
    case SettingKind::Choice:
    case SettingKind::Text:
        if (v.is_string())
            return v.get<std::string>();
        return std::nullopt;
    case SettingKind::Switch:
        if (v.is_boolean())
            return v.get<bool>() ? "true" : "false";
        return std::nullopt;
    case SettingKind::Methods:
        return joinedItems([](const nlohmann::json& x) -> std::optional<std::string> {
            // An id with a comma would read as two.
            if (!x.is_string() || x.get<std::string>().find(',') != std::string::npos)
                return std::nullopt;
            return x.get<std::string>();
        });
    case SettingKind::Numbers:
        if (v.is_number())  // one value, as the flag takes it
            return formatNumber(v.get<double>());
        return joinedItems([](const nlohmann::json& x) -> std::optional<std::string> {
            if (!x.is_number())
                return std::nullopt;
            return formatNumber(x.get<double>());
        });
    }
    return std::nullopt;
}

const char* kindName(SettingKind kind)
{
    switch (kind) {
    case SettingKind::Integer: return "an integer";
    case SettingKind::Number: return "a number";
    case SettingKind::Choice: return "a string";
    case SettingKind::Methods: return "a list of method ids (strings without commas)";
    case SettingKind::Numbers: return "a list of numbers";
    case SettingKind::Text: return "a string";
    case SettingKind::Switch: return "true or false";
    }
    return "a value";
}

} // namespace

nlohmann::json checkedSettings(const std::vector<SettingSpec>& specs, const nlohmann::json& values,
                               const std::string& source)
{
    if (!values.is_object())
        throw InputError(source + ": settings must be a JSON object");
    for (const auto& item : values.items())
        if (!findSetting(specs, item.key()))
            throw InputError(source + ": unknown setting \"" + item.key().substr(0, 40) + "\"");
    auto out = nlohmann::json::object();
    for (const auto& spec : specs) {
        if (!values.contains(spec.name) || values.at(spec.name).is_null()) {
            if (spec.required)
                throw InputError(source + ": setting \"" + spec.name + "\" is required (" + settingFlag(spec) + " " +
                                 spec.valueName + ": " + spec.help + ")");
            out[spec.name] = spec.defaultValue;
            continue;
        }
        // The default reads back as itself, whatever its kind allows a user to type (an
        // optional file's "" is no file): checked settings always check again.
        if (values.at(spec.name) == spec.defaultValue) {
            out[spec.name] = spec.defaultValue;
            continue;
        }
        const auto text = flagText(spec, values.at(spec.name));
        if (!text)
            throw InputError(source + ": setting \"" + spec.name + "\" must be " + kindName(spec.kind));
        try {
            out[spec.name] = parseSettingValue(spec, *text);
        } catch (const InputError& e) {
            throw InputError(source + ": setting " + e.what());
        }
    }
    return out;
}

std::string presetValuesText(const SettingSpec& spec)
{
    std::string out;
    for (const auto& [preset, value] : spec.presetValues.items()) {
        std::string text;
        bool same = value.is_object() && !value.empty();
        for (const auto& v : value)
            same = same && v == value.begin().value();
        if (same) {
            text = valueText(value.begin().value());  // the same for every kind of data
        } else if (value.is_object()) {
            for (const auto& [kind, v] : value.items())
                text += (text.empty() ? "" : ", ") + (v.is_null() ? std::string("all") : valueText(v)) + " (" + kind + ")";
        } else {
            text = value.is_null() ? "all" : valueText(value);
        }
        out += (out.empty() ? "" : "; ") + preset + " " + text;
    }
    return out;
}

std::string settingsHelp(const std::vector<SettingSpec>& specs)
{
    std::string out;
    for (const auto& s : specs) {
        const std::string head = "  " + settingFlag(s) + " " + s.valueName;
        std::string help = s.help;
        if (s.kind == SettingKind::Methods || s.kind == SettingKind::Choice)
            help += (s.kind == SettingKind::Methods ? ", comma-separated from " : ": ") + joined(s.choices, ", ");
        const std::string def = s.required ? "none: required"
                                : !s.defaultText.empty() ? s.defaultText
                                : s.defaultValue.is_null() || s.kind == SettingKind::Switch ? std::string()
                                                           : valueText(s.defaultValue);
        const std::string presets = presetValuesText(s);
        if (!def.empty())
            help += " (default " + def + (presets.empty() ? "" : ": " + presets) +
                    (s.unit.empty() || !s.defaultText.empty() ? "" : " " + s.unit) + ")";
        out += helpEntry(head, help);
    }
    return out;
}

} // namespace lcs
