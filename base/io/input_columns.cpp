#include "base/io/input_columns.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <stdexcept>

#include "base/core/input_error.h"
#include "base/core/nearest_names.h"
#include "base/core/number_format.h"

namespace lcs {

namespace {

bool isNumber(const std::string& cell)
{
    // A huge number is still a number: the encoder says it is out of range.
    return parseTableNumber(cell).has_value();
}


const auto shown = quotedForMessage;

std::string columnLabel(size_t c, const std::string& name)
{
    return "column " + std::to_string(c + 1) + " (" + name.substr(0, 40) + ")";
}

} // namespace

std::optional<double> parseGroupedNumber(std::string_view cell)
{
    // [+-] d{1,3} (,ddd)+ [.d+]: Excel's and R's format(big.mark = ",") thousands.
    size_t i = 0;
    if (i < cell.size() && (cell[i] == '+' || cell[i] == '-'))
        ++i;
    size_t lead = 0;
    while (i < cell.size() && std::isdigit(static_cast<unsigned char>(cell[i])) && lead < 4) {
        ++i;
        ++lead;
    }
    if (lead < 1 || lead > 3 || i >= cell.size() || cell[i] != ',')
        return std::nullopt;
    std::string plain(cell.substr(0, i));
    while (i < cell.size() && cell[i] == ',') {
        for (size_t k = 1; k <= 3; ++k)
            if (i + k >= cell.size() || !std::isdigit(static_cast<unsigned char>(cell[i + k])))
                return std::nullopt;
        plain.append(cell.substr(i + 1, 3));
        i += 4;
    }
    if (i < cell.size()) {
        if (cell[i] != '.' || i + 1 >= cell.size())
            return std::nullopt;
        for (size_t k = i + 1; k < cell.size(); ++k)
            if (!std::isdigit(static_cast<unsigned char>(cell[k])))
                return std::nullopt;
        plain.append(cell.substr(i));
    }
    return parseFiniteNumber(plain);
}

std::optional<double> parseTableNumber(std::string_view cell)
{
    if (auto v = parseFiniteNumber(cell))
        return v;
    return parseGroupedNumber(cell);
}

std::vector<InputColumn> inferInputColumns(const std::vector<std::string>& names,
                                           const std::vector<std::vector<std::string>>& rows,
                                           const std::vector<size_t>& lines, const std::string& source,
                                           MissingValues missing)
{
    std::vector<InputColumn> columns;
    const bool impute = missing == MissingValues::Impute;
    for (size_t c = 0; c < names.size(); ++c) {
        InputColumn column{names[c], {}};
        // The first number and the first text cell: a column with both is refused, and
        // the message points at each. Imputed, a missing cell is neither.
        size_t firstNumber = rows.size(), firstText = rows.size(), missingCells = 0;
        for (size_t r = 0; r < rows.size(); ++r) {
            if (impute && isMissingCell(rows[r][c])) {
                ++missingCells;
                continue;
            }
            auto& first = isNumber(rows[r][c]) ? firstNumber : firstText;
            if (first == rows.size())
                first = r;
        }
        if (missingCells > 0 && missingCells == rows.size())
            throw InputError(source + " " + columnLabel(c, names[c]) + ": every one of its " +
                             std::to_string(rows.size()) +
                             " cells is missing (100%); there is nothing to impute from: leave the column out");
        if (missingCells > 0 && firstText == rows.size())
            column.missingIndicator = true;
        if (firstText < rows.size()) {
            const auto& text = rows[firstText][c];
            if (firstNumber < rows.size())
                throw InputError(source + " " + columnLabel(c, names[c]) + " mixes numbers (line " +
                                 std::to_string(lines[firstNumber]) + ": " + shown(rows[firstNumber][c]) +
                                 ") and text (line " + std::to_string(lines[firstText]) + ": " + shown(text) +
                                 "); a column holds numbers, or categories as text" +
                                 (isMissingCell(text) ? " (with --missing impute or drop it is a missing value)" : ""));
            for (size_t r = 0; r < rows.size(); ++r) {
                if (impute && isMissingCell(rows[r][c])) {
                    column.levels.push_back(kMissingLevel);
                    continue;
                }
                if (rows[r][c].empty())
                    throw InputError(source + " line " + std::to_string(lines[r]) + " " + columnLabel(c, names[c]) +
                                     ": an empty category (with --missing impute a missing value, its own level; "
                                     "with --missing drop the row is left out)");
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
        width += c.width();
    return width;
}

std::vector<std::string> encodedFeatureNames(const std::vector<InputColumn>& columns)
{
    std::vector<std::string> names;
    for (const auto& c : columns) {
        if (!c.categorical()) {
            names.push_back(c.name);
            if (c.missingIndicator)
                names.push_back(c.name + " missing");
        }
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
        // A declared level that looks like a marker (an ARFF file's quoted '?') stays a level.
        if (isMissingCell(cell) && !(column.categorical() && std::binary_search(column.levels.begin(),
                                                                                 column.levels.end(), cell))) {
            if (!column.categorical() && column.missingIndicator) {
                out.push_back(column.fill);  // NaN until fitted: fillMissingValues
                out.push_back(1.0);
                continue;
            }
            if (column.hasMissingLevel()) {
                for (const auto& level : column.levels)
                    out.push_back(level == kMissingLevel ? 1.0 : 0.0);
                continue;
            }
            throw InputError(where + " " + columnLabel(c, column.name) + ": " + shown(cell) +
                             " is a missing value, and the training rows had none in this column, so it cannot "
                             "be imputed: fill it in");
        }
        if (!column.categorical()) {
            const auto v = parseTableNumber(cell);
            if (!v || std::abs(*v) > 1e30)
                throw InputError(where + " " + columnLabel(c, column.name) + ": " + shown(cell) +
                                 " is not a finite number (at most 1e30)");
            out.push_back(*v);
            if (column.missingIndicator)
                out.push_back(0.0);
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

const char* missingValuesName(MissingValues m)
{
    switch (m) {
    case MissingValues::Impute: return "impute";
    case MissingValues::Drop: return "drop";
    case MissingValues::Refuse: return "refuse";
    }
    return "impute";
}

bool isMissingCell(std::string_view cell)
{
    for (const char* marker : {"", "?", "NA", "N/A", "NaN", "nan", "null"})
        if (cell == marker)
            return true;
    return false;
}

std::vector<double> encodedFill(const std::vector<InputColumn>& columns)
{
    std::vector<double> fill;
    for (const auto& c : columns) {
        fill.push_back(c.missingIndicator ? c.fill : std::numeric_limits<double>::quiet_NaN());
        fill.insert(fill.end(), c.width() - 1, std::numeric_limits<double>::quiet_NaN());
    }
    return fill;
}

std::vector<std::pair<size_t, size_t>> encodedIndicators(const std::vector<InputColumn>& columns)
{
    std::vector<std::pair<size_t, size_t>> out;
    size_t at = 0;
    for (const auto& c : columns) {
        if (c.missingIndicator)
            out.emplace_back(at, at + 1);
        at += c.width();
    }
    return out;
}

std::vector<InputColumn> fitMissingFill(const std::vector<InputColumn>& columns, const std::vector<double>& values,
                                        const std::vector<size_t>& fitRows)
{
    const size_t width = encodedWidth(columns);
    if (width == 0 || values.size() % width != 0)
        throw std::invalid_argument("fitMissingFill: values are not rows of the columns' width");
    const size_t rows = values.size() / width;
    auto out = columns;
    size_t at = 0;
    for (auto& c : out) {
        if (c.missingIndicator) {
            const auto meanOver = [&](auto&& forEachRow) {
                double sum = 0;
                size_t n = 0;
                forEachRow([&](size_t r) {
                    const double v = values[r * width + at];
                    if (!std::isnan(v)) {
                        sum += v;
                        ++n;
                    }
                });
                return n > 0 ? sum / static_cast<double>(n) : std::numeric_limits<double>::quiet_NaN();
            };
            c.fill = meanOver([&](auto&& f) {
                for (size_t r : fitRows)
                    if (r < rows)
                        f(r);
            });
            if (std::isnan(c.fill))
                c.fill = meanOver([&](auto&& f) {
                    for (size_t r = 0; r < rows; ++r)
                        f(r);
                });
            if (std::isnan(c.fill))
                c.fill = 0;  // every cell missing: refused by the readers, so only hand-made columns
        }
        at += c.width();
    }
    return out;
}

void fillMissingValues(const std::vector<InputColumn>& columns, std::vector<double>& values)
{
    const auto fill = encodedFill(columns);
    if (fill.empty())
        return;
    for (size_t i = 0; i < values.size(); ++i)
        if (std::isnan(values[i]) && !std::isnan(fill[i % fill.size()]))
            values[i] = fill[i % fill.size()];
}

bool InputColumn::hasMissingLevel() const
{
    return std::binary_search(levels.begin(), levels.end(), std::string(kMissingLevel));
}

bool hasMissingValues(const std::vector<InputColumn>& columns)
{
    return std::any_of(columns.begin(), columns.end(),
                       [](const InputColumn& c) { return c.missingIndicator || c.hasMissingLevel(); });
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
