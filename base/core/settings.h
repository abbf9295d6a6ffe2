#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

/// Settings declared once. Each experiment lists its settings as data (name, kind,
/// default, range, unit, help, the cpu and paper preset values); the command line's flags,
/// their parsing and their help, and the results file's record of what was run are all
/// derived from that list (the pattern of scikit-learn's get_params/set_params and Weka's
/// OptionHandler). Plain C++: no LibTorch, no Qt.
namespace lcs {

enum class SettingKind {
    Integer,  ///< a whole number in [min, max]
    Number,   ///< a finite number in [min, max], or (min, max] when minExclusive
    Choice,   ///< one of `choices`
    Methods,  ///< a comma-separated list of distinct method ids among `choices`
    Numbers,  ///< a comma-separated list of distinct finite numbers, each in [min, max]
    Text,     ///< any non-empty text (checked where it is used, e.g. a device)
    Switch,   ///< on or off: a flag without a value on the command line, true/false in files
};

/// What a form offers beside typing a Text setting's value.
enum class SettingBrowse {
    None,
    Folder,  ///< a "Browse..." button that picks a folder
    File,    ///< a "Browse..." button that picks a file
};

struct SettingSpec {
    std::string name;                    ///< snake_case key in files; the flag is --name with dashes
    SettingKind kind = SettingKind::Integer;
    std::string valueName;               ///< the value's placeholder in help: N, X, LIST, P, D
    std::string help;                    ///< what it does, one line or two
    nlohmann::json defaultValue;         ///< null: decided at run time (defaultText says how)
    std::string defaultText;             ///< help's "(default ...)" text when not the default's own
    double min = 0, max = 0;
    bool minExclusive = false;
    std::vector<std::string> choices;
    std::string unit;                    ///< "steps", "epochs", ...; empty when none
    std::string label;                   ///< a form's label where the name's words are not clear ("BBVI prior"); empty: from the name
    /// Where a preset decides the default ("the preset's"), each preset's value: preset
    /// name -> value, or -> {kind of data -> value} where it depends on the data. Derived
    /// from the presets themselves, shown in --help and the form's tooltip.
    nlohmann::json presetValues = nlohmann::json::object();
    std::vector<std::string> suggestions; ///< Text: values a form lists for picking (any other may still be typed)
    SettingBrowse browse = SettingBrowse::None;
    /// Text and Integer: what is wrong with a value the kind and range admit ("is not cpu
    /// or cuda[:N]", "is neither 0 nor 2..400"), empty when it is fine.
    std::function<std::string(const std::string&)> problem;
    /// No default: a run, a session or a form without a value is refused (the data).
    bool required = false;
    /// The value the window's form starts from where an interactive run wants less than
    /// a headless one (the region grid the window draws, the subsets that train in
    /// minutes); null: the default.
    nlohmann::json windowValue;
    /// Its useful values span decades (learning rates, widths): a plot against it, such as
    /// a sweep's figure, uses a log axis.
    bool logScale = false;
};

/// The name of the setting an experiment reads its data from (a folder or a data set's
/// name): `run SESSION --data D` and the window's remembered data set it.
inline constexpr const char* kDataSetting = "data";
/// The setting of an experiment that can run a preview (a fraction of its data, ending
/// with how long the whole run would take), and the fraction the window's Preview runs.
inline constexpr const char* kPreviewSetting = "preview";
inline constexpr double kQuickPreviewFraction = 0.1;

/// `spec` with a form label.
SettingSpec withFormLabel(SettingSpec spec, std::string label);
/// The same spec declared log-scaled (SettingSpec::logScale).
SettingSpec withLogScale(SettingSpec spec);
/// The same spec with a window value (SettingSpec::windowValue).
SettingSpec withWindowValue(SettingSpec spec, nlohmann::json value);
/// name -> windowValue of every setting that has one: what a window's new form shows.
nlohmann::json windowValues(const std::vector<SettingSpec>& specs);

/// Declarations by kind, the fields a kind does not use left empty.
SettingSpec integerSetting(std::string name, std::string valueName, std::string help, nlohmann::json defaultValue,
                           long long min, long long max);
SettingSpec numberSetting(std::string name, std::string valueName, std::string help, nlohmann::json defaultValue,
                          double min, double max, bool minExclusive);
SettingSpec choiceSetting(std::string name, std::string valueName, std::string help, nlohmann::json defaultValue,
                          std::vector<std::string> choices);
SettingSpec methodsSetting(std::string name, std::string help, nlohmann::json defaultValue,
                           std::vector<std::string> choices);
SettingSpec numbersSetting(std::string name, std::string help, nlohmann::json defaultValue, double min, double max);
SettingSpec textSetting(std::string name, std::string valueName, std::string help, nlohmann::json defaultValue);
/// Off by default; given on the command line as a bare flag (--mc-dropout).
SettingSpec switchSetting(std::string name, std::string help);
/// The device setting every experiment takes: cpu, or cuda[:N] where LibTorch has CUDA.
SettingSpec deviceSetting(std::string defaultValue = "cpu");

/// A setting bound to the config struct it sets: its declaration, how to read its value
/// off a config and how to write a parsed value into one. An experiment's list of these
/// is the one place its settings exist.
template <class Config>
struct BoundSetting {
    SettingSpec spec;
    std::function<nlohmann::json(const Config&)> get;
    std::function<void(Config&, const nlohmann::json&)> set;
};

/// The declarations of a bound list, in order.
template <class Config>
std::vector<SettingSpec> specsOf(const std::vector<BoundSetting<Config>>& settings)
{
    std::vector<SettingSpec> out;
    for (const auto& s : settings)
        out.push_back(s.spec);
    return out;
}

/// Writes every value `values` names (name -> parsed value) into `config`.
template <class Config>
void applySettings(const std::vector<BoundSetting<Config>>& settings, const nlohmann::json& values, Config& config)
{
    for (const auto& s : settings)
        if (values.contains(s.spec.name) && !values.at(s.spec.name).is_null())
            s.set(config, values.at(s.spec.name));
}

/// Every setting's value in `config` (name -> value), e.g. for a results record.
template <class Config>
nlohmann::json settingValues(const std::vector<BoundSetting<Config>>& settings, const Config& config)
{
    auto out = nlohmann::json::object();
    for (const auto& s : settings)
        out[s.spec.name] = s.get(config);
    return out;
}

/// "--correction-lr" for "correction_lr".
std::string settingFlag(const SettingSpec& spec);
/// The spec named `name` among `specs`, or nullptr.
const SettingSpec* findSetting(const std::vector<SettingSpec>& specs, const std::string& name);
/// Parses one value as `spec` says; throws InputError naming the flag and the value
/// ("--replicates: \"0\" is not an integer in 1..10000").
nlohmann::json parseSettingValue(const SettingSpec& spec, const std::string& text);
/// `values` (setting name -> value, e.g. from a session file) checked against `specs`:
/// an unknown name, a value of the wrong kind or outside its range, or a required setting
/// without a value, is refused with an InputError naming `source` and the setting.
/// Settings `values` does not name take their defaults (a null default stays null:
/// decided at run time).
nlohmann::json checkedSettings(const std::vector<SettingSpec>& specs, const nlohmann::json& values,
                               const std::string& source);
/// "cpu 4 (grayscale), 3 (colour); paper 100 (grayscale), 50 (colour)", or empty.
std::string presetValuesText(const SettingSpec& spec);
/// One aligned help entry: `head` ("  --json FILE"), then `text` wrapped to the help's
/// width, every line after the first indented to the help column.
std::string helpEntry(const std::string& head, const std::string& text);

/// Aligned help lines, one block per setting: "  --replicates N      replicates (default 10)".
std::string settingsHelp(const std::vector<SettingSpec>& specs);

} // namespace lcs
