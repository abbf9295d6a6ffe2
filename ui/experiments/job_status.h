#pragma once

#include <QElapsedTimer>
#include <QObject>

class QLabel;
class QProgressBar;
class QStatusBar;

namespace lcs::ui {

class ExperimentPage;
struct JobProgress;

/// The status bar's view of the pages' jobs: phase and progress text with an ETA, the
/// progress bar, and how long the last job took.
class JobStatus : public QObject {
    Q_OBJECT
public:
    /// Adds its label, timing label and progress bar to `bar`.
    explicit JobStatus(QStatusBar* bar);

    /// Shows `page`'s jobs.
    void watch(ExperimentPage* page);

private:
    void onStarted(const QString& name);
    void onProgress(const JobProgress& progress);
    void onEnded(const QString& status, bool complete);

    QProgressBar* m_progressBar = nullptr;
    QLabel* m_phaseLabel = nullptr;
    QLabel* m_timingLabel = nullptr;
    QElapsedTimer m_clock;
};

} // namespace lcs::ui
