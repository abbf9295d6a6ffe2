#pragma once

#include <optional>

#include <nlohmann/json.hpp>

#include "ui/experiment_panel.h"
#include "ui/experiments/experiment_page.h"
#include "ui/job_runner.h"

namespace lcs::ui {

/// A page whose Experiment dock is an ExperimentPanel: one settings form per experiment
/// it serves, derived from the registry's declarations. What every such page does the
/// same way lives here: the experiments it lists, the docks' widgets, the panel's
/// buttons, sessions (the panel's values and the matrix), the checks before a job, and
/// the page's one job runner with what every page does with it (the job's start, progress,
/// log, cancel, its ending said, a re-correction asked for meanwhile).
class PanelExperimentPage : public ExperimentPage {
    Q_OBJECT
public:
    /// `experiments`: the registry entries served, the first one shown.
    /// `names`, `adapter` and `experiment`: the page's JobRunner's.
    PanelExperimentPage(const QList<const Experiment*>& experiments, const ExperimentPanelOptions& options,
                        JobNames names, std::unique_ptr<ViewAdapter> adapter, const QString& experiment,
                        CostMatrixModel* costs, CostEditor* costEditor, QObject* parent = nullptr);

    ExperimentPanel* panel() const { return m_panel; }
    JobRunner* runner() { return &m_runner; }

    bool isBusy() const override { return m_runner.isBusy(); }
    void run() override { startJob(JobKind::Run); }
    void recorrect() override { startJob(JobKind::Recorrect); }

    QList<ExperimentEntry> experiments() const override;
    QWidget* settingsWidget() const override { return m_panel; }
    QWidget* centralWidget() const override { return m_central; }
    QWidget* resultsWidget() const override { return m_results; }
    void activate(const QString& experiment) override;
    void updateControls(bool anyBusy) override;
    void writeSession(Session& session) const override;
    void readSession(const Session& session) override;

protected:
    /// A job of the current experiment, its settings checked; refused (said why) or started.
    virtual void startJob(JobKind job) = 0;
    void cancelJob() override { m_runner.cancel(); }
    bool recorrecting() const override { return m_currentJob == JobKind::Recorrect; }
    /// A job ended: the status bar's line, the page's state, and the re-correction a cost
    /// edit asked for while it ran.
    void ended(const QString& status);
    /// True (and the log says that `what` waits) while a job runs.
    bool refusedWhileBusy(const QString& what);
    /// Cancelled and failed jobs said and ended; `dataName` and `dataHint` say, in a
    /// demo, which data were missing and how to give them.
    void connectJobEndings(const QString& dataName, const QString& dataHint);
    /// The page's views, created by the subclass (owned by the window's docks once placed).
    void setViews(QWidget* central, QWidget* results);
    /// The current experiment's settings for a job, checked; for a full run (`run`) the
    /// panel's checks too and the data remembered (not in a demo: a demo lets the worker
    /// refuse bad data, so that it exits 2 naming the path). Nothing when refused: the
    /// page has said why (errorRaised).
    std::optional<nlohmann::json> settingsForJob(bool run);

    JobRunner m_runner;
    JobKind m_currentJob = JobKind::Run;

private:
    QList<const Experiment*> m_served;
    ExperimentPanel* m_panel = nullptr;
    QWidget* m_central = nullptr;
    QWidget* m_results = nullptr;
    bool m_previewNext = false;  ///< the next run() is the Preview button's
};

} // namespace lcs::ui
