#include "app/cli_flags.h"

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include <CLI/CLI.hpp>

#include "base/core/nearest_names.h"

namespace cli {

namespace {

/// Every option takes exactly one value per occurrence; occurrences are counted, not
/// merged, so that a flag given twice can be refused by name.
CLI::Option* addValueOption(CLI::App& app, const std::string& flag)
{
    return app.add_option(flag)
        ->expected(1)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
        ->allow_extra_args(false);
}

/// A positional argument (a name without dashes, "SESSION"): one value; a second is a
/// stray argument.
CLI::Option* addPositional(CLI::App& app, const std::string& name)
{
    return app.add_option(name)->expected(1);
}

/// "--json --quiet": the next flag taken as a value (a file named --quiet) is refused.
void refuseFlagLikeValue(const std::string& flag, const std::string& value)
{
    if (value.rfind("--", 0) == 0)
        throw UsageError(flag + ": \"" + value.substr(0, 40) + "\" looks like a flag, not a value (" + flag +
                         " needs one)");
}

/// The single value of `option`, refusing a repeat or an empty value.
std::string onlyValue(const CLI::Option& option, const std::string& flag)
{
    if (option.count() > 1)
        throw UsageError(flag + " is given twice");
    const auto& results = option.results();
    if (results.empty() || results.front().empty())
        throw UsageError(flag + " needs a non-empty value");
    refuseFlagLikeValue(flag, results.front());
    return results.front();
}

/// Whether `text` mentions `name` as a whole word ("--seed" is not in "--seeds").
bool mentions(const std::string& text, const std::string& name)
{
    for (size_t at = text.find(name); at != std::string::npos; at = text.find(name, at + 1)) {
        const size_t end = at + name.size();
        if (end >= text.size() || !(std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '-'))
            return true;
    }
    return false;
}

std::vector<std::string> switchNames(const std::vector<lcs::SettingSpec>& settings, const std::vector<FlagSpec>& own)
{
    std::vector<std::string> switches;
    for (const auto& f : own)
        if (!f.takesValue)
            switches.push_back(f.name);
    for (const auto& s : settings)
        if (s.kind == lcs::SettingKind::Switch)
            switches.push_back(lcs::settingFlag(s));
    return switches;
}

/// A switch given a value ("--quiet=no", "--help=yes") is refused before CLI11 sees it:
/// CLI11 reads "=true" or "=yes" as the switch set and "=no" as unset, so "--help=no"
/// would run the command.
void refuseSwitchValues(const std::vector<std::string>& args, std::vector<std::string> switches)
{
    switches.push_back("--help");
    switches.push_back("-h");
    for (const auto& arg : args) {
        if (arg == "--")
            return;
        const auto eq = arg.find('=');
        if (eq == std::string::npos)
            continue;
        for (const auto& name : switches)
            if (arg.compare(0, eq, name) == 0 && eq == name.size())
                throw UsageError(name + " takes no value (got \"" + arg.substr(eq + 1, 40) + "\")");
    }
}

[[noreturn]] void throwMismatch(const CLI::ArgumentMismatch& e)
{
    const std::string what = e.what();
    throw UsageError(what.substr(0, what.find(':')) + " needs a value");
}

/// "--csv --json x": CLI11 gives --csv the value "--json", and "x" is left over. The
/// flag that lost its value is the one to name, before the leftover is reported.
void refuseFlagLikeValues(const std::vector<std::pair<const lcs::SettingSpec*, CLI::Option*>>& settingOptions,
                          const std::vector<std::pair<const FlagSpec*, CLI::Option*>>& ownOptions)
{
    for (const auto& [spec, option] : settingOptions)
        if (spec->kind != lcs::SettingKind::Switch)
            for (const auto& v : option->results())
                refuseFlagLikeValue(lcs::settingFlag(*spec), v);
    for (const auto& [flag, option] : ownOptions)
        if (flag->takesValue && flag->name.rfind("--", 0) == 0)
            for (const auto& v : option->results())
                refuseFlagLikeValue(flag->name, v);
}

/// The flags among `known` a mistyped or renamed `given` most likely meant: within two
/// edits (--replicate), else those that end in it (--split: --train-split) or share its
/// first word (--max-frames: --max-train, --max-eval); at most three, nearest first.
std::vector<std::string> nearFlags(const std::string& given, const std::vector<std::string>& known)
{
    std::vector<std::pair<size_t, std::string>> near, related;
    const std::string body = given.substr(2);
    const std::string firstWord = body.substr(0, body.find('-'));
    for (const auto& flag : known) {
        const size_t distance = lcs::editDistance(given, flag);
        if (distance <= 2)
            near.emplace_back(distance, flag);
        else if ((flag.size() > given.size() && flag.compare(flag.size() - body.size() - 1, std::string::npos, "-" + body) == 0) ||
                 (firstWord.size() >= 3 && firstWord.size() < body.size() && flag.rfind("--" + firstWord + "-", 0) == 0))
            related.emplace_back(distance, flag);
    }
    auto& chosen = near.empty() ? related : near;
    std::sort(chosen.begin(), chosen.end());
    std::vector<std::string> out;
    for (size_t i = 0; i < chosen.size() && i < 3; ++i)
        out.push_back(chosen[i].second);
    return out;
}

void refuseExtras(const std::vector<std::string>& extras, const std::string& command,
                  const std::vector<std::string>& known)
{
    if (extras.empty())
        return;
    const std::string& arg = extras.front();
    if (arg.rfind("--", 0) == 0) {
        const std::string given = arg.substr(0, std::min(arg.find('='), size_t{40}));
        std::string hint;
        for (const auto& flag : nearFlags(given, known))
            hint += (hint.empty() ? "did you mean " : " or ") + flag;
        throw UsageError(command + ": unknown option \"" + given + "\" (" + (hint.empty() ? "" : hint + "? ") +
                         "see lcstudio-cli " + command + " --help)");
    }
    throw UsageError(command + ": unexpected argument \"" + arg.substr(0, 40) + "\" (see lcstudio-cli " + command +
                     " --help)");
}

void readSettingOptions(const std::vector<std::pair<const lcs::SettingSpec*, CLI::Option*>>& settingOptions,
                        ParsedFlags& parsed)
{
    for (const auto& [spec, option] : settingOptions) {
        if (option->count() == 0)
            continue;
        if (spec->kind == lcs::SettingKind::Switch) {
            if (option->count() > 1)
                throw UsageError(lcs::settingFlag(*spec) + " is given twice");
            parsed.settings[spec->name] = true;
        } else {
            parsed.settings[spec->name] = lcs::parseSettingValue(*spec, onlyValue(*option, lcs::settingFlag(*spec)));
        }
    }
}

void readOwnOptions(const std::vector<std::pair<const FlagSpec*, CLI::Option*>>& ownOptions, ParsedFlags& parsed)
{
    for (const auto& [flag, option] : ownOptions) {
        if (option->count() == 0)
            continue;
        if (!flag->takesValue) {
            if (option->count() > 1)
                throw UsageError(std::string(flag->name) + " is given twice");
            parsed.switches.insert(flag->name);
        } else if (flag->repeatable) {
            const auto& values = option->results();  // in the order given
            for (const auto& v : values) {
                if (v.empty())
                    throw UsageError(std::string(flag->name) + " needs a non-empty value");
                refuseFlagLikeValue(flag->name, v);
            }
            parsed.repeated[flag->name] = values;
        } else {
            parsed.values[flag->name] = onlyValue(*option, flag->name);
        }
    }
}


} // namespace

ParsedFlags parseFlags(int argc, char** argv, int first, const std::string& command,
                       const std::vector<lcs::SettingSpec>& settings, const std::vector<FlagSpec>& own,
                       const char* help)
{
    if (help)
        for (const auto& f : own)
            if (!mentions(help, f.name))
                throw std::logic_error("the help text of \"" + command + "\" does not mention " + f.name);
    CLI::App app{command, "lcstudio-cli " + command};
    app.set_help_flag();
    app.allow_extras(true);  // reported below in this CLI's words
    ParsedFlags parsed;
    app.add_flag("-h,--help", parsed.help);
    std::vector<std::pair<const lcs::SettingSpec*, CLI::Option*>> settingOptions;
    for (const auto& s : settings)
        settingOptions.emplace_back(&s, s.kind == lcs::SettingKind::Switch
                                            ? app.add_flag(lcs::settingFlag(s))->disable_flag_override()
                                            : addValueOption(app, lcs::settingFlag(s)));
    std::vector<std::pair<const FlagSpec*, CLI::Option*>> ownOptions;
    for (const auto& f : own)
        ownOptions.emplace_back(&f, f.name.rfind('-', 0) != 0 ? addPositional(app, f.name)
                                    : f.takesValue           ? addValueOption(app, f.name)
                                                             : app.add_flag(f.name)->disable_flag_override());
    std::vector<std::string> args(argv + first, argv + argc);
    refuseSwitchValues(args, switchNames(settings, own));
    std::reverse(args.begin(), args.end());  // CLI11 takes them last first
    try {
        app.parse(args);
    } catch (const CLI::ArgumentMismatch& e) {
        throwMismatch(e);
    } catch (const CLI::ParseError& e) {
        throw UsageError(command + ": " + e.what());
    }
    std::vector<std::string> known;
    for (const auto& s : settings)
        known.push_back(lcs::settingFlag(s));
    for (const auto& f : own)
        if (f.name.rfind("--", 0) == 0)
            known.push_back(f.name);
    refuseFlagLikeValues(settingOptions, ownOptions);
    refuseExtras(app.remaining(), command, known);
    if (parsed.help)
        return parsed;
    readSettingOptions(settingOptions, parsed);
    readOwnOptions(ownOptions, parsed);
    return parsed;
}

} // namespace cli
