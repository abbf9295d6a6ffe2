#pragma once

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "base/core/input_error.h"
#include "base/core/outputs.h"
#include "engine/core/job.h"

/// What every lcstudio-cli command shares: exit codes, the cancel token the signal
/// handler sets, strict flag parsing, output-path checks and the progress printer.
namespace cli {

/// The exit status of every command: 0 done, 1 failed, 2 bad input or use (a bad file,
/// flag or value), 130 cancelled (a signal's own is 128 + its number).
enum ExitStatus : int { kExitOk = 0, kExitFailure = 1, kExitUsage = 2, kExitCancelled = 130 };

/// Set by SIGINT/SIGTERM; every job polls it.
extern lcs::CancelToken g_cancel;
/// The signal that cancelled the command (SIGINT, SIGTERM, SIGHUP; 0: none), set by the
/// handler; the exit status is 128 + it, as shells report a process a signal ended.
extern volatile std::sig_atomic_t g_cancelSignal;

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

/// One command's flags: whether each takes a value and may be repeated. A name without
/// leading dashes ("SESSION") is a positional argument taking one value.
struct FlagSpec {
    std::string name;
    bool takesValue;
    bool repeatable = false;
};

/// A command's "Options (files and output)" help: `inputs` (its own help entries, e.g.
/// --costs), then its declared outputs, --quiet and --help.
std::string filesAndOutputHelp(const std::string& inputs, const std::vector<lcs::OutputSpec>& outputs);

/// The flags of a command's declared outputs (each takes a path).
std::vector<FlagSpec> outputFlagSpecs(const std::vector<lcs::OutputSpec>& outputs);

/// The paths a command was given for its declared outputs, every one checked by the
/// output policy (lcs::checkOutputPolicy) against the others and the command's inputs
/// before any work. Folders are not created here: a command creates them once its
/// inputs have been read.
class CommandOutputs {
public:
    CommandOutputs() = default;
    /// `given` maps flags ("--json") to paths, as parsed; `inputs` are the command's
    /// input paths (files and folders; names that are not paths are skipped).
    CommandOutputs(const std::vector<lcs::OutputSpec>& outputs, const std::map<std::string, std::string>& given,
                   const std::vector<lcs::CommandPath>& inputs);
    /// The path given for output `name`, or "" when none was.
    std::string path(const std::string& name) const;
    /// The results files: each text written atomically, only to the paths given.
    void writeResults(const std::string& jsonText, const std::string& csvText) const;

private:
    std::map<std::string, std::string> m_paths;
};

/// A run's progress against the plan it declares (lcs::PlanTracker): how much of the
/// whole run is done and, once that says something, how long the rest should take.
class PlanClock {
public:
    explicit PlanClock(bool tty) : m_tty(tty), m_start(std::chrono::steady_clock::now()) {}
    /// For JobContext::plan.
    lcs::PlanSink sink();
    /// After `p`: a bar, the share done and the time left on a terminal (" [#####-----]
    /// 43%, ETA 12 s"), the same without the bar otherwise; "" before the run declares a
    /// plan.
    std::string note(const lcs::Progress& p);

private:
    bool m_tty;
    std::chrono::steady_clock::time_point m_start;
    lcs::PlanTracker m_tracker;
};

/// Live progress on stderr: one rewritten line on a terminal, a line per finished
/// task otherwise (so CI logs stay short).
class ProgressPrinter {
public:
    explicit ProgressPrinter(bool quiet)
        : m_quiet(quiet), m_tty(::isatty(STDERR_FILENO) != 0), m_clock(m_tty)
    {
    }
    /// For JobContext::plan: the run's share done and ETA join the lines.
    lcs::PlanSink planSink() { return m_clock.sink(); }
    void operator()(const lcs::Progress& p)
    {
        if (m_quiet)
            return;
        const std::string note = m_clock.note(p);
        if (p.outcome) {
            std::fprintf(stderr, "%s[%lld/%lld] %s: cost %.3f -> %.3f%s%s\n", m_tty ? "\r\033[K" : "", p.step, p.total,
                         p.detail.c_str(), p.outcome->uncorrectedCost, p.outcome->correctedCost,
                         p.outcome->collapsed ? " (warning: q collapsed to one class)" : "", note.c_str());
            return;
        }
        const lcs::TaskPosition tasks = p.tasks.value_or(lcs::TaskPosition{});
        if (m_tty)
            std::fprintf(stderr, "\r\033[K[%lld/%lld] %s: %s %lld/%lld%s", tasks.done, tasks.total, p.detail.c_str(),
                         p.phase.c_str(), p.step, p.total, note.c_str());
    }
    void finish()
    {
        if (!m_quiet && m_tty)
            std::fprintf(stderr, "\r\033[K");
    }

private:
    bool m_quiet;
    bool m_tty;
    PlanClock m_clock;
};

/// Progress of the image experiments on stderr: the running phase on one rewritten line
/// on a terminal, and one line per finished phase and per epoch's test figures.
class ProgressLines {
public:
    explicit ProgressLines(bool quiet);
    ~ProgressLines();
    ProgressLines(const ProgressLines&) = delete;
    ProgressLines& operator=(const ProgressLines&) = delete;
    /// For JobContext::plan: the run's share done and ETA join the lines.
    lcs::PlanSink planSink() { return m_clock.sink(); }
    /// A job's context reporting here, cancelled by the signal handler; `plan` (when
    /// given) declared, for runs that do not declare their own.
    lcs::JobContext context(const lcs::TaskPlan& plan = {});
    void operator()(const lcs::Progress& p);
    void finish();

private:
    /// Piped output (a log file, a cluster's output) prints a progress line at most this
    /// often as reports come (about every second)...
    static constexpr std::chrono::milliseconds kPipedLineGap{1500};
    /// ...and, when none has come for this long (a slow step, an evaluation), repeats the
    /// last one saying how long ago it came: a line at least every two seconds, so that a
    /// reader can tell a slow phase from a stuck one.
    static constexpr std::chrono::milliseconds kHeartbeat{1800};
    void heartbeat();

    bool m_quiet;
    bool m_tty;
    PlanClock m_clock;
    std::mutex m_mutex;  ///< reports come on the job's thread, heartbeats on their own
    std::condition_variable m_wake;
    bool m_stopped = false;
    std::string m_lastState;  ///< the last report's "detail: phase step/total ..." line
    std::chrono::steady_clock::time_point m_lastLine = std::chrono::steady_clock::now();
    std::chrono::steady_clock::time_point m_lastReport = m_lastLine;
    std::thread m_heartbeat;  ///< piped and not quiet only
};

} // namespace cli
