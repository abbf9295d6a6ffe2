// Arrays and tables users bring (the correct command's features and predictive, the
// tabular experiment's data): .npy through xtensor behind LC Studio's checks, numeric CSV
// tables, labelled CSV tables and label columns (correct --labels). The first byte picks
// the reader (mod 4). Only InputError may come out; an array read has as many finite values as its
// shape says, and writes and reads back the same.
#include <cmath>

#include "base/core/input_error.h"
#include "base/io/labels_file.h"
#include "base/io/npy.h"
#include "base/io/table_csv.h"
#include "base/io/tabular_csv.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, size_t size)
{
    if (size < 1)
        return 0;
    const auto text = fuzzText(data + 1, size - 1);
    if (data[0] % 4 == 3) {
        // Labels: exactly the rows asked for, each a class of the three.
        const int64_t rows = data[0] / 4 % 8 + 1;
        try {
            const auto labels = lcs::parseLabels(text, "fuzz.csv", 3, {"a", "b", "c"}, rows);
            LCS_FUZZ_REQUIRE(static_cast<int64_t>(labels.size()) == rows);
            for (auto k : labels)
                LCS_FUZZ_REQUIRE(k >= 0 && k < 3);
        } catch (const lcs::InputError&) {
        }
        return 0;
    }
    if (data[0] % 4 == 2) {
        // A user's table: rows split into labelled and unlabelled, labels within the classes.
        try {
            const auto missing = static_cast<lcs::MissingValues>((data[0] / 4) % 3);
            const auto t = lcs::parseTabularCsv(text, "fuzz.csv", "label", 1 << 16, missing);
            for (double v : t.labelled.values)  // NaN only where imputed, the fill fitted later
                LCS_FUZZ_REQUIRE(!std::isnan(v) || missing == lcs::MissingValues::Impute);
            const auto d = static_cast<int64_t>(t.featureNames.size());
            LCS_FUZZ_REQUIRE(d >= 1 && t.classNames.size() >= 2);
            LCS_FUZZ_REQUIRE(t.labelled.values.size() == t.labels.size() * static_cast<size_t>(d));
            LCS_FUZZ_REQUIRE(t.unlabelled.dim(0) >= 0 && t.unlabelled.dim(1) == d);
            for (auto k : t.labels)
                LCS_FUZZ_REQUIRE(k >= 0 && k < static_cast<int64_t>(t.classNames.size()));
        } catch (const lcs::InputError&) {
        }
        return 0;
    }
    try {
        const auto array = data[0] % 4 == 0 ? lcs::parseNpy(text, "fuzz.npy", 1, 3, 1 << 16)
                                            : lcs::parseNumericCsv(text, "fuzz.csv", 1 << 16).values;
        size_t count = 1;
        for (auto d : array.shape) {
            LCS_FUZZ_REQUIRE(d >= 0);
            count *= static_cast<size_t>(d);
        }
        LCS_FUZZ_REQUIRE(count == array.values.size());
        for (double v : array.values)
            LCS_FUZZ_REQUIRE(std::isfinite(v));
        if (!array.shape.empty()) {
            const auto back = lcs::parseNpy(lcs::npyBytes(array), "back.npy", array.shape.size(), array.shape.size(),
                                            1 << 16);
            LCS_FUZZ_REQUIRE(back.shape == array.shape && back.values == array.values);
        }
    } catch (const lcs::InputError&) {
    }
    return 0;
}
