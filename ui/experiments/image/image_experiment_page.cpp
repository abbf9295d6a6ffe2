#include "ui/experiments/image/image_experiment_page.h"

#include <QFileInfo>
#include <QUndoStack>

#include "ui/qcustomplot_compat.h"

#include "base/core/input_error.h"
#include "engine/experiments/experiment.h"
#include "ui/cost_editor.h"
#include "ui/cost_matrix_model.h"
#include "ui/experiment_panel.h"
#include "ui/experiments/image/image_conversion.h"
#include "ui/experiments/image/image_page.h"
#include "ui/experiments/image/image_views.h"
#include "ui/file_dialogs.h"
#include "ui/session.h"

namespace lcs::ui {

namespace {

constexpr const char* kCorruption = kCorruptionExperiment;
constexpr const char* kSelective = kSelectiveExperiment;

} // namespace

namespace {

QList<const Experiment*> imageExperiments()
{
    return {&ExperimentRegistry::global().get(kCorruption), &ExperimentRegistry::global().get(kSelective)};
}

/// After a preview, its estimate of the whole run, read off the results' run record
/// (empty for a whole run).
QString wholeRunNote(const QString& resultsJson)
{
    const auto j = nlohmann::json::parse(resultsJson.toStdString(), nullptr, /*allow_exceptions=*/false);
    if (!j.is_object() || !j.contains("run") || !j["run"].contains("resolved"))
        return {};
    const auto& resolved = j["run"]["resolved"];
    const auto it = resolved.find("whole_run_seconds_estimate");
    if (it == resolved.end() || !it->is_number())
        return {};
    const double minutes = it->get<double>() / 60;
    return minutes >= 1 ? QObject::tr("; the whole run would take about %1 min here").arg(minutes, 0, 'f', 1)
                        : QObject::tr("; the whole run would take about %1 s here").arg(it->get<double>(), 0, 'f', 0);
}

ExperimentPanelOptions imagePanelOptions()
{
    ExperimentPanelOptions options;
    options.name = QStringLiteral("image");
    options.dataKey = QStringLiteral("imageExperiment/data");
    options.dataFallback = QStringLiteral("fashion-mnist");
    return options;
}

} // namespace

JobNames ImageExperimentPage::jobNames()
{
    return {tr("Image experiment")};
}

std::unique_ptr<ViewAdapter> ImageExperimentPage::viewAdapter()
{
    return std::make_unique<ImageViewAdapter>();
}

ImageExperimentPage::ImageExperimentPage(CostMatrixModel* costs, CostEditor* costEditor, QObject* parent)
    : PanelExperimentPage(imageExperiments(), imagePanelOptions(), jobNames(), viewAdapter(), QString(), costs,
                          costEditor, parent)
{
    m_page = new ImageResultsPage;
    m_table = new ImageSummaryTable;
    setViews(m_page, m_table);
    connectRunner();
}

ImageExperimentPage::~ImageExperimentPage() = default;

QString ImageExperimentPage::resultsTitle() const
{
    return tr("Results (mean ± std over trials)");
}

void ImageExperimentPage::activate(const QString& experiment)
{
    PanelExperimentPage::activate(experiment);
    m_page->showViewsOf(experiment);
    // The views show one experiment's run: another experiment starts empty.
    if (m_runner.cacheExperiment() != experiment) {
        m_page->startRun(experiment);
        m_table->clearRows();
    }
}

CostMatrix ImageExperimentPage::defaultCosts(const QString& experiment) const
{
    // Before the data is loaded (the run replaces the class names with the data's).
    if (experiment == QLatin1String(kSelective))
        return costPreset(kSelective);
    std::string data;
    try {
        data = panel()->settings().at(kDataSetting).get<std::string>();
    } catch (const std::exception&) {  // no data chosen yet
    }
    return costPreset(QString::fromStdString(data).contains(QLatin1String("cifar"), Qt::CaseInsensitive) ? "cifar10"
                                                                                                          : "mnist");
}

bool ImageExperimentPage::canRecorrect() const
{
    return m_runner.hasCache() && m_runner.cacheExperiment() == experiment();
}

bool ImageExperimentPage::canSaveModel() const
{
    return !m_runner.isBusy() && !m_runner.keptFiles().isEmpty() && m_runner.keptExperiment() == experiment();
}

void ImageExperimentPage::saveModel()
{
    if (!canSaveModel())
        return;
    const QString dir = askFolder(m_page, tr("Save the run's networks to"), QStringLiteral("modelDir"));
    if (!dir.isEmpty())
        saveModelTo(dir);
}

void ImageExperimentPage::saveModelTo(const QString& dir)
{
    if (!refusedWhileBusy(tr("save the networks")) && !m_runner.exportKept(dir))
        Q_EMIT logLine(tr("No networks to save: run the experiment first"));
}

void ImageExperimentPage::openModel()
{
    if (refusedWhileBusy(tr("open the model")))
        return;
    const QString path = askOpenPath(m_page, tr("Open an image classifier"), QStringLiteral("modelDir"),
                                     tr("LibTorch model (*.pt)"));
    if (!path.isEmpty())
        openModelFrom(path);
}

void ImageExperimentPage::openModelFrom(const QString& path)
{
    if (refusedWhileBusy(tr("open the model")))
        return;
    if (!costsUsable())
        return;
    // The data the form names, loaded as a run would load it.
    const auto settings = settingsForJob(false);
    if (!settings)
        return;
    m_openedModel = path;
    // The experiment's declared action, under the thread policy of every run.
    auto asked = *settings;
    asked[kSavedModelSetting] = path.toStdString();
    m_runner.start(JobRunner::kOpenModel, JobRequest{experiment(), asked, {}}, costs()->matrix());
}

nlohmann::json ImageExperimentPage::demoSettings(const QString& experiment) const
{
    // One swept value (two referral costs: the plot needs a line), one trial, the cpu
    // preset, on the panel's subsets.
    nlohmann::json s = {{"trials", 1}, {"preset", "cpu"}};
    if (experiment == QLatin1String(kSelective))
        s["referral_costs"] = {0.1, 0.2};
    else
        s["rates"] = {0.5};
    return s;
}

void ImageExperimentPage::startJob(JobKind job)
{
    if (m_runner.isBusy())
        return;
    if (!costsUsable())
        return;
    const auto settings = settingsForJob(job == JobKind::Run);
    if (!settings)
        return;
    if (job == JobKind::Run) {
        m_page->startRun(experiment());
        m_table->clearRows();
    } else {
        if (!canRecorrect()) {
            Q_EMIT logLine(tr("No cached student S for this experiment: run it (with \"ours\") first."));
            return;
        }
        m_page->startRecorrection();
    }
    // A matrix nobody edited is the experiment's own: the run takes its preset for the
    // data it loads (a folder of other classes included), as the command line does
    // without --costs. An edited one must fit the data, or the run says why not.
    CostMatrix matrix = costs()->matrix();
    const bool untouched = job == JobKind::Run && matrix == defaultCosts(experiment());
    // The referral column the selective page shows is the cached q's r, for a
    // re-correction; a run decides under each of its referral costs setting instead.
    if (job == JobKind::Run && experiment() == QLatin1String(kSelective))
        matrix.setReferral(std::nullopt);
    // Every network the run trains is saved into a folder the runner keeps, for Export Model.
    m_runner.start(job, JobRequest{experiment(), *settings, {QStringLiteral("save_models")}},
                   untouched ? CostMatrix() : matrix);
}

void ImageExperimentPage::connectRunner()
{
    auto& r = m_runner;
    onView<QVector<EpochPoint>>(&r, m_page, [page = m_page](const QVector<EpochPoint>& p) { page->addEpochPoints(p); });
    onView<QVector<TrainingPoint>>(&r, m_page,
                                   [page = m_page](const QVector<TrainingPoint>& p) { page->addTrainingPoints(p); });
    onView<ComparisonView>(&r, m_page, [page = m_page](const ComparisonView& v) { page->addComparison(v); });
    onView<SummaryView>(&r, m_page, [page = m_page, table = m_table](const SummaryView& v) {
        page->setSummary(v);
        table->setSummary(v);
    });
    onView<TrainingTimeView>(&r, m_page, [page = m_page](const TrainingTimeView& v) { page->setTrainingTime(v); });
    onView<RiskCoverageView>(&r, m_page, [page = m_page](const RiskCoverageView& v) { page->setRiskCoverage(v); });
    // The data decide the class names; the run's matrix (the preset's where the window's
    // was untouched) becomes the editor's.
    onView<ImageDataInfo>(&r, this, [this](const ImageDataInfo& info) {
        std::vector<std::string> names;
        for (const auto& n : info.classNames)
            names.push_back(n.toStdString());
        costs()->setPresetClassNames(names);
        costEditor()->setExpectedClasses(static_cast<int>(names.size()));
        CostMatrix shown = info.costs;
        if (costs()->matrix().hasReferral() && info.experiment == QLatin1String(kSelectiveExperiment))
            shown.setReferral(costs()->matrix().referralCost());  // keep the user's referral column in view
        setCostsQuietly(shown);
        m_runCosts = costs()->matrix();  // the run's own line says what it loaded (its note)
    });
    connect(&r, &JobRunner::cacheReady, this, [this](const QString& description, const CostMatrix& trained) {
        panel()->setState(description);
        if (costs()->matrix() == m_runCosts) {
            // Show the matrix q was trained for, so that the next edit starts from it.
            setCostsQuietly(trained);
        } else {
            // Edited while the run trained: re-correct for the edit once the run is done.
            setRecorrectionPending();
        }
        Q_EMIT stateChanged();
    });
    connect(&r, &JobRunner::finished, this, &ImageExperimentPage::jobFinished);
    connect(&r, &JobRunner::keptChanged, this, &ImageExperimentPage::stateChanged);
    connect(&r, &JobRunner::modelsSaved, this,
            [this](const QString& dir, const QStringList& files, const QString& error) {
                if (!error.isEmpty()) {
                    Q_EMIT errorRaised(tr("Export Model"), tr("Nothing was written to %1:\n%2").arg(dir, error));
                    return;
                }
                QStringList networks;
                for (const auto& f : files)
                    if (f.endsWith(QLatin1String(".pt")))
                        networks << f;
                Q_EMIT logLine(tr("Saved %1 network(s), each with its sidecar, to %2: %3")
                                   .arg(networks.size()).arg(dir, networks.join(QStringLiteral(", "))));
            });
    connectJobEndings(tr("image"), tr("pass --data DIR (an MNIST-like IDX folder or a CIFAR-10 binary folder) or "
                                      "install Debian's dataset-fashion-mnist"));
}

void ImageExperimentPage::jobFinished(JobKind job, double seconds, const QString& json,
                                      const QString& csv)
{
    if (!json.isEmpty())
        setResults(json, csv,
                   job == JobRunner::kOpenModel
                       ? QFileInfo(m_openedModel).completeBaseName() + QStringLiteral("_evaluation")
                       : experiment());
    if (job == JobKind::Recorrect) {
        setLastRecorrectionSeconds(seconds);
        Q_EMIT timingChanged(tr("re-correction on the cached S: %1 s").arg(seconds, 0, 'f', 2));
    } else {
        Q_EMIT timingChanged(tr("%1: %2 s").arg(m_runner.jobName(job)).arg(seconds, 0, 'f', 1));
    }
    const QString preview = job == JobKind::Run ? wholeRunNote(json) : QString();
    ended(preview.isEmpty() ? tr("%1 finished in %2 s").arg(m_runner.jobName(job)).arg(seconds, 0, 'f', 2)
                            : tr("Preview finished in %1 s%2").arg(seconds, 0, 'f', 1).arg(preview));
    if (job == JobKind::Run && demoMode())
        Q_EMIT demoDone();
}

QList<QCustomPlot*> ImageExperimentPage::plots() const
{
    return m_page->plots();
}

QStringList ImageExperimentPage::exportPlots(const QString& dir, int& written) const
{
    QStringList errors;
    auto* gallery = m_page->gallery();
    const QSize size(gallery->width(), gallery->heightForWidth(gallery->width()));
    exportPaintedView([gallery](QPainter& p) { gallery->paintGallery(p, gallery->width()); }, size,
                      gallery->objectName(), dir, written, errors);
    return errors + ExperimentPage::exportPlots(dir, written);
}

} // namespace lcs::ui
