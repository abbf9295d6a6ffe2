#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/core/settings.h"
#include "base/decision/cost_matrix.h"

/// Session files (".lcsession"): everything needed to repeat a run (experiment, its
/// declared settings with seeds, cost matrix, data paths). The settings are the
/// experiment's own declarations (name -> value), checked by the same parser as the
/// command line's flags, so a session holds exactly what a command line can say. Plain
/// C++ without Qt or LibTorch, so the window, the CLI and the fuzzers read them with the
/// same code; what an experiment declares comes in as a SessionCatalogue (the engine
/// derives it from the experiment registry).
namespace lcs {

/// The session file version this program writes; it reads versions 1 to this one.
/// Version 3: CamVid's preset "cpu" names the measured CPU preset (SegNet-light2 at
/// 180x240, every training frame), as for every CamVid action, and a CamVid session
/// without a preset runs "cpu"; in version 2 "cpu" named a 120-frame SegNet-light run
/// and the default was "demo".
constexpr int kSessionVersion = 3;

/// What the session format needs to know of one experiment.
struct SessionExperiment {
    std::string name;
    std::vector<SettingSpec> settings;
    /// A matrix as the experiment takes it (Experiment::acceptedCosts); throws
    /// CostMatrixError or InputError saying what is wrong. Empty: any matrix.
    std::function<CostMatrix(const CostMatrix&)> acceptedCosts;
};
using SessionCatalogue = std::vector<SessionExperiment>;

struct SessionData {
    std::string experiment;
    /// The experiment's settings, name -> value, every declared setting present (null:
    /// decided at run time, as the declaration's default says).
    nlohmann::json settings = nlohmann::json::object();
    CostMatrix costs;
    std::map<std::string, std::string> dataPaths;
};

/// Writes kSessionVersion. The settings are written as they are: check them first
/// (checkedSettings), as sessionFromJson will.
std::string sessionToJson(const SessionData& session);
/// Strict reader: unknown fields refused; the experiment must be in `experiments`; its
/// settings are checked against its declarations (unknown names, wrong kinds, values out
/// of range and missing required settings are refused, defaults fill the rest); the cost
/// matrix must be one the experiment accepts. Version 1 files (whose settings were one
/// record shared by every experiment) are read and converted. Throws InputError
/// (CostMatrixError for the matrix) naming `source` and the field.
SessionData sessionFromJson(const std::string& text, const std::string& source, const SessionCatalogue& experiments);

/// File versions: atomic write (OutputError), size-capped read (InputError).
void saveSessionFile(const SessionData& session, const std::string& path);
SessionData loadSessionFile(const std::string& path, const SessionCatalogue& experiments);

} // namespace lcs
