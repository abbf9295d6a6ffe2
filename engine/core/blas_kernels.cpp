#include "engine/core/blas_kernels.h"

#include <cpuid.h>
#include <dlfcn.h>

#include <cmath>
#include <cstdlib>
#include <mutex>
#include <vector>

#include <ATen/ATen.h>

namespace lcs {
namespace {

BlasKernels g_kernels;

using CoreName = char* (*)();
using DispatchCall = void (*)();

bool cpuHasAvx512Bf16()
{
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (!__get_cpuid_count(7, 1, &eax, &ebx, &ecx, &edx))
        return false;
    return (eax >> 5) & 1u;  // CPUID.(7,1):EAX bit 5, AVX512_BF16
}

bool cpuHasAvx512()
{
    // __builtin_cpu_supports also checks that the OS saves the AVX-512 registers.
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
}

/// One 48 x 40 x 56 product through BLAS against a plain loop in double.
bool productIsRight()
{
    const int64_t m = 48, k = 40, n = 56;
    auto a = at::empty({m, k}, at::kFloat), b = at::empty({k, n}, at::kFloat);
    float* pa = a.data_ptr<float>();
    float* pb = b.data_ptr<float>();
    for (int64_t i = 0; i < m * k; ++i)
        pa[i] = static_cast<float>((i * 7919 % 201) - 100) / 64.0f;
    for (int64_t i = 0; i < k * n; ++i)
        pb[i] = static_cast<float>((i * 104729 % 199) - 99) / 32.0f;
    const auto c = at::mm(a, b).contiguous();
    const float* pc = c.data_ptr<float>();
    for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
            double exact = 0;
            for (int64_t l = 0; l < k; ++l)
                exact += static_cast<double>(pa[i * k + l]) * pb[l * n + j];
            if (std::abs(pc[i * n + j] - exact) > 1e-3 * (1 + std::abs(exact)))
                return false;
        }
    return true;
}

} // namespace

bool isAvx512Kernels(const std::string& kernels)
{
    return kernels == "SkylakeX" || kernels == "Cooperlake" || kernels == "SapphireRapids";
}

void chooseBlasKernels()
{
    static std::once_flag once;
    std::call_once(once, [] {
        auto* coreName = reinterpret_cast<CoreName>(::dlsym(RTLD_DEFAULT, "openblas_get_corename"));
        if (!coreName)
            return;  // another BLAS: nothing to choose
        g_kernels.openBlas = true;
        g_kernels.kernels = coreName();
        if (const char* set = std::getenv("OPENBLAS_CORETYPE")) {
            g_kernels.userChoice = set;
            return;  // the user's choice holds
        }
        auto* quit = reinterpret_cast<DispatchCall>(::dlsym(RTLD_DEFAULT, "gotoblas_dynamic_quit"));
        auto* init = reinterpret_cast<DispatchCall>(::dlsym(RTLD_DEFAULT, "gotoblas_dynamic_init"));
        if (!quit || !init || !cpuHasAvx512() || isAvx512Kernels(g_kernels.kernels))
            return;
        const std::string picked = g_kernels.kernels;
        const char* wanted = cpuHasAvx512Bf16() ? "Cooperlake" : "SkylakeX";
        // OpenBLAS reads OPENBLAS_CORETYPE when its dispatch is initialised; quit clears
        // the choice so that init makes it again.
        ::setenv("OPENBLAS_CORETYPE", wanted, 1);
        quit();
        init();
        if (coreName() == std::string(wanted) && productIsRight()) {
            g_kernels.kernels = wanted;
            g_kernels.pickedByBlas = picked;
            return;
        }
        ::unsetenv("OPENBLAS_CORETYPE");
        quit();
        init();
        g_kernels.kernels = coreName();
    });
}

BlasKernels blasKernels()
{
    chooseBlasKernels();
    return g_kernels;
}

} // namespace lcs
