#include "ui/worker_thread.h"

#include <QMetaObject>

#ifdef __linux__
#include <sys/resource.h>
#endif

namespace lcs::ui {

void startWorkerThread(QThread& thread, QObject* worker, const QString& name)
{
    thread.setObjectName(name);
    thread.start();
    QMetaObject::invokeMethod(worker, [] {
#ifdef __linux__
        // On Linux the nice value is per thread, and who = 0 means the calling thread;
        // the engine's worker threads, started from this one, inherit it.
        ::setpriority(PRIO_PROCESS, 0, 5);
#endif
    });
}

void stopWorkerThread(QThread& thread, CancelToken& cancel)
{
    cancel.cancel();
    thread.quit();
    thread.wait();
}

} // namespace lcs::ui
