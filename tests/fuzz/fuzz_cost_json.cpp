// Cost matrices in JSON: only CostMatrixError may come out, and what is read writes
// back and reads back equal (every number round-trips).
#include "base/decision/cost_matrix.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, size_t size)
{
    lcs::CostMatrix m;
    try {
        m = lcs::costMatrixFromJson(fuzzText(data, size), "fuzz.json");
    } catch (const lcs::CostMatrixError&) {
        return 0;
    }
    const auto again = lcs::costMatrixFromJson(lcs::costMatrixToJson(m), "round trip");
    LCS_FUZZ_REQUIRE(again == m);
    return 0;
}
