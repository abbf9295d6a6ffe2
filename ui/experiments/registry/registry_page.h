#pragma once

#include "experiments/experiment_page.h"
#include "job_runner.h"

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
class RegistryExperimentPage : public ExperimentPage {
    Q_OBJECT
public:
    RegistryExperimentPage(const Experiment& experiment, CostMatrixModel* costs, CostEditor* costEditor,
                           QObject* parent = nullptr);
    ~RegistryExperimentPage() override;

    SettingsForm* form() const { return m_form; }
    JobRunner* runner() { return &m_runner; }

    QList<ExperimentEntry> experiments() const override;
    QWidget* settingsWidget() const override;
    QWidget* centralWidget() const override;
    QWidget* resultsWidget() const override;
    QString resultsTitle() const override;
    CostMatrix defaultCosts(const QString& experiment) const override;

    bool isBusy() const override { return m_runner.isBusy(); }
    void run() override { startJob(JobKind::Run); }
    bool canRecorrect() const override { return m_runner.hasCache(); }
    void recorrect() override { startJob(JobKind::Recorrect); }
    void updateControls(bool anyBusy) override;

    void writeSession(Session& session) const override;
    void readSession(const Session& session) override;

protected:
    void cancelJob() override { m_runner.cancel(); }
    bool recorrecting() const override { return m_currentJob == JobKind::Recorrect; }

private:
    void startJob(JobKind job);
    void showRows(const QString& csv);

    const Experiment& m_experiment;
    ExperimentJobRunner m_runner;
    JobKind m_currentJob = JobKind::Run;
    QWidget* m_settings = nullptr;
    SettingsForm* m_form = nullptr;
    QPushButton* m_runButton = nullptr;
    QPushButton* m_recorrectButton = nullptr;
    QPushButton* m_cancelButton = nullptr;
    QLabel* m_state = nullptr;
    QPlainTextEdit* m_central = nullptr;
    QTableWidget* m_rows = nullptr;
};

} // namespace lcs::ui
