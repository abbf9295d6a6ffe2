#pragma once

#include <functional>
#include <string>
#include <vector>

#include "base/sweep/sweep_plan.h"

/// Running a sweep's cells: each cell is `lcstudio-cli run CELL.lcsession --json ...
/// --csv ...` with its output in the cell's log. Two backends: a pool of processes on
/// this machine, and a Slurm job array (one array task per cell, submitted with sbatch,
/// followed with squeue and scontrol). Both resume: a cell with results is never run
/// again. No scheduler of our own beyond the local pool. POSIX, no LibTorch, no Qt.
namespace lcs {

/// What both backends are told.
struct SweepRunOptions {
    std::string dir;      ///< the sweep folder, absolute
    std::string program;  ///< the lcstudio-cli that runs a cell, absolute
    std::vector<int> onlyCells;              ///< run only these cells (still skipping done ones); empty: all
    std::function<bool()> cancelled;         ///< polled; true stops the run (local cells are killed)
    std::function<void(const std::string&)> say;  ///< progress lines
};

struct LocalPoolOptions {
    int jobs = 1;  ///< cells run at once
};

struct SlurmOptions {
    std::string partition;  ///< empty: the cluster's default
    std::string time;       ///< per cell, sbatch --time (e.g. 2:00:00); empty: the partition's
    int cpusPerTask = 0;    ///< 0: the cluster's default
    int gpus = 0;           ///< per cell
    int maxRunning = 0;     ///< array throttle (%M); 0: none
    bool follow = true;     ///< wait until the submitted cells have finished
    double pollSeconds = 2;
};

struct SweepRunReport {
    std::vector<int> skipped;    ///< done before this run
    std::vector<int> started;    ///< run (local) or submitted (Slurm) by this run
    std::vector<int> followed;   ///< Slurm: still queued from an earlier submission, followed, not resubmitted
    std::vector<CellStatus> notDone;  ///< at the end: every selected cell without results
    std::string jobId;           ///< Slurm: the array job submitted, or ""
    bool cancelled = false;
};

/// Runs the selected cells that are not done, `jobs` at a time, each in its own process.
/// A cell's exit status goes to its status file; its output to its log.
SweepRunReport runSweepLocally(const SweepManifest& manifest, const SweepRunOptions& options,
                               const LocalPoolOptions& pool);

/// The sbatch script for the sweep: one array task per cell (the task id is the cell's
/// number), its log DIR/logs/NNNN.log, its exit status DIR/status/NNNN.exit.
std::string slurmScript(const SweepRunOptions& options, const SlurmOptions& slurm);

/// Submits the selected cells that are neither done nor still queued from an earlier
/// submission as one job array (DIR/slurm/sweep.sbatch, recorded in DIR/slurm/jobs.json),
/// then (with `follow`) waits with squeue until every queued cell has left the queue, and
/// asks scontrol (sacct where the cluster keeps accounting) how the unfinished ones ended.
/// Throws InputError when a Slurm tool is missing or refuses (its message quoted).
SweepRunReport runSweepOnSlurm(const SweepManifest& manifest, const SweepRunOptions& options,
                               const SlurmOptions& slurm);

/// Holds the sweep folder for one runner at a time (an flock on DIR/.lock); throws
/// InputError when another `sweep run` holds it.
class SweepLock {
public:
    explicit SweepLock(const std::string& dir);
    ~SweepLock();
    SweepLock(const SweepLock&) = delete;
    SweepLock& operator=(const SweepLock&) = delete;

private:
    int m_fd = -1;
};

/// Whether a `sweep run` holds the folder now (the window's "running" is only believed then).
bool sweepIsLocked(const std::string& dir);

/// A program's exit status and what it wrote to stdout and stderr.
struct ProgramOutput {
    int status = 0;  ///< 127: the program was not found
    std::string output;
};
/// Runs `argv` (looked up on PATH) and waits for it.
ProgramOutput runProgram(const std::vector<std::string>& argv);

} // namespace lcs
