// IDX files (MNIST-like), gzip-compressed or not: only InputError may come out, and what
// is read writes back to IDX bytes that read back equal.
#include "base/core/input_error.h"
#include "datasets/idx_reader.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, size_t size)
{
    lcs::IdxArray array;
    try {
        // A small cap keeps libFuzzer's memory limit out of the way of decompression bombs;
        // the cap's own check is what is exercised.
        array = lcs::parseIdx(lcs::gunzipIfCompressed(fuzzText(data, size), "fuzz.idx.gz", size_t{1} << 22,
                                                          size > 0 && data[size - 1] % 2 ? lcs::idxDeclaredSize : nullptr),
                              "fuzz.idx");
    } catch (const lcs::InputError&) {
        return 0;
    }
    std::string bytes{'\0', '\0', '\x08', static_cast<char>(array.shape.size())};
    for (const auto d : array.shape)
        for (int shift = 24; shift >= 0; shift -= 8)
            bytes.push_back(static_cast<char>((d >> shift) & 0xff));
    bytes.append(array.values.begin(), array.values.end());
    const auto again = lcs::parseIdx(bytes, "round trip");
    LCS_FUZZ_REQUIRE(again.shape == array.shape && again.values == array.values);
    return 0;
}
