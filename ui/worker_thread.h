#pragma once

#include <chrono>
#include <exception>
#include <stdexcept>

#include <QString>
#include <QThread>

#include "base/core/input_error.h"
#include "engine/core/job.h"

/// What the window's job runner uses beside its worker: the worker thread's start and stop, the emit rate of live views, and the mapping of
/// a job's way of ending (done, cancelled, failed, no data) to plain data for a signal.
namespace lcs::ui {

using WorkerClock = std::chrono::steady_clock;

/// How often workers may send progress and plot snapshots: about 10 Hz, so drawing
/// never competes with training.
inline constexpr auto kEmitInterval = std::chrono::milliseconds(100);

inline double secondsSince(WorkerClock::time_point t)
{
    return std::chrono::duration<double>(WorkerClock::now() - t).count();
}


/// How a job ended.
struct JobEnding {
    bool cancelled = false;
    bool dataUnavailable = false;
    QString error;  ///< empty when it succeeded or was cancelled
    bool succeeded() const { return !cancelled && error.isEmpty(); }
};

/// Runs `body` and turns every way out of it into a JobEnding: nothing a job throws
/// reaches the event loop (or std::terminate).
template <class Body>
JobEnding runGuarded(Body&& body)
{
    JobEnding ending;
    try {
        body();
    } catch (const Cancelled&) {
        ending.cancelled = true;
    } catch (const DataError& e) {  // the data a job needs cannot be read (the screenshot mode exits 2)
        ending.dataUnavailable = true;
        ending.error = QString::fromStdString(e.what());
    } catch (const std::exception& e) {
        ending.error = QString::fromStdString(errorMessage(e));
    }
    return ending;
}

/// Starts `thread` (named for debuggers and profilers) and lowers the priority of the
/// code that `worker`, living on it, runs: jobs take every core, and the GUI thread must
/// stay first in line.
void startWorkerThread(QThread& thread, QObject* worker, const QString& name);

/// Cancels the running job and waits for the thread to finish.
void stopWorkerThread(QThread& thread, CancelToken& cancel);

} // namespace lcs::ui
