// Session files: only InputError may come out; a session that was read writes and
// reads back with the same settings, cost matrix and data paths.
#include "core/input_error.h"
#include "fuzz_support.h"
#include "io/session_file.h"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, size_t size)
{
    lcs::SessionData s;
    try {
        s = lcs::sessionFromJson(fuzzText(data, size), "fuzz.lcsession");
    } catch (const lcs::InputError&) {
        return 0;
    }
    const auto again = lcs::sessionFromJson(lcs::sessionToJson(s), "round trip");
    LCS_FUZZ_REQUIRE(again.experiment == s.experiment);
    LCS_FUZZ_REQUIRE(again.settings == s.settings);
    LCS_FUZZ_REQUIRE(again.costs == s.costs);
    LCS_FUZZ_REQUIRE(again.dataPaths == s.dataPaths);
    return 0;
}
