#include "base/io/tabular_csv.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "base/core/atomic_file.h"
#include "base/core/input_error.h"
#include "base/core/number_format.h"
#include "base/core/utf8.h"
#include "base/io/arff.h"
#include "base/io/input_columns.h"
#include "base/io/table_csv.h"

namespace lcs {

namespace {

const auto trimmed = trimmedField;

/// Where the label column is in the header; refuses a header without it (listing the
/// columns it has) or without a feature column beside it.
size_t labelColumnIndex(const std::vector<std::string>& header, const std::string& labelColumn,
                        const std::string& where)
{
    const auto it = std::find(header.begin(), header.end(), labelColumn);
    if (it == header.end())
        throw InputError(where + ": " + unknownNameMessage("column", labelColumn, header));
    if (header.size() < 2)
        throw InputError(where + ": the header names no feature column beside the label");
    return static_cast<size_t>(it - header.begin());
}

/// The distinct labels in a stable order: integers by value ("2" before "10"), else by text.
std::vector<std::string> orderedClasses(const std::vector<std::string>& rawLabels)
{
    std::vector<std::string> names = rawLabels;
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    const bool numbers = std::all_of(names.begin(), names.end(), [](const std::string& n) {
        return parseFiniteNumber(n).has_value();
    });
    if (numbers)  // by value: 2 before 10, 1.0 (one class with 1) before 1.5
        std::sort(names.begin(), names.end(), [](const std::string& a, const std::string& b) {
            return *parseFiniteNumber(a) < *parseFiniteNumber(b);
        });
    return names;
}

/// The header's names, checked: at most kMaxTabularColumns (a model's size grows with
/// the square of its inputs, so the width is capped before anything is built on it),
/// each named, of at most kMaxColumnTextLength characters, none twice.
std::vector<std::string> checkedHeader(const std::vector<std::string>& fields, const std::string& where)
{
    if (fields.size() > kMaxTabularColumns)
        throw InputError(where + ": the header has " + std::to_string(fields.size()) + " columns; at most " +
                         std::to_string(kMaxTabularColumns) + " are read");
    std::vector<std::string> header;
    std::map<std::string, size_t> seen;
    for (size_t c = 0; c < fields.size(); ++c) {
        header.push_back(trimmed(fields[c]));
        if (header.back().empty())
            throw InputError(where + ": column " + std::to_string(c + 1) +
                             " has no name (R's write.csv writes its row names there: write the file with "
                             "row.names = FALSE)");
        if (header.back().size() > kMaxColumnTextLength)
            throw InputError(where + ": the name of column " + std::to_string(c + 1) + " has " +
                             std::to_string(header.back().size()) + " characters; at most " +
                             std::to_string(kMaxColumnTextLength));
        if (const auto [it, added] = seen.emplace(header.back(), c); !added)
            throw InputError(where + ": column " + std::to_string(c + 1) + " " + quotedForMessage(header.back()) +
                             " repeats the name of column " + std::to_string(it->second + 1) +
                             "; every column needs its own name");
    }
    return header;
}

/// Every row's cells as read, before a column's type is known (numbers or categories:
/// only once all of its cells are).
struct CsvCells {
    std::vector<std::string> inputNames;      ///< the header but the label column
    std::vector<std::vector<std::string>> cells;  ///< each row's input cells, trimmed
    std::vector<size_t> lines;                ///< each row's line in the file
    std::vector<std::string> rowLabels;       ///< each row's label cell ("" or a missing mark: unlabelled)
};

/// The header and every row, each cell checked as UTF-8 where the message can name it
/// (names and labels end up in the results' JSON, whose writer would refuse them after
/// the run), within `maxValues` cells.
CsvCells readCells(const std::string& text, const std::string& source, const std::string& labelColumn,
                   size_t maxValues)
{
    CsvCells out;
    std::vector<std::string> header;
    size_t labelAt = 0, cellCount = 0;
    forEachCsvRow(
        text, [&](size_t lineNo, const std::vector<std::string>& fields) {
        const std::string where = source + " line " + std::to_string(lineNo);
        for (size_t c = 0; c < fields.size(); ++c)
            if (const size_t bad = firstInvalidUtf8(fields[c]); bad != std::string::npos)
                throw InputError(where + " column " + std::to_string(c + 1) + ": byte " + std::to_string(bad + 1) +
                                 " of the cell is not UTF-8 text (save the file as UTF-8)");
        if (header.empty()) {
            header = checkedHeader(fields, where);
            labelAt = labelColumnIndex(header, labelColumn, where);
            for (size_t c = 0; c < header.size(); ++c)
                if (c != labelAt)
                    out.inputNames.push_back(header[c]);
            return;
        }
        if (fields.size() != header.size())
            throw InputError(where + ": " + std::to_string(fields.size()) + " columns, the header has " +
                             std::to_string(header.size()));
        cellCount += header.size();
        if (cellCount > maxValues)
            throw InputError(source + ": more than " + std::to_string(maxValues) + " numbers");
        std::vector<std::string> row;
        row.reserve(header.size() - 1);
        for (size_t c = 0; c < fields.size(); ++c)
            if (c != labelAt)
                row.push_back(trimmed(fields[c]));
        out.cells.push_back(std::move(row));
        out.lines.push_back(lineNo);
        out.rowLabels.push_back(trimmed(fields[labelAt]));
        if (utf8Length(out.rowLabels.back()) > kMaxClassNameLength)
            throw InputError(where + " column " + std::to_string(labelAt + 1) + ": a label of " +
                             std::to_string(utf8Length(out.rowLabels.back())) + " characters; at most " +
                             std::to_string(kMaxClassNameLength) + " (class names are kept whole, never cut)");
    },
        source);
    if (header.empty())
        throw InputError(source + ": empty; expected a header line naming the columns, then one row per input");
    return out;
}

/// Missing cells counted into `out`: a missing label (R's NA, Weka's ?) makes its row
/// unlabelled, never a class named "NA"; under MissingValues::Drop a row with a missing
/// input cell is left out.
void applyMissing(CsvCells& read, TabularData& out, MissingValues missing, const std::string& source)
{
    for (auto& label : read.rowLabels)
        if (!label.empty() && isMissingCell(label)) {
            label.clear();
            ++out.missingLabels;
        }
    size_t kept = 0;
    for (size_t r = 0; r < read.cells.size(); ++r) {
        const auto n = std::count_if(read.cells[r].begin(), read.cells[r].end(),
                                     [](const std::string& cell) { return isMissingCell(cell); });
        out.missingCells += n;
        out.missingRows += n > 0;
        if (n > 0 && missing == MissingValues::Drop)
            continue;
        if (kept != r) {  // a vector moved onto itself would be left empty
            read.cells[kept] = std::move(read.cells[r]);
            read.lines[kept] = read.lines[r];
            read.rowLabels[kept] = std::move(read.rowLabels[r]);
        }
        ++kept;
    }
    read.cells.resize(kept);
    read.lines.resize(kept);
    read.rowLabels.resize(kept);
    if (kept == 0 && out.missingRows > 0)
        throw InputError(source + ": every one of its " + std::to_string(out.missingRows) +
                         " rows has a missing value, so --missing drop leaves none (use --missing impute)");
}

/// The classes of the labelled rows' labels, in order; labels that are all numbers are
/// compared as numbers: "1" and "1.0" are one class (named as first written, which
/// `rawLabels` then holds). A numeric column of many distinct values with fractions is a
/// measurement, not classes: refused rather than run as one class per row.
std::vector<std::string> classesOf(std::vector<std::string>& rawLabels, const std::string& labelColumn,
                                   const std::string& source)
{
    if (!rawLabels.empty() && std::all_of(rawLabels.begin(), rawLabels.end(), [](const std::string& l) {
            return parseFiniteNumber(l).has_value();
        })) {
        std::map<double, std::string> firstWritten;
        bool fractions = false;
        for (auto& l : rawLabels) {
            const double v = *parseFiniteNumber(l);
            fractions = fractions || v != std::floor(v);
            l = firstWritten.emplace(v, l).first->second;
        }
        if (fractions && firstWritten.size() > kMaxContinuousLookingClasses)
            throw InputError(source + ": column \"" + labelColumn.substr(0, 40) + "\" holds " +
                             std::to_string(firstWritten.size()) + " distinct numbers with fractions (" +
                             firstWritten.begin()->second + ", " + std::next(firstWritten.begin())->second +
                             ", ...): it looks continuous (a regression target?); classes are names or whole "
                             "numbers");
    }
    auto names = orderedClasses(rawLabels);
    if (names.size() < 2)
        throw InputError(source + ": column \"" + labelColumn.substr(0, 40) + "\" holds " +
                         std::to_string(names.size()) + " class(es) among its labelled rows; at least 2 are needed");
    if (names.size() > kMaxTabularClasses)
        throw InputError(source + ": column \"" + labelColumn.substr(0, 40) + "\" holds more than " +
                         std::to_string(kMaxTabularClasses) + " classes");
    return names;
}

} // namespace

TabularData parseTabularCsv(const std::string& text, const std::string& source, const std::string& labelColumn,
                            size_t maxValues, MissingValues missing)
{
    TabularData out;
    out.source = source;
    out.missingValues = missing;
    out.labelName = labelColumn;
    CsvCells read = readCells(text, source, labelColumn, maxValues);
    applyMissing(read, out, missing, source);
    out.columns = inferInputColumns(read.inputNames, read.cells, read.lines, source, missing);
    for (size_t c = 0; c < out.columns.size(); ++c)
        if (!out.columns[c].categorical() && std::any_of(read.cells.begin(), read.cells.end(), [&](const auto& row) {
                return parseGroupedNumber(row[c]).has_value();
            }))
            out.groupedNumberColumns.push_back(out.columns[c].name);
    const size_t width = encodedWidth(out.columns);
    if (width > kMaxTabularFeatures)
        throw InputError(source + ": its categories one-hot encoded make " + std::to_string(width) +
                         " features; at most " + std::to_string(kMaxTabularFeatures) +
                         " (a column of many distinct texts is better dropped or coded as numbers)");
    out.featureNames = encodedFeatureNames(out.columns);
    if (width * read.cells.size() > maxValues)
        throw InputError(source + ": its categories one-hot encoded make " + std::to_string(width) +
                         " features, more than " + std::to_string(maxValues) + " numbers in all");
    std::vector<std::string> rawLabels;
    std::vector<double> labelledValues, unlabelledValues;
    for (size_t r = 0; r < read.cells.size(); ++r) {
        const bool unlabelled = read.rowLabels[r].empty();
        appendEncodedRow(out.columns, read.cells[r], source + " line " + std::to_string(read.lines[r]),
                         unlabelled ? unlabelledValues : labelledValues);
        if (!unlabelled)
            rawLabels.push_back(read.rowLabels[r]);
    }
    const auto names = classesOf(rawLabels, labelColumn, source);
    std::map<std::string, int64_t> index;
    for (size_t k = 0; k < names.size(); ++k)
        index[names[k]] = static_cast<int64_t>(k);
    for (const auto& l : rawLabels)
        out.labels.push_back(index.at(l));
    const auto d = static_cast<int64_t>(out.featureNames.size());
    out.classNames = names;
    out.labelled.shape = {static_cast<int64_t>(rawLabels.size()), d};
    out.labelled.values = std::move(labelledValues);
    out.unlabelled.shape = {static_cast<int64_t>(unlabelledValues.size()) / d, d};
    out.unlabelled.values = std::move(unlabelledValues);
    return out;
}

TabularData readTable(const std::string& path, const std::string& labelColumn, size_t maxValues,
                      MissingValues missing)
{
    if (isArffPath(path))
        return readArff(path, labelColumn, maxValues, missing);
    return readTabularCsv(path, labelColumn.empty() ? std::string(kDefaultLabelColumn) : labelColumn, maxValues,
                          missing);
}

std::string describeMissingValues(const TabularData& t)
{
    std::string out;
    if (t.missingCells > 0 && t.missingValues != MissingValues::Refuse) {
        out = std::to_string(t.missingCells) + " missing value(s) in " + std::to_string(t.missingRows) + " row(s): ";
        if (t.missingValues == MissingValues::Drop)
            out += "those rows are left out (--missing drop)";
        else {
            const bool numbers = std::any_of(t.columns.begin(), t.columns.end(),
                                             [](const InputColumn& c) { return c.missingIndicator; });
            const bool categories = std::any_of(t.columns.begin(), t.columns.end(),
                                                [](const InputColumn& c) { return c.hasMissingLevel(); });
            if (numbers)
                out += "each number filled by the training rows' mean, with a 0/1 \"missing\" feature beside it";
            if (categories)
                out += std::string(numbers ? "; " : "") + "a category's as its own level " + kMissingLevel;
            out += " (--missing impute)";
        }
    }
    if (t.missingLabels > 0)
        out += (out.empty() ? "" : "; ") + std::to_string(t.missingLabels) +
               " row(s) whose label is a missing value (NA, ?) are unlabelled";
    return out;
}

std::string describeNumberFormats(const TabularData& t)
{
    if (t.groupedNumberColumns.empty())
        return {};
    std::string names;
    for (const auto& name : t.groupedNumberColumns)
        names += (names.empty() ? "" : ", ") + name.substr(0, 40);
    return std::string(t.groupedNumberColumns.size() == 1 ? "column " : "columns ") + names +
           ": numbers with thousands separators (\"1,037\") read as numbers";
}

namespace {
/// The first `characters` characters of well-formed UTF-8 `text` (never half a character).
std::string utf8Prefix(const std::string& text, size_t characters)
{
    size_t end = 0, seen = 0;
    while (end < text.size() && (seen < characters || (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80)) {
        seen += (static_cast<unsigned char>(text[end]) & 0xC0) != 0x80;
        ++end;
    }
    return text.substr(0, end);
}
} // namespace

std::string describeTable(const TabularData& t)
{
    std::string classes;
    for (const auto& c : t.classNames)
        classes += (classes.empty() ? "" : ", ") + utf8Prefix(c, 40);
    const int64_t unlabelled = t.unlabelled.shape.empty() ? 0 : t.unlabelled.shape[0];
    const auto missing = describeMissingValues(t);
    return std::to_string(t.labels.size()) + " labelled and " + std::to_string(unlabelled) + " unlabelled rows, " +
           std::to_string(t.featureNames.size()) + " feature(s), classes " + classes + " (" +
           (isArffPath(t.source) ? "attribute " : "column ") + utf8Prefix(t.labelName, 80) +
           (unlabelled == 0 ? "; no unlabelled rows, so q trains on the training rows' inputs" : "") + ")" +
           (missing.empty() ? "" : "; " + missing) +
           (t.groupedNumberColumns.empty() ? "" : "; " + describeNumberFormats(t));
}

bool isArffPath(const std::string& path)
{
    if (path.size() < 5)
        return false;
    std::string tail = path.substr(path.size() - 5);
    for (auto& c : tail)
        c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    return tail == ".arff";
}

TabularData readTabularCsv(const std::string& path, const std::string& labelColumn, size_t maxValues,
                           MissingValues missing)
{
    return parseTabularCsv(readFile(path, maxValues * 32 + 65536), path, labelColumn, maxValues, missing);
}

} // namespace lcs
