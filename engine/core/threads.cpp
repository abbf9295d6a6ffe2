#include "core/threads.h"

#include <dlfcn.h>

#include <ATen/Parallel.h>

namespace lcs {

void configureThreads(int intraOpThreads)
{
    at::set_num_threads(intraOpThreads < 1 ? 1 : intraOpThreads);
    // libblas.so.3 is whichever implementation Debian's alternatives selected; only
    // OpenBLAS has this entry point, so look it up rather than link against it.
    using SetThreads = void (*)(int);
    if (auto* set = reinterpret_cast<SetThreads>(::dlsym(RTLD_DEFAULT, "openblas_set_num_threads")))
        set(1);
}

} // namespace lcs
