#pragma once

namespace lcs {

/// Sets the threads LibTorch may use inside one operation, and makes the BLAS library
/// single-threaded when it is OpenBLAS: LC Studio parallelises across tasks, and
/// OpenBLAS's own pool (which wakes for larger products, such as a decision-region
/// grid) spins in sched_yield while idle, which cost a third of a run in system time.
/// Call once at start-up, before any tensor work.
void configureThreads(int intraOpThreads);

} // namespace lcs
