#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

/// What every harness asserts besides "no crash, no sanitizer report, no exception other
/// than InputError": a value that was read must write and read back unchanged.
#define LCS_FUZZ_REQUIRE(condition)                                                      \
    do {                                                                                 \
        if (!(condition)) {                                                              \
            std::fprintf(stderr, "fuzz invariant failed: %s (%s:%d)\n", #condition,     \
                         __FILE__, __LINE__);                                            \
            std::abort();                                                                \
        }                                                                                \
    } while (0)

inline std::string fuzzText(const unsigned char* data, size_t size)
{
    return std::string(reinterpret_cast<const char*>(data), size);
}
