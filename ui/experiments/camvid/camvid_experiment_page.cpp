#include "ui/experiments/camvid/camvid_experiment_page.h"

#include <QFileInfo>
#include <QUndoStack>

#include "ui/qcustomplot_compat.h"

#include "engine/experiments/camvid/camvid_experiment.h"

#include "base/core/input_error.h"
#include "engine/experiments/experiment.h"
#include "ui/cost_editor.h"
#include "ui/cost_matrix_model.h"
#include "ui/experiment_panel.h"
#include "ui/experiments/camvid/camvid_page.h"
#include "ui/experiments/camvid/camvid_views.h"
#include "ui/file_dialogs.h"
#include "ui/session.h"

namespace lcs::ui {

namespace {

ExperimentPanelOptions camvidPanelOptions()
{
    ExperimentPanelOptions options;
    options.name = QString::fromLatin1(kCamvidExperiment);
    options.dataKey = QStringLiteral("camvid/data");
    options.dataFallback = qEnvironmentVariable("LCS_CAMVID_DIR");
    options.note = QObject::tr("Networks: CW-SGD (the chain's start), SGHMC with the student S, and q on S trained "
                               "on the unlabelled training frames. Editing the 12x12 cost table after a run "
                               "re-trains only q.");
    return options;
}

} // namespace

CamvidExperimentPage::CamvidExperimentPage(CostMatrixModel* costs, CostEditor* costEditor, QObject* parent)
    : PanelExperimentPage({&experiment()}, camvidPanelOptions(), costs, costEditor, parent)
{
    m_page = new CamvidResultsPage;
    m_table = new CamvidIouTable;
    setViews(m_page, m_table);
    connectRunner();
}

CamvidExperimentPage::~CamvidExperimentPage() = default;

QString CamvidExperimentPage::resultsTitle() const
{
    return tr("Results (validation IoU, S vs q)");
}

CostMatrix CamvidExperimentPage::defaultCosts(const QString&) const
{
    // The paper's 12 x 12 table (void last; its row and column are dropped for decisions).
    return experiment().defaultCosts({});
}

std::optional<std::vector<std::string>> CamvidExperimentPage::presetClassNames() const
{
    std::vector<std::string> names;
    for (const auto& n : camvidClassNameList())
        names.push_back(n.toStdString());
    return names;
}

const Experiment& CamvidExperimentPage::experiment()
{
    return ExperimentRegistry::global().get(kCamvidExperiment);
}

std::optional<CostMatrix> CamvidExperimentPage::checkedCosts()
{
    CostMatrix matrix = costs()->matrix();
    try {
        matrix.validate();
        camvidDecisionCosts(matrix);  // 12 classes with void last, or 11; no referral column
    } catch (const std::exception& e) {
        Q_EMIT errorRaised(tr("Invalid cost matrix"), QString::fromStdString(e.what()));
        return std::nullopt;
    }
    return matrix;
}

void CamvidExperimentPage::saveModel()
{
    if (!canSaveModel())
        return;
    const QString dir = askFolder(m_page, tr("Save the CamVid networks to (a new or empty folder)"),
                                  QStringLiteral("camvidModelDir"));
    if (!dir.isEmpty())
        saveModelTo(dir);
}

void CamvidExperimentPage::saveModelTo(const QString& dir)
{
    if (!m_runner.saveModels(dir))
        Q_EMIT logLine(m_runner.isBusy() ? tr("Busy: save the networks when the job has finished")
                                         : tr("No CamVid networks to save: run it first"));
}

void CamvidExperimentPage::openModel()
{
    if (m_runner.isBusy()) {
        Q_EMIT logLine(tr("Busy: open the model when the job has finished"));
        return;
    }
    const QString manifest = askOpenPath(m_page, tr("Open a CamVid model folder (its camvid.json)"),
                                         QStringLiteral("camvidModelDir"),
                                         tr("CamVid model folder (camvid.json);;All files (*)"));
    if (!manifest.isEmpty())
        openModelFrom(manifest);
}

void CamvidExperimentPage::openModelFrom(const QString& path)
{
    if (m_runner.isBusy()) {
        Q_EMIT logLine(tr("Busy: open the model when the job has finished"));
        return;
    }
    const QFileInfo info(path);
    const QString dir = info.isDir() ? info.absoluteFilePath() : info.absolutePath();
    noteWindowInput(tr("the opened CamVid model folder"), dir, true);  // no output of the window replaces it
    const auto matrix = checkedCosts();
    if (!matrix)
        return;
    const auto settings = settingsForJob(false);
    if (!settings)
        return;
    m_openedFolder = dir;
    m_runner.openModels(dir, *settings, *matrix);
}

void CamvidExperimentPage::startJob(CamvidJobRunner::Job job)
{
    if (m_runner.isBusy())
        return;
    const auto checked = checkedCosts();
    if (!checked)
        return;
    const CostMatrix matrix = *checked;
    const auto settings = settingsForJob(job == CamvidJobRunner::Job::Run);
    if (!settings)
        return;
    if (job == CamvidJobRunner::Job::Recorrect) {
        if (!m_runner.hasCache()) {
            Q_EMIT logLine(tr("No cached S for CamVid: run it first."));
            return;
        }
        m_page->startRecorrection();
    }
    // (A run's views clear when the worker has checked the data, trainingStarted: a bad
    // folder leaves the last run on screen.)
    m_runner.start(job, *settings, matrix);
}

void CamvidExperimentPage::connectRunner()
{
    auto& r = m_runner;
    connect(&r, &CamvidJobRunner::started, this, [this](CamvidJobRunner::Job job) {
        m_currentJob = job;
        m_runCosts = costs()->matrix();
        Q_EMIT jobStarted(m_runner.jobName(job));
    });
    connect(&r, &CamvidJobRunner::trainingStarted, this, [this] {
        m_page->startRun();
        m_table->clearRows();
        panel()->setState(tr("Training..."));
        Q_EMIT stateChanged();
    });
    connect(&r, &CamvidJobRunner::progress, this, &CamvidExperimentPage::progress);
    connect(&r, &CamvidJobRunner::logMessage, this, &CamvidExperimentPage::logLine);
    connect(&r, &CamvidJobRunner::epochPoints, m_page, &CamvidResultsPage::addEpochPoints);
    connect(&r, &CamvidJobRunner::evaluationStarted, m_page, &CamvidResultsPage::startEvaluation);
    connect(&r, &CamvidJobRunner::frames, m_page, &CamvidResultsPage::addFrames);
    connect(&r, &CamvidJobRunner::preview, m_page, &CamvidResultsPage::setPreview);
    connect(&r, &CamvidJobRunner::comparison, m_page, &CamvidResultsPage::setComparison);
    connect(&r, &CamvidJobRunner::comparison, m_table, &CamvidIouTable::setComparison);
    connect(&r, &CamvidJobRunner::framesPerSecond, m_page, &CamvidResultsPage::setFps);
    connect(&r, &CamvidJobRunner::cacheReady, this, [this](const QString& description, const CostMatrix&) {
        panel()->setState(description);
        // Edited while the run trained: re-correct for the edit once the run is done.
        if (isActive() && !(costs()->matrix() == m_runCosts))
            setRecorrectionPending();
        Q_EMIT stateChanged();
    });
    connect(&r, &CamvidJobRunner::modelEvaluationStarted, this, [this](const QString& dir, const QString&) {
        // The views show the opened folder's evaluation, not the cached run's.
        m_page->startRun();
        m_table->clearRows();
        Q_EMIT logLine(tr("Evaluating %1 on the validation frames ...").arg(dir));
    });
    connect(&r, &CamvidJobRunner::modelsSaved, this,
            [this](const QString& dir, const QStringList& files, const QString& error) {
                if (!error.isEmpty())
                    Q_EMIT errorRaised(tr("Export Model"), tr("Nothing was written to %1:\n%2").arg(dir, error));
                else
                    Q_EMIT logLine(tr("Saved the CamVid model folder %1: %2").arg(dir, files.join(QStringLiteral(", "))));
            });
    connect(&r, &CamvidJobRunner::finished, this,
            [this](CamvidJobRunner::Job job, double seconds, const QString& json, const QString& csv) {
        if (!json.isEmpty())
            setResults(json, csv,
                       job == CamvidJobRunner::kOpenModel ? QFileInfo(m_openedFolder).fileName() + QStringLiteral("_evaluation")
                                                          : QString::fromLatin1(kCamvidExperiment));
        if (job == CamvidJobRunner::Job::Recorrect) {
            setLastRecorrectionSeconds(seconds);
            Q_EMIT timingChanged(tr("re-correction on the cached S: %1 s (q, then the validation frames)")
                                     .arg(seconds, 0, 'f', 2));
        } else {
            Q_EMIT timingChanged(tr("%1: %2 s").arg(m_runner.jobName(job)).arg(seconds, 0, 'f', 1));
        }
        ended(tr("%1 finished in %2 s").arg(m_runner.jobName(job)).arg(seconds, 0, 'f', 2));
        if (job == CamvidJobRunner::Job::Run && demoMode())
            Q_EMIT demoDone();
    });
    connect(&r, &CamvidJobRunner::cancelled, this, [this](CamvidJobRunner::Job job) {
        if (job == CamvidJobRunner::Job::Run && !m_runner.hasCache())
            panel()->setState(tr("Training cancelled: nothing cached."));
        ended(tr("%1 cancelled").arg(m_runner.jobName(job)));
        reportDemoCancelled();
    });
    connect(&r, &CamvidJobRunner::failed, this, [this](CamvidJobRunner::Job job, const QString& message, bool noData) {
        ended(tr("%1 failed").arg(m_runner.jobName(job)));
        if (!demoMode())
            Q_EMIT errorRaised(job == CamvidJobRunner::kOpenModel ? tr("Open Model") : tr("Job failed"), message);
        reportDemoFailure(tr("CamVid"),
                          tr("pass --data DIR (a folder with train/, trainannot/, val/, valannot/) or set LCS_CAMVID_DIR"),
                          message, noData);
    });
}

void CamvidExperimentPage::ended(const QString& status)
{
    Q_EMIT jobEnded(status, true);
    Q_EMIT stateChanged();
    if (isActive() && m_runner.hasCache() && takePendingRecorrection())
        startJob(CamvidJobRunner::Job::Recorrect);
}

QList<QCustomPlot*> CamvidExperimentPage::plots() const
{
    return m_page->plots();
}

QStringList CamvidExperimentPage::exportPlots(const QString& dir, int& written) const
{
    QStringList errors;
    auto* viewer = m_page->viewer();
    exportPaintedView([viewer](QPainter& p) { viewer->paintPanels(p); }, viewer->panelsSize(), viewer->objectName(),
                      dir, written, errors);
    return errors + ExperimentPage::exportPlots(dir, written);
}

} // namespace lcs::ui
