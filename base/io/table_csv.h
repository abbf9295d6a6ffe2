#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "base/io/npy.h"

/// Comma-separated tables of numbers as spreadsheets and numpy.savetxt write them: a
/// UTF-8 byte-order mark is skipped, a first line none of whose fields starts like a
/// number ("x,y") is a header, blank lines are skipped, every other line is a row. A row
/// that is not numbers, is ragged or holds a value that is not finite is an error naming
/// the file, line and column: rows are never skipped silently. Plain C++: fuzzed.
namespace lcs {

struct NumericTable {
    std::vector<std::string> header;  ///< empty without a header line
    NumericArray values;              ///< [rows, columns]
    /// The first line was pandas' default column names ("0,1,...": to_csv(index=False) of
    /// a frame made from an array), taken as a header.
    bool pandasHeader = false;
};

/// Parses `text` (the contents of `source`); at most maxValues numbers. Throws InputError.
/// A first line is a header when no field starts like a number, or when it is exactly
/// 0,1,...,C-1 written as whole numbers (pandas' names), C >= 2, and some later cell holds
/// a fraction: a table of fractions whose first row counts up from 0 is pandas' header,
/// not data (pandasHeader says so; a first data row that truly is 0,1,... in a table of
/// whole numbers stays data).
NumericTable parseNumericCsv(const std::string& text, const std::string& source, size_t maxValues);

/// A CSV cell holding text, for writers: quoted when it holds a comma, a quote or a line
/// break, quotes doubled (RFC 4180, as spreadsheets and pandas read it).
std::string csvText(const std::string& text);

/// The fields of one CSV line (no quoting: a comma always separates).
std::vector<std::string> splitCsvLine(const std::string& line);

/// `field` without the spaces and tabs around it.
std::string trimmedField(const std::string& field);

/// Calls `row(lineNumber, fields)` for every record of `text` that is not a blank line,
/// after a UTF-8 byte-order mark is skipped; "\r\n" ends a line as "\n" does
/// (spreadsheet exports). Records are read as RFC 4180 writes them (R's write.csv,
/// Excel, pandas): a field that starts with a quote runs to its closing quote, "" inside
/// it is one quote, and commas and line breaks inside it belong to it; the quotes are
/// not part of the field. A quote elsewhere is text. A record is numbered by the line it
/// starts on. An unclosed quote, or text after a closing quote, throws InputError
/// "SOURCE line N: ...".
void forEachCsvRow(const std::string& text,
                   const std::function<void(size_t lineNumber, const std::vector<std::string>& fields)>& row,
                   const std::string& source = {});

/// A 2-D or 3-D array from a .npy or .csv file (by the file's first bytes, not its name):
/// `what` names it in messages ("--features"). CSV gives [rows, columns]. At most
/// maxValues numbers; the file is read with a size cap to match. Throws InputError.
/// With `note`, a sentence on how the file was read where a user could not guess it (a
/// first line taken as pandas' header); empty otherwise.
NumericArray readNumericArray(const std::string& path, const std::string& what, size_t minRank, size_t maxRank,
                              size_t maxValues, std::string* note = nullptr);

} // namespace lcs
