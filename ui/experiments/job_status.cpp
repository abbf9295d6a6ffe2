#include "ui/experiments/job_status.h"

#include <QLabel>
#include <QProgressBar>
#include <QStatusBar>

#include "engine/core/job.h"
#include "ui/experiments/experiment_page.h"

namespace lcs::ui {

JobStatus::JobStatus(QStatusBar* bar) : QObject(bar)
{
    m_progressBar = new QProgressBar(bar);
    m_progressBar->setRange(0, 1000);
    m_progressBar->setMaximumWidth(260);
    m_progressBar->setTextVisible(true);
    m_phaseLabel = new QLabel(tr("Ready"), bar);
    // Progress lines run long: they are cut rather than widening the window.
    m_phaseLabel->setMinimumWidth(1);
    m_timingLabel = new QLabel(bar);
    bar->addWidget(m_phaseLabel, 1);
    bar->addPermanentWidget(m_timingLabel);
    bar->addPermanentWidget(m_progressBar);
}

void JobStatus::watch(ExperimentPage* page)
{
    connect(page, &ExperimentPage::jobStarted, this, &JobStatus::onStarted);
    connect(page, &ExperimentPage::progress, this, &JobStatus::onProgress);
    connect(page, &ExperimentPage::jobEnded, this, &JobStatus::onEnded);
    connect(page, &ExperimentPage::timingChanged, m_timingLabel, &QLabel::setText);
}

void JobStatus::onStarted(const QString& name)
{
    m_clock.start();
    m_progressBar->setValue(0);
    m_phaseLabel->setText(tr("%1...").arg(name));
}

void JobStatus::onProgress(const JobProgress& p)
{
    m_progressBar->setValue(static_cast<int>(p.fraction * 1000));
    QString eta;
    const double elapsed = m_clock.elapsed() / 1000.0;
    if (const auto left = etaSeconds(elapsed, p.fraction))
        eta = tr(" · ETA %1 s").arg(*left, 0, 'f', 0);
    QStringList figures;
    for (const auto& [name, value] : p.figures)
        figures << QString("%1 %2").arg(name).arg(value, 0, 'g', 3);
    m_phaseLabel->setText(tr("%1 · %2 · step %3/%4%5%6")
                              .arg(p.phase, p.detail)
                              .arg(p.step)
                              .arg(p.total)
                              .arg(figures.isEmpty() ? QString() : " · " + figures.join(", "))
                              .arg(eta));
}

void JobStatus::onEnded(const QString& status, bool complete)
{
    m_phaseLabel->setText(status);
    if (complete)
        m_progressBar->setValue(m_progressBar->maximum());
}

} // namespace lcs::ui
