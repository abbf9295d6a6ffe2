#include "engine/experiments/run_record.h"

#include "base/core/version.h"
#include "base/io/session_file.h"

namespace lcs {

nlohmann::json runRecordJson(const RunRecord& r)
{
    nlohmann::json j{{"program", programName()},
                     {"version", programVersion()},
                     {"experiment", r.experiment},
                     {"seed", r.seed},
                     {"cost_matrix", nlohmann::json::parse(costMatrixToJson(r.costs))},
                     {"referral_cost", r.costs.referralCost() ? nlohmann::json(*r.costs.referralCost()) : nlohmann::json()},
                     {"settings", r.settings},
                     // What the settings mean is the session format's: a record read back
                     // as a session is read as a file of this version.
                     {"session_version", kSessionVersion}};
    if (!r.action.empty())
        j["action"] = r.action;
    if (!r.referralCosts.empty())
        j["referral_costs"] = r.referralCosts;
    if (!r.resolved.empty())
        j["resolved"] = r.resolved;
    return j;
}

CostMatrix costsOfResults(const nlohmann::json& results, const std::string& source)
{
    if (!results.is_object() || !results.contains("run") || !results["run"].is_object() ||
        !results["run"].contains("cost_matrix"))
        throw CostMatrixError(source + ": no \"run\".\"cost_matrix\" record");
    return costMatrixFromJson(results["run"]["cost_matrix"].dump(), source + " (run.cost_matrix)");
}

} // namespace lcs
