#include "base/sweep/sweep_runner.h"


#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include <fcntl.h>
#include <spawn.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "base/core/atomic_file.h"
#include "base/core/input_error.h"
#include "base/core/json_input.h"
#include "base/core/number_format.h"
#include "base/sweep/sweep_run_steps.h"

extern char** environ;

namespace lcs {

namespace {

std::vector<char*> argvOf(const std::vector<std::string>& args)
{
    std::vector<char*> out;
    for (const auto& a : args)
        out.push_back(const_cast<char*>(a.c_str()));
    out.push_back(nullptr);
    return out;
}

int statusOf(int waitStatus)
{
    if (WIFEXITED(waitStatus))
        return WEXITSTATUS(waitStatus);
    if (WIFSIGNALED(waitStatus))
        return 128 + WTERMSIG(waitStatus);
    return 1;
}

std::vector<std::string> cellCommand(const SweepRunOptions& o, int id)
{
    return {o.program, "run", sweep_paths::session(o.dir, id), "--json", sweep_paths::resultsJson(o.dir, id),
            "--csv", sweep_paths::resultsCsv(o.dir, id)};
}

} // namespace

namespace sweep_run {

bool isCancelled(const SweepRunOptions& o) { return o.cancelled && o.cancelled(); }
void say(const SweepRunOptions& o, const std::string& line)
{
    if (o.say)
        o.say(line);
}

std::string cellList(const std::vector<int>& cells)
{
    std::string out;
    for (int c : cells)
        out += (out.empty() ? "" : ",") + std::to_string(c);
    return out;
}

/// The selected cells (all, or those asked for) that have no results; the rest skipped.
std::vector<int> cellsToRun(const SweepManifest& manifest, const SweepRunOptions& o, SweepRunReport& report)
{
    // A folder sweep plan wrote has all four; one removed since would stop every cell
    // with a spawn error that names no file.
    for (const char* sub : {"cells", "results", "logs", "status"}) {
        std::error_code ec;
        if (!std::filesystem::is_directory(o.dir + "/" + sub, ec))
            throw InputError(o.dir + "/" + sub + ": no such folder; a sweep folder (written by lcstudio-cli sweep "
                             "plan) holds cells/, results/, logs/ and status/");
    }
    std::set<int> only(o.onlyCells.begin(), o.onlyCells.end());
    for (int c : only)
        if (c < 0 || c >= static_cast<int>(manifest.cells.size()))
            throw InputError("--cells: " + std::to_string(c) + " is not a cell of " + o.dir + " (0.." +
                             std::to_string(manifest.cells.size() - 1) + ")");
    std::vector<int> out;
    for (const auto& cell : manifest.cells) {
        if (!only.empty() && !only.count(cell.id))
            continue;
        if (cellStatus(o.dir, cell.id).state == CellState::Done)
            report.skipped.push_back(cell.id);
        else
            out.push_back(cell.id);
    }
    return out;
}

void finishReport(const SweepManifest& manifest, const SweepRunOptions& o, SweepRunReport& report)
{
    std::set<int> only(o.onlyCells.begin(), o.onlyCells.end());
    for (const auto& cell : manifest.cells) {
        if (!only.empty() && !only.count(cell.id))
            continue;
        const auto s = cellStatus(o.dir, cell.id);
        if (s.state != CellState::Done)
            report.notDone.push_back(s);
    }
}

std::string cellLabel(const SweepManifest& manifest, int id)
{
    std::string values;
    for (const auto& [name, value] : manifest.cells.at(static_cast<size_t>(id)).values.items())
        values += (values.empty() ? "" : ", ") + name + "=" + sweepValueText(value);
    return "cell " + sweep_paths::cellName(id) + " (" + values + ")";
}

} // namespace sweep_run

using namespace sweep_run;

ProgramOutput runProgram(const std::vector<std::string>& argv)
{
    int fds[2];
    if (::pipe(fds) != 0)
        throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
    posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
    posix_spawn_file_actions_addclose(&actions, fds[0]);
    posix_spawn_file_actions_addclose(&actions, fds[1]);
    pid_t pid = 0;
    auto args = argvOf(argv);
    const int spawned = ::posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(fds[1]);
    ProgramOutput out;
    if (spawned != 0) {
        ::close(fds[0]);
        out.status = 127;
        out.output = argv[0] + ": " + std::strerror(spawned);
        return out;
    }
    char buffer[4096];
    for (ssize_t n; (n = ::read(fds[0], buffer, sizeof buffer)) != 0;) {
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            break;
        if (out.output.size() < (size_t{1} << 24))
            out.output.append(buffer, static_cast<size_t>(n));
    }
    ::close(fds[0]);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    out.status = statusOf(status);
    return out;
}

SweepLock::SweepLock(const std::string& dir)
{
    const std::string path = dir + "/.lock";
    m_fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (m_fd < 0)
        throw OutputError(path + ": cannot open (" + std::strerror(errno) + ")");
    if (::flock(m_fd, LOCK_EX | LOCK_NB) != 0) {
        ::close(m_fd);
        m_fd = -1;
        throw InputError(dir + ": another `lcstudio-cli sweep run` is running this sweep");
    }
}

SweepLock::~SweepLock()
{
    if (m_fd >= 0)
        ::close(m_fd);
}

bool sweepIsLocked(const std::string& dir)
{
    const std::string path = dir + "/.lock";
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    const bool locked = ::flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
    ::close(fd);
    return locked;
}

// ---------------------------------------------------------------------------------------
// The local pool

SweepRunReport runSweepLocally(const SweepManifest& manifest, const SweepRunOptions& o, const LocalPoolOptions& pool)
{
    SweepRunReport report;
    std::vector<int> queue = cellsToRun(manifest, o, report);
    if (!report.skipped.empty())
        say(o, std::to_string(report.skipped.size()) + " cell(s) already done, skipped");
    const size_t total = queue.size();
    struct Running {
        int cell;
        std::chrono::steady_clock::time_point start;
    };
    std::map<pid_t, Running> running;
    size_t next = 0, finished = 0;
    auto stopAll = [&] {
        for (const auto& [pid, r] : running)
            ::kill(pid, SIGTERM);
        for (const auto& [pid, r] : running) {
            int status = 0;
            while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
            }
        }
        running.clear();
    };
    try {
        while (next < queue.size() || !running.empty()) {
            if (isCancelled(o)) {
                stopAll();
                report.cancelled = true;
                break;
            }
            while (next < queue.size() && static_cast<int>(running.size()) < std::max(1, pool.jobs)) {
                const int cell = queue[next++];
                clearCell(o.dir, cell);
                const std::string log = sweep_paths::log(o.dir, cell);
                posix_spawn_file_actions_t actions;
                posix_spawn_file_actions_init(&actions);
                posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
                posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
                posix_spawn_file_actions_adddup2(&actions, 1, 2);
                const auto command = cellCommand(o, cell);
                auto args = argvOf(command);
                pid_t pid = 0;
                const int spawned = ::posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
                posix_spawn_file_actions_destroy(&actions);
                if (spawned != 0)
                    throw InputError(o.program + ": cannot start it for " + cellLabel(manifest, cell) + " (" +
                                     std::strerror(spawned) + ")");
                running[pid] = {cell, std::chrono::steady_clock::now()};
                report.started.push_back(cell);
            }
            for (auto it = running.begin(); it != running.end();) {
                int waitStatus = 0;
                const pid_t done = ::waitpid(it->first, &waitStatus, WNOHANG);
                if (done == 0 || (done < 0 && errno == EINTR)) {
                    ++it;
                    continue;
                }
                const int status = done < 0 ? 1 : statusOf(waitStatus);
                const int cell = it->second.cell;
                const double seconds =
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - it->second.start).count();
                writeFileAtomically(sweep_paths::exitStatus(o.dir, cell), std::to_string(status) + "\n");
                ++finished;
                char time[32];
                std::snprintf(time, sizeof time, "%.1f s", seconds);
                say(o, "[" + std::to_string(finished) + "/" + std::to_string(total) + "] " + cellLabel(manifest, cell) +
                           (status == 0 && cellStatus(o.dir, cell).state == CellState::Done
                                ? ": done in " + std::string(time)
                                : ": failed (exit status " + std::to_string(status) + ") after " + time +
                                      "; log: " + sweep_paths::log(o.dir, cell)));
                it = running.erase(it);
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
    } catch (...) {
        stopAll();
        throw;
    }
    finishReport(manifest, o, report);
    return report;
}

// ---------------------------------------------------------------------------------------
// Slurm

} // namespace lcs
