#pragma once

#include <string>
#include <string_view>
#include <vector>

/// The ARFF reader's syntax, shared by its two halves (arff_syntax.cpp reads the header,
/// arff.cpp the rows): a file's lines, a cursor over one line, a name or value as written,
/// the declared attributes. Internal to base/io: no caller outside the reader includes it.
namespace lcs::arff {

/// As in Weka's tokenizer, every control character and the space separate.
inline bool isBlank(char c)
{
    return static_cast<unsigned char>(c) <= ' ';
}

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

/// True when `word` is `lower` but for the case of ASCII letters (ARFF's keywords and
/// types are case-insensitive: iris.arff writes @ATTRIBUTE ... REAL).
bool isKeyword(std::string_view word, std::string_view lower);
/// The part of a message that follows the line: ` attribute "name"`.
std::string attributeLabel(const std::string& name);
/// The first 20 of a nominal attribute's values, as declared.
std::string valueList(const std::vector<std::string>& values);
/// The name or value at the cursor (quoted with ' or ", or up to the next blank, comma,
/// brace, quote or comment); InputError naming `where` and `context` when there is none.
Value readValue(Cursor& c, const std::string& where, const std::string& context);
/// Refuses text that is not UTF-8, naming `source` and the first bad byte's line.
void refuseInvalidUtf8(const std::string& text, const std::string& source);
/// The header's attributes in order, up to and including the @data line (InputError
/// naming the line and the attribute for everything the reader refuses there).
std::vector<Attribute> readHeader(Lines& lines, const std::string& source);

} // namespace lcs::arff
