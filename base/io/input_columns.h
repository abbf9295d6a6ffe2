#pragma once

#include <cstddef>
#include <string>
#include <string_view>
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

struct InputColumn {
    std::string name;
    /// Empty for a numeric column; else the levels in training, sorted by text, and the
    /// column is one-hot encoded in this order.
    std::vector<std::string> levels;

    bool categorical() const { return !levels.empty(); }
};

/// The column types of `rows` (cells already trimmed, one vector per row, a cell per
/// name): a column whose every cell is a number is numeric; one whose every cell is text
/// is categorical; a column that mixes the two, or a categorical cell that is empty, is an
/// error naming `source`, the line (`lines[i]` is row i's) and the column. More than
/// kMaxCategoryLevels levels in a column is an error.
std::vector<InputColumn> inferInputColumns(const std::vector<std::string>& names,
                                           const std::vector<std::vector<std::string>>& rows,
                                           const std::vector<size_t>& lines, const std::string& source);

/// The number of features the columns make (a numeric column 1, a categorical one a
/// feature per level).
size_t encodedWidth(const std::vector<InputColumn>& columns);

/// The features' names: a numeric column's name, "name=level" for each level.
std::vector<std::string> encodedFeatureNames(const std::vector<InputColumn>& columns);

/// Appends one row's features to `out`. `where` ("t.csv line 4") opens every message:
/// a numeric cell that is not a finite number of magnitude at most 1e30, a categorical
/// cell whose level is not one of the column's (named, with the levels).
void appendEncodedRow(const std::vector<InputColumn>& columns, const std::vector<std::string>& cells,
                      const std::string& where, std::vector<double>& out);

/// `text` in double quotes for a message, cut at 40 characters ("...").
std::string quotedForMessage(std::string_view text);

/// The message for a class column a user named that is not there: every name whole (the
/// first 30), and the likely one first ("did you mean"). `what` is "column" or "attribute".
std::string unknownNameMessage(const std::string& what, const std::string& given,
                               const std::vector<std::string>& names);

/// True when any column is categorical.
bool hasCategoricalColumn(const std::vector<InputColumn>& columns);

} // namespace lcs
