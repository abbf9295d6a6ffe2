#include "io/tabular_csv.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "core/atomic_file.h"
#include "core/input_error.h"
#include "core/number_format.h"
#include "io/arff.h"
#include "io/input_columns.h"
#include "io/table_csv.h"

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
    const bool integers = std::all_of(names.begin(), names.end(), [](const std::string& n) {
        return parseInteger(n, -1000000000, 1000000000).has_value();
    });
    if (integers)
        std::sort(names.begin(), names.end(), [](const std::string& a, const std::string& b) {
            return *parseInteger(a, -1000000000, 1000000000) < *parseInteger(b, -1000000000, 1000000000);
        });
    return names;
}

} // namespace

TabularData parseTabularCsv(const std::string& text, const std::string& source, const std::string& labelColumn,
                            size_t maxValues)
{
    TabularData out;
    out.source = source;
    out.labelName = labelColumn;
    std::vector<std::string> header, inputNames;
    size_t labelAt = 0;
    // Every row's input cells first: a column's type (numbers or categories) is known
    // only once all of its cells are.
    std::vector<std::vector<std::string>> cells;
    std::vector<size_t> lines;
    std::vector<std::string> rowLabels;
    size_t cellCount = 0;
    forEachCsvRow(text, [&](size_t lineNo, const std::vector<std::string>& fields) {
        const std::string where = source + " line " + std::to_string(lineNo);
        if (header.empty()) {
            for (const auto& f : fields)
                header.push_back(trimmed(f));
            labelAt = labelColumnIndex(header, labelColumn, where);
            for (size_t c = 0; c < header.size(); ++c)
                if (c != labelAt)
                    inputNames.push_back(header[c]);
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
        cells.push_back(std::move(row));
        lines.push_back(lineNo);
        rowLabels.push_back(trimmed(fields[labelAt]).substr(0, 100));
    });
    if (header.empty())
        throw InputError(source + ": empty; expected a header line naming the columns, then one row per input");
    out.columns = inferInputColumns(inputNames, cells, lines, source);
    out.featureNames = encodedFeatureNames(out.columns);
    const size_t width = encodedWidth(out.columns);
    if (width * cells.size() > maxValues)
        throw InputError(source + ": its categories one-hot encoded make " + std::to_string(width) +
                         " features, more than " + std::to_string(maxValues) + " numbers in all");
    std::vector<std::string> rawLabels;
    std::vector<double> labelledValues, unlabelledValues;
    for (size_t r = 0; r < cells.size(); ++r) {
        const bool unlabelled = rowLabels[r].empty();
        appendEncodedRow(out.columns, cells[r], source + " line " + std::to_string(lines[r]),
                         unlabelled ? unlabelledValues : labelledValues);
        if (!unlabelled)
            rawLabels.push_back(rowLabels[r]);
    }
    const auto d = static_cast<int64_t>(out.featureNames.size());
    const auto names = orderedClasses(rawLabels);
    if (names.size() < 2)
        throw InputError(source + ": column \"" + labelColumn.substr(0, 40) + "\" holds " +
                         std::to_string(names.size()) + " class(es) among its labelled rows; at least 2 are needed");
    if (names.size() > kMaxTabularClasses)
        throw InputError(source + ": column \"" + labelColumn.substr(0, 40) + "\" holds more than " +
                         std::to_string(kMaxTabularClasses) + " classes");
    std::map<std::string, int64_t> index;
    for (size_t k = 0; k < names.size(); ++k)
        index[names[k]] = static_cast<int64_t>(k);
    for (const auto& l : rawLabels)
        out.labels.push_back(index.at(l));
    out.classNames = names;
    out.labelled.shape = {static_cast<int64_t>(rawLabels.size()), d};
    out.labelled.values = std::move(labelledValues);
    out.unlabelled.shape = {static_cast<int64_t>(unlabelledValues.size()) / d, d};
    out.unlabelled.values = std::move(unlabelledValues);
    return out;
}

TabularData readTable(const std::string& path, const std::string& labelColumn, size_t maxValues)
{
    if (isArffPath(path))
        return readArff(path, labelColumn, maxValues);
    return readTabularCsv(path, labelColumn.empty() ? std::string(kDefaultLabelColumn) : labelColumn, maxValues);
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

TabularData readTabularCsv(const std::string& path, const std::string& labelColumn, size_t maxValues)
{
    return parseTabularCsv(readFile(path, maxValues * 32 + 65536), path, labelColumn, maxValues);
}

} // namespace lcs
