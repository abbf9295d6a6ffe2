#pragma once

#include <atomic>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

/// Plain job plumbing shared by every engine job: progress reports out, cancellation in.
/// Nothing here knows about threads or Qt; the UI layer adapts these to signals.
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

/// One progress report. Plain data so it may be copied across threads.
struct Progress {
    std::string phase;                     ///< e.g. "sghmc", "correction"
    std::string detail;                    ///< e.g. "replicate 3, bbvi"
    long long step = 0;
    long long total = 0;
    std::vector<std::pair<std::string, double>> scalars;  ///< e.g. {"loss", 0.12}
};

using ProgressSink = std::function<void(const Progress&)>;

/// What a job receives besides its config: where to report, and when to stop.
struct JobContext {
    ProgressSink progress;
    const CancelToken* cancel = nullptr;

    void report(const Progress& p) const {
        if (progress)
            progress(p);
    }
    void checkCancelled() const {
        if (cancel)
            cancel->throwIfCancelled();
    }
};

} // namespace lcs
