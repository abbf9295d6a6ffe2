#include "app/cli_support.h"

#include "base/core/atomic_file.h"

#include <cmath>
#include <filesystem>
#include <sstream>

#include <unistd.h>

#include "base/core/number_format.h"
#include "base/core/settings.h"

namespace cli {

lcs::CancelToken g_cancel;
volatile std::sig_atomic_t g_cancelSignal = 0;

long long parseIntegerFlag(const std::string& flag, const std::string& value, long long lo, long long hi)
{
    const auto v = lcs::parseInteger(value, lo, hi);
    if (!v)
        throw UsageError(flag + ": \"" + value.substr(0, 40) + "\" is not an integer in " + std::to_string(lo) + ".."
                         + std::to_string(hi));
    return *v;
}

/// Comma-separated finite numbers ("0.5,-1"); spaces around a number are allowed.
std::vector<double> parseNumbers(const std::string& what, const std::string& text)
{
    return lcs::parseNumberList(what, text);
}

std::vector<std::string> splitNames(const std::string& text)
{
    std::vector<std::string> names;
    std::stringstream ss(text);
    std::string name;
    while (std::getline(ss, name, ','))
        names.push_back(name);
    if (!text.empty() && text.back() == ',')
        names.push_back("");
    return names;
}

std::string filesAndOutputHelp(const std::string& inputs, const std::vector<lcs::OutputSpec>& outputs)
{
    return "Options (files and output):\n" + inputs + lcs::outputsHelp(outputs) +
           lcs::helpEntry("  --quiet", "no progress on stderr") + lcs::helpEntry("  -h, --help", "this text");
}

std::vector<FlagSpec> outputFlagSpecs(const std::vector<lcs::OutputSpec>& outputs)
{
    std::vector<FlagSpec> flags;
    for (const auto& o : outputs)
        flags.push_back({lcs::outputFlag(o), true});
    return flags;
}

CommandOutputs::CommandOutputs(const std::vector<lcs::OutputSpec>& outputs,
                               const std::map<std::string, std::string>& given,
                               const std::vector<lcs::CommandPath>& inputs)
{
    std::vector<lcs::CommandPath> paths;
    for (const auto& o : outputs) {
        const auto it = given.find(lcs::outputFlag(o));
        if (it == given.end())
            continue;
        paths.push_back({it->first, it->second, o.kind});
        m_paths[o.name] = it->second;
    }
    try {
        lcs::checkOutputPolicy(paths, inputs);
    } catch (const lcs::InputError& e) {
        throw UsageError(e.what());
    }
    for (const auto& o : outputs)
        if (const auto it = given.find(lcs::outputFlag(o)); it != given.end())
            if (const auto problem = lcs::outputFormatProblem(o, it->second); !problem.empty())
                throw UsageError(problem);
}

std::string CommandOutputs::path(const std::string& name) const
{
    const auto it = m_paths.find(name);
    return it == m_paths.end() ? std::string() : it->second;
}

void CommandOutputs::writeResults(const std::string& jsonText, const std::string& csvText) const
{
    if (!path("json").empty())
        lcs::writeFileAtomically(path("json"), jsonText);
    if (!path("csv").empty())
        lcs::writeFileAtomically(path("csv"), csvText);
}

lcs::PlanSink PlanClock::sink()
{
    return [this](const lcs::TaskPlan& plan, lcs::PlanProgress::Order order) {
        m_tracker.setPlan(plan, order);
        m_start = std::chrono::steady_clock::now();
    };
}

std::string PlanClock::note(const lcs::Progress& p)
{
    if (!m_tracker.hasPlan())
        return {};
    const double done = m_tracker.report(p);
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count();
    std::string out = " ";
    if (m_tty) {
        constexpr int width = 20;
        const int filled = static_cast<int>(std::lround(done * width));
        out += "[" + std::string(static_cast<size_t>(filled), '#') + std::string(static_cast<size_t>(width - filled), '-') +
               "] ";
    }
    out += std::to_string(static_cast<int>(done * 100)) + "%";
    if (const auto left = lcs::etaSeconds(elapsed, done))
        out += ", ETA " + std::to_string(static_cast<long long>(std::lround(*left))) + " s";
    return out;
}

ProgressLines::ProgressLines(bool quiet) : m_quiet(quiet), m_tty(::isatty(STDERR_FILENO) != 0), m_clock(m_tty)
{
    if (!m_quiet && !m_tty)
        m_heartbeat = std::thread([this] { heartbeat(); });
}

ProgressLines::~ProgressLines()
{
    finish();
}

void ProgressLines::heartbeat()
{
    std::unique_lock<std::mutex> lock(m_mutex);
    while (!m_wake.wait_for(lock, std::chrono::milliseconds(200), [this] { return m_stopped; })) {
        const auto now = std::chrono::steady_clock::now();
        if (m_lastState.empty() || now - m_lastLine < kHeartbeat)
            continue;
        // The latest report, not yet printed; or, where none came since, the last one again.
        const auto quiet = std::chrono::duration<double>(now - m_lastReport).count();
        if (quiet < 1)
            std::fprintf(stderr, "%s\n", m_lastState.c_str());
        else
            std::fprintf(stderr, "%s (working; last report %.0f s ago)\n", m_lastState.c_str(), quiet);
        m_lastLine = now;
    }
}

void ProgressLines::operator()(const lcs::Progress& p)
{
    if (m_quiet)
        return;
    const std::lock_guard<std::mutex> lock(m_mutex);
    auto figures = [](const std::vector<std::pair<std::string, double>>& named) {
        std::string out;
        for (const auto& [k, v] : named)
            out += " " + k + " " + lcs::formatNumber(std::round(v * 1e4) / 1e4);
        return out;
    };
    const char* clear = m_tty ? "\r\033[K" : "";
    if (p.test) {
        std::vector<std::pair<std::string, double>> named{
            {"cost", p.test->cost}, {"accuracy", p.test->accuracy}, {"nll", p.test->nll}};
        if (p.test->meanIou)
            named.emplace_back("miou", *p.test->meanIou);
        std::fprintf(stderr, "%s%s: epoch %d test%s\n", clear, p.detail.c_str(), p.test->epoch, figures(named).c_str());
        m_lastLine = std::chrono::steady_clock::now();
        return;
    }
    auto scalars = [&] { return figures(p.training.named()); };
    const std::string note = m_clock.note(p);
    if (m_tty)
        std::fprintf(stderr, "\r\033[K%s: %s %lld/%lld%s", p.detail.c_str(), p.phase.c_str(), p.step, p.total,
                     note.c_str());
    const auto now = std::chrono::steady_clock::now();
    m_lastReport = now;
    m_lastState = p.detail + ": " + p.phase + " " + std::to_string(p.step) + "/" + std::to_string(p.total) +
                  scalars() + note;
    if (p.step == p.total) {
        std::fprintf(stderr, "%s%s: %s done,%s%s\n", clear, p.detail.c_str(), p.phase.c_str(), scalars().c_str(),
                     note.c_str());
        m_lastLine = now;
    } else if (!m_tty && now - m_lastLine >= kPipedLineGap) {
        std::fprintf(stderr, "%s\n", m_lastState.c_str());
        m_lastLine = now;
    }
}

lcs::JobContext ProgressLines::context(const lcs::TaskPlan& plan)
{
    lcs::JobContext ctx{[this](const lcs::Progress& p) { (*this)(p); }, &g_cancel};
    ctx.plan = planSink();
    if (!plan.empty())
        ctx.declarePlan(plan);
    return ctx;
}

void ProgressLines::finish()
{
    {
        const std::lock_guard<std::mutex> lock(m_mutex);
        m_stopped = true;
    }
    m_wake.notify_all();
    if (m_heartbeat.joinable())
        m_heartbeat.join();
    if (!m_quiet && m_tty)
        std::fprintf(stderr, "\r\033[K");
}

} // namespace cli
