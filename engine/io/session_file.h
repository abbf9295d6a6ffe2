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

/// The experiments a session can hold.
const std::vector<std::string>& sessionExperiments();  ///< synthetic, corruption, selective, camvid
/// The default method names of an experiment.
std::vector<std::string> defaultSessionMethods(const std::string& experiment);

struct SessionSettings {
    int replicates = 10;
    std::vector<std::string> methods{"bbvi", "sghmc", "kfac_laplace"};
    uint64_t seed = 0;
    int threads = 2;
    int correctionIterations = 500;
    int gridResolution = 80;
    std::string device = "cpu";
    // The image experiments (corruption, selective); ignored by synthetic.
    std::string data;                   ///< folder or name (fashion-mnist, mnist, cifar10)
    std::string preset = "cpu";         ///< cpu or paper
    std::vector<double> rates{0.3, 0.5, 0.7};
    std::vector<double> referralCosts{0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5};
    int trials = 1;
    long long maxTrain = 0;             ///< 0 = all
    long long maxTest = 0;
    int epochs = 0;                     ///< sampler epochs; 0 = the preset's
    // CamVid (the window's job): data is the CamVid folder (required), preset is demo or
    // cpu, maxTrain / maxTest are the training / validation frames (0 = the preset's),
    // methods are always cw_sgd, sghmc_s, ours; the matrix is 12 x 12 (void last) or 11 x 11.
    bool mcDropout = false;             ///< camvid: also train an MC-dropout network

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
/// Strict reader: every field typed and range-checked, unknown fields refused. The
/// methods must be the experiment's; a synthetic session's matrix has 2 classes, a
/// corruption session's has no referral column, a selective session's referral column
/// (if any) is dropped (the referral costs are swept), a camvid session names its data
/// folder, a demo or cpu preset and a 12- or 11-class matrix without referral. Throws
/// InputError (CostMatrixError for the matrix) naming `source` and the field.
SessionData sessionFromJson(const std::string& text, const std::string& source);

/// File versions: atomic write (OutputError), size-capped read (InputError).
void saveSessionFile(const SessionData& session, const std::string& path);
SessionData loadSessionFile(const std::string& path);

} // namespace lcs
