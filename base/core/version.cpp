#include "base/core/version.h"

namespace lcs {

const char* programName()
{
    return "LC Studio";
}

const char* programVersion()
{
    return LCS_VERSION;  // the CMake project version, set on this target only
}

} // namespace lcs
