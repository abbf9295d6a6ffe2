// Sweeps on a Slurm cluster: the array job script, submission, and following the jobs
// until every cell has ended (the local runner is sweep_runner.cpp).
#include "base/sweep/sweep_run_steps.h"
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


namespace lcs {

using namespace sweep_run;

namespace {

/// The most a jobs file (slurm/jobs.json) may hold.
constexpr size_t kMaxJobsFileBytes = size_t{16} << 20;

std::string slurmDir(const std::string& dir) { return dir + "/slurm"; }
std::string jobsFile(const std::string& dir) { return slurmDir(dir) + "/jobs.json"; }
std::string scriptFile(const std::string& dir) { return slurmDir(dir) + "/sweep.sbatch"; }

/// Refuses what the script's double quotes or Slurm's file-name patterns would misread.
void checkScriptText(const std::string& what, const std::string& text)
{
    for (char c : text)
        if (c == '"' || c == '\\' || c == '$' || c == '`' || c == '%' || c == '\n' || c == '\r')
            throw InputError(what + ": \"" + text.substr(0, 60) + "\" contains '" + std::string(1, c) +
                             "', which the sbatch script cannot quote; use a path without it");
}

void checkSlurmValue(const std::string& flag, const std::string& value)
{
    for (char c : value)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == ':' || c == '.' || c == ','))
            throw InputError(flag + ": \"" + value.substr(0, 40) + "\" is not a Slurm name or time");
}

struct RecordedJob {
    std::string id;
    std::vector<int> cells;
};

std::vector<RecordedJob> readJobs(const std::string& dir)
{
    const std::string path = jobsFile(dir);
    struct stat info {};
    if (::stat(path.c_str(), &info) != 0)
        return {};
    const auto j = parseJsonInput(readFile(path, kMaxJobsFileBytes), path, JsonLimits{kMaxJobsFileBytes, 8});
    const JsonObjectReader r(j, path);
    r.refuseUnknown({"jobs"});
    std::vector<RecordedJob> jobs;
    const auto& list = r.require("jobs");
    if (!list.is_array())
        r.fail("jobs", "must be a list");
    for (size_t i = 0; i < list.size(); ++i) {
        const JsonObjectReader job(list[i], path, "jobs[" + std::to_string(i) + "].");
        job.refuseUnknown({"job", "cells"});
        RecordedJob rj{job.string("job"), {}};
        checkSlurmValue(path + " jobs[" + std::to_string(i) + "].job", rj.id);
        for (auto c : job.integers("cells", kMaxSweepCells, 0, static_cast<long long>(kMaxSweepCells)))
            rj.cells.push_back(static_cast<int>(c));
        jobs.push_back(std::move(rj));
    }
    return jobs;
}

void writeJobs(const std::string& dir, const std::vector<RecordedJob>& jobs)
{
    auto list = nlohmann::json::array();
    for (const auto& j : jobs)
        list.push_back({{"job", j.id}, {"cells", j.cells}});
    writeFileAtomically(jobsFile(dir), nlohmann::json{{"jobs", list}}.dump(2) + "\n");
}

ProgramOutput slurmTool(const std::vector<std::string>& argv)
{
    auto out = runProgram(argv);
    if (out.status == 127)
        throw InputError(argv[0] + " is not on PATH: the Slurm backend needs Slurm's tools (sbatch, squeue, "
                                   "scontrol); use --backend local on a machine without Slurm");
    return out;
}

std::string trimmed(std::string text)
{
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
        text.pop_back();
    size_t start = 0;
    while (start < text.size() && std::isspace(static_cast<unsigned char>(text[start])))
        ++start;
    return text.substr(start);
}

/// The tasks of `job` still in the queue: cell -> state (PENDING, RUNNING, ...).
std::map<int, std::string> queuedTasks(const std::string& job)
{
    const auto out = slurmTool({"squeue", "-h", "-r", "-j", job, "-o", "%i|%T"});
    std::map<int, std::string> tasks;
    if (out.status != 0) {
        // A job the controller has forgotten has left the queue.
        if (out.output.find("Invalid job id") != std::string::npos)
            return tasks;
        throw InputError("squeue -j " + job + " failed: " + trimmed(out.output).substr(0, 300));
    }
    std::istringstream lines(out.output);
    for (std::string line; std::getline(lines, line);) {
        const size_t underscore = line.find('_'), bar = line.find('|');
        if (underscore == std::string::npos || bar == std::string::npos || bar < underscore)
            continue;
        if (const auto task = parseInteger(line.substr(underscore + 1, bar - underscore - 1), 0, 1LL << 30))
            tasks[static_cast<int>(*task)] = trimmed(line.substr(bar + 1));
    }
    return tasks;
}

struct TaskEnd {
    std::string state;     ///< COMPLETED, FAILED, CANCELLED, TIMEOUT, ...
    std::string exitCode;  ///< "status:signal"
};

/// How the tasks of `job` ended, from scontrol (which keeps finished jobs for MinJobAge),
/// or from sacct where the cluster keeps accounting.
std::map<int, TaskEnd> endedTasks(const std::string& job, const SweepRunOptions& o)
{
    std::map<int, TaskEnd> ends;
    const auto shown = slurmTool({"scontrol", "show", "job", job});
    if (shown.status == 0) {
        std::istringstream records(shown.output);
        int task = -1;
        TaskEnd end;
        auto field = [](const std::string& line, const std::string& key) -> std::optional<std::string> {
            const size_t at = line.find(key + "=");
            if (at == std::string::npos || (at > 0 && !std::isspace(static_cast<unsigned char>(line[at - 1]))))
                return std::nullopt;
            const size_t start = at + key.size() + 1;
            return line.substr(start, line.find_first_of(" \n", start) - start);
        };
        auto flush = [&] {
            if (task >= 0)
                ends[task] = end;
            task = -1;
            end = {};
        };
        for (std::string line; std::getline(records, line);) {
            if (line.rfind("JobId=", 0) == 0)
                flush();
            if (auto v = field(line, "ArrayTaskId"))
                task = static_cast<int>(parseInteger(*v, 0, 1LL << 30).value_or(-1));
            if (auto v = field(line, "JobState"))
                end.state = *v;
            if (auto v = field(line, "ExitCode"))
                end.exitCode = *v;
        }
        flush();
        return ends;
    }
    const auto config = slurmTool({"scontrol", "show", "config"});
    if (config.output.find("accounting_storage/none") != std::string::npos) {
        say(o, "Slurm has forgotten job " + job + " and keeps no accounting: how its cells ended is not known");
        return ends;
    }
    const auto acct = slurmTool({"sacct", "-n", "-P", "-X", "-j", job, "-o", "JobID,State,ExitCode"});
    std::istringstream lines(acct.output);
    for (std::string line; std::getline(lines, line);) {
        std::vector<std::string> parts;
        std::istringstream fields(line);
        for (std::string f; std::getline(fields, f, '|');)
            parts.push_back(f);
        const size_t underscore = parts.empty() ? std::string::npos : parts[0].find('_');
        if (parts.size() < 3 || underscore == std::string::npos)
            continue;
        if (const auto task = parseInteger(parts[0].substr(underscore + 1), 0, 1LL << 30))
            ends[static_cast<int>(*task)] = {parts[1], parts[2]};
    }
    return ends;
}

} // namespace

std::string slurmScript(const SweepRunOptions& o, const SlurmOptions& s)
{
    checkScriptText("the sweep folder", o.dir);
    checkScriptText("the lcstudio-cli path", o.program);
    std::string script = "#!/bin/bash\n"
                         "# Written by lcstudio-cli sweep run --backend slurm: one array task per cell of the\n"
                         "# sweep; the task id is the cell's number (sbatch --array=LIST[%M] this script).\n"
                         "#SBATCH --job-name=lcs-sweep\n"
                         "#SBATCH --output=\"" + o.dir + "/logs/%4a.log\"\n";
    if (!s.partition.empty())
        script += "#SBATCH --partition=" + s.partition + "\n";
    if (!s.time.empty())
        script += "#SBATCH --time=" + s.time + "\n";
    if (s.cpusPerTask > 0)
        script += "#SBATCH --cpus-per-task=" + std::to_string(s.cpusPerTask) + "\n";
    if (s.gpus > 0)
        script += "#SBATCH --gpus=" + std::to_string(s.gpus) + "\n";
    script += "\n"
              "sweep=\"" + o.dir + "\"\n"
              "cell=$(printf '%04d' \"$SLURM_ARRAY_TASK_ID\")\n"
              "echo \"lcstudio-cli sweep: cell $cell, Slurm job ${SLURM_ARRAY_JOB_ID}_${SLURM_ARRAY_TASK_ID} on $(hostname)\"\n"
              "\"" + o.program + "\" run \"$sweep/cells/$cell.lcsession\" \\\n"
              "    --json \"$sweep/results/$cell.json\" --csv \"$sweep/results/$cell.csv\"\n"
              "status=$?\n"
              "# The exit status, written whole (a reader never sees half of it).\n"
              "echo \"$status\" > \"$sweep/status/$cell.exit.tmp\" && mv \"$sweep/status/$cell.exit.tmp\" \"$sweep/status/$cell.exit\"\n"
              "exit \"$status\"\n";
    return script;
}

namespace {

/// Submits `cells` as one job array (the script written first), records the job and
/// returns its id.
std::string submitCells(const SweepRunOptions& o, const SlurmOptions& s, const std::string& script,
                        const std::vector<int>& cells, std::vector<RecordedJob>& jobs)
{
    ::mkdir(slurmDir(o.dir).c_str(), 0755);
    writeFileAtomically(scriptFile(o.dir), script);
    for (int cell : cells)
        clearCell(o.dir, cell);
    const std::string array = cellList(cells) + (s.maxRunning > 0 ? "%" + std::to_string(s.maxRunning) : "");
    const auto out = slurmTool({"sbatch", "--parsable", "--array=" + array, scriptFile(o.dir)});
    const std::string id = trimmed(out.output.substr(0, out.output.find(';')));
    if (out.status != 0 || id.empty() || !parseInteger(id, 0, 1LL << 62))
        throw InputError("sbatch refused the sweep's job array: " + trimmed(out.output).substr(0, 400));
    jobs.push_back({id, cells});
    writeJobs(o.dir, jobs);
    say(o, "submitted Slurm job array " + id + ": cell(s) " + cellList(cells) + " (script " + scriptFile(o.dir) + ")");
    return id;
}

/// How the cells that left the queue without results ended (each as its latest
/// submission ran it: an earlier, cancelled try of a cell rerun since is past).
void recordEndedCells(const SweepManifest& manifest, const SweepRunOptions& o, const std::vector<RecordedJob>& jobs,
                      const std::vector<std::string>& followed)
{
    std::map<int, std::string> latest;
    for (const auto& job : jobs)
        for (int cell : job.cells)
            latest[cell] = job.id;
    for (const auto& job : followed) {
        for (const auto& [cell, end] : endedTasks(job, o)) {
            if (cell >= static_cast<int>(manifest.cells.size()) || latest[cell] != job)
                continue;
            const auto status = cellStatus(o.dir, cell);
            if (status.state == CellState::Done)
                continue;
            if (status.state != CellState::Failed) {
                // Killed before its script could write a status (scancel, a time limit):
                // the status Slurm gives, so that the window shows it failed.
                const size_t colon = end.exitCode.find(':');
                const int code = static_cast<int>(parseInteger(end.exitCode.substr(0, colon), 0, 255).value_or(0));
                const int signal = colon == std::string::npos
                                       ? 0
                                       : static_cast<int>(parseInteger(end.exitCode.substr(colon + 1), 0, 255).value_or(0));
                writeFileAtomically(sweep_paths::exitStatus(o.dir, cell),
                                    std::to_string(code != 0 ? code : signal != 0 ? 128 + signal : 1) + "\n");
            }
            say(o, cellLabel(manifest, cell) + ": Slurm says " + end.state + " (exit code " + end.exitCode +
                       "); log: " + sweep_paths::log(o.dir, cell));
        }
    }
}

/// Polls the queue for `follow`'s jobs, a line each time the counts change, until none
/// is queued (then records how the cells without results ended) or the run is cancelled.
void followJobs(const SweepManifest& manifest, const SweepRunOptions& o, const SlurmOptions& s,
                const std::vector<RecordedJob>& jobs, std::vector<std::string> follow, SweepRunReport& report)
{
    std::string lastLine;
    while (!follow.empty()) {
        if (isCancelled(o)) {
            say(o, "stopped following; the job array keeps running (scancel " + follow.front() +
                       " stops it); sweep run again to follow it");
            report.cancelled = true;
            return;
        }
        std::map<std::string, int> states;
        std::vector<std::string> still;
        for (const auto& job : follow) {
            const auto tasks = queuedTasks(job);
            for (const auto& [cell, state] : tasks)
                ++states[state];
            if (!tasks.empty())
                still.push_back(job);
        }
        int done = 0;
        for (const auto& cell : manifest.cells)
            done += cellStatus(o.dir, cell.id).state == CellState::Done ? 1 : 0;
        std::string line = "Slurm: ";
        for (const auto& [state, count] : states)
            line += std::to_string(count) + " " + state + ", ";
        line += std::to_string(done) + " of " + std::to_string(manifest.cells.size()) + " cells done";
        if (line != lastLine)
            say(o, line);
        lastLine = line;
        if (still.empty()) {
            recordEndedCells(manifest, o, jobs, follow);
            return;
        }
        follow = still;
        std::this_thread::sleep_for(std::chrono::duration<double>(s.pollSeconds));
    }
}

} // namespace

SweepRunReport runSweepOnSlurm(const SweepManifest& manifest, const SweepRunOptions& o, const SlurmOptions& s)
{
    if (!s.partition.empty())
        checkSlurmValue("--partition", s.partition);
    if (!s.time.empty())
        checkSlurmValue("--time", s.time);
    const std::string script = slurmScript(o, s);
    SweepRunReport report;
    auto jobs = readJobs(o.dir);
    // Cells of earlier submissions still in the queue are followed, not submitted again.
    std::map<int, std::string> queued;  // cell -> job
    std::vector<std::string> follow;
    for (const auto& job : jobs) {
        const auto tasks = queuedTasks(job.id);
        for (const auto& [cell, state] : tasks)
            queued[cell] = job.id;
        if (!tasks.empty())
            follow.push_back(job.id);
    }
    std::vector<int> submit;
    for (int cell : cellsToRun(manifest, o, report)) {
        if (queued.count(cell))
            report.followed.push_back(cell);
        else
            submit.push_back(cell);
    }
    if (!report.skipped.empty())
        say(o, std::to_string(report.skipped.size()) + " cell(s) already done, skipped");
    if (!report.followed.empty())
        say(o, "cell(s) " + cellList(report.followed) + " still queued from an earlier submission: followed");
    if (!submit.empty()) {
        report.jobId = submitCells(o, s, script, submit, jobs);
        report.started = submit;
        follow.push_back(report.jobId);
    }
    if (s.follow)
        followJobs(manifest, o, s, jobs, follow, report);
    finishReport(manifest, o, report);
    return report;
}

} // namespace lcs
