#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

/// The results' long table: one figure per row, in the same shape for every experiment,
/// so that a reader (sweep collect, a notebook) needs no knowledge of any experiment's own
/// layout. Every results file carries it as "observations".
namespace lcs {

struct Observation {
    std::string setting;      ///< the setting the run varied inside itself ("rate"); "" when none
    double settingValue = 0;  ///< its value (0 when there is no setting)
    int trial = 0;            ///< trial or replicate, 0-based
    std::string method;       ///< the method catalogue's id
    std::string rule;         ///< "uncorrected", "corrected", "paired_diff", ...; "" where a method has one
    std::string metric;       ///< "cost", "accuracy", "iou_Car", ...
    double value = 0;         ///< finite: an undefined figure has no row
};

/// [{"setting"?, "setting_value"?, "trial", "method", "rule", "metric", "value"}, ...].
nlohmann::json observationsJson(const std::vector<Observation>& rows);

/// Reads them back; InputError naming `source` and the row for anything else. At most
/// 10,000,000 rows.
std::vector<Observation> observationsFromJson(const nlohmann::json& rows, const std::string& source);

} // namespace lcs
