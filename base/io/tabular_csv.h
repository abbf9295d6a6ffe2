#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "base/io/input_columns.h"
#include "base/io/npy.h"

/// A user's own data set as one CSV table: a header line naming the columns, feature
/// columns (numbers, or text as categories, one-hot encoded), and a label column (chosen
/// by name) holding each row's class, or nothing for an unlabelled row. (A Weka ARFF file
/// reads into the same TabularData: io/arff.h.) Labelled rows are split into training and
/// test sets; unlabelled rows, where there are any, are the calibration set the
/// correction trains on (without them it trains on the training rows' inputs). Plain C++:
/// fuzzed.
namespace lcs {

constexpr size_t kMaxTabularClasses = 100;
/// A numeric label column with fractions and more distinct values than this is refused as
/// continuous (a regression target) rather than run as one class per value.
constexpr size_t kMaxContinuousLookingClasses = 10;
/// Columns of a header (CSV) or attributes (ARFF), checked before anything is built on
/// them, and features once categories are one-hot encoded: a network's size, and the
/// K-FAC Laplace approximation's (D + 1)^2 factors, grow with them.
constexpr size_t kMaxTabularColumns = 4096;
constexpr size_t kMaxTabularFeatures = 4096;
/// A class name is kept whole or refused, never cut: at most this many characters (a
/// saved model's sidecar holds class names of at most this length).
constexpr size_t kMaxClassNameLength = 100;
/// The most numbers a table may hold (features and labels): `tabular` and `check` read
/// tables with this cap.
constexpr size_t kMaxTableValues = size_t{64} << 20;
/// A CSV table's label column when none is named (an ARFF file's class is its last attribute).
constexpr const char* kDefaultLabelColumn = "label";

struct TabularData {
    std::string source;                     ///< the file, for messages and results
    std::string labelName;                  ///< the label column (CSV) or class attribute (ARFF)
    /// The header's columns other than the label, in order, each numeric or categorical.
    std::vector<InputColumn> columns;
    /// The network's features: the columns with each categorical one one-hot encoded
    /// (encodedFeatureNames).
    std::vector<std::string> featureNames;
    /// Class names in a stable order. From a CSV table by value when every label is a
    /// number (1 and 1.0 one class, named as first written), else by text; from an ARFF file the class attribute's declared values in
    /// their declared order, used or not (Weka's numbering). Class k is classNames[k].
    std::vector<std::string> classNames;
    NumericArray labelled;                  ///< [N, D]
    std::vector<int64_t> labels;            ///< [N], indices into classNames
    NumericArray unlabelled;                ///< [M, D]; M = 0 when every row is labelled
    /// What the reader did with missing cells (isMissingCell; ARFF: ?). Imputed, a missing
    /// number is NaN here until fillMissingValues fills it with the training rows' mean
    /// (fitMissingFill), which the tabular experiment does per replicate.
    MissingValues missingValues = MissingValues::Impute;
    int64_t missingCells = 0;   ///< feature cells missing (before any row was dropped)
    int64_t missingRows = 0;    ///< rows with one or more of them (dropped, with Drop)
    /// Rows whose label is a missing-value marker other than empty ("NA", "?"): unlabelled.
    int64_t missingLabels = 0;
    /// Numeric columns some of whose cells were written with thousands separators
    /// ("1,037", parseGroupedNumber): read as numbers, and said so (describeNumberFormats).
    std::vector<std::string> groupedNumberColumns;
};

/// Parses `text` (the contents of `source`). Throws InputError naming the file, line,
/// column and value: no header, no column `labelColumn`, a ragged row, a feature that is
/// not a finite number, a column mixing numbers and text, an empty category, fewer than 2
/// classes or more than kMaxTabularClasses, more than maxValues numbers.
TabularData parseTabularCsv(const std::string& text, const std::string& source, const std::string& labelColumn,
                            size_t maxValues, MissingValues missing);

/// Reads `path` as an ARFF file when its name ends in .arff (any case), else as a CSV
/// table. An empty `labelColumn` means the format's default: a CSV table's column
/// kDefaultLabelColumn, an ARFF file's last attribute.
TabularData readTable(const std::string& path, const std::string& labelColumn, size_t maxValues,
                      MissingValues missing);

/// "column income: numbers with thousands separators (\"1,037\") read as numbers": what
/// a run and `check` say of such columns; empty without any.
std::string describeNumberFormats(const TabularData& table);

/// "6 labelled and 2 unlabelled rows, 2 feature(s), classes a, b (column label)": what
/// `check` says of a table it read (class names shown up to 40 characters each).
std::string describeTable(const TabularData& table);

/// True when `path` ends in .arff, in any case.
bool isArffPath(const std::string& path);

/// Reads and parses `path` (size-capped to match maxValues).
TabularData readTabularCsv(const std::string& path, const std::string& labelColumn, size_t maxValues,
                           MissingValues missing);

/// "326 missing values in 56 rows: each number filled by the training rows' mean, with a
/// 0/1 "missing" feature beside it; a category's as its own level" (or "...rows left
/// out"); empty when the table had none.
std::string describeMissingValues(const TabularData& table);

} // namespace lcs
