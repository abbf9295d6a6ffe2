// Model sidecars: only InputError may come out, nothing large is allocated for a small
// input (the architecture must fit the recorded weights size), and what is read
// round-trips.
#include "base/core/input_error.h"
#include "base/io/model_info.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, size_t size)
{
    lcs::ModelInfo info;
    try {
        info = lcs::modelInfoFromJson(fuzzText(data, size), "fuzz.pt.json");
    } catch (const lcs::InputError&) {
        return 0;
    }
    LCS_FUZZ_REQUIRE(static_cast<uint64_t>(info.parameterCount()) * 4 <= info.weightsBytes);
    const auto again = lcs::modelInfoFromJson(lcs::modelInfoToJson(info), "round trip");
    LCS_FUZZ_REQUIRE(again.inputs == info.inputs && again.hidden == info.hidden && again.classes == info.classes);
    LCS_FUZZ_REQUIRE(again.seed == info.seed && again.replicate == info.replicate && again.role == info.role);
    LCS_FUZZ_REQUIRE(again.costs == info.costs && again.collapsed == info.collapsed);
    LCS_FUZZ_REQUIRE(again.weightsBytes == info.weightsBytes && again.weightsChecksum == info.weightsChecksum);
    return 0;
}
