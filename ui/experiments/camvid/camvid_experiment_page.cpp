#include "ui/experiments/camvid/camvid_experiment_page.h"

#include <QFileInfo>
#include <QUndoStack>

#include "ui/qcustomplot_compat.h"

#include "engine/experiments/camvid/camvid_experiment.h"

#include "base/core/input_error.h"
#include "engine/experiments/experiment.h"
#include "ui/cost_editor.h"
#include "ui/experiments/camvid/camvid_conversion.h"
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
    : PanelExperimentPage({&experiment()}, camvidPanelOptions(),
                          JobNames{tr("CamVid training"), tr("CamVid re-correction"), tr("Sampling"),
                                   tr("CamVid model evaluation")},
                          std::make_unique<CamvidViewAdapter>(), QString::fromLatin1(kCamvidExperiment), costs,
                          costEditor, parent)
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
    if (!refusedWhileBusy(tr("save the networks")) && !m_runner.saveModels(dir))
        Q_EMIT logLine(tr("No CamVid networks to save: run it first"));
}

void CamvidExperimentPage::openModel()
{
    if (refusedWhileBusy(tr("open the model")))
        return;
    const QString manifest = askOpenPath(m_page, tr("Open a CamVid model folder (its camvid.json)"),
                                         QStringLiteral("camvidModelDir"),
                                         tr("CamVid model folder (camvid.json);;All files (*)"));
    if (!manifest.isEmpty())
        openModelFrom(manifest);
}

void CamvidExperimentPage::openModelFrom(const QString& path)
{
    if (refusedWhileBusy(tr("open the model")))
        return;
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
    // The experiment's declared action, under the thread policy of every run.
    auto asked = *settings;
    asked[kSavedModelSetting] = dir.toStdString();
    m_runner.start(JobRunner::kOpenModel, asked, *matrix);
}

void CamvidExperimentPage::startJob(JobKind job)
{
    if (m_runner.isBusy())
        return;
    const auto checked = checkedCosts();
    if (!checked)
        return;
    const CostMatrix matrix = *checked;
    const auto settings = settingsForJob(job == JobKind::Run);
    if (!settings)
        return;
    if (job == JobKind::Recorrect) {
        if (!m_runner.hasCache()) {
            Q_EMIT logLine(tr("No cached S for CamVid: run it first."));
            return;
        }
        m_page->startRecorrection();
    }
    // (A run's views clear when the run has checked the data, CamvidStage::Training: a bad
    // folder leaves the last run on screen.)
    m_runner.start(job, *settings, matrix);
}

void CamvidExperimentPage::connectRunner()
{
    auto& r = m_runner;
    connect(&r, &JobRunner::started, this, [this] { m_runCosts = costs()->matrix(); });
    onView<CamvidStage>(&r, this, [this](const CamvidStage& stage) {
        if (stage.kind == CamvidStage::Evaluation) {
            m_page->startEvaluation(stage.frames);
            return;
        }
        // A run's data checked out, or an opened folder: the views show it, not the last run.
        m_page->startRun();
        m_table->clearRows();
        if (stage.kind == CamvidStage::ModelsOpened) {
            Q_EMIT logLine(tr("Evaluating %1 on the validation frames ...").arg(stage.dir));
            return;
        }
        panel()->setState(tr("Training..."));
        Q_EMIT stateChanged();
    });
    auto* page = m_page;
    onView<QVector<CamvidEpochPoint>>(&r, page, [page](const QVector<CamvidEpochPoint>& p) { page->addEpochPoints(p); });
    onView<QVector<CamvidFrameView>>(&r, page, [page](const QVector<CamvidFrameView>& f) { page->addFrames(f); });
    onView<CamvidPreviewView>(&r, page, [page](const CamvidPreviewView& p) { page->setPreview(p); });
    onView<CamvidIouView>(&r, page, [page, table = m_table](const CamvidIouView& v) {
        page->setComparison(v);
        table->setComparison(v);
    });
    onView<CamvidFpsView>(&r, page, [page](const CamvidFpsView& f) { page->setFps(f); });
    connect(&r, &JobRunner::cacheReady, this, [this](const QString& description, const CostMatrix&) {
        panel()->setState(description);
        // Edited while the run trained: re-correct for the edit once the run is done.
        if (isActive() && !(costs()->matrix() == m_runCosts))
            setRecorrectionPending();
        Q_EMIT stateChanged();
    });
    connect(&r, &JobRunner::modelsSaved, this,
            [this](const QString& dir, const QStringList& files, const QString& error) {
                if (!error.isEmpty())
                    Q_EMIT errorRaised(tr("Export Model"), tr("Nothing was written to %1:\n%2").arg(dir, error));
                else
                    Q_EMIT logLine(tr("Saved the CamVid model folder %1: %2").arg(dir, files.join(QStringLiteral(", "))));
            });
    connect(&r, &JobRunner::finished, this,
            [this](JobKind job, double seconds, const QString& json, const QString& csv) {
        if (!json.isEmpty())
            setResults(json, csv,
                       job == JobRunner::kOpenModel ? QFileInfo(m_openedFolder).fileName() + QStringLiteral("_evaluation")
                                                          : QString::fromLatin1(kCamvidExperiment));
        if (job == JobKind::Recorrect) {
            setLastRecorrectionSeconds(seconds);
            Q_EMIT timingChanged(tr("re-correction on the cached S: %1 s (q, then the validation frames)")
                                     .arg(seconds, 0, 'f', 2));
        } else {
            Q_EMIT timingChanged(tr("%1: %2 s").arg(m_runner.jobName(job)).arg(seconds, 0, 'f', 1));
        }
        ended(tr("%1 finished in %2 s").arg(m_runner.jobName(job)).arg(seconds, 0, 'f', 2));
        if (job == JobKind::Run && demoMode())
            Q_EMIT demoDone();
    });
    connect(&r, &JobRunner::cancelled, this, [this](JobKind job) {
        if (job == JobKind::Run && !m_runner.hasCache())
            panel()->setState(tr("Training cancelled: nothing cached."));
    });
    connectJobEndings(tr("CamVid"),
                      tr("pass --data DIR (a folder with train/, trainannot/, val/, valannot/) or set LCS_CAMVID_DIR"));
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
