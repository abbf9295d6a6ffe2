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

/// The machine's physical cores (hyper-threads counted once), at least 1.
int physicalCores();

/// The intra-op threads configured last (what configureThreads set).
int configuredThreads();

} // namespace lcs
