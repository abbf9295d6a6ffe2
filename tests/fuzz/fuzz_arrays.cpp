// Arrays users bring (the correct command's features and predictive): .npy through
// xtensor behind LC Studio's checks, and numeric CSV tables. The first byte picks the
// reader. Only InputError may come out; an array read has as many finite values as its
// shape says, and writes and reads back the same.
#include <cmath>

#include "core/input_error.h"
#include "fuzz_support.h"
#include "io/npy.h"
#include "io/table_csv.h"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, size_t size)
{
    if (size < 1)
        return 0;
    const auto text = fuzzText(data + 1, size - 1);
    try {
        const auto array = data[0] % 2 == 0 ? lcs::parseNpy(text, "fuzz.npy", 1, 3, 1 << 16)
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
