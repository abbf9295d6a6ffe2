#include "io/input_columns.h"

#include <algorithm>
#include <cmath>

#include "core/input_error.h"
#include "core/nearest_names.h"
#include "core/number_format.h"

namespace lcs {

namespace {

bool isNumber(const std::string& cell)
{
    // A huge number is still a number: the encoder says it is out of range.
    return parseFiniteNumber(cell).has_value();
}

bool isMissingMarker(const std::string& text)
{
    for (const char* marker : {"", "?", "NA", "N/A", "nan", "NaN", "null", "-"})
        if (text == marker)
            return true;
    return false;
}

const auto shown = quotedForMessage;

std::string columnLabel(size_t c, const std::string& name)
{
    return "column " + std::to_string(c + 1) + " (" + name.substr(0, 40) + ")";
}

} // namespace

std::vector<InputColumn> inferInputColumns(const std::vector<std::string>& names,
                                           const std::vector<std::vector<std::string>>& rows,
                                           const std::vector<size_t>& lines, const std::string& source)
{
    std::vector<InputColumn> columns;
    for (size_t c = 0; c < names.size(); ++c) {
        InputColumn column{names[c], {}};
        // The first number and the first text cell: a column with both is refused, and
        // the message points at each.
        size_t firstNumber = rows.size(), firstText = rows.size();
        for (size_t r = 0; r < rows.size() && (firstNumber == rows.size() || firstText == rows.size()); ++r) {
            auto& first = isNumber(rows[r][c]) ? firstNumber : firstText;
            if (first == rows.size())
                first = r;
        }
        if (firstText < rows.size()) {
            const auto& text = rows[firstText][c];
            if (firstNumber < rows.size())
                throw InputError(source + " " + columnLabel(c, names[c]) + " mixes numbers (line " +
                                 std::to_string(lines[firstNumber]) + ": " + shown(rows[firstNumber][c]) +
                                 ") and text (line " + std::to_string(lines[firstText]) + ": " + shown(text) +
                                 "); a column holds numbers, or categories as text" +
                                 (isMissingMarker(text) ? " (missing values are not supported)" : ""));
            for (size_t r = 0; r < rows.size(); ++r) {
                if (rows[r][c].empty())
                    throw InputError(source + " line " + std::to_string(lines[r]) + " " + columnLabel(c, names[c]) +
                                     ": an empty category (missing values are not supported)");
                if (rows[r][c].size() > kMaxColumnTextLength)
                    throw InputError(source + " line " + std::to_string(lines[r]) + " " + columnLabel(c, names[c]) +
                                     ": a category of more than " + std::to_string(kMaxColumnTextLength) +
                                     " characters");
                column.levels.push_back(rows[r][c]);
            }
            std::sort(column.levels.begin(), column.levels.end());
            column.levels.erase(std::unique(column.levels.begin(), column.levels.end()), column.levels.end());
            if (column.levels.size() > kMaxCategoryLevels)
                throw InputError(source + " " + columnLabel(c, names[c]) + ": " +
                                 std::to_string(column.levels.size()) + " different categories; at most " +
                                 std::to_string(kMaxCategoryLevels) + " are one-hot encoded");
        }
        columns.push_back(std::move(column));
    }
    return columns;
}

size_t encodedWidth(const std::vector<InputColumn>& columns)
{
    size_t width = 0;
    for (const auto& c : columns)
        width += c.categorical() ? c.levels.size() : 1;
    return width;
}

std::vector<std::string> encodedFeatureNames(const std::vector<InputColumn>& columns)
{
    std::vector<std::string> names;
    for (const auto& c : columns) {
        if (!c.categorical())
            names.push_back(c.name);
        for (const auto& level : c.levels)
            names.push_back(c.name + "=" + level);
    }
    return names;
}

void appendEncodedRow(const std::vector<InputColumn>& columns, const std::vector<std::string>& cells,
                      const std::string& where, std::vector<double>& out)
{
    if (cells.size() != columns.size())
        throw InputError(where + ": " + std::to_string(cells.size()) + " input columns, expected " +
                         std::to_string(columns.size()));
    for (size_t c = 0; c < columns.size(); ++c) {
        const auto& column = columns[c];
        const auto& cell = cells[c];
        if (!column.categorical()) {
            const auto v = parseFiniteNumber(cell);
            if (!v || std::abs(*v) > 1e30)
                throw InputError(where + " " + columnLabel(c, column.name) + ": " + shown(cell) +
                                 " is not a finite number (at most 1e30)");
            out.push_back(*v);
            continue;
        }
        const auto it = std::lower_bound(column.levels.begin(), column.levels.end(), cell);
        if (it == column.levels.end() || *it != cell) {
            std::string levels;
            for (size_t k = 0; k < column.levels.size() && k < 20; ++k)
                levels += (k ? ", " : "") + column.levels[k].substr(0, 40);
            if (column.levels.size() > 20)
                levels += ", ... (" + std::to_string(column.levels.size()) + " in all)";
            throw InputError(where + " " + columnLabel(c, column.name) + ": " + shown(cell) +
                             " is not a category seen in training (its categories: " + levels + ")");
        }
        const auto hot = static_cast<size_t>(it - column.levels.begin());
        for (size_t k = 0; k < column.levels.size(); ++k)
            out.push_back(k == hot ? 1.0 : 0.0);
    }
}

bool hasCategoricalColumn(const std::vector<InputColumn>& columns)
{
    return std::any_of(columns.begin(), columns.end(), [](const InputColumn& c) { return c.categorical(); });
}

std::string quotedForMessage(std::string_view text)
{
    return "\"" + std::string(text.substr(0, 40)) + (text.size() > 40 ? "...\"" : "\"");
}

std::string unknownNameMessage(const std::string& what, const std::string& given,
                               const std::vector<std::string>& names)
{
    std::string hint;
    for (const auto& name : nearestNames(given, names, std::max<size_t>(2, given.size() / 3)))
        hint += (hint.empty() ? "; did you mean \"" : " or \"") + name.substr(0, 80) + "\"";
    std::vector<std::string> cut;
    for (const auto& name : names)
        cut.push_back(name.substr(0, 80));
    return "no " + what + " named \"" + given.substr(0, 80) + "\"" + hint + " (its " + what + "s: " + nameList(cut) +
           ")";
}

} // namespace lcs
