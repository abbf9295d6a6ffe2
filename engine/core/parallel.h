#pragma once

#include <atomic>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "engine/core/job.h"

namespace lcs {

/// Runs fn(i) for i in [0, count) on up to `threads` threads, handing out indices in
/// order. The first exception (including Cancelled) stops the hand-out and is rethrown
/// after all workers have stopped; `cancel` is polled between items.
inline void parallelFor(size_t count, int threads, const std::function<void(size_t)>& fn,
                        const CancelToken* cancel = nullptr)
{
    std::atomic<size_t> next{0};
    std::atomic<bool> stop{false};
    std::exception_ptr failure;
    std::mutex mutex;
    auto worker = [&] {
        for (size_t i = next++; i < count && !stop; i = next++) {
            try {
                if (cancel)
                    cancel->throwIfCancelled();
                fn(i);
            } catch (...) {
                std::lock_guard<std::mutex> lock(mutex);
                if (!failure)
                    failure = std::current_exception();
                stop = true;
            }
        }
    };
    const size_t n = std::max<size_t>(1, std::min<size_t>(static_cast<size_t>(std::max(threads, 1)), count));
    if (n == 1) {
        worker();
    } else {
        std::vector<std::thread> pool;
        for (size_t t = 0; t < n; ++t)
            pool.emplace_back(worker);
        for (auto& th : pool)
            th.join();
    }
    if (failure)
        std::rethrow_exception(failure);
}

} // namespace lcs
