#pragma once

#include <atomic>
#include <stdexcept>

/// Cancellation, shared by every long operation: the engine's jobs and the sweep folders'
/// planning (a CancelToken set from another thread or a signal handler, polled between
/// steps).
namespace lcs {

/// Thrown by CancelToken::throwIfCancelled(); jobs let it propagate.
class Cancelled : public std::runtime_error {
public:
    Cancelled() : std::runtime_error("cancelled") {}
};

/// Set from any thread, polled by the job between steps.
class CancelToken {
public:
    void cancel() noexcept { m_cancelled.store(true, std::memory_order_relaxed); }
    void reset() noexcept { m_cancelled.store(false, std::memory_order_relaxed); }
    bool isCancelled() const noexcept { return m_cancelled.load(std::memory_order_relaxed); }
    void throwIfCancelled() const {
        if (isCancelled())
            throw Cancelled();
    }

private:
    std::atomic<bool> m_cancelled{false};
};

} // namespace lcs
