// CIFAR-10 binary batches and batches.meta.txt: only InputError may come out; a batch
// that was read writes back to the same bytes.
#include "base/core/input_error.h"
#include "datasets/cifar_reader.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, size_t size)
{
    const auto text = fuzzText(data, size);
    try {
        const auto names = lcs::parseCifarClassNames(text, "batches.meta.txt");
        LCS_FUZZ_REQUIRE(names.size() == 10);
    } catch (const lcs::InputError&) {
    }
    lcs::CifarBatch batch;
    try {
        batch = lcs::parseCifarBatch(text, "fuzz.bin");
    } catch (const lcs::InputError&) {
        return 0;
    }
    std::string bytes;
    for (size_t i = 0; i < batch.size(); ++i) {
        bytes.push_back(static_cast<char>(batch.labels[i]));
        const auto* image = batch.pixels.data() + i * lcs::kCifarImageBytes;
        bytes.append(reinterpret_cast<const char*>(image), lcs::kCifarImageBytes);
    }
    LCS_FUZZ_REQUIRE(bytes == text);
    return 0;
}
