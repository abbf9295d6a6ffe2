#pragma once

#include <cstddef>
#include <string>

#include "base/io/tabular_csv.h"

/// A user's own data set as a Weka ARFF file, read into the TabularData the CSV reader
/// makes, so the tabular experiment cannot tell the two apart. The header declares each
/// attribute's type: `numeric` (`real`, `integer`) attributes are numeric columns, nominal
/// ones (`{a, b, 'c d'}`) categorical columns over every declared value, used or not, so
/// `decide` later accepts a declared value the training rows happened to lack. One
/// attribute is the class (by default the last, as in Weka); rows whose class is `?` are
/// the unlabelled calibration set (Weka's example files have none: then the correction
/// trains on the training rows' inputs). Plain C++: fuzzed.
///
/// Class k is the class attribute's k-th declared value, not the CSV reader's sorted
/// order: Weka numbers a nominal class by declaration, so a Weka .cost file or confusion
/// matrix made for the same file lines up with classNames as it is, and a class no
/// labelled row uses keeps its number. A categorical column's levels are still sorted by
/// text, as InputColumn requires: `decide` looks a level up by binary search and a saved
/// network's sidecar refuses unsorted levels; the one-hot order changes nothing a network
/// can learn.
///
/// Refused, with an InputError naming the file, line, attribute and value: `string`,
/// `date` and `relational` attributes, a numeric class (regression is not supported),
/// sparse rows (`{0 x, 3 y}`) and instance weights, a value not declared for its
/// attribute, a feature that is not a finite number of magnitude at most 1e30. A missing
/// feature value (`?`) is read as `missing` says (io/input_columns.h): imputed, the row
/// left out, or refused.
namespace lcs {

/// Caps checked before anything is allocated for them. The header (everything before
/// @data) and the attributes it declares; a name or value is at most kMaxColumnTextLength
/// characters and a nominal attribute declares at most kMaxCategoryLevels values.
constexpr size_t kMaxArffHeaderBytes = size_t{16} << 20;

/// Parses `text` (the contents of `source`). `classAttribute` names the class attribute
/// exactly (a near miss is answered with "did you mean"); empty means the last attribute.
/// Besides the refusals above, as the CSV reader: fewer than 2 classes among the labelled
/// rows or more than kMaxTabularClasses declared, more than maxValues
/// numbers (attributes per row, or one-hot encoded features, times rows).
TabularData parseArff(const std::string& text, const std::string& source, const std::string& classAttribute,
                      size_t maxValues, MissingValues missing);

/// Reads and parses `path` (size-capped to match maxValues and the header cap).
TabularData readArff(const std::string& path, const std::string& classAttribute, size_t maxValues,
                     MissingValues missing);

} // namespace lcs
