#include "io/table_csv.h"

#include <cstdlib>

#include "core/atomic_file.h"
#include "core/input_error.h"
#include "core/number_format.h"

namespace lcs {

std::vector<std::string> splitCsvLine(const std::string& line)
{
    std::vector<std::string> fields(1);
    for (char c : line) {
        if (c == ',')
            fields.emplace_back();
        else
            fields.back() += c;
    }
    return fields;
}

std::string csvText(const std::string& text)
{
    if (text.find_first_of(",\"\r\n") == std::string::npos)
        return text;
    std::string out = "\"";
    for (char c : text)
        out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

std::string trimmedField(const std::string& s)
{
    const auto begin = s.find_first_not_of(" \t");
    if (begin == std::string::npos)
        return {};
    return s.substr(begin, s.find_last_not_of(" \t") - begin + 1);
}

void forEachCsvRow(const std::string& textIn,
                   const std::function<void(size_t lineNumber, const std::vector<std::string>& fields)>& row)
{
    std::string_view text(textIn);
    if (text.substr(0, 3) == "\xEF\xBB\xBF")
        text.remove_prefix(3);
    size_t lineNo = 0;
    for (size_t pos = 0; pos <= text.size();) {
        const size_t end = std::min(text.find('\n', pos), text.size());
        std::string line(text.substr(pos, end - pos));
        pos = end + 1;
        ++lineNo;
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        if (line.find_first_not_of(" \t") != std::string::npos)
            row(lineNo, splitCsvLine(line));
    }
}

namespace {

const auto trimmed = trimmedField;

/// A header line: no field starts like a number ("1,2o" and "nan,nan" are data rows, and
/// refused as such).
bool isHeader(const std::vector<std::string>& fields)
{
    for (const auto& field : fields) {
        const std::string t = trimmed(field);
        if (t.empty())
            return false;
        char* end = nullptr;
        std::strtod(t.c_str(), &end);
        if (end != t.c_str())
            return false;
    }
    return true;
}

} // namespace

NumericTable parseNumericCsv(const std::string& text, const std::string& source, size_t maxValues)
{
    NumericTable table;
    size_t columns = 0, rows = 0;
    forEachCsvRow(text, [&](size_t lineNo, const std::vector<std::string>& fields) {
        if (rows == 0 && table.header.empty() && isHeader(fields)) {
            for (const auto& f : fields)
                table.header.push_back(trimmed(f));
            columns = fields.size();
            return;
        }
        if (columns == 0)
            columns = fields.size();
        if (fields.size() != columns)
            throw InputError(source + " line " + std::to_string(lineNo) + ": " + std::to_string(fields.size()) +
                             " columns, the " + (table.header.empty() ? "first row has " : "header has ") +
                             std::to_string(columns));
        if (table.values.values.size() + columns > maxValues)
            throw InputError(source + ": more than " + std::to_string(maxValues) + " numbers");
        for (size_t c = 0; c < fields.size(); ++c) {
            const auto v = parseFiniteNumber(trimmed(fields[c]));
            if (!v)
                throw InputError(source + " line " + std::to_string(lineNo) + " column " + std::to_string(c + 1) +
                                 (table.header.empty() ? std::string() : " (" + table.header[c] + ")") + ": \"" +
                                 trimmed(fields[c]).substr(0, 40) + "\" is not a finite number");
            table.values.values.push_back(*v);
        }
        ++rows;
    });
    if (rows == 0)
        throw InputError(source + " has no data rows" + (table.header.empty() ? "" : " (only a header line)"));
    table.values.shape = {static_cast<int64_t>(rows), static_cast<int64_t>(columns)};
    return table;
}

NumericArray readNumericArray(const std::string& path, const std::string& what, size_t minRank, size_t maxRank,
                              size_t maxValues)
{
    // Text needs at most ~25 bytes per number, .npy 8 and a header.
    const std::string bytes = readFile(path, maxValues * 32 + 65536);
    const std::string source = what + " " + path;
    if (bytes.rfind("\x93NUMPY", 0) == 0)
        return parseNpy(bytes, source, minRank, maxRank, maxValues);
    if (minRank > 2)
        throw InputError(source + ": a CSV file holds a 2-D table; give this " + std::to_string(minRank) +
                         "-D array as .npy");
    return parseNumericCsv(bytes, source, maxValues).values;
}

} // namespace lcs
