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

/// One column of a wide CSV: the rows' `metric` under decision rule `rule`.
struct WideColumn {
    std::string header;
    std::string rule;
    std::string metric;
    bool whole = false;  ///< a count: written as a whole number ("12000000", never "1.2e+07")
};

/// How a wide CSV lays the long table out. Its lines are the distinct (setting value,
/// trial, method[, rule]) keys in the order the long table first names them; its columns
/// are the key columns (a header left empty is no column; setting, trial, method, rule
/// unless methodBeforeTrial) then `columns`.
struct WideLayout {
    std::string setting;             ///< header of the setting's column ("rate"); "" for none
    std::string trial = "trial";     ///< header of the trial column; "" for none
    std::string method = "method";   ///< header of the method column; "" for none
    std::string rule;                ///< header of a rule column ("decisions"); "" when rules are columns
    bool methodBeforeTrial = false;  ///< key columns setting, method, trial (Table 2's CSV) rather than setting, trial, method
    std::vector<WideColumn> columns;
};

/// The long table as a wide CSV: every experiment's CSV is this view of its results'
/// observations, so the two never disagree. A figure the long table lacks (undefined) is an
/// empty cell; every number is the shortest text that reads back exactly.
std::string wideCsv(const std::vector<Observation>& rows, const WideLayout& layout);

/// The value of the row whose key (setting value, trial, method, rule) and metric are
/// `key`'s (its setting name and value aside from settingValue ignored); NaN when the
/// table has no such row (an undefined figure).
double observedValue(const std::vector<Observation>& rows, const Observation& key);

struct MeanStd {
    double mean = 0;
    double std = 0;  ///< sample standard deviation (n - 1); 0 for a single value
    int count = 0;   ///< values averaged: below 2 there is no spread to show
};
MeanStd meanStd(const std::vector<double>& values);
/// "0.0160 ± 0.0010" with `digits` decimals, or "0.0160" for fewer than two values (no
/// spread to show): every results table writes its means with this.
std::string meanStdText(const MeanStd& m, int digits = 4);

/// One (setting value, method) cell of the long table across its trials: what the text
/// tables and the JSON's "summary" show, read off the same rows as the CSV. Trials are
/// counted by their "collapsed" rows (every trial of every experiment has one).
class ObservedCell {
public:
    ObservedCell(const std::vector<Observation>& rows, double settingValue, const std::string& method);
    bool empty() const { return m_trials == 0; }
    /// Mean ± std of `metric` under `rule` over the trials. Where a trial lacks it (an
    /// undefined accuracy: every input referred) the mean is NaN, and so is the std of two
    /// or more trials (one trial's std is 0): one undefined value makes the figure undefined.
    MeanStd figure(const std::string& metric, const std::string& rule = "") const;
    /// Trials whose q collapsed to one class.
    int collapsed() const { return m_collapsed; }

private:
    std::vector<Observation> m_rows;
    int m_trials = 0, m_collapsed = 0;
};

} // namespace lcs
