#pragma once

#include <string>
#include <vector>

#include "base/sweep/sweep_runner.h"

/// The steps the local and the Slurm runner share (sweep_runner.cpp): which cells to run,
/// what to say, and the report at the end. Internal to the sweep library.
namespace lcs::sweep_run {

bool isCancelled(const SweepRunOptions& o);
/// o.say(line), where the caller listens.
void say(const SweepRunOptions& o, const std::string& line);
/// "0,3,7".
std::string cellList(const std::vector<int>& cells);
/// The selected cells (all, or those asked for) that have no results; the rest skipped.
/// Refuses a sweep folder missing one of its four sub-folders, or a cell it lacks.
std::vector<int> cellsToRun(const SweepManifest& manifest, const SweepRunOptions& o, SweepRunReport& report);
/// Adds every selected cell that is not done to report.notDone.
void finishReport(const SweepManifest& manifest, const SweepRunOptions& o, SweepRunReport& report);
/// "cell 003 (seed=1, ...)".
std::string cellLabel(const SweepManifest& manifest, int id);

} // namespace lcs::sweep_run
