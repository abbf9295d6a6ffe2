#include "engine/core/threads.h"

#include <dlfcn.h>
#include <malloc.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <atomic>
#include <chrono>
#include <cmath>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <utility>

#include <ATen/Parallel.h>
#include <torch/cuda.h>

#include "engine/core/blas_kernels.h"

namespace lcs {

namespace {

std::atomic<int> g_configured{0};

/// The intra-op threads are the only parallelism: each product runs on the thread that
/// asks for it. OpenBLAS (pthreads build) otherwise starts a thread per core of its own
/// inside every product, so two threads that each run products (the distillation's
/// teacher and student, the bench's per-core peak) would run four on two cores, and a
/// "one core" measurement would take them all. libblas.so.3 is whichever implementation
/// Debian's alternatives selected; only OpenBLAS has these entry points, so look them up
/// rather than link against them. (An OpenMP build of OpenBLAS would follow
/// omp_get_max_threads() instead, which the intra-op count already sets.)
void keepBlasOnOneThread()
{
    using GetThreads = int (*)();
    using SetThreads = void (*)(int);
    static auto* get = reinterpret_cast<GetThreads>(::dlsym(RTLD_DEFAULT, "openblas_get_num_threads"));
    static auto* set = reinterpret_cast<SetThreads>(::dlsym(RTLD_DEFAULT, "openblas_set_num_threads"));
    static std::mutex changing;  // OpenBLAS resizes its pool in the call: one caller at a time
    if (!get || !set || get() == 1)
        return;
    std::lock_guard<std::mutex> lock(changing);
    if (get() != 1)
        set(1);
}

using Clock = std::chrono::steady_clock;

/// CPU time since boot: every CPU's busy seconds and this process's own.
struct CpuTimes {
    double busy = 0;  ///< user (guest included), nice (see readCpuTimes), system, irq, softirq, steal
    double own = 0;   ///< this process's user and system time, all its threads
    Clock::time_point at;
    bool valid = false;
};

CpuTimes readCpuTimes()
{
    CpuTimes t;
    t.at = Clock::now();
    std::ifstream stat("/proc/stat");
    std::string cpu;
    unsigned long long user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
    if (!(stat >> cpu >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal) || cpu != "cpu")
        return t;
    std::ifstream self("/proc/self/stat");
    std::string line;
    std::getline(self, line);
    // The command name, in parentheses, may hold spaces: count fields after the last ')'.
    const auto close = line.rfind(')');
    if (close == std::string::npos)
        return t;
    std::istringstream rest(line.substr(close + 1));
    std::string skipped;
    for (int field = 3; field < 14; ++field)  // state .. cmajflt; utime is field 14, stime 15
        rest >> skipped;
    unsigned long long utime = 0, stime = 0;
    if (!(rest >> utime >> stime))
        return t;
    const double tick = 1.0 / static_cast<double>(std::max(1L, ::sysconf(_SC_CLK_TCK)));
    // Processes running niced (the nice column) yield to this one unless it runs niced
    // itself: beside a niced neighbour the cores stay this process's. (This process's own
    // time, taken out below, is in the nice column when it runs niced.)
    errno = 0;
    const bool niced = ::getpriority(PRIO_PROCESS, 0) > 0 && errno == 0;
    t.busy = static_cast<double>(user + (niced ? nice : 0) + system + irq + softirq + steal) * tick;
    t.own = static_cast<double>(utime + stime) * tick;
    t.valid = true;
    return t;
}

double othersBusyBetween(const CpuTimes& a, const CpuTimes& b)
{
    const double wall = std::chrono::duration<double>(b.at - a.at).count();
    if (!a.valid || !b.valid || wall <= 0)
        return 0;
    return std::max(0.0, ((b.busy - a.busy) - (b.own - a.own)) / wall);
}

int logicalCpus()
{
    return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

int countPhysicalCores()
{
    // Linux lists each logical CPU's package and core; a (package, core) pair is one
    // physical core. Elsewhere (or unreadable): the logical count.
    std::set<std::pair<std::string, std::string>> cores;
    for (unsigned cpu = 0; cpu < 4096; ++cpu) {
        const std::string base = "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/";
        std::ifstream package(base + "physical_package_id"), core(base + "core_id");
        std::string p, c;
        if (!(package >> p) || !(core >> c))
            break;
        cores.emplace(p, c);
    }
    if (!cores.empty())
        return static_cast<int>(cores.size());
    return logicalCpus();
}

// The calling thread's load-following state (intra-op threads are per thread under OpenMP).
thread_local bool t_follow = false;
thread_local int t_ceiling = 1;
thread_local CpuTimes t_lastLook;

} // namespace

int physicalCores()
{
    static const int cores = countPhysicalCores();
    return cores;
}

int threadsForLoad(int ceiling, double othersBusy, int physical, int logical)
{
    ceiling = std::max(1, ceiling);
    physical = std::max(1, physical);
    // Their CPU-seconds per second over logical CPUs, in physical cores; a core counts as
    // taken when they keep more than a quarter of it busy.
    const double taken = std::max(0.0, othersBusy) * physical / std::max(1, logical);
    const int takenCores = std::max(0, static_cast<int>(std::ceil(taken - 0.25)));
    // Cores the ceiling leaves free anyway absorb the first of them.
    const int spare = std::max(0, physical - ceiling);
    return std::clamp(ceiling - std::max(0, takenCores - spare), 1, ceiling);
}

double othersBusyCpus(double seconds)
{
    const auto a = readCpuTimes();
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
    return othersBusyBetween(a, readCpuTimes());
}

void configureThreads(int intraOpThreads, ThreadLoad load)
{
    const int threads = intraOpThreads < 1 ? physicalCores() : intraOpThreads;
    static std::once_flag once;
    std::call_once(once, [] {
        chooseBlasKernels();  // before this process's first product
        try {
            at::set_num_interop_threads(1);
        } catch (const std::exception&) {
            // already started by earlier tensor work: it stays as it is
        }
    });
    t_ceiling = threads;
    t_follow = load == ThreadLoad::Follow && threads > 1;
    int now = threads;
    if (t_follow) {
        const auto before = readCpuTimes();
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        t_lastLook = readCpuTimes();
        now = threadsForLoad(threads, othersBusyBetween(before, t_lastLook), physicalCores(), logicalCpus());
    }
    at::set_num_threads(now);
    keepBlasOnOneThread();
    g_configured = threads;
}

int configuredThreads()
{
    return g_configured.load();
}

void adaptThreadsToLoad()
{
    if (!t_follow || at::in_parallel_region() || Clock::now() - t_lastLook.at < std::chrono::seconds(1))
        return;
    const auto now = readCpuTimes();
    const int threads = threadsForLoad(t_ceiling, othersBusyBetween(t_lastLook, now), physicalCores(), logicalCpus());
    t_lastLook = now;
    if (threads != at::get_num_threads())
        at::set_num_threads(threads);
}

void keepFrameBuffers()
{
    // glibc maps blocks above its threshold afresh and unmaps them when freed, and every
    // page of a fresh mapping faults on first touch: a quarter of CamVid inference's time
    // went to page faults. 32 MB is the highest threshold glibc accepts; freed space at
    // the heap's top above 256 MB is still given back.
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
}

ScopedIntraOpThreads::ScopedIntraOpThreads(int threads) : m_restore(at::get_num_threads()), m_restoreFollow(t_follow)
{
    t_follow = false;  // the scope's count holds
    at::set_num_threads(std::max(1, threads));
    keepBlasOnOneThread();  // also where configureThreads never ran (the bench's peaks, a library caller)
}

ScopedIntraOpThreads::~ScopedIntraOpThreads()
{
    at::set_num_threads(m_restore);
    t_follow = m_restoreFollow;
}

bool cudaAvailable()
{
    return torch::cuda::is_available();
}

} // namespace lcs
