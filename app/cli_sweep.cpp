// lcstudio-cli sweep: a session expanded over axes into one session per cell (plan), the
// cells run on this machine or as a Slurm job array (run), and their results merged into
// one table (collect).
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits.h>
#include <unistd.h>

#include "app/cli_commands.h"
#include "app/cli_flags.h"
#include "app/cli_support.h"
#include "base/core/atomic_file.h"
#include "base/core/number_format.h"
#include "base/sweep/sweep_collect.h"
#include "base/sweep/sweep_plan.h"
#include "base/sweep/sweep_runner.h"
#include "engine/experiments/experiment.h"

namespace cli {

namespace {

const char* kSweepHelp = R"(lcstudio-cli sweep - a session over a grid of settings, on this machine or on Slurm

Usage:
  lcstudio-cli sweep plan SESSION --over NAME=VALUES [--over ...] --out DIR
  lcstudio-cli sweep run DIR [--backend local|slurm] [options]
  lcstudio-cli sweep collect DIR [--json FILE] [--csv FILE] [--wide-csv FILE]
Run "lcstudio-cli sweep COMMAND --help" for the options of each.
)";

const char* kPlanHelp = R"(lcstudio-cli sweep plan - expand a session into one session per cell

Usage: lcstudio-cli sweep plan SESSION --over NAME=VALUES [--over ...] --out DIR
A session of any experiment (lcstudio-cli EXPERIMENT ... --write-session FILE, or the
window's File > Save Session) is expanded over the axes: every combination of their
values is a cell, one complete session file.
  --over NAME=VALUES  NAME is one of the experiment's settings (its flag without the
                      leading --, _ for -); VALUES are comma-separated values its flag
                      accepts, or A..B, the integers A to B inclusive (seed=0..4,
                      rates=0.3,0.5,0.7). Repeatable; the first axis varies slowest.
                      Cells that differ only in the seed are replicates: collect
                      averages over them.
  --out DIR           a new (or empty) folder: DIR/sweep.json (the manifest) and
                      DIR/cells/NNNN.lcsession
  -h, --help          this text
Nothing is written unless every axis, value and cell is valid.
)";

const char* kRunHelp = R"(lcstudio-cli sweep run - run a sweep's cells that have no results yet

Usage: lcstudio-cli sweep run DIR [--backend local|slurm] [options]
Each cell runs as `lcstudio-cli run DIR/cells/NNNN.lcsession --json DIR/results/NNNN.json
--csv DIR/results/NNNN.csv`, its output in DIR/logs/NNNN.log and its exit status in
DIR/status/NNNN.exit. Cells with results are skipped, so running again resumes; a
failed cell is reported with its log and runs again on the next run (alone with --cells).
  --backend B         local (default): a pool of processes on this machine; slurm: one
                      job array (sbatch), followed with squeue and scontrol
  --cells LIST        only these cells (comma-separated numbers; ranges A..B)
  -j N                local: cells run at once (default 1)
  --partition P       slurm: the partition (default: the cluster's)
  --time T            slurm: the time limit per cell, as sbatch takes it (2:00:00)
  --cpus C            slurm: CPUs per cell (sbatch --cpus-per-task)
  --gpus G            slurm: GPUs per cell
  --max-running M     slurm: at most M cells at once (the array's %M)
  --no-follow         slurm: submit and return without waiting (sweep run follows
                      the queued cells next time)
  --quiet             no progress on stderr
  -h, --help          this text
Exit status: 0 every selected cell has results, 1 some failed or are unfinished (listed
with their logs), 2 bad input, 130 interrupted.
)";

const char* kCollectHelp = R"(lcstudio-cli sweep collect - merge a sweep's results into one table

Usage: lcstudio-cli sweep collect DIR [--json FILE] [--csv FILE] [--wide-csv FILE]
Reads every done cell's results and prints, per swept setting (the seed's cells pooled
as replicates), the setting a run varies inside itself (rate, referral cost), method and
decision rule, a column per metric: its mean and standard error (sample standard
deviation, n - 1, over sqrt(n)) over every run, rounded to the error, and the number of
runs. Cells without results are listed, never averaged.
  --json FILE         write the table as JSON (atomically)
  --csv FILE          write the table long as CSV (atomically): the swept settings, the
                      in-run setting, method, rule, metric, n, mean, se
  --wide-csv FILE     write the table wide as CSV (atomically): the swept settings, the
                      in-run setting, method, rule, then METRIC_n, METRIC_mean, METRIC_se
                      per metric; full precision, as in --csv
  -h, --help          this text
Exit status: 0 every cell merged, 1 some cells are missing or failed (the table holds
the rest), 2 bad input.
)";

std::string absolute(const std::string& path)
{
    std::error_code ec;
    const auto p = std::filesystem::absolute(path, ec);
    return ec ? path : p.lexically_normal().string();
}

std::string thisProgram()
{
    char buffer[PATH_MAX];
    const ssize_t n = ::readlink("/proc/self/exe", buffer, sizeof buffer - 1);
    if (n <= 0)
        throw std::runtime_error("cannot find this program's own path (/proc/self/exe)");
    return std::string(buffer, static_cast<size_t>(n));
}

std::string sweepDirOf(const ParsedFlags& parsed, const std::string& command)
{
    const auto it = parsed.values.find("DIR");
    if (it == parsed.values.end())
        throw UsageError("sweep " + command + ": no sweep folder DIR given (see lcstudio-cli sweep " + command +
                         " --help)");
    // The manifest of a trailing-slash spelling is the same file.
    std::string dir = it->second;
    while (dir.size() > 1 && dir.back() == '/')
        dir.pop_back();
    return dir;
}

int runPlan(int argc, char** argv)
{
    const auto parsed = parseFlags(argc, argv, 3, "sweep plan", {},
                                   {{"SESSION", true}, {"--over", true, /*repeatable=*/true}, {"--out", true}}, kPlanHelp);
    if (parsed.help) {
        std::fputs(kPlanHelp, stdout);
        return kExitOk;
    }
    if (!parsed.values.count("SESSION"))
        throw UsageError("sweep plan: no SESSION file given (see lcstudio-cli sweep plan --help)");
    if (!parsed.values.count("--out"))
        throw UsageError("sweep plan: --out DIR is required");
    const std::string sessionPath = parsed.values.at("SESSION"), out = parsed.values.at("--out");
    const auto catalogue = lcs::sessionCatalogue();
    const auto session = lcs::loadSessionFile(sessionPath, catalogue);
    const lcs::SessionExperiment* experiment = nullptr;
    for (const auto& e : catalogue)
        if (e.name == session.experiment)
            experiment = &e;
    const auto overs = parsed.repeated.count("--over") ? parsed.repeated.at("--over") : std::vector<std::string>{};
    const auto axes = lcs::parseSweepAxes(overs, *experiment);
    lcs::checkOutputPolicy({{"--out", out, lcs::PathKind::Folder}}, {{"SESSION", sessionPath, lcs::PathKind::File}});
    // Every cell is checked as `run` (and `check`) would take it before anything is
    // written: a grid with one cell its run refuses writes no folder.
    for (const auto& cell : lcs::sweepCells(axes)) {
        g_cancel.throwIfCancelled();
        checkedSession(lcs::cellSession(session, cell, *experiment), "cell " + std::to_string(cell.id));
    }
    lcs::writeSweepFolder(out, session, *experiment, axes, &g_cancel);
    size_t cells = 1;
    std::string shape;
    for (const auto& a : axes) {
        cells *= a.values.size();
        shape += (shape.empty() ? "" : " x ") + std::to_string(a.values.size()) + " " + a.name;
    }
    std::printf("%s: %zu cell(s) of %s (%s); run them with: lcstudio-cli sweep run %s\n", out.c_str(), cells,
                session.experiment.c_str(), shape.c_str(), out.c_str());
    return kExitOk;
}

std::vector<int> parseCellList(const std::string& text)
{
    std::vector<int> cells;
    for (const auto& item : splitNames(text)) {
        const size_t dots = item.find("..");
        if (dots != std::string::npos) {
            const auto lo = parseIntegerFlag("--cells", item.substr(0, dots), 0, lcs::kMaxSweepCells);
            const auto hi = parseIntegerFlag("--cells", item.substr(dots + 2), lo, lcs::kMaxSweepCells);
            for (auto c = lo; c <= hi; ++c)
                cells.push_back(static_cast<int>(c));
        } else {
            cells.push_back(static_cast<int>(parseIntegerFlag("--cells", item, 0, lcs::kMaxSweepCells)));
        }
    }
    return cells;
}

/// --backend (local or slurm), with every flag given checked to belong to it.
std::string backendOf(const ParsedFlags& parsed)
{
    const std::string backend = parsed.values.count("--backend") ? parsed.values.at("--backend") : "local";
    if (backend != "local" && backend != "slurm")
        throw UsageError("--backend: \"" + backend.substr(0, 40) + "\" is not local or slurm");
    for (const char* flag : {"--partition", "--time", "--cpus", "--gpus", "--max-running"})
        if (backend == "local" && parsed.values.count(flag))
            throw UsageError(std::string(flag) + " is for --backend slurm");
    if (backend == "local" && parsed.switches.count("--no-follow"))
        throw UsageError("--no-follow is for --backend slurm");
    if (backend == "slurm" && parsed.values.count("-j"))
        throw UsageError("-j is for --backend local (on Slurm, --max-running M limits the cells at once)");
    return backend;
}

/// The Slurm flags of `sweep run`, checked.
lcs::SlurmOptions slurmOptions(const ParsedFlags& parsed)
{
    lcs::SlurmOptions slurm;
    auto given = [&](const char* flag) {
        const auto it = parsed.values.find(flag);
        return it == parsed.values.end() ? std::string() : it->second;
    };
    slurm.partition = given("--partition");
    slurm.time = given("--time");
    if (!given("--cpus").empty())
        slurm.cpusPerTask = static_cast<int>(parseIntegerFlag("--cpus", given("--cpus"), 1, 4096));
    if (!given("--gpus").empty())
        slurm.gpus = static_cast<int>(parseIntegerFlag("--gpus", given("--gpus"), 1, 64));
    if (!given("--max-running").empty())
        slurm.maxRunning = static_cast<int>(parseIntegerFlag("--max-running", given("--max-running"), 1, 1000000));
    slurm.follow = parsed.switches.count("--no-follow") == 0;
    return slurm;
}

int runRun(int argc, char** argv)
{
    const auto parsed = parseFlags(argc, argv, 3, "sweep run", {},
                                   {{"DIR", true},
                                    {"--backend", true},
                                    {"--cells", true},
                                    {"-j", true},
                                    {"--partition", true},
                                    {"--time", true},
                                    {"--cpus", true},
                                    {"--gpus", true},
                                    {"--max-running", true},
                                    {"--no-follow", false},
                                    {"--quiet", false}},
                                   kRunHelp);
    if (parsed.help) {
        std::fputs(kRunHelp, stdout);
        return kExitOk;
    }
    const std::string dir = absolute(sweepDirOf(parsed, "run"));
    const std::string backend = backendOf(parsed);
    const auto manifest = lcs::loadSweepManifest(dir, lcs::sessionCatalogue());
    const bool quiet = parsed.switches.count("--quiet") > 0;
    lcs::SweepRunOptions options;
    options.dir = dir;
    options.program = thisProgram();
    if (parsed.values.count("--cells"))
        options.onlyCells = parseCellList(parsed.values.at("--cells"));
    options.cancelled = [] { return g_cancel.isCancelled(); };
    options.say = [quiet](const std::string& line) {
        if (!quiet)
            std::fprintf(stderr, "%s\n", line.c_str());
    };
    const lcs::SweepLock lock(dir);
    lcs::SweepRunReport report;
    if (backend == "local") {
        lcs::LocalPoolOptions pool;
        if (parsed.values.count("-j"))
            pool.jobs = static_cast<int>(parseIntegerFlag("-j", parsed.values.at("-j"), 1, 1024));
        report = lcs::runSweepLocally(manifest, options, pool);
    } else {
        const auto slurm = slurmOptions(parsed);
        report = lcs::runSweepOnSlurm(manifest, options, slurm);
        if (!report.jobId.empty())
            std::printf("submitted: job %s, cell(s)", report.jobId.c_str());
        if (!report.jobId.empty()) {
            for (int c : report.started)
                std::printf(" %d", c);
            std::printf("\n");
        }
        if (!slurm.follow)
            return kExitOk;
    }
    if (report.cancelled) {
        std::fprintf(stderr, "lcstudio-cli: interrupted\n");
        return g_cancelSignal > 0 ? 128 + g_cancelSignal : kExitCancelled;
    }
    for (const auto& s : report.notDone)
        std::printf("cell %d: %s%s; log: %s\n", s.id, lcs::cellStateName(s.state),
                    s.state == lcs::CellState::Failed ? (" (exit status " + std::to_string(s.exitStatus) + ")").c_str()
                                                      : "",
                    lcs::sweep_paths::log(dir, s.id).c_str());
    std::printf("%zu cell(s) skipped (done before), %zu run, %zu without results\n", report.skipped.size(),
                report.started.size() + report.followed.size(), report.notDone.size());
    return report.notDone.empty() ? kExitOk : kExitFailure;
}

int runCollect(int argc, char** argv)
{
    auto specs = lcs::resultsOutputs();
    specs.push_back({"wide_csv", "FILE", lcs::PathKind::File, "write the table wide as CSV (atomically)"});
    auto own = outputFlagSpecs(specs);
    own.insert(own.begin(), {"DIR", true});
    const auto parsed = parseFlags(argc, argv, 3, "sweep collect", {}, own, kCollectHelp);
    if (parsed.help) {
        std::fputs(kCollectHelp, stdout);
        return kExitOk;
    }
    const std::string dir = sweepDirOf(parsed, "collect");
    const auto manifest = lcs::loadSweepManifest(dir, lcs::sessionCatalogue());
    // The table may go into the sweep folder, never over its manifest or a cell's results.
    std::vector<lcs::CommandPath> inputs{{"DIR", lcs::sweep_paths::manifest(dir), lcs::PathKind::File}};
    for (const auto& cell : manifest.cells)
        for (const auto& path : {lcs::sweep_paths::resultsJson(dir, cell.id), lcs::sweep_paths::resultsCsv(dir, cell.id),
                                 lcs::sweep_paths::session(dir, cell.id)})
            inputs.push_back({"DIR", path, lcs::PathKind::File});
    const CommandOutputs outputs(specs, parsed.values, inputs);
    const auto table = lcs::collectSweep(dir, manifest);
    std::printf("%s: %d cell(s), %zu merged; each figure mean ± standard error (runs)\n%s", dir.c_str(), table.cells,
                table.cells - table.incomplete.size(), lcs::sweepTableWideText(table).c_str());
    for (const auto& c : table.incomplete)
        std::printf("not merged: cell %d %s%s; log: %s\n", c.id, lcs::cellStateName(c.state),
                    c.state == lcs::CellState::Failed ? (" (exit status " + std::to_string(c.exitStatus) + ")").c_str()
                                                      : "",
                    lcs::sweep_paths::log(dir, c.id).c_str());
    outputs.writeResults(lcs::sweepTableJson(table), lcs::sweepTableCsv(table));
    if (!outputs.path("wide_csv").empty())
        lcs::writeFileAtomically(outputs.path("wide_csv"), lcs::sweepTableWideCsv(table));
    return table.incomplete.empty() ? kExitOk : kExitFailure;
}

} // namespace

int runSweepCommand(int argc, char** argv)
{
    const std::string sub = argc > 2 ? argv[2] : "";
    if (sub == "plan")
        return runPlan(argc, argv);
    if (sub == "run")
        return runRun(argc, argv);
    if (sub == "collect")
        return runCollect(argc, argv);
    if (sub == "-h" || sub == "--help") {
        std::fputs(kSweepHelp, stdout);
        return kExitOk;
    }
    throw UsageError(sub.empty() ? "sweep: which? plan, run or collect (see lcstudio-cli sweep --help)"
                                 : "sweep: unknown command \"" + sub.substr(0, 40) + "\" (plan, run or collect)");
}

} // namespace cli
