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
///
/// With ThreadLoad::Follow (the default) the count is a ceiling: the calling thread uses
/// as many of those threads as other processes leave cores free (measured over 0.1 s
/// here, then again by adaptThreadsToLoad), never fewer than 1. Intra-op threads that
/// wait for each other at every product collapse when another process holds one of
/// their cores (camvid train ran 6x slower beside one busy process; on the core left it
/// loses only that core's share). ThreadLoad::Ignore keeps the count as given (the
/// benchmarks' fixed configurations).
enum class ThreadLoad { Follow, Ignore };
void configureThreads(int intraOpThreads, ThreadLoad load = ThreadLoad::Follow);

/// For long jobs, between steps on the thread that called configureThreads: at most once
/// a second, measures the cores other processes kept busy since the last look and moves
/// the calling thread's intra-op threads within its ceiling. Does nothing inside a
/// parallel region, under ScopedIntraOpThreads, or after ThreadLoad::Ignore.
void adaptThreadsToLoad();

/// The threads a load-following thread uses: `ceiling`, less every physical core that
/// other processes keep more than a quarter busy (`othersBusy`: their CPU-seconds per
/// second, counted over `logicalCpus` logical CPUs on `physicalCores` cores), at least 1.
int threadsForLoad(int ceiling, double othersBusy, int physicalCores, int logicalCpus);

/// Other processes' CPU-seconds per second over the next `seconds` (from /proc/stat,
/// less this process's own time; steal counted as busy): how many CPUs they keep busy.
/// 0 where /proc is not readable.
double othersBusyCpus(double seconds);

/// For commands that stream frames (CamVid's eval, fps and the window's CamVid jobs):
/// blocks of up to 32 MB (a frame's activations) stay in the heap between frames. Not
/// for every command: kept free space raised the distillation benchmark's peak memory
/// from 400 to 466 MB, while frames gained 10% (the 30-pass predictive) and a second of
/// system time per 20 s.
void keepFrameBuffers();

/// The machine's physical cores (hyper-threads counted once), at least 1.
int physicalCores();

/// The intra-op threads configured last (what configureThreads set, the ceiling).
int configuredThreads();

/// Whether this LibTorch build has CUDA and a device to run it on here.
bool cudaAvailable();


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
    bool m_restoreFollow;
};

} // namespace lcs
