#include "core/threads.h"

#include <dlfcn.h>
#include <malloc.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <utility>

#include <ATen/Parallel.h>

namespace lcs {

namespace {

std::atomic<int> g_configured{0};

} // namespace

int physicalCores()
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
    return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

void configureThreads(int intraOpThreads)
{
    const int threads = intraOpThreads < 1 ? physicalCores() : intraOpThreads;
    static std::once_flag once;
    std::call_once(once, [] {
        try {
            at::set_num_interop_threads(1);
        } catch (const std::exception&) {
            // already started by earlier tensor work: it stays as it is
        }
    });
    at::set_num_threads(threads);
    // libblas.so.3 is whichever implementation Debian's alternatives selected; only
    // OpenBLAS has this entry point, so look it up rather than link against it.
    using SetThreads = void (*)(int);
    if (auto* set = reinterpret_cast<SetThreads>(::dlsym(RTLD_DEFAULT, "openblas_set_num_threads")))
        set(1);
    g_configured = threads;
}

int configuredThreads()
{
    return g_configured.load();
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

ScopedIntraOpThreads::ScopedIntraOpThreads(int threads) : m_restore(at::get_num_threads())
{
    at::set_num_threads(std::max(1, threads));
}

ScopedIntraOpThreads::~ScopedIntraOpThreads()
{
    at::set_num_threads(m_restore);
}

} // namespace lcs
