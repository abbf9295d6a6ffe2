#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/decision/cost_matrix.h"

/// What every results file records about its run, so that a reader can repeat it and
/// compare it with another: the program and its version, the experiment, the cost matrix
/// the decisions were scored under (with its referral column, if any), the referral costs
/// a sweep used, the settings that shaped the numbers, and the seed.
namespace lcs {

struct RunRecord {
    std::string experiment;
    CostMatrix costs;
    std::vector<double> referralCosts;                    ///< a sweep's referral costs (selective); else empty
    /// The declared settings (name -> value) the run was given, as the experiment's
    /// settings() name them, so that the record read back as a session (checkedSettings)
    /// repeats the run.
    nlohmann::json settings = nlohmann::json::object();
    uint64_t seed = 0;
    /// What the run resolved from those settings and its preset (epochs, batch sizes,
    /// learning rates, image counts, estimates), for a reader; never read back.
    nlohmann::json resolved = nlohmann::json::object();
    /// The experiment's action that made the figures (ExperimentAction: "eval", "train"),
    /// empty for its run; `settings` are then that action's.
    std::string action;
};

/// {"program", "version", "experiment", "action" (an action's only), "seed", "cost_matrix" (the cost-matrix file's own
/// JSON object, so it reads back with the cost-matrix reader), "referral_cost" (the
/// matrix's, or null), "referral_costs" (a sweep's, when set), "settings", "session_version"
/// (the session format whose meaning the settings have), "resolved" (when not empty)}. A
/// results file is also a session: the window and `lcstudio-cli run` read its run record's
/// experiment, settings and cost matrix.
nlohmann::json runRecordJson(const RunRecord& record);

/// The cost matrix a results file's "run" record holds, read with the strict cost-matrix
/// reader. Throws CostMatrixError naming `source`.
CostMatrix costsOfResults(const nlohmann::json& results, const std::string& source);

} // namespace lcs
