#pragma once

/// The program's name and version, as every results file and sidecar records them.
namespace lcs {

const char* programName();     ///< "LC Studio"
const char* programVersion();  ///< the CMake project version, e.g. "0.1.0"

} // namespace lcs
