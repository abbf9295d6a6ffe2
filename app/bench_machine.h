#pragma once
// What the benches measure against: the machine's own sgemm peak, a busy neighbour
// process, the peak resident memory. Shared by every `lcstudio-cli bench`.
#include <sys/types.h>

#include <chrono>
#include <cstdint>

namespace cli {

double secondsSince(std::chrono::steady_clock::time_point t);

/// GFLOP/s of n x n sgemm products running on `cores` threads at once, each on one
/// core's worth of BLAS (OpenBLAS single-threaded), or of LC Studio's AVX-512 kernel
/// (`thin`), for about `seconds`.
double sgemmRate(int cores, int64_t n, double seconds, bool thin = false);

/// The sgemm peak of one core and of every core at once, and whether another process
/// held a core while it was measured.
struct SgemmPeak {
    int cores = 1;
    double oneCore = 0;    ///< GFLOP/s, the best of a few sizes
    double allCores = 0;   ///< GFLOP/s, that size on every core at once
    double othersBusy = 0; ///< CPUs other processes kept busy meanwhile
    bool thinKernel = false; ///< LC Studio's AVX-512 kernel beat the BLAS's products
    /// Another process held a core: measured from /proc/stat, not from the peaks' ratio,
    /// since cores that share their arithmetic units (hyper-threads, or a virtual
    /// machine's CPUs placed on them) give less than cores x one core's even when idle.
    bool shared() const { return othersBusy > 0.25; }
    /// The idle machine's: measured where nothing else ran, else cores x one core's.
    double idle() const { return shared() ? cores * oneCore : allCores; }
};

SgemmPeak sgemmPeak(int cores);

/// Prints the peak as every bench does and settles the one-core figure (taken as its
/// share of the cores' together where it measured below it).
void printSgemmPeak(SgemmPeak& peak);

/// A process that keeps one core busy until this object goes (or this process ends):
/// the neighbour of the shared-machine figures, as a user's other work would be.
class BusyNeighbour {
public:
    BusyNeighbour();
    ~BusyNeighbour();
    BusyNeighbour(const BusyNeighbour&) = delete;
    BusyNeighbour& operator=(const BusyNeighbour&) = delete;
    bool started() const { return m_pid > 0; }

private:
    pid_t m_pid = -1;
};

double peakRssMegabytes();

} // namespace cli
