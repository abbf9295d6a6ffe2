#include "base/io/table_csv.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "base/core/atomic_file.h"
#include "base/core/input_error.h"
#include "base/core/number_format.h"

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
                   const std::function<void(size_t lineNumber, const std::vector<std::string>& fields)>& row,
                   const std::string& source)
{
    std::string_view text(textIn);
    if (text.substr(0, 3) == "\xEF\xBB\xBF")
        text.remove_prefix(3);
    const auto refuse = [&](size_t line, const std::string& what) {
        throw InputError((source.empty() ? std::string() : source + " ") + "line " + std::to_string(line) + ": " + what);
    };
    // A NUL byte is no text: names and cells would end there wherever they are used as
    // C strings. Refused where it is, before any row.
    if (const size_t nul = text.find('\0'); nul != std::string_view::npos)
        refuse(1 + static_cast<size_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(nul), '\n')),
               "a NUL byte (byte " + std::to_string(nul + 1) + " of the file); a CSV file is text");
    // One record at a time, as RFC 4180 (and R, Excel, pandas) write them: a field that
    // starts with a quote runs to the closing quote, "" inside it is a quote, and commas
    // and line breaks inside it belong to it. A quote anywhere else is text. A record is
    // numbered by the line it starts on.
    size_t line = 1, i = 0;
    const size_t n = text.size();
    // Old Mac line ends (Excel's "CSV (Macintosh)"): a file with carriage returns and no
    // line feed at all ends each line with a carriage return. Elsewhere a lone carriage
    // return is text, as before.
    const bool crOnly = text.find('\n') == std::string_view::npos && text.find('\r') != std::string_view::npos;
    while (i <= n) {
        const size_t recordLine = line;
        std::vector<std::string> fields;
        std::string field;
        bool quoted = false, anyQuoted = false;
        for (;;) {
            if (i >= n) {
                i = n + 1;
                break;
            }
            const char c = text[i];
            if (c == '"' && !quoted && field.find_first_not_of(" \t") == std::string::npos) {
                field.clear();
                const size_t openedOn = line;
                for (++i;; ++i) {
                    if (i >= n)
                        refuse(openedOn, "a quoted field is not closed");
                    if (text[i] == '"') {
                        if (i + 1 < n && text[i + 1] == '"') {
                            field += '"';
                            ++i;
                            continue;
                        }
                        ++i;
                        break;
                    }
                    if (text[i] == '\n' || (crOnly && text[i] == '\r'))
                        ++line;
                    field += text[i];
                }
                quoted = anyQuoted = true;
                while (i < n && (text[i] == ' ' || text[i] == '\t'))
                    ++i;
                continue;
            }
            if (c == ',') {
                fields.push_back(std::move(field));
                field.clear();
                quoted = false;
                ++i;
                continue;
            }
            if (c == '\n' || (c == '\r' && (crOnly || i + 1 == n || text[i + 1] == '\n'))) {
                i += c == '\r' && !crOnly && i + 1 < n ? 2 : 1;
                ++line;
                break;
            }
            if (quoted)
                refuse(line, "text after a closing quote (a quote inside a quoted field is written \"\")");
            field += c;
            ++i;
        }
        fields.push_back(std::move(field));
        if (anyQuoted || fields.size() > 1 || fields[0].find_first_not_of(" \t") != std::string::npos)
            row(recordLine, fields);
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
    bool firstCountsUp = false, laterFraction = false;
    forEachCsvRow(text, [&](size_t lineNo, const std::vector<std::string>& fields) {
        if (rows == 0 && table.header.empty() && fields.size() >= 2) {
            firstCountsUp = true;
            for (size_t c = 0; c < fields.size() && firstCountsUp; ++c)
                firstCountsUp = trimmed(fields[c]) == std::to_string(c);
        }
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
            laterFraction = laterFraction || (rows > 0 && *v != std::floor(*v));
        }
        ++rows;
    }, source);
    if (firstCountsUp && laterFraction) {
        table.pandasHeader = true;
        for (size_t c = 0; c < columns; ++c)
            table.header.push_back(std::to_string(c));
        table.values.values.erase(table.values.values.begin(), table.values.values.begin() + static_cast<std::ptrdiff_t>(columns));
        --rows;
    }
    if (rows == 0)
        throw InputError(source + " has no data rows" + (table.header.empty() ? "" : " (only a header line)"));
    table.values.shape = {static_cast<int64_t>(rows), static_cast<int64_t>(columns)};
    return table;
}

NumericArray readNumericArray(const std::string& path, const std::string& what, size_t minRank, size_t maxRank,
                              size_t maxValues, std::string* note)
{
    // Text needs at most ~25 bytes per number, .npy 8 and a header.
    const std::string bytes = readFile(path, maxValues * 32 + 65536);
    const std::string source = what + " " + path;
    if (bytes.rfind("\x93NUMPY", 0) == 0)
        return parseNpy(bytes, source, minRank, maxRank, maxValues);
    if (minRank > 2)
        throw InputError(source + ": a CSV file holds a 2-D table; give this " + std::to_string(minRank) +
                         "-D array as .npy");
    auto table = parseNumericCsv(bytes, source, maxValues);
    if (note && table.pandasHeader) {
        std::string names;
        for (const auto& h : table.header)
            names += (names.empty() ? "" : ",") + h;
        *note = source + ": line 1 (" + (names.size() > 40 ? names.substr(0, 37) + "..." : names) +
                ") read as pandas' column names, a header, not a row of data";
    }
    return std::move(table.values);
}

} // namespace lcs
