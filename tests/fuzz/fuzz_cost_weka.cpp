// Weka .cost files: only CostMatrixError may come out; what is read round-trips.
#include "base/decision/cost_matrix.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, size_t size)
{
    lcs::CostMatrix m;
    try {
        m = lcs::costMatrixFromWeka(fuzzText(data, size), "fuzz.cost");
    } catch (const lcs::CostMatrixError&) {
        return 0;
    }
    const auto again = lcs::costMatrixFromWeka(lcs::costMatrixToWeka(m), "round trip");
    LCS_FUZZ_REQUIRE(again == m);
    return 0;
}
