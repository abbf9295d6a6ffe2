#pragma once

#include "ui/experiments/panel_experiment_page.h"
#include "ui/job_runner.h"

class QLabel;
class QPlainTextEdit;
class QPushButton;
class QTableWidget;

namespace lcs {
class Experiment;
}

namespace lcs::ui {

class SettingsForm;

/// The page of a registered experiment that has no page of its own: everything on it is
/// derived from the experiment's declaration. The Experiment dock holds its settings
/// form (SettingsForm) and Run / Re-correct / Cancel; the centre shows the results table
/// the run printed; the results dock its CSV rows. Runs go through ExperimentJobRunner,
/// so progress, cancel, re-correction after a cost edit and File > Export Results work
/// as on every other page.
class RegistryExperimentPage : public PanelExperimentPage {
    Q_OBJECT
public:
    RegistryExperimentPage(const Experiment& experiment, CostMatrixModel* costs, CostEditor* costEditor,
                           QObject* parent = nullptr);
    ~RegistryExperimentPage() override;

    SettingsForm* form() const;
    JobRunner* runner() { return &m_runner; }

    QString resultsTitle() const override;
    CostMatrix defaultCosts(const QString& experiment) const override;

    bool isBusy() const override { return m_runner.isBusy(); }
    void run() override { startJob(JobKind::Run); }
    bool canRecorrect() const override { return m_runner.hasCache(); }
    void recorrect() override { startJob(JobKind::Recorrect); }


protected:
    void cancelJob() override { m_runner.cancel(); }
    bool recorrecting() const override { return m_currentJob == JobKind::Recorrect; }

private:
    void startJob(JobKind job);
    void showRows(const QString& csv);

    const Experiment& m_experiment;
    ExperimentJobRunner m_runner;
    JobKind m_currentJob = JobKind::Run;
    QPlainTextEdit* m_central = nullptr;
    QTableWidget* m_rows = nullptr;
};

} // namespace lcs::ui
