#pragma once

#include <memory>

#include <QElapsedTimer>
#include <QHash>

#include "ui/experiments/experiment_page.h"
#include "ui/job_runner.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QSpinBox;
class QStackedWidget;
class QTabWidget;
class QWidget;

namespace lcs {
class Experiment;
}

namespace lcs::ui {

class CurveView;
class ReliabilityView;
class DecisionsView;
class CostBenefitView;
class SettingsForm;
class RegionView;
class ResultsTable;
class EvidencePanel;

/// The synthetic 2-D experiment (the paper's Table 2) and the same methods on a user's
/// table (the tabular experiment): inference methods, replicates and the correction's
/// settings in the Experiment dock (one form per experiment); decision regions over the
/// correction curves in the centre, following the task being trained (a table of other
/// than 2 features shows the curves alone); the paper's table in the results dock. The
/// posterior stays cached, so a cost edit re-runs only the correction; single
/// correction networks save and load as model files.
class SyntheticPage : public ExperimentPage {
    Q_OBJECT
public:
    SyntheticPage(CostMatrixModel* costs, CostEditor* costEditor, QObject* parent = nullptr);
    ~SyntheticPage() override;
    /// The page's job names and the views its runner passes on (tests build the same runner).
    static JobNames jobNames();
    static std::unique_ptr<ViewAdapter> viewAdapter();

    JobRunner* runner() { return &m_runner; }
    /// The settings the current experiment's form shows, checked (name -> value; throws
    /// InputError naming a setting it cannot parse).
    nlohmann::json settings() const;
    /// The current experiment's form.
    SettingsForm* form() const;
    /// File > Open Data: shows the tabular experiment's form with `path` as its table.
    void openTable(const QString& path);
    /// File > Open Predictive: the "correct" experiment's form takes the two files.
    void openPredictive(const QString& features, const QString& predictive);

    QList<ExperimentEntry> experiments() const override;
    QWidget* settingsWidget() const override { return m_panel; }
    QWidget* centralWidget() const override { return m_central; }
    QWidget* resultsWidget() const override;
    QString resultsTitle() const override;
    QString welcomeText() const override;
    void activate(const QString& experiment) override;
    CostMatrix defaultCosts(const QString& experiment) const override;
    std::optional<std::vector<std::string>> presetClassNames() const override;

    bool isBusy() const override { return m_runner.isBusy(); }
    void run() override { startJob(JobKind::Run); }
    /// A user's predictive has nothing to sample.
    bool canSample() const override;
    void sample() override { startJob(JobKind::Sample); }
    bool canRecorrect() const override { return hasOwnPosterior(); }
    void recorrect() override { startJob(JobKind::Recorrect); }

    QList<OpenAction> openActions() override;

    bool hasModels() const override { return true; }
    bool canSaveModel() const override { return hasOwnPosterior(); }
    void saveModel() override;
    bool exportModelTo(const QString& path) override;
    void openModel() override;

    void writeSession(Session& session) const override;
    void readSession(const Session& session) override;

protected:
    QList<QCustomPlot*> plots() const override;
    QString plotFileContext() const override;
    void cancelJob() override { m_runner.cancel(); }
    bool recorrecting() const override { return m_currentJob == JobKind::Recorrect; }

private:
    QWidget* buildPanel();
    QWidget* buildCentral();
    void connectRunner();
    void startJob(JobKind job);
    /// Sets file settings (name -> path) in `experiment`'s form, keeping its other values.
    void setFiles(const QString& experiment, const nlohmann::json& files);
    void onTaskUpdated(const TaskView& view);
    void showSelectedTask();
    void onJobEnded(JobKind job, const QString& status);
    void markStale();
    void resetResults(const nlohmann::json& settings);
    /// The evidence tab's title says when q is worse (in red).
    void showEvidenceTitle();
    /// The registry's entry of the current experiment.
    const Experiment& declared() const;
    /// A posterior is cached, and of the current experiment.
    bool hasOwnPosterior() const;
    QString taskKey(int replicate, const QString& method) const;
    QStringList decisionNames() const;

    JobRunner m_runner;
    JobKind m_currentJob = JobKind::Run;

    QWidget* m_panel = nullptr;
    QHash<QString, SettingsForm*> m_forms;  ///< by experiment
    QStackedWidget* m_formStack = nullptr;
    QLabel* m_posteriorState = nullptr;

    QWidget* m_central = nullptr;
    QComboBox* m_viewMethod = nullptr;
    QSpinBox* m_viewReplicate = nullptr;
    QCheckBox* m_followTraining = nullptr;
    RegionView* m_regions = nullptr;
    CurveView* m_curves = nullptr;
    ReliabilityView* m_reliability = nullptr;
    DecisionsView* m_decisions = nullptr;
    CostBenefitView* m_costBenefit = nullptr;
    ResultsTable* m_results = nullptr;
    QTabWidget* m_centralTabs = nullptr;  ///< the plots, and the held-out evidence
    EvidencePanel* m_evidence = nullptr;

    QHash<QString, TaskView> m_tasks;
    QString m_followedTask;
};

} // namespace lcs::ui
