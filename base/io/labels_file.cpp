#include "base/io/labels_file.h"

#include <cmath>

#include "base/core/atomic_file.h"
#include "base/core/input_error.h"
#include "base/core/number_format.h"
#include "base/io/input_columns.h"
#include "base/io/npy.h"
#include "base/io/table_csv.h"

namespace lcs {

namespace {

/// Labels are short names or small numbers; a longer field is not a label.
constexpr size_t kMaxLabelLength = 200;

/// The class a field names: a class name, or a whole number in [0, classCount). -1: neither.
int64_t classOf(const std::string& field, int classCount, const std::vector<std::string>& classNames)
{
    for (size_t k = 0; k < classNames.size(); ++k)
        if (classNames[k] == field)
            return static_cast<int64_t>(k);
    const auto v = parseFiniteNumber(field);
    if (v && *v == std::floor(*v) && *v >= 0 && *v < classCount)
        return static_cast<int64_t>(*v);
    return -1;
}

std::string classList(int classCount, const std::vector<std::string>& classNames)
{
    std::string s = "0.." + std::to_string(classCount - 1);
    if (!classNames.empty()) {
        s += " or";
        for (size_t k = 0; k < classNames.size() && k < 20; ++k)
            s += (k ? ", \"" : " \"") + classNames[k] + "\"";
    }
    return s;
}

} // namespace

std::vector<int64_t> parseLabels(const std::string& bytes, const std::string& source, int classCount,
                                 const std::vector<std::string>& classNames, int64_t expectedRows)
{
    if (classCount < 2)
        throw InputError(source + ": labels need a cost matrix of at least 2 classes");
    std::vector<int64_t> labels;
    if (bytes.rfind("\x93NUMPY", 0) == 0) {
        const auto a = parseNpy(bytes, source, 1, 2, static_cast<size_t>(std::max<int64_t>(expectedRows, 1)));
        if (a.shape.size() == 2 && a.shape[1] != 1)
            throw InputError(source + ": labels must be one column, the array is " + std::to_string(a.shape[0]) +
                             " x " + std::to_string(a.shape[1]));
        for (size_t i = 0; i < a.values.size(); ++i) {
            const double v = a.values[i];
            if (v != std::floor(v) || v < 0 || v >= classCount)
                throw InputError(source + ": row " + std::to_string(i + 1) + ": " + formatNumber(v) +
                                 " is not a class (" + classList(classCount, {}) + ")");
            labels.push_back(static_cast<int64_t>(v));
        }
    } else {
        // Every line first: whether line 1 is a header depends on how many lines follow.
        std::vector<std::pair<size_t, std::string>> fieldsByLine;
        forEachCsvRow(bytes, [&](size_t line, const std::vector<std::string>& fields) {
            if (fields.size() != 1)
                throw InputError(source + " line " + std::to_string(line) + ": " + std::to_string(fields.size()) +
                                 " columns; labels are one column");
            std::string field = trimmedField(fields[0]);
            if (field.size() >= 2 && field.front() == '"' && field.back() == '"')
                field = field.substr(1, field.size() - 2);
            if (field.size() > kMaxLabelLength)
                throw InputError(source + " line " + std::to_string(line) + ": a label of " +
                                 std::to_string(field.size()) + " characters (at most " +
                                 std::to_string(kMaxLabelLength) + ")");
            if (static_cast<int64_t>(fieldsByLine.size()) > expectedRows)
                throw InputError(source + ": more than " + std::to_string(expectedRows) +
                                 " labels; one per row of the features is needed");
            fieldsByLine.emplace_back(line, std::move(field));
        }, source);
        // One header line: a first line that is neither a class nor a number, with one
        // label per row after it. With exactly one line per row the first is a label, and
        // one that is no class (a misspelt "postive") is refused, never taken as a header.
        const bool header = !fieldsByLine.empty() && classOf(fieldsByLine.front().second, classCount, classNames) < 0 &&
                            !parseFiniteNumber(fieldsByLine.front().second) && !isMissingCell(fieldsByLine.front().second) &&
                            static_cast<int64_t>(fieldsByLine.size()) != expectedRows;
        for (size_t i = header ? 1 : 0; i < fieldsByLine.size(); ++i) {
            const auto& [line, field] = fieldsByLine[i];
            const int64_t k = classOf(field, classCount, classNames);
            if (k < 0 && isMissingCell(field))
                throw InputError(source + " line " + std::to_string(line) + ": " +
                                 (field.empty() ? std::string("an empty label") : "\"" + field + "\"") +
                                 " marks a missing label; every row needs its label here (leave the "
                                 "unlabelled rows out of the features, predictive and labels alike)");
            if (k < 0)
                throw InputError(source + " line " + std::to_string(line) + ": \"" + field.substr(0, 40) +
                                 "\" is not one of the cost matrix's classes (" + classList(classCount, classNames) +
                                 ")" +
                                 (i == 0 && !parseFiniteNumber(field)
                                      ? "; read as a label, since the file has a line for each of the " +
                                            std::to_string(expectedRows) + " rows (as a header it would leave " +
                                            std::to_string(expectedRows - 1) + " labels for " +
                                            std::to_string(expectedRows) + " rows)"
                                      : std::string()));
            if (static_cast<int64_t>(labels.size()) >= expectedRows)
                throw InputError(source + ": more than " + std::to_string(expectedRows) +
                                 " labels; one per row of the features is needed");
            labels.push_back(k);
        }
    }
    if (static_cast<int64_t>(labels.size()) != expectedRows)
        throw InputError(source + ": " + std::to_string(labels.size()) + " labels for " +
                         std::to_string(expectedRows) + " rows of features; one per row is needed");
    return labels;
}

std::vector<int64_t> readLabels(const std::string& path, const std::string& what, int classCount,
                                const std::vector<std::string>& classNames, int64_t expectedRows)
{
    const auto cap = static_cast<size_t>(std::max<int64_t>(expectedRows, 1)) * (kMaxLabelLength + 4) + 65536;
    return parseLabels(readFile(path, cap), what + " " + path, classCount, classNames, expectedRows);
}

} // namespace lcs
