#pragma once

#include <string>

/// Which kernels OpenBLAS's products run on. Debian 12's OpenBLAS (0.3.21, built for
/// every x86 CPU, choosing at load time) does not know CPUs newer than itself and falls
/// back to older kernels where the CPU has AVX-512: Haswell's (AVX2) on AMD Zen 5,
/// Prescott's (SSE3) on Intel Sapphire Rapids. Its sgemm then runs at a half to a
/// quarter of the CPU's rate (docs/benchmarks.md).
namespace lcs {

struct BlasKernels {
    bool openBlas = false;     ///< libblas.so.3 is OpenBLAS (else nothing is known or chosen)
    std::string kernels;       ///< the kernels products run on ("Cooperlake")
    std::string pickedByBlas;  ///< what OpenBLAS picked itself, where LC Studio chose others
    std::string userChoice;    ///< OPENBLAS_CORETYPE as the user set it, which is kept
};

/// Once per process, before its first product (configureThreads calls it): where the
/// user has not set OPENBLAS_CORETYPE, the CPU has AVX-512 (F, BW, DQ, VL) and OpenBLAS
/// picked kernels without it, re-initialises OpenBLAS's dispatch, through its own entry
/// points, with Cooperlake's kernels (SkylakeX's without AVX-512 BF16), and checks one
/// product against a plain loop; anything unexpected puts OpenBLAS's own choice back.
/// Sets OPENBLAS_CORETYPE to the choice, so that processes it starts load with it.
void chooseBlasKernels();

/// What chooseBlasKernels found and did.
BlasKernels blasKernels();

/// The kernel names OpenBLAS knows are built for the AVX-512 instructions.
bool isAvx512Kernels(const std::string& kernels);

} // namespace lcs
