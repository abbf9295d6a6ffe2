#pragma once

#include <cstddef>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

/// The input columns of a user's table as a network sees them: a numeric column enters as
/// it is, a text column (categorical) as one 0/1 feature per level it had in training.
/// The same description is stored in a saved network's sidecar, so `decide` encodes a
/// new table exactly as training did and refuses a level training never saw. Plain C++:
/// fuzzed with the readers that use it.
namespace lcs {

/// Caps: levels of one categorical column, and the characters of a name or level.
constexpr size_t kMaxCategoryLevels = 1000;
constexpr size_t kMaxColumnTextLength = 200;

/// A categorical column's level for a missing cell, where the table had any (sorted
/// among the levels like any other).
inline constexpr const char* kMissingLevel = "(missing)";

/// What a reader does with a missing cell (a missing-value marker, isMissingCell).
enum class MissingValues {
    Impute,  ///< numbers: the training rows' mean and a 0/1 "missing" feature; categories: kMissingLevel
    Drop,    ///< the row is left out
    Refuse,  ///< an InputError naming the file, line and column
};
const char* missingValuesName(MissingValues m);  ///< "impute", "drop", "refuse"

struct InputColumn {
    std::string name;
    /// Empty for a numeric column; else the levels in training, sorted by text, and the
    /// column is one-hot encoded in this order.
    std::vector<std::string> levels;
    /// A numeric column with missing cells in the table: a second feature, 1 where the
    /// cell was missing, follows the value, and a missing cell takes `fill`.
    bool missingIndicator = false;
    /// The value a missing cell takes (the training rows' mean); NaN until it is fitted,
    /// and for every column without missingIndicator (which cannot impute).
    double fill = std::numeric_limits<double>::quiet_NaN();

    bool categorical() const { return !levels.empty(); }
    /// The features this column encodes to: a level each, or the value (and its flag).
    size_t width() const { return categorical() ? levels.size() : missingIndicator ? 2 : 1; }
    /// A categorical column whose missing cells are the level kMissingLevel.
    bool hasMissingLevel() const;
};

/// A number written with thousands separators as Excel and R's format(big.mark = ",")
/// write it: "1,037", "-12,345.5" (one to three digits, then groups of exactly three after
/// each comma, an optional fraction). nullopt for anything else, plain numbers included.
std::optional<double> parseGroupedNumber(std::string_view cell);
/// A table's numeric cell: a plain number (parseFiniteNumber) or a grouped one.
std::optional<double> parseTableNumber(std::string_view cell);

/// True for the cells a table marks missing: empty, "?" (Weka), "NA" (R), "N/A", "NaN",
/// "nan", "null".
bool isMissingCell(std::string_view cell);

/// The column types of `rows` (cells already trimmed, one vector per row, a cell per
/// name): a column whose every cell is a number is numeric; one whose every cell is text
/// is categorical; a column that mixes the two, or a categorical cell that is empty, is an
/// error naming `source`, the line (`lines[i]` is row i's) and the column. More than
/// kMaxCategoryLevels levels in a column is an error. With `missing` Impute, missing
/// cells (isMissingCell) take no part in the type; a numeric column with any gets
/// missingIndicator, a categorical one the level kMissingLevel; a column whose every cell
/// is missing is an error naming it. Refuse: as without missing values (an empty
/// category is refused, "NA" in a text column is a category). Drop: the caller has left
/// out the rows with a missing cell.
std::vector<InputColumn> inferInputColumns(const std::vector<std::string>& names,
                                           const std::vector<std::vector<std::string>>& rows,
                                           const std::vector<size_t>& lines, const std::string& source,
                                           MissingValues missing = MissingValues::Refuse);

/// The number of features the columns make (a numeric column 1, 2 with missingIndicator,
/// a categorical one a feature per level).
size_t encodedWidth(const std::vector<InputColumn>& columns);

/// The features' names: a numeric column's name (then "name missing" with
/// missingIndicator), "name=level" for each level.
std::vector<std::string> encodedFeatureNames(const std::vector<InputColumn>& columns);

/// Appends one row's features to `out`. `where` ("t.csv line 4") opens every message:
/// a numeric cell that is not a finite number of magnitude at most 1e30, a categorical
/// cell whose level is not one of the column's (named, with the levels), a missing cell
/// the column cannot impute (no missingIndicator, or no kMissingLevel). A missing number
/// takes the column's fill, or NaN where the fill is not fitted yet (a reader's rows,
/// filled by fillMissingValues once the training rows are known).
void appendEncodedRow(const std::vector<InputColumn>& columns, const std::vector<std::string>& cells,
                      const std::string& where, std::vector<double>& out);

/// Per feature: the fill of a numeric column with missingIndicator, NaN for every other
/// feature (what a saved model's forward puts where its input is NaN).
std::vector<double> encodedFill(const std::vector<InputColumn>& columns);

/// Per numeric column with missingIndicator: {its value's feature, its indicator's}.
std::vector<std::pair<size_t, size_t>> encodedIndicators(const std::vector<InputColumn>& columns);

/// The columns with each missingIndicator column's fill set to the mean of its present
/// values among rows `fitRows` of `values` ([rows, encodedWidth] row-major), or among all
/// rows where none of `fitRows` has one.
std::vector<InputColumn> fitMissingFill(const std::vector<InputColumn>& columns, const std::vector<double>& values,
                                        const std::vector<size_t>& fitRows);

/// Replaces each NaN of a filled feature in `values` ([rows, encodedWidth]) by its fill.
void fillMissingValues(const std::vector<InputColumn>& columns, std::vector<double>& values);

/// True when any column has missingIndicator or the level kMissingLevel.
bool hasMissingValues(const std::vector<InputColumn>& columns);

/// `text` in double quotes for a message, cut at 40 characters ("...").
std::string quotedForMessage(std::string_view text);

/// The message for a class column a user named that is not there: every name whole (the
/// first 30), and the likely one first ("did you mean"). `what` is "column" or "attribute".
std::string unknownNameMessage(const std::string& what, const std::string& given,
                               const std::vector<std::string>& names);

/// True when any column is categorical.
bool hasCategoricalColumn(const std::vector<InputColumn>& columns);

} // namespace lcs
