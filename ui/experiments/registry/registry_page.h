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
/// the run printed; the results dock its CSV rows. Runs go through JobRunner,
/// so progress, cancel, re-correction after a cost edit and File > Export Results work
/// as on every other page.
class RegistryExperimentPage : public PanelExperimentPage {
    Q_OBJECT
public:
    RegistryExperimentPage(const Experiment& experiment, CostMatrixModel* costs, CostEditor* costEditor,
                           QObject* parent = nullptr);
    ~RegistryExperimentPage() override;

    SettingsForm* form() const;

    QString resultsTitle() const override;
    CostMatrix defaultCosts(const QString& experiment) const override;

    bool canRecorrect() const override { return m_runner.hasCache(); }

protected:
    void startJob(JobKind job) override;

private:
    void showRows(const QString& csv);

    const Experiment& m_experiment;
    QPlainTextEdit* m_central = nullptr;
    QTableWidget* m_rows = nullptr;
};

} // namespace lcs::ui
