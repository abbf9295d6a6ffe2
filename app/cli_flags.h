#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/cli_support.h"
#include "base/core/settings.h"

/// Command lines parsed with CLI11 from declarations: an experiment's settings (parsed and
/// checked by their SettingSpec) and the command's own flags (files, switches). Usage
/// errors keep the strict rules and words of the rest of the CLI: an unknown option, a
/// stray argument, a flag given twice, a switch given a value and an empty value are all
/// refused, naming the flag.
namespace cli {

struct ParsedFlags {
    bool help = false;
    nlohmann::json settings = nlohmann::json::object();  ///< setting name -> parsed value
    std::map<std::string, std::string> values;            ///< own flag ("--json") -> value
    std::set<std::string> switches;                       ///< own switches given ("--quiet")
    /// Repeatable own flags ("--point"): every value, in the order given.
    std::map<std::string, std::vector<std::string>> repeated;
};

/// Parses argv[first..argc). Throws UsageError (or InputError from a setting's parser).
/// `help`, when given, is the command's --help text: every own flag must appear in it,
/// so that the help cannot go stale (a missing flag is a bug: std::logic_error).
ParsedFlags parseFlags(int argc, char** argv, int first, const std::string& command,
                       const std::vector<lcs::SettingSpec>& settings, const std::vector<FlagSpec>& own,
                       const char* help = nullptr);

} // namespace cli
