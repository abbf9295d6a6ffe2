#include "app/bench_machine.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <thread>
#include <vector>

#include <torch/torch.h>

#include "engine/core/thin_gemm.h"
#include "engine/core/threads.h"

namespace cli {

double secondsSince(std::chrono::steady_clock::time_point t)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

/// GFLOP/s of n x n sgemm products running on `cores` threads at once, each on one
/// core's worth of BLAS (OpenBLAS single-threaded), or of LC Studio's AVX-512 kernel
/// (`thin`), for about `seconds`.
double sgemmRate(int cores, int64_t n, double seconds, bool thin)
{
    std::atomic<int64_t> products{0};
    std::vector<std::thread> threads;
    const auto start = std::chrono::steady_clock::now();
    for (int c = 0; c < cores; ++c)
        threads.emplace_back([&] {
            lcs::ScopedIntraOpThreads oneCore(1);
            torch::NoGradGuard noGrad;
            const auto a = torch::rand({n, n}), b = torch::rand({n, n});
            auto out = torch::empty({n, n});
            const auto product = [&] {
                if (!thin || !lcs::thinLinearForward(out.data_ptr<float>(), a.data_ptr<float>(), b.data_ptr<float>(),
                                                     nullptr, n, n, n))
                    at::mm_out(out, a, b);
            };
            product();  // warm: pages, caches
            int64_t done = 0;
            while (secondsSince(start) < seconds) {
                product();
                ++done;
            }
            products += done;
        });
    for (auto& t : threads)
        t.join();
    return static_cast<double>(products.load()) * 2.0 * n * n * n / secondsSince(start) / 1e9;
}

SgemmPeak sgemmPeak(int cores)
{
    SgemmPeak peak;
    peak.cores = cores;
    int64_t best = 256;
    // The BLAS's products, and where the CPU has AVX-512 LC Studio's own kernel (which
    // runs the minibatch products whatever kernels the BLAS was given): the faster is
    // the machine's peak.
    for (bool thin : {false, true}) {
        if (thin && !lcs::thinGemmAvailable())
            continue;
        for (int64_t n : {256, 512, 1024, 2048}) {
            const double rate = sgemmRate(1, n, 0.4, thin);
            if (rate > peak.oneCore) {
                peak.oneCore = rate;
                peak.thinKernel = thin;
                best = n;
            }
        }
    }
    // The others' load over the all-core measurement (this process's own time excluded).
    std::atomic<double> others{0};
    std::thread watch([&] { others = lcs::othersBusyCpus(0.9); });
    peak.allCores = sgemmRate(cores, best, 1.0, peak.thinKernel);
    watch.join();
    peak.othersBusy = others;
    return peak;
}

void printSgemmPeak(SgemmPeak& peak)
{
    const int cores = peak.cores;
    std::printf("sgemm peak: %.1f GFLOP/s on one core, %.1f on %d core(s) at once (%.2fx one core's), %s\n",
                peak.oneCore, peak.allCores, cores, peak.allCores / peak.oneCore,
                peak.thinKernel ? "LC Studio's AVX-512 kernel (faster here than the BLAS's)" : "the BLAS's products");
    if (peak.allCores > cores * peak.oneCore) {
        // More than cores x one core's: the one-core figure ran slow (a virtual machine's
        // core taken for a while), so one core's share of the all-core peak stands for it.
        peak.oneCore = peak.allCores / cores;
        std::printf("  one core measured below its share of the cores together: taken as %.1f GFLOP/s\n",
                    peak.oneCore);
    }
    if (peak.shared())
        std::printf("  another process is using a core (others kept %.2f CPUs busy meanwhile): the limit below is "
                    "against %d idle cores, %d x one core's peak = %.1f GFLOP/s\n",
                    peak.othersBusy, cores, cores, peak.idle());
    else if (cores > 1 && peak.allCores < 0.9 * cores * peak.oneCore)
        std::printf("  nothing else ran (others kept %.2f CPUs busy), so these cores share their arithmetic units "
                    "(hyper-threads, or a virtual machine's CPUs placed on them): the idle peak is the %d cores' "
                    "together\n",
                    peak.othersBusy, cores);
}

BusyNeighbour::BusyNeighbour()
{
    m_pid = ::fork();
    if (m_pid == 0) {
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlives the bench
        volatile unsigned long spin = 0;
        for (;;)
            spin = spin + 1;
    }
}

BusyNeighbour::~BusyNeighbour()
{
    if (m_pid > 0) {
        ::kill(m_pid, SIGKILL);
        ::waitpid(m_pid, nullptr, 0);
    }
}

double peakRssMegabytes()
{
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<double>(usage.ru_maxrss) / 1024.0;  // kB on Linux
}

} // namespace cli
