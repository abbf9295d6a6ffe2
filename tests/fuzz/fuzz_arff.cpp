// Weka ARFF tables (tabular --data FILE.arff). Only InputError may come out; what is
// accepted is a table the experiment can use: at least one feature, 2 to
// kMaxTabularClasses classes, rows of the encoded width, every value finite, every
// categorical column's levels sorted and distinct (as a saved network's sidecar requires)
// and each row's one-hot group summing to exactly 1.
#include <algorithm>
#include <cmath>

#include "base/core/input_error.h"
#include "base/io/arff.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

void requireRows(const lcs::TabularData& t, const std::vector<double>& values)
{
    const size_t d = t.featureNames.size();
    LCS_FUZZ_REQUIRE(values.size() % d == 0);
    for (size_t row = 0; row < values.size() / d; ++row) {
        size_t at = row * d;
        for (const auto& column : t.columns) {
            if (column.levels.empty()) {
                // A missing number is NaN with its 0/1 flag set, only in a column that imputes.
                if (column.missingIndicator) {
                    const bool missing = std::isnan(values[at]);
                    LCS_FUZZ_REQUIRE(t.missingValues == lcs::MissingValues::Impute);
                    LCS_FUZZ_REQUIRE(missing || (std::isfinite(values[at]) && std::abs(values[at]) <= 1e30));
                    LCS_FUZZ_REQUIRE(values[at + 1] == (missing ? 1.0 : 0.0));
                    at += 2;
                    continue;
                }
                LCS_FUZZ_REQUIRE(std::isfinite(values[at]) && std::abs(values[at]) <= 1e30);
                ++at;
                continue;
            }
            double sum = 0;
            for (size_t k = 0; k < column.levels.size(); ++k, ++at) {
                LCS_FUZZ_REQUIRE(values[at] == 0 || values[at] == 1);
                sum += values[at];
            }
            LCS_FUZZ_REQUIRE(sum == 1);
        }
        LCS_FUZZ_REQUIRE(at == (row + 1) * d);
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, size_t size)
{
    try {
        // The first byte picks what a missing value (?) does, so every policy meets every input.
        const auto missing = size == 0 ? lcs::MissingValues::Impute : static_cast<lcs::MissingValues>(data[0] % 3);
        const auto t = lcs::parseArff(fuzzText(data, size), "fuzz.arff", "", 1 << 16, missing);
        LCS_FUZZ_REQUIRE(missing != lcs::MissingValues::Refuse || t.missingCells == 0);
        LCS_FUZZ_REQUIRE(t.missingCells >= t.missingRows);
        const auto d = static_cast<int64_t>(t.featureNames.size());
        LCS_FUZZ_REQUIRE(d >= 1 && t.classNames.size() >= 2 && t.classNames.size() <= lcs::kMaxTabularClasses);
        LCS_FUZZ_REQUIRE(t.labelled.values.size() == t.labels.size() * static_cast<size_t>(d));
        LCS_FUZZ_REQUIRE(t.unlabelled.dim(0) >= 0 && t.unlabelled.dim(1) == d);
        for (auto k : t.labels)
            LCS_FUZZ_REQUIRE(k >= 0 && k < static_cast<int64_t>(t.classNames.size()));
        for (const auto& column : t.columns) {
            LCS_FUZZ_REQUIRE(!column.name.empty() && column.name.size() <= lcs::kMaxColumnTextLength);
            for (size_t k = 0; k < column.levels.size(); ++k) {
                LCS_FUZZ_REQUIRE(!column.levels[k].empty() && column.levels[k].size() <= lcs::kMaxColumnTextLength);
                LCS_FUZZ_REQUIRE(k == 0 || column.levels[k - 1] < column.levels[k]);
            }
        }
        requireRows(t, t.labelled.values);
        requireRows(t, t.unlabelled.values);
    } catch (const lcs::InputError&) {
    }
    return 0;
}
