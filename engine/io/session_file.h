#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "decision/cost_matrix.h"

/// Session files (".lcsession"): everything needed to repeat a run (experiment,
/// settings with seeds, cost matrix, data paths). Plain C++ without Qt or LibTorch, so
/// the window, the CLI and the fuzzers read them with the same code.
namespace lcs {

struct SessionSettings {
    int replicates = 10;
    std::vector<std::string> methods{"bbvi", "sghmc", "kfac_laplace"};
    uint64_t seed = 0;
    int threads = 2;
    int correctionIterations = 500;
    int gridResolution = 80;
    std::string device = "cpu";

    bool operator==(const SessionSettings& o) const;
    bool operator!=(const SessionSettings& o) const { return !(*this == o); }
};

struct SessionData {
    std::string experiment = "synthetic";
    SessionSettings settings;
    CostMatrix costs = costPreset("synthetic");
    std::map<std::string, std::string> dataPaths;  ///< none for the synthetic experiment
};

std::string sessionToJson(const SessionData& session);
/// Strict reader: every field typed and range-checked, unknown fields refused. Throws
/// InputError (CostMatrixError for the matrix) naming `source` and the field.
SessionData sessionFromJson(const std::string& text, const std::string& source);

/// File versions: atomic write (OutputError), size-capped read (InputError).
void saveSessionFile(const SessionData& session, const std::string& path);
SessionData loadSessionFile(const std::string& path);

} // namespace lcs
