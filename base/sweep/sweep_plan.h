#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/io/session_file.h"

namespace lcs {
class CancelToken;
}

/// Sweeps: a session expanded over axes into one complete session per cell, and the
/// folder that holds them (the manifest, the cells' sessions, results, logs and exit
/// statuses). Axes are the experiment's declared settings and their values go through
/// the same parser as the command line's flags, so a sweep can say exactly what a
/// command line can, for any experiment of the registry. Plain C++: no LibTorch, no Qt.
namespace lcs {

/// One swept setting: its declared name and the parsed value of each step.
struct SweepAxis {
    std::string name;
    std::vector<nlohmann::json> values;
};

/// One cell: its number (its files are named by it) and the value it takes on each axis.
struct SweepCell {
    int id = 0;
    nlohmann::json values = nlohmann::json::object();  ///< axis name -> parsed value
};

/// The manifest (sweep.json): what was swept, over which cells.
struct SweepManifest {
    std::string experiment;
    std::vector<SweepAxis> axes;
    std::vector<SweepCell> cells;
};

/// The setting swept to repeat a setting under fresh random streams: cells that differ
/// only in it are replicates of one setting, so collect averages over them.
inline constexpr const char* kReplicateAxis = "seed";

/// The most cells one sweep may have; a larger grid is refused before anything is written.
inline constexpr size_t kMaxSweepCells = 100000;

/// Parses "--over" values of `experiment` (from `catalogue`): "NAME=V1,V2,..." where NAME
/// is a declared setting's name and each Vi is a value its flag accepts, or "A..B", an
/// inclusive integer range. Throws InputError naming the axis and the value: an unknown
/// setting (listing the known ones), a value the setting's parser refuses, a value listed
/// twice, an axis given twice, an empty list.
std::vector<SweepAxis> parseSweepAxes(const std::vector<std::string>& overs, const SessionExperiment& experiment);

/// The cells of `axes`, the first axis varying slowest. Throws InputError when there
/// would be more than kMaxSweepCells.
std::vector<SweepCell> sweepCells(const std::vector<SweepAxis>& axes);

/// The complete session of `cell`: `base` with the cell's values, every setting checked
/// again with checkedSettings (naming the cell). Throws InputError.
SessionData cellSession(const SessionData& base, const SweepCell& cell, const SessionExperiment& experiment);

/// A value as the flag would carry it ("0.5", "3", "sgld_s,ours"): tables and labels.
std::string sweepValueText(const nlohmann::json& value);

/// Paths inside a sweep folder; a cell's files are named by its number, "0007".
namespace sweep_paths {
std::string manifest(const std::string& dir);                      ///< DIR/sweep.json
std::string cellName(int id);                                       ///< "0007"
std::string session(const std::string& dir, int id);               ///< DIR/cells/0007.lcsession
std::string resultsJson(const std::string& dir, int id);           ///< DIR/results/0007.json
std::string resultsCsv(const std::string& dir, int id);            ///< DIR/results/0007.csv
std::string log(const std::string& dir, int id);                   ///< DIR/logs/0007.log
std::string exitStatus(const std::string& dir, int id);            ///< DIR/status/0007.exit
} // namespace sweep_paths

/// Writes the sweep folder `dir` all at once (a StagedFolder): the manifest and one
/// session per cell, with empty results, logs and status folders. `dir` must not exist
/// yet or be an empty folder (a folder with a sweep in it is refused, so that no result
/// is overwritten). Throws InputError / OutputError naming the path, and Cancelled
/// (nothing written) once `cancel` is cancelled, up to the last moment before the folder
/// goes into place.
void writeSweepFolder(const std::string& dir, const SessionData& base, const SessionExperiment& experiment,
                      const std::vector<SweepAxis>& axes, const CancelToken* cancel = nullptr);

std::string sweepManifestToJson(const SweepManifest& manifest);
/// Strict reader (size and depth capped, unknown fields refused): the experiment must be
/// in `catalogue`, every axis one of its settings and every value one its parser takes,
/// every cell's values on exactly the axes. Throws InputError naming `source` and the field.
SweepManifest sweepManifestFromJson(const std::string& text, const std::string& source,
                                    const SessionCatalogue& catalogue);
SweepManifest loadSweepManifest(const std::string& dir, const SessionCatalogue& catalogue);

/// Where a cell is, read from its files.
enum class CellState {
    Missing,  ///< never started (or started again: its old files were cleared)
    Running,  ///< started (a log exists) and not finished: running, or killed without a word
    Failed,   ///< its run ended with a non-zero status, or without results
    Done,     ///< its results file exists
};
const char* cellStateName(CellState state);

struct CellStatus {
    int id = 0;
    CellState state = CellState::Missing;
    int exitStatus = 0;  ///< Failed: the status its run ended with
};

/// The state of cell `id` of the sweep in `dir`.
CellStatus cellStatus(const std::string& dir, int id);

/// Removes a cell's results, log and exit status before it is run again.
void clearCell(const std::string& dir, int id);

} // namespace lcs
