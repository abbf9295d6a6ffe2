#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/sweep/sweep_plan.h"

/// Merging a sweep's cells: every done cell's results file (the experiment's own results
/// JSON) read into per-run observations, grouped by the swept settings (all but the seed,
/// whose cells are replicates), the setting a run varies inside itself (the corruption
/// rate, the referral cost), the method and its decision rule, and summarised as mean and
/// standard error. Cells that are not done are listed, never averaged. No LibTorch, no Qt.
namespace lcs {

/// One run's figures out of a results file.
struct RunObservation {
    std::string method;   ///< the method catalogue's id
    std::string rule;     ///< "uncorrected" / "corrected" where a method reports both; else ""
    std::string setting;  ///< the setting the run varied inside itself ("rate"); "" when none
    double settingValue = 0;
    std::map<std::string, double> metrics;  ///< the finite metrics ("cost", "accuracy", ...)
};

/// The runs in a results file, read from its long table ("observations", the same shape
/// for every experiment, CamVid included): the rows of one (setting, trial, method, rule)
/// are one run's metrics. Synthetic and tabular results carry each replicate's
/// uncorrected minus corrected cost as rule "paired_diff", so that Table 2's paired
/// difference gets the pairs' standard error. Throws InputError naming `source` for a file
/// without the table or with a bad row.
std::vector<RunObservation> runObservations(const nlohmann::json& results, const std::string& source);

/// The sample mean and its standard error s / sqrt(n), s the sample standard deviation
/// (n - 1 in the denominator); the error is NaN for fewer than two values.
struct MeanAndError {
    size_t n = 0;
    double mean = 0;
    double standardError = 0;
};
MeanAndError meanAndStandardError(const std::vector<double>& values);
/// "0.878 ± 0.037": the standard error to two significant digits and the mean to the same
/// decimal place (more digits than the error allows are noise), whole numbers for an error
/// of 10 or more; "0.8775 (one run: no error)" with four significant digits when there is
/// no error; "0.4 ± 0" when the runs agree (an error within rounding of zero).
std::string meanErrorText(const MeanAndError& stats);

struct SweepTableRow {
    nlohmann::json axisValues = nlohmann::json::object();  ///< swept setting (not the seed) -> value
    std::optional<double> settingValue;                    ///< the in-run setting's value, where there is one
    std::string method, rule, metric;
    MeanAndError stats;
};

struct SweepTable {
    std::string experiment;
    /// The swept settings the rows are grouped by: not the seed (its cells are pooled), nor
    /// a list whose one value is the in-run setting's (rates=0.5 is rate 0.5).
    std::vector<std::string> axes;
    std::string setting;             ///< the in-run setting's name ("rate"), "" when none
    int cells = 0;
    std::vector<CellStatus> incomplete;  ///< cells not done: listed, not averaged
    std::vector<SweepTableRow> rows;     ///< in the order of the cells and of their results
};

/// Reads every done cell of the sweep in `dir` (results size- and depth-capped; a file
/// that is not a results file of the sweep's experiment is refused with InputError naming
/// it) and merges them.
SweepTable collectSweep(const std::string& dir, const SweepManifest& manifest);

/// The table as CSV: the grouping axes, the in-run setting, method, rule, metric, n,
/// mean, se (an undefined error is an empty cell).
std::string sweepTableCsv(const SweepTable& table);
/// The table wide: one row per swept values, in-run setting, method and rule, a column
/// per metric (in the order they first appear), as a reader compares methods.
struct WideSweepTable {
    std::vector<std::string> keyColumns;  ///< the axes, the in-run setting, "method", "rule"
    std::vector<std::string> metrics;
    struct Row {
        std::vector<std::string> keys;                  ///< a text per key column
        std::map<std::string, MeanAndError> metrics;    ///< the metrics this row has
    };
    std::vector<Row> rows;  ///< in the order of the long table's first row of each
};
WideSweepTable wideSweepTable(const SweepTable& table);
/// As CSV: the key columns, then "<metric>_n,<metric>_mean,<metric>_se" per metric (empty
/// where a row lacks the metric or its error is undefined).
std::string sweepTableWideCsv(const SweepTable& table);
/// As aligned text: the key columns, then "mean ± se (n)" per metric (meanErrorText).
std::string sweepTableWideText(const SweepTable& table);

/// The table as JSON ("lcstudio-sweep-table"), with the incomplete cells.
std::string sweepTableJson(const SweepTable& table);

} // namespace lcs
