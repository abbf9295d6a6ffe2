#pragma once

namespace lcs {

/// The one place threads are configured, for every command, the window's job threads
/// and the benchmarks:
///  - LibTorch's intra-op threads (OpenMP in Debian's build: the setting is the calling
///    thread's, so a job thread calls this itself before its tensor work);
///  - one inter-op thread (LC Studio runs no graph executor; its own task parallelism
///    is explicit), set once per process;
///  - the BLAS library single-threaded when it is OpenBLAS: its own pool (which wakes for
///    larger products, such as a decision-region grid) spins in sched_yield while idle
///    and fought LibTorch's threads for the same cores (a third of a run in system time).
/// `intraOpThreads` < 1 means physicalCores().
void configureThreads(int intraOpThreads);

/// For commands that stream frames (CamVid's eval, fps and the window's CamVid jobs):
/// blocks of up to 32 MB (a frame's activations) stay in the heap between frames. Not
/// for every command: kept free space raised the distillation benchmark's peak memory
/// from 400 to 466 MB, while frames gained 10% (the 30-pass predictive) and a second of
/// system time per 20 s.
void keepFrameBuffers();

/// The machine's physical cores (hyper-threads counted once), at least 1.
int physicalCores();

/// The intra-op threads configured last (what configureThreads set).
int configuredThreads();

/// Within its scope, the calling thread's tensor work runs on `threads` intra-op threads
/// (its own setting under OpenMP); the configured count is restored after. For code that
/// splits the cores itself, such as distillation's teacher and student on a core each.
class ScopedIntraOpThreads {
public:
    explicit ScopedIntraOpThreads(int threads);
    ~ScopedIntraOpThreads();
    ScopedIntraOpThreads(const ScopedIntraOpThreads&) = delete;
    ScopedIntraOpThreads& operator=(const ScopedIntraOpThreads&) = delete;

private:
    int m_restore;
};

} // namespace lcs
