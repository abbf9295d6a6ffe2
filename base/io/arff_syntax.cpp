#include "base/io/arff_syntax.h"

#include <algorithm>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/core/input_error.h"
#include "base/core/number_format.h"
#include "base/core/utf8.h"
#include "base/io/arff.h"
#include "base/io/input_columns.h"

namespace lcs::arff {

namespace {

const auto shown = quotedForMessage;

/// What ends an unquoted name or value: a blank, a comma, a brace, a quote, a comment.
bool endsWord(char c)
{
    return isBlank(c) || std::string_view(",{}'\"%").find(c) != std::string_view::npos;
}

} // namespace

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

namespace {

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

} // namespace

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

} // namespace lcs::arff
