#pragma once

#include <algorithm>
#include <cctype>
#include <stdexcept>
#include <cstdio>
#include <string>
#include <vector>

#include <unistd.h>

#include "core/input_error.h"
#include "core/job.h"

/// What every lcstudio-cli command shares: exit codes, the cancel token the signal
/// handler sets, strict flag parsing, output-path checks and the progress printer.
namespace cli {

constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;
constexpr int kExitCancelled = 130;

/// Set by SIGINT/SIGTERM; every job polls it.
extern lcs::CancelToken g_cancel;

/// A bad flag or value: bad input like a bad file, and reported the same way (exit 2).
struct UsageError : lcs::InputError {
    using lcs::InputError::InputError;
};

long long parseIntegerFlag(const std::string& flag, const std::string& value, long long lo, long long hi);

/// Comma-separated finite numbers ("0.5,-1"); spaces around a number are allowed.
std::vector<double> parseNumbers(const std::string& what, const std::string& text);

/// Comma-separated names ("a,b"); an empty item (a trailing comma) is kept as "" so the
/// caller's parser can refuse it.
std::vector<std::string> splitNames(const std::string& text);

/// One command's flags: whether each takes a value and may be repeated.
struct FlagSpec {
    const char* name;
    bool takesValue;
    bool repeatable = false;
};

/// "--flag value" / "--flag=value" parser. Unknown flags, positional arguments, a value
/// given to a switch (--quiet=no), an empty value (--json "") and a single-valued flag
/// given twice are all usage errors: silently ignoring any of them runs something other
/// than what the user asked for.
class Args {
public:
    /// `help` is the command's --help text: every flag the parser accepts must appear in
    /// it, so the help cannot go stale (checked on every run; a missing flag is a bug,
    /// reported as std::logic_error, exit 1).
    Args(int argc, char** argv, int first, std::string command, std::vector<FlagSpec> specs, const char* help)
        : m_command(std::move(command)), m_specs(std::move(specs))
    {
        const std::string text = help;
        for (const auto& spec : m_specs) {
            const std::string name = spec.name;
            size_t at = text.find(name);
            // A whole word: "--seed" must not be satisfied by "--seeds".
            while (at != std::string::npos && at + name.size() < text.size() &&
                   (std::isalnum(static_cast<unsigned char>(text[at + name.size()])) || text[at + name.size()] == '-'))
                at = text.find(name, at + 1);
            if (at == std::string::npos)
                throw std::logic_error("the help text of \"" + m_command + "\" does not mention " + name);
        }
        for (int i = first; i < argc; ++i)
            m_items.emplace_back(argv[i]);
    }
    bool next(std::string& flag, std::string& value)
    {
        if (m_pos >= m_items.size())
            return false;
        flag = m_items[m_pos++];
        value.clear();
        if (flag == "-h")
            flag = "--help";
        if (flag.rfind("--", 0) != 0)
            throw UsageError(m_command + ": unexpected argument \"" + flag.substr(0, 40) + "\" (see lcstudio-cli "
                             + m_command + " --help)");
        bool inlineValue = false;
        const auto eq = flag.find('=');
        if (eq != std::string::npos) {
            value = flag.substr(eq + 1);
            flag = flag.substr(0, eq);
            inlineValue = true;
        }
        const auto spec = std::find_if(m_specs.begin(), m_specs.end(), [&](const FlagSpec& f) { return flag == f.name; });
        if (flag == "--help") {
            if (inlineValue)
                throw UsageError("--help takes no value");
            return true;
        }
        if (spec == m_specs.end())
            throw UsageError(m_command + ": unknown option \"" + flag.substr(0, 40) + "\" (see lcstudio-cli " + m_command
                             + " --help)");
        if (!spec->takesValue && inlineValue)
            throw UsageError(flag + " takes no value (got \"" + value.substr(0, 40) + "\")");
        if (spec->takesValue && !inlineValue) {
            if (m_pos >= m_items.size())
                throw UsageError(flag + " needs a value");
            value = m_items[m_pos++];
        }
        if (spec->takesValue && value.empty())
            throw UsageError(flag + " needs a non-empty value");
        if (!spec->repeatable) {
            if (std::find(m_seen.begin(), m_seen.end(), flag) != m_seen.end())
                throw UsageError(flag + " is given twice");
            m_seen.push_back(flag);
        }
        return true;
    }

private:
    std::string m_command;
    std::vector<FlagSpec> m_specs;
    std::vector<std::string> m_items;
    std::vector<std::string> m_seen;
    size_t m_pos = 0;
};


/// Refuses, before any work, an output path whose folder is missing or not writable
/// (a run must not end in a write failure after all its work) or that is a folder.
void checkOutputPath(const std::string& flag, const std::string& path);

/// A command's results files (--json, --csv): each path checked when given, each text
/// written atomically at the end, only to the paths given.
struct ResultsOutputs {
    std::string json, csv;
    /// Takes --json or --csv (checking the path); false for any other flag.
    bool take(const std::string& flag, const std::string& value);
    void write(const std::string& jsonText, const std::string& csvText) const;
};

/// Live progress on stderr: one rewritten line on a terminal, a line per finished
/// task otherwise (so CI logs stay short).
class ProgressPrinter {
public:
    explicit ProgressPrinter(bool quiet) : m_quiet(quiet), m_tty(::isatty(STDERR_FILENO) != 0) {}
    void operator()(const lcs::Progress& p)
    {
        if (m_quiet)
            return;
        if (p.outcome) {
            std::fprintf(stderr, "%s[%lld/%lld] %s: cost %.3f -> %.3f%s\n", m_tty ? "\r\033[K" : "", p.step, p.total,
                         p.detail.c_str(), p.outcome->uncorrectedCost, p.outcome->correctedCost,
                         p.outcome->collapsed ? " (warning: q collapsed to one class)" : "");
            return;
        }
        const lcs::TaskPosition tasks = p.tasks.value_or(lcs::TaskPosition{});
        if (m_tty)
            std::fprintf(stderr, "\r\033[K[%lld/%lld] %s: %s %lld/%lld", tasks.done, tasks.total, p.detail.c_str(),
                         p.phase.c_str(), p.step, p.total);
    }
    void finish()
    {
        if (!m_quiet && m_tty)
            std::fprintf(stderr, "\r\033[K");
    }

private:
    bool m_quiet;
    bool m_tty;
};

/// Progress of the image experiments on stderr: the running phase on one rewritten line
/// on a terminal, and one line per finished phase and per epoch's test figures.
class ProgressLines {
public:
    explicit ProgressLines(bool quiet);
    void operator()(const lcs::Progress& p);
    void finish();

private:
    bool m_quiet;
    bool m_tty;
};

} // namespace cli
