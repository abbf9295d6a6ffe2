#include "ui/experiments/image/image_experiment_page.h"

#include <QFileInfo>
#include <QUndoStack>

#include "ui/qcustomplot_compat.h"

#include "base/core/input_error.h"
#include "engine/experiments/experiment.h"
#include "ui/cost_editor.h"
#include "ui/cost_matrix_model.h"
#include "ui/experiment_panel.h"
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

ImageExperimentPage::ImageExperimentPage(CostMatrixModel* costs, CostEditor* costEditor, QObject* parent)
    : PanelExperimentPage(imageExperiments(), imagePanelOptions(), costs, costEditor, parent)
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
    return !m_runner.isBusy() && m_runner.hasNetworks() && m_runner.networksExperiment() == experiment();
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
    if (!m_runner.saveNetworks(dir))
        Q_EMIT logLine(m_runner.isBusy() ? tr("Busy: save the networks when the job has finished")
                                         : tr("No networks to save: run the experiment first"));
}

void ImageExperimentPage::openModel()
{
    if (m_runner.isBusy()) {
        Q_EMIT logLine(tr("Busy: open the model when the job has finished"));
        return;
    }
    const QString path = askOpenPath(m_page, tr("Open an image classifier"), QStringLiteral("modelDir"),
                                     tr("LibTorch model (*.pt)"));
    if (!path.isEmpty())
        openModelFrom(path);
}

void ImageExperimentPage::openModelFrom(const QString& path)
{
    if (m_runner.isBusy()) {
        Q_EMIT logLine(tr("Busy: open the model when the job has finished"));
        return;
    }
    if (!costsUsable())
        return;
    // The data the form names, loaded as a run would load it.
    const auto settings = settingsForJob(false);
    if (!settings)
        return;
    m_openedModel = path;
    m_runner.openModel(path, {experiment(), *settings}, costs()->matrix());
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

void ImageExperimentPage::startJob(ImageJobRunner::Job job)
{
    if (m_runner.isBusy())
        return;
    if (!costsUsable())
        return;
    const auto settings = settingsForJob(job == ImageJobRunner::Job::Run);
    if (!settings)
        return;
    if (job == ImageJobRunner::Job::Run) {
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
    const bool untouched = job == ImageJobRunner::Job::Run && matrix == defaultCosts(experiment());
    // The referral column the selective page shows is the cached q's r, for a
    // re-correction; a run decides under each of its referral costs setting instead.
    if (job == ImageJobRunner::Job::Run && experiment() == QLatin1String(kSelective))
        matrix.setReferral(std::nullopt);
    m_runner.start(job, experiment(), *settings, untouched ? CostMatrix() : matrix);
}

void ImageExperimentPage::connectRunner()
{
    auto& r = m_runner;
    connect(&r, &ImageJobRunner::started, this, [this](ImageJobRunner::Job job) {
        m_currentJob = job;
        Q_EMIT jobStarted(m_runner.jobName(job));
    });
    connect(&r, &ImageJobRunner::progress, this, &ImageExperimentPage::progress);
    connect(&r, &ImageJobRunner::logMessage, this, &ImageExperimentPage::logLine);
    connect(&r, &ImageJobRunner::epochPoints, m_page, &ImageResultsPage::addEpochPoints);
    connect(&r, &ImageJobRunner::trainingPoints, m_page, &ImageResultsPage::addTrainingPoints);
    connect(&r, &ImageJobRunner::comparison, m_page, &ImageResultsPage::addComparison);
    connect(&r, &ImageJobRunner::summary, m_page, &ImageResultsPage::setSummary);
    connect(&r, &ImageJobRunner::summary, m_table, &ImageSummaryTable::setSummary);
    connect(&r, &ImageJobRunner::trainingTime, m_page, &ImageResultsPage::setTrainingTime);
    connect(&r, &ImageJobRunner::riskCoverage, m_page, &ImageResultsPage::setRiskCoverage);
    // The data decide the class names; the run's matrix (the preset's where the window's
    // was untouched) becomes the editor's.
    connect(&r, &ImageJobRunner::dataReady, this, [this](const ImageDataInfo& info) {
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
    connect(&r, &ImageJobRunner::cacheReady, this, [this](const QString& description, const CostMatrix& trained) {
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
    connect(&r, &ImageJobRunner::finished, this, &ImageExperimentPage::jobFinished);
    connect(&r, &ImageJobRunner::networksChanged, this, &ImageExperimentPage::stateChanged);
    connect(&r, &ImageJobRunner::networksSaved, this,
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
    connect(&r, &ImageJobRunner::cancelled, this, [this](ImageJobRunner::Job job) {
        ended(tr("%1 cancelled").arg(m_runner.jobName(job)));
        reportDemoCancelled();
    });
    connect(&r, &ImageJobRunner::failed, this, [this](ImageJobRunner::Job job, const QString& message, bool noData) {
        ended(tr("%1 failed").arg(m_runner.jobName(job)));
        if (!demoMode())
            Q_EMIT errorRaised(job == ImageJobRunner::kOpenModel ? tr("Open Model") : tr("Job failed"), message);
        reportDemoFailure(tr("image"),
                          tr("pass --data DIR (an MNIST-like IDX folder or a CIFAR-10 binary folder) or install "
                             "Debian's dataset-fashion-mnist"),
                          message, noData);
    });
}

void ImageExperimentPage::jobFinished(ImageJobRunner::Job job, double seconds, const QString& json,
                                      const QString& csv)
{
    if (!json.isEmpty())
        setResults(json, csv,
                   job == ImageJobRunner::kOpenModel
                       ? QFileInfo(m_openedModel).completeBaseName() + QStringLiteral("_evaluation")
                       : experiment());
    if (job == ImageJobRunner::Job::Recorrect) {
        setLastRecorrectionSeconds(seconds);
        Q_EMIT timingChanged(tr("re-correction on the cached S: %1 s").arg(seconds, 0, 'f', 2));
    } else {
        Q_EMIT timingChanged(tr("%1: %2 s").arg(m_runner.jobName(job)).arg(seconds, 0, 'f', 1));
    }
    const QString preview = job == ImageJobRunner::Job::Run ? wholeRunNote(json) : QString();
    ended(preview.isEmpty() ? tr("%1 finished in %2 s").arg(m_runner.jobName(job)).arg(seconds, 0, 'f', 2)
                            : tr("Preview finished in %1 s%2").arg(seconds, 0, 'f', 1).arg(preview));
    if (job == ImageJobRunner::Job::Run && demoMode())
        Q_EMIT demoDone();
}

void ImageExperimentPage::ended(const QString& status)
{
    Q_EMIT jobEnded(status, true);
    Q_EMIT stateChanged();
    if (canRecorrect() && takePendingRecorrection())
        startJob(ImageJobRunner::Job::Recorrect);
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
