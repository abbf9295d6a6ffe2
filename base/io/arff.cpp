#include "base/io/arff.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <string_view>
#include <utility>
#include <vector>

#include "base/core/atomic_file.h"
#include "base/core/input_error.h"
#include "base/core/number_format.h"
#include "base/core/utf8.h"
#include "base/io/input_columns.h"

namespace lcs {

namespace {

/// One declared attribute. A numeric one has no values; a nominal one its values in the
/// order declared (a class's numbering) and sorted (a column's levels, looked up by
/// binary search).
struct Attribute {
    std::string name;
    size_t line = 0;
    bool nominal = false;
    std::vector<std::string> values;
    std::vector<std::string> sorted;
};

/// As in Weka's tokenizer, every control character and the space separate.
bool isBlank(char c)
{
    return static_cast<unsigned char>(c) <= ' ';
}

/// What ends an unquoted name or value: a blank, a comma, a brace, a quote, a comment.
bool endsWord(char c)
{
    return isBlank(c) || std::string_view(",{}'\"%").find(c) != std::string_view::npos;
}

/// True when `word` is `lower` but for the case of ASCII letters (ARFF's keywords and
/// types are case-insensitive: iris.arff writes @ATTRIBUTE ... REAL).
bool isKeyword(std::string_view word, std::string_view lower)
{
    if (word.size() != lower.size())
        return false;
    for (size_t i = 0; i < word.size(); ++i) {
        const char c = word[i] >= 'A' && word[i] <= 'Z' ? static_cast<char>(word[i] - 'A' + 'a') : word[i];
        if (c != lower[i])
            return false;
    }
    return true;
}

const auto shown = quotedForMessage;

/// The part of a message that follows the line: ` attribute "name"`.
std::string attributeLabel(const std::string& name)
{
    return " attribute " + shown(name);
}

/// The first 20 of a nominal attribute's values, as declared.
std::string valueList(const std::vector<std::string>& values)
{
    std::string out;
    for (size_t k = 0; k < values.size() && k < 20; ++k)
        out += (k ? ", " : "") + values[k].substr(0, 40);
    if (values.size() > 20)
        out += ", ... (" + std::to_string(values.size()) + " in all)";
    return out;
}

/// (table_csv.h's forEachCsvRow has the same byte-order mark and "\r" rules, but splits
/// at every comma, quoted or not, so ARFF's quoting needs its own line reader.)
/// The lines of a file one at a time, numbered from 1: a UTF-8 byte-order mark skipped,
/// a line's "\r" dropped (spreadsheet and Windows exports).
class Lines {
public:
    explicit Lines(std::string_view text) : m_text(text)
    {
        if (m_text.substr(0, 3) == "\xEF\xBB\xBF")
            m_text.remove_prefix(3);
    }

    /// The next line into `line`; false after the last.
    bool next(std::string_view& line)
    {
        if (m_next > m_text.size())
            return false;
        const size_t end = std::min(m_text.find('\n', m_next), m_text.size());
        line = m_text.substr(m_next, end - m_next);
        m_next = end + 1;
        ++m_number;
        if (!line.empty() && line.back() == '\r')
            line.remove_suffix(1);
        return true;
    }

    size_t number() const { return m_number; }
    /// Bytes from the start of the text to the end of the current line.
    size_t end() const { return m_next - 1; }

private:
    std::string_view m_text;
    size_t m_next = 0, m_number = 0;
};

/// A position in one line, read left to right.
struct Cursor {
    std::string_view line;
    size_t pos = 0;

    void skipBlanks()
    {
        while (pos < line.size() && isBlank(line[pos]))
            ++pos;
    }
    /// True when only blanks or a `%` comment are left (Weka's comments may follow a
    /// value: supermarket.arff writes `{ low, high} % low < 100`).
    bool atEnd()
    {
        skipBlanks();
        return pos == line.size() || line[pos] == '%';
    }
    char peek() const { return line[pos]; }
    std::string_view rest() const { return line.substr(pos); }
};

struct Value {
    std::string text;
    bool quoted = false;
    /// `?` as written, unquoted: Weka's missing value ('?' is the text "?").
    bool missing() const { return !quoted && text == "?"; }
};

/// The name or value at the cursor: quoted with ' or " (a backslash takes the next
/// character as it is, but \n, \r and \t, which Weka writes for those characters), or
/// unquoted up to what endsWord stops at, so empty when that comes first. A quote must
/// close on its line, and the text is at most kMaxColumnTextLength characters. `where`
/// and `context` open messages.
Value readValue(Cursor& c, const std::string& where, const std::string& context)
{
    c.skipBlanks();
    Value v;
    const auto tooLong = [&] {
        return InputError(where + context + ": a name or value of more than " + std::to_string(kMaxColumnTextLength) +
                          " characters");
    };
    if (c.pos < c.line.size() && (c.peek() == '\'' || c.peek() == '"')) {
        const char quote = c.line[c.pos++];
        v.quoted = true;
        for (;;) {
            if (c.pos == c.line.size())
                throw InputError(where + context + ": a value opened with " + std::string(1, quote) +
                                 " is not closed on its line");
            char ch = c.line[c.pos++];
            if (ch == quote)
                break;
            if (ch == '\\' && c.pos < c.line.size()) {
                ch = c.line[c.pos++];
                ch = ch == 'n' ? '\n' : ch == 'r' ? '\r' : ch == 't' ? '\t' : ch;
            }
            if (v.text.size() == kMaxColumnTextLength)
                throw tooLong();
            v.text += ch;
        }
        return v;
    }
    const size_t start = c.pos;
    while (c.pos < c.line.size() && !endsWord(c.line[c.pos]))
        ++c.pos;
    if (c.pos - start > kMaxColumnTextLength)
        throw tooLong();
    v.text = std::string(c.line.substr(start, c.pos - start));
    return v;
}

/// A nominal attribute's values after its `{`, through the `}`: separated by commas,
/// none empty, none twice, at most kMaxCategoryLevels of them.
void readNominalValues(Cursor& c, const std::string& where, const std::string& context, Attribute& a)
{
    c.skipBlanks();
    if (c.pos < c.line.size() && c.peek() == '}')
        throw InputError(where + context + ": declares no values ({}); a nominal attribute needs at least one");
    for (;;) {
        Value v = readValue(c, where, context);
        if (v.text.empty()) {
            if (!v.quoted && c.atEnd())
                throw InputError(where + context + ": its set of values is not closed with }");
            throw InputError(where + context + ": an empty value in its set of values");
        }
        if (v.missing())
            throw InputError(where + context +
                             ": ? stands for a missing value; quote it ('?') to declare it as a value");
        if (a.values.size() == kMaxCategoryLevels)
            throw InputError(where + context + ": more than " + std::to_string(kMaxCategoryLevels) +
                             " values; at most " + std::to_string(kMaxCategoryLevels) + " are one-hot encoded");
        a.values.push_back(std::move(v.text));
        if (c.atEnd())
            throw InputError(where + context + ": its set of values is not closed with }");
        if (c.peek() == '}') {
            ++c.pos;
            break;
        }
        if (c.peek() != ',')
            throw InputError(where + context + ": expected a comma after the value " + shown(a.values.back()) +
                             ", found " + shown(c.rest()) + " (quote a value that holds blanks)");
        ++c.pos;
    }
    a.sorted = a.values;
    std::sort(a.sorted.begin(), a.sorted.end());
    const auto twice = std::adjacent_find(a.sorted.begin(), a.sorted.end());
    if (twice != a.sorted.end())
        throw InputError(where + context + ": declares the value " + shown(*twice) + " twice");
}

/// The attribute a line declares after its `@attribute`: a name (quoted when it holds
/// blanks), then `numeric`, `real`, `integer` or its values in braces. The name is read
/// before the type, so soybean.arff's attribute named `date` is not taken for the type.
Attribute readAttribute(Cursor& c, const std::string& where, size_t lineNumber)
{
    Attribute a;
    a.line = lineNumber;
    a.name = readValue(c, where, "").text;
    if (a.name.empty())
        throw InputError(where + ": @attribute without a name");
    const std::string context = attributeLabel(a.name);
    if (c.atEnd())
        throw InputError(where + context + ": no type (numeric, real, integer, or its values in braces: {a, b})");
    if (c.peek() == '{') {
        ++c.pos;
        a.nominal = true;
        readNominalValues(c, where, context, a);
    } else {
        const size_t start = c.pos;
        while (c.pos < c.line.size() && !endsWord(c.line[c.pos]))
            ++c.pos;
        const auto type = c.line.substr(start, c.pos - start);
        if (isKeyword(type, "string") || isKeyword(type, "date") || isKeyword(type, "relational"))
            throw InputError(where + context + ": type " + shown(type) +
                             " is not supported; an attribute is numeric (numeric, real, integer) or nominal "
                             "({a, b, ...})");
        if (!isKeyword(type, "numeric") && !isKeyword(type, "real") && !isKeyword(type, "integer"))
            throw InputError(where + context + ": " + shown(type.empty() ? c.line.substr(start) : type) +
                             " is not a type (numeric, real, integer, or its values in braces: {a, b}; quote a "
                             "name that holds blanks)");
    }
    if (!c.atEnd())
        throw InputError(where + context + ": " + shown(c.rest()) + " after its type");
    return a;
}

/// Names and values end up in the results' JSON, whose writer refuses invalid UTF-8:
/// refused here, naming the line, rather than after a whole run. Comment lines never
/// reach the results, and old files' comments are often Latin-1: they are left alone.
void refuseInvalidUtf8(const std::string& text, const std::string& source)
{
    size_t lineNumber = 0;
    for (size_t start = 0; start < text.size(); ++lineNumber) {
        const size_t end = std::min(text.find('\n', start), text.size());
        const std::string_view line(text.data() + start, end - start);
        const size_t first = line.find_first_not_of(" \t");
        if (first != std::string_view::npos && line[first] != '%')
            if (const size_t bad = firstInvalidUtf8(line); bad != std::string_view::npos)
                throw InputError(source + " line " + std::to_string(lineNumber + 1) + ": byte " +
                                 std::to_string(bad + 1) + " of the line is not UTF-8 text (save the file as UTF-8)");
        start = end + 1;
    }
}

/// The header: @relation, the attributes, @data. Leaves `lines` after the @data line.
std::vector<Attribute> readHeader(Lines& lines, const std::string& source)
{
    std::vector<Attribute> attributes;
    std::map<std::string, size_t> lineOf;  // each attribute's line, to refuse a name given twice
    std::string_view line;
    bool relation = false, data = false;
    while (!data && lines.next(line)) {
        const std::string where = source + " line " + std::to_string(lines.number());
        if (lines.end() > kMaxArffHeaderBytes)
            throw InputError(where + ": the header runs past " + std::to_string(kMaxArffHeaderBytes >> 20) +
                             " MiB without @data; larger headers are not read");
        Cursor c{line, 0};
        if (c.atEnd())
            continue;
        const size_t start = c.pos;
        while (c.pos < line.size() && !endsWord(line[c.pos]))
            ++c.pos;
        const auto keyword = line.substr(start, c.pos - start);
        if (isKeyword(keyword, "@relation")) {
            if (relation)
                throw InputError(where + ": a second @relation");
            if (c.atEnd())
                throw InputError(where + ": @relation without a name");
            relation = true;  // the name is not used
        } else if (isKeyword(keyword, "@attribute")) {
            if (!relation)
                throw InputError(where + ": @attribute before @relation; an ARFF file opens with @relation NAME");
            if (attributes.size() == kMaxTabularColumns)
                throw InputError(where + ": more than " + std::to_string(kMaxTabularColumns) +
                                 " attributes; at most " + std::to_string(kMaxTabularColumns) + " are read");
            auto a = readAttribute(c, where, lines.number());
            const auto [first, fresh] = lineOf.emplace(a.name, a.line);
            if (!fresh)
                throw InputError(where + attributeLabel(a.name) + ": declared twice (first on line " +
                                 std::to_string(first->second) + ")");
            attributes.push_back(std::move(a));
        } else if (isKeyword(keyword, "@data")) {
            if (!relation)
                throw InputError(where + ": @data before @relation; an ARFF file opens with @relation NAME");
            if (!c.atEnd())
                throw InputError(where + ": " + shown(c.rest()) + " after @data; the rows start on the next line");
            data = true;
        } else {
            throw InputError(where + ": " + shown(line.substr(start)) +
                             " where the header expects @relation, @attribute or @data");
        }
    }
    if (!relation)
        throw InputError(source + ": empty; expected an ARFF header (@relation, @attribute lines, @data), then one "
                                  "row per instance");
    if (!data)
        throw InputError(source + ": no @data line after the header");
    if (attributes.empty())
        throw InputError(source + " line " + std::to_string(lines.number()) + ": @data, but no attribute is declared");
    return attributes;
}

/// The class: the attribute named, else the last one (Weka's default), checked as a
/// class (nominal, 2 to kMaxTabularClasses values of names kept whole) beside at least
/// one feature.
size_t classIndexOf(const std::vector<Attribute>& attributes, const std::string& classAttribute,
                    const std::string& source)
{
    size_t classAt = attributes.size() - 1;
    if (!classAttribute.empty()) {
        classAt = attributes.size();
        for (size_t i = 0; i < attributes.size(); ++i)
            if (attributes[i].name == classAttribute)
                classAt = i;
        if (classAt == attributes.size()) {
            std::vector<std::string> names;
            for (const auto& a : attributes)
                names.push_back(a.name);
            throw InputError(source + ": " + unknownNameMessage("attribute", classAttribute, names));
        }
    }
    const Attribute& classAttr = attributes[classAt];
    const std::string classWhere = source + " line " + std::to_string(classAttr.line) + attributeLabel(classAttr.name);
    if (attributes.size() < 2)
        throw InputError(source + ": declares no feature attribute beside the class " + shown(classAttr.name));
    if (!classAttr.nominal)
        throw InputError(classWhere + ": the class is numeric" +
                         (classAttribute.empty() ? " (the last attribute is the class unless another is named)" : "") +
                         "; regression is not supported, the class must be nominal ({a, b, ...})");
    if (classAttr.values.size() < 2)
        throw InputError(classWhere + ": the class declares 1 value; at least 2 classes are needed");
    if (classAttr.values.size() > kMaxTabularClasses)
        throw InputError(classWhere + ": the class declares " + std::to_string(classAttr.values.size()) +
                         " values; at most " + std::to_string(kMaxTabularClasses) + " classes");
    for (const auto& value : classAttr.values)
        if (utf8Length(value) > kMaxClassNameLength)
            throw InputError(classWhere + ": the class value " + quotedForMessage(value) + " has " +
                             std::to_string(utf8Length(value)) + " characters; at most " +
                             std::to_string(kMaxClassNameLength) + " (class names are kept whole, never cut)");
    return classAt;
}

/// What reading the rows needs from the header.
struct ArffSchema {
    const std::vector<Attribute>& attributes;
    size_t classAt = 0;
    std::vector<std::string> contexts;         ///< ` attribute "name"` of each attribute, for messages
    std::map<std::string, int64_t> classIndex; ///< the class's values, numbered as declared
    size_t width = 0;                          ///< features once encoded (nominal ones one-hot)
    bool categorical = false;                  ///< whether a feature is nominal

    ArffSchema(const std::vector<Attribute>& all, size_t classColumn) : attributes(all), classAt(classColumn)
    {
        for (const auto& a : attributes)
            contexts.push_back(attributeLabel(a.name));
        const auto& values = attributes[classAt].values;
        for (size_t k = 0; k < values.size(); ++k)
            classIndex[values[k]] = static_cast<int64_t>(k);
    }
    InputError tooMany(const std::string& source, size_t maxValues) const
    {
        return InputError(categorical ? source + ": its categories one-hot encoded make " + std::to_string(width) +
                                            " features, more than " + std::to_string(maxValues) + " numbers in all"
                                      : source + ": more than " + std::to_string(maxValues) + " numbers");
    }
    InputError undeclared(const std::string& where, size_t at, const std::string& value) const
    {
        return InputError(where + contexts[at] + ": " + shown(value) + " is not one of its declared values (" +
                          valueList(attributes[at].values) + ")");
    }
};

/// The rows, each checked as it is read and kept as cells: a column's missing-value
/// feature or level is known only once every row is.
struct ArffRows {
    std::vector<std::vector<std::string>> cells;  ///< each kept row's feature cells ("" where missing)
    std::vector<std::string> where;               ///< each kept row's "FILE line N"
    std::vector<int64_t> labels;                  ///< each kept row's class, -1 where unlabelled
    std::vector<size_t> missingInColumn;          ///< missing cells per feature, over every row read
    size_t read = 0;                              ///< rows read, those dropped for a missing value included
};

/// One dense row's values from the cursor into `cells` (its features, in order) and
/// `label` (-1: the class is missing); returns how many features were missing (each
/// counted in `missingInColumn`).
size_t readRowValues(Cursor& c, const std::string& where, const ArffSchema& schema, MissingValues missing,
                     std::vector<std::string>& cells, std::vector<size_t>& missingInColumn, int64_t& label)
{
    const size_t count = schema.attributes.size();
    const auto& contexts = schema.contexts;
    size_t n = 0, f = 0, missingHere = 0;
    for (;;) {
        c.skipBlanks();
        if (c.pos < c.line.size() && c.peek() == '{')
            throw InputError(where + ": a { after " + std::to_string(n) +
                             " values (an instance weight {w}, or a sparse row); only dense rows without weights "
                             "are read");
        if (n == count)
            throw InputError(where + ": more than " + std::to_string(count) + " values; the header declares " +
                             std::to_string(count) + " attributes");
        Value v = readValue(c, where, contexts[n]);
        if (v.text.empty() && !v.quoted) {
            if (!c.atEnd() && c.peek() != ',')
                throw InputError(where + contexts[n] + ": " + shown(c.rest()) + " is not a value");
            throw InputError(where + contexts[n] + ": an empty value (? marks a missing one)");
        }
        const Attribute& a = schema.attributes[n];
        if (n == schema.classAt) {
            if (!v.missing()) {
                const auto k = schema.classIndex.find(v.text);
                if (k == schema.classIndex.end())
                    throw schema.undeclared(where, n, v.text);
                label = k->second;
            }
        } else if (v.missing()) {
            if (missing == MissingValues::Refuse)
                throw InputError(where + contexts[n] +
                                 ": a missing value (?), refused by --missing refuse (impute fills it, drop leaves "
                                 "the row out)");
            ++missingHere;
            ++missingInColumn[f];
            cells[f++].clear();  // empty: a missing cell to the encoder, never a declared value
        } else {
            if (a.nominal) {
                if (!std::binary_search(a.sorted.begin(), a.sorted.end(), v.text))
                    throw schema.undeclared(where, n, v.text);
            } else {
                const auto x = parseFiniteNumber(v.text);
                if (!x || std::abs(*x) > 1e30)
                    throw InputError(where + contexts[n] + ": " + shown(v.text) +
                                     " is not a finite number (at most 1e30)");
            }
            cells[f++] = std::move(v.text);
        }
        ++n;
        if (c.atEnd())
            break;
        if (c.peek() != ',')
            throw InputError(where + contexts[n - 1] + ": expected a comma after its value, found " +
                             shown(c.rest()) + " (quote a value that holds blanks)");
        ++c.pos;
    }
    if (n != count)
        throw InputError(where + ": " + std::to_string(n) + " values, the header declares " + std::to_string(count) +
                         " attributes");
    return missingHere;
}

/// Every row after @data, within `maxValues` numbers; counts the missing cells and rows
/// into `out` and leaves out a row with one under MissingValues::Drop.
ArffRows readRows(Lines& lines, const std::string& source, const ArffSchema& schema, size_t maxValues,
                  MissingValues missing, TabularData& out)
{
    ArffRows rows;
    rows.missingInColumn.assign(out.columns.size(), 0);
    size_t cellCount = 0;
    std::string_view line;
    while (lines.next(line)) {
        Cursor c{line, 0};
        if (c.atEnd())
            continue;
        const std::string where = source + " line " + std::to_string(lines.number());
        if (c.peek() == '{')
            throw InputError(where + ": a sparse row ({index value, ...}); only dense rows are read (Weka's "
                                     "SparseToNonSparse filter writes them)");
        cellCount += schema.attributes.size();
        if (cellCount > maxValues)
            throw InputError(source + ": more than " + std::to_string(maxValues) + " numbers");
        if (schema.width > maxValues / (rows.read + 1))
            throw schema.tooMany(source, maxValues);
        int64_t label = -1;  // -1: unlabelled
        std::vector<std::string> cells(out.columns.size());
        const size_t missingHere = readRowValues(c, where, schema, missing, cells, rows.missingInColumn, label);
        out.missingCells += static_cast<int64_t>(missingHere);
        out.missingRows += missingHere > 0;
        ++rows.read;
        if (missingHere > 0 && missing == MissingValues::Drop)
            continue;
        rows.cells.push_back(std::move(cells));
        rows.where.push_back(where);
        rows.labels.push_back(label);
    }
    if (rows.cells.empty() && out.missingRows > 0)
        throw InputError(source + ": every one of its " + std::to_string(out.missingRows) +
                         " rows has a missing value, so --missing drop leaves none (use --missing impute)");
    return rows;
}

/// Imputed: a numeric attribute with a missing value gains its 0/1 feature, a nominal
/// one the level kMissingLevel; one missing in every row is refused.
void imputeMissing(TabularData& out, const ArffRows& rows, const std::string& source)
{
    for (size_t f = 0; f < out.columns.size(); ++f) {
        if (rows.missingInColumn[f] == 0)
            continue;
        auto& column = out.columns[f];
        if (rows.missingInColumn[f] == rows.read)
            throw InputError(source + attributeLabel(column.name) + ": missing (?) in every one of its " +
                             std::to_string(rows.read) + " rows (100%); there is nothing to impute from: remove the "
                             "attribute");
        if (column.categorical()) {
            column.levels.insert(
                std::lower_bound(column.levels.begin(), column.levels.end(), std::string(kMissingLevel)),
                kMissingLevel);
            if (column.levels.size() > kMaxCategoryLevels)
                throw InputError(source + attributeLabel(column.name) + ": more than " +
                                 std::to_string(kMaxCategoryLevels) + " values with the missing one");
        } else {
            column.missingIndicator = true;
        }
    }
    if (encodedWidth(out.columns) > kMaxTabularFeatures)
        throw InputError(source + ": its attributes encoded (nominal ones one-hot, a missing value's feature "
                                  "beside each numeric one that has any) make " +
                         std::to_string(encodedWidth(out.columns)) + " features; at most " +
                         std::to_string(kMaxTabularFeatures));
    out.featureNames = encodedFeatureNames(out.columns);
}

/// The kept rows encoded (checked when read, so this only encodes, exactly as the CSV
/// reader's rows are) into the labelled and unlabelled arrays; at least 2 classes must
/// be among the labels.
void encodeRows(TabularData& out, const ArffRows& rows, const Attribute& classAttr, const std::string& source)
{
    std::vector<double> labelledValues, unlabelledValues;
    std::vector<bool> used(classAttr.values.size(), false);
    for (size_t r = 0; r < rows.cells.size(); ++r) {
        appendEncodedRow(out.columns, rows.cells[r], rows.where[r],
                         rows.labels[r] < 0 ? unlabelledValues : labelledValues);
        if (rows.labels[r] >= 0) {
            out.labels.push_back(rows.labels[r]);
            used[static_cast<size_t>(rows.labels[r])] = true;
        }
    }
    const auto classes = std::count(used.begin(), used.end(), true);
    if (classes < 2)
        throw InputError(source + ": attribute \"" + classAttr.name.substr(0, 40) + "\" holds " +
                         std::to_string(classes) + " class(es) among its labelled rows; at least 2 are needed");
    const auto d = static_cast<int64_t>(out.featureNames.size());
    out.classNames = classAttr.values;
    out.labelName = classAttr.name;
    out.labelled.shape = {static_cast<int64_t>(out.labels.size()), d};
    out.labelled.values = std::move(labelledValues);
    out.unlabelled.shape = {static_cast<int64_t>(unlabelledValues.size()) / d, d};
    out.unlabelled.values = std::move(unlabelledValues);
}

} // namespace

TabularData parseArff(const std::string& text, const std::string& source, const std::string& classAttribute,
                      size_t maxValues, MissingValues missing)
{
    refuseInvalidUtf8(text, source);
    Lines lines(text);
    const std::vector<Attribute> attributes = readHeader(lines, source);
    ArffSchema schema(attributes, classIndexOf(attributes, classAttribute, source));

    TabularData out;
    out.source = source;
    out.missingValues = missing;
    for (size_t i = 0; i < attributes.size(); ++i)
        if (i != schema.classAt)
            out.columns.push_back(InputColumn{attributes[i].name, attributes[i].sorted});
    schema.width = encodedWidth(out.columns);
    if (schema.width > kMaxTabularFeatures)
        throw InputError(source + ": its attributes encoded (nominal ones one-hot) make " +
                         std::to_string(schema.width) + " features; at most " + std::to_string(kMaxTabularFeatures));
    out.featureNames = encodedFeatureNames(out.columns);
    schema.categorical = hasCategoricalColumn(out.columns);
    if (schema.width > maxValues)
        throw schema.tooMany(source, maxValues);

    const ArffRows rows = readRows(lines, source, schema, maxValues, missing, out);
    if (missing == MissingValues::Impute)
        imputeMissing(out, rows, source);
    if (encodedWidth(out.columns) * rows.cells.size() > maxValues)
        throw schema.tooMany(source, maxValues);
    encodeRows(out, rows, attributes[schema.classAt], source);
    return out;
}

TabularData readArff(const std::string& path, const std::string& classAttribute, size_t maxValues,
                     MissingValues missing)
{
    // As the CSV reader's cap (text takes at most ~25 bytes a number), and the header's.
    return parseArff(readFile(path, maxValues * 32 + kMaxArffHeaderBytes + 65536), path, classAttribute, maxValues,
                     missing);
}

} // namespace lcs
