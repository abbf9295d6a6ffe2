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
#include "base/io/arff_syntax.h"
#include "base/io/input_columns.h"

namespace lcs {

namespace {

using namespace arff;

const auto shown = quotedForMessage;

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
