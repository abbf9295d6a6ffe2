#include "ui/experiments/panel_experiment_page.h"

#include <QUndoStack>

#include "base/core/input_error.h"
#include "engine/experiments/experiment.h"
#include "ui/cost_editor.h"
#include "ui/cost_matrix_model.h"
#include "ui/file_dialogs.h"

namespace lcs::ui {

PanelExperimentPage::PanelExperimentPage(const QList<const Experiment*>& experiments,
                                         const ExperimentPanelOptions& options, JobNames names,
                                         std::unique_ptr<ViewAdapter> adapter, const QString& experiment,
                                         CostMatrixModel* costs, CostEditor* costEditor, QObject* parent)
    : ExperimentPage(costs, costEditor, parent), m_runner(std::move(names), std::move(adapter), experiment),
      m_served(experiments)
{
    connect(&m_runner, &JobRunner::started, this, [this](JobKind job) {
        m_currentJob = job;
        Q_EMIT jobStarted(m_runner.jobName(job));
    });
    connect(&m_runner, &JobRunner::progress, this, &PanelExperimentPage::progress);
    connect(&m_runner, &JobRunner::logMessage, this, &PanelExperimentPage::logLine);
    m_panel = new ExperimentPanel(experiments, options);
    connect(m_panel, &ExperimentPanel::runRequested, this, [this] { run(); });
    connect(m_panel, &ExperimentPanel::previewRequested, this, [this] {
        m_previewNext = true;
        run();
        m_previewNext = false;
    });
    connect(m_panel, &ExperimentPanel::recorrectRequested, this, [this] { recorrect(); });
    connect(m_panel, &ExperimentPanel::cancelRequested, this, &PanelExperimentPage::cancel);
}

void PanelExperimentPage::ended(const QString& status)
{
    Q_EMIT jobEnded(status, true);
    Q_EMIT stateChanged();
    if (isActive() && canRecorrect() && takePendingRecorrection())
        startJob(JobKind::Recorrect);
}

bool PanelExperimentPage::refusedWhileBusy(const QString& what)
{
    if (!m_runner.isBusy())
        return false;
    Q_EMIT logLine(tr("Busy: %1 when the job has finished").arg(what));
    return true;
}

void PanelExperimentPage::connectJobEndings(const QString& dataName, const QString& dataHint)
{
    connect(&m_runner, &JobRunner::cancelled, this, [this](JobKind job) {
        ended(tr("%1 cancelled").arg(m_runner.jobName(job)));
        reportDemoCancelled();
    });
    connect(&m_runner, &JobRunner::failed, this,
            [this, dataName, dataHint](JobKind job, const QString& message, bool noData) {
                ended(tr("%1 failed").arg(m_runner.jobName(job)));
                if (!demoMode())
                    Q_EMIT errorRaised(job == JobRunner::kOpenModel ? tr("Open Model") : tr("Job failed"), message);
                reportDemoFailure(dataName, dataHint, message, noData);
            });
}

QList<ExperimentEntry> PanelExperimentPage::experiments() const
{
    QList<ExperimentEntry> out;
    for (const auto* experiment : m_served)
        out << ExperimentEntry::of(*experiment);
    return out;
}

void PanelExperimentPage::activate(const QString& experiment)
{
    ExperimentPage::activate(experiment);
    m_panel->setExperiment(experiment);
}

void PanelExperimentPage::updateControls(bool anyBusy)
{
    m_panel->setBusy(anyBusy, canRecorrect());
}

void PanelExperimentPage::writeSession(Session& session) const
{
    session.settings = m_panel->values();
}

void PanelExperimentPage::readSession(const Session& session)
{
    m_panel->applySettings(session.settings);
    costs()->undoStack()->clear();
    setCostsQuietly(session.costs);  // a new setting, not an edit of a cached run's costs
    costEditor()->setExpectedClasses(session.costs.numClasses());
}

void PanelExperimentPage::setViews(QWidget* central, QWidget* results)
{
    m_central = central;
    m_results = results;
}

std::optional<nlohmann::json> PanelExperimentPage::settingsForJob(bool run)
{
    if (run) {
        const QString error = m_panel->validate(!demoMode());
        if (!error.isEmpty()) {
            Q_EMIT errorRaised(tr("Cannot run"), error);
            return std::nullopt;
        }
        if (!demoMode())  // a demo's data is not the user's choice
            m_panel->rememberData();
    }
    try {
        auto settings = m_panel->settings();
        // Preview: the form's run on a fraction of its data (a fraction the form already
        // gives is kept).
        if (run && m_previewNext && settings.value(kPreviewSetting, nlohmann::json()).is_null())
            settings[kPreviewSetting] = kQuickPreviewFraction;
        if (const auto* experiment = ExperimentRegistry::global().find(m_panel->experiment().toStdString()))
            for (const auto& input : experiment->inputPaths(settings))
                noteWindowInput(tr("the data"), QString::fromStdString(input.path), true);
        return settings;
    } catch (const InputError& e) {
        Q_EMIT errorRaised(tr("Cannot run"), QString::fromStdString(e.what()));
        return std::nullopt;
    }
}

} // namespace lcs::ui
