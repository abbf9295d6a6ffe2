#include "image_experiment_page.h"

#include <QUndoStack>

#include "qcustomplot_compat.h"

#include "cost_editor.h"
#include "cost_matrix_model.h"
#include "image_page.h"
#include "image_panel.h"
#include "image_views.h"
#include "session.h"

namespace lcs::ui {

ImageExperimentPage::ImageExperimentPage(CostMatrixModel* costs, CostEditor* costEditor,
                                         std::shared_ptr<const ImageJobHooks> hooks, QObject* parent)
    : ExperimentPage(costs, costEditor, parent), m_runner(nullptr, std::move(hooks))
{
    m_panel = new ImageExperimentPanel;
    m_page = new ImageResultsPage;
    m_table = new ImageSummaryTable;
    connect(m_panel, &ImageExperimentPanel::runRequested, this, &ImageExperimentPage::run);
    connect(m_panel, &ImageExperimentPanel::recorrectRequested, this, &ImageExperimentPage::recorrect);
    connect(m_panel, &ImageExperimentPanel::cancelRequested, this, &ImageExperimentPage::cancel);
    connectRunner();
}

ImageExperimentPage::~ImageExperimentPage() = default;

QList<ExperimentEntry> ImageExperimentPage::experiments() const
{
    return {{QStringLiteral("corruption"), tr("Label corruption (paper Fig. 4)")},
            {QStringLiteral("selective"), tr("Selective classification (paper Fig. 3)")}};
}

QWidget* ImageExperimentPage::settingsWidget() const
{
    return m_panel;
}

QWidget* ImageExperimentPage::centralWidget() const
{
    return m_page;
}

QWidget* ImageExperimentPage::resultsWidget() const
{
    return m_table;
}

QString ImageExperimentPage::resultsTitle() const
{
    return tr("Results (mean ± std over trials)");
}

void ImageExperimentPage::activate(const QString& experiment)
{
    ExperimentPage::activate(experiment);
    m_panel->setExperiment(experiment);
    // The views show one experiment's run: another experiment starts empty.
    if (m_runner.cacheExperiment() != experiment) {
        m_page->startRun(experiment);
        m_table->clearRows();
    }
}

CostMatrix ImageExperimentPage::defaultCosts(const QString& experiment) const
{
    // Before the data is loaded (the run replaces the class names with the data's).
    if (experiment == QLatin1String("selective"))
        return costPreset("selective");
    return costPreset(m_panel->settings().data.contains(QLatin1String("cifar"), Qt::CaseInsensitive) ? "cifar10" : "mnist");
}

bool ImageExperimentPage::canRecorrect() const
{
    return m_runner.hasCache() && m_runner.cacheExperiment() == experiment();
}

void ImageExperimentPage::updateControls(bool anyBusy)
{
    m_panel->setBusy(anyBusy, canRecorrect());
}

void ImageExperimentPage::writeSession(Session& session) const
{
    session.image = m_panel->settings();
    session.image.experiment = serves(session.experiment) ? session.experiment : m_panel->experiment();
    if (session.experiment == QLatin1String("selective"))
        session.costs.setReferral(std::nullopt);  // the referral costs are swept; the base matrix is what a run needs
}

void ImageExperimentPage::readSession(const Session& session)
{
    m_panel->applySettings(session.image);
    costs()->undoStack()->clear();
    setCostsQuietly(session.costs);  // a new setting, not an edit of the cached run's costs
    costEditor()->setExpectedClasses(session.costs.numClasses());
}

void ImageExperimentPage::startJob(ImageJobRunner::Job job)
{
    if (m_runner.isBusy())
        return;
    try {
        costs()->matrix().validate();
    } catch (const CostMatrixError& e) {
        Q_EMIT errorRaised(tr("Invalid cost matrix"), QString::fromStdString(e.what()));
        return;
    }
    if (job == ImageJobRunner::Job::Run) {
        const QString error = m_panel->validate();
        if (!error.isEmpty()) {
            Q_EMIT errorRaised(tr("Cannot run"), error);
            return;
        }
        if (!demoMode())  // a demo's data is not the user's choice
            m_panel->rememberData();
        m_page->startRun(experiment());
        m_table->clearRows();
    } else {
        if (!canRecorrect()) {
            Q_EMIT logLine(tr("No cached student S for this experiment: run it (with \"ours\") first."));
            return;
        }
        m_page->startRecorrection();
    }
    ImageExperimentSettings s = m_panel->settings();
    s.experiment = experiment();
    m_runner.start(job, s, costs()->matrix());
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
    // The data decides the class names (and, for a mismatching matrix, the preset).
    connect(&r, &ImageJobRunner::dataReady, this, [this](const ImageDataInfo& info) {
        std::vector<std::string> names;
        for (const auto& n : info.classNames)
            names.push_back(n.toStdString());
        costs()->setPresetClassNames(names);
        costEditor()->setExpectedClasses(static_cast<int>(names.size()));
        CostMatrix shown = info.costs;
        if (costs()->matrix().hasReferral() && info.experiment == QLatin1String("selective"))
            shown.setReferral(costs()->matrix().referralCost());  // keep the user's referral column in view
        setCostsQuietly(shown);
        m_runCosts = costs()->matrix();
        Q_EMIT logLine(tr("Data %1: %2 training, %3 test images of %4, %5 classes; model %6")
                           .arg(info.name).arg(info.trainCount).arg(info.testCount).arg(info.inputShape)
                           .arg(info.classNames.size()).arg(info.model));
    });
    connect(&r, &ImageJobRunner::cacheReady, this, [this](const QString& description, const CostMatrix& trained) {
        m_panel->setState(description);
        if (costs()->matrix() == m_runCosts) {
            // Show the matrix q was trained for, so that the next edit starts from it.
            setCostsQuietly(trained);
        } else {
            // Edited while the run trained: re-correct for the edit once the run is done.
            setRecorrectionPending();
        }
        Q_EMIT stateChanged();
    });
    connect(&r, &ImageJobRunner::finished, this,
            [this](ImageJobRunner::Job job, double seconds, const QString& json, const QString& csv) {
                if (!json.isEmpty())
                    setResults(json, csv, experiment());
                if (job == ImageJobRunner::Job::Recorrect) {
                    setLastRecorrectionSeconds(seconds);
                    Q_EMIT timingChanged(tr("re-correction on the cached S: %1 s").arg(seconds, 0, 'f', 2));
                } else {
                    Q_EMIT timingChanged(tr("%1: %2 s").arg(m_runner.jobName(job)).arg(seconds, 0, 'f', 1));
                }
                ended(tr("%1 finished in %2 s").arg(m_runner.jobName(job)).arg(seconds, 0, 'f', 2));
                if (job == ImageJobRunner::Job::Run && demoMode())
                    Q_EMIT demoDone();
            });
    connect(&r, &ImageJobRunner::cancelled, this, [this](ImageJobRunner::Job job) {
        ended(tr("%1 cancelled").arg(m_runner.jobName(job)));
        reportDemoCancelled();
    });
    connect(&r, &ImageJobRunner::failed, this, [this](ImageJobRunner::Job job, const QString& message, bool noData) {
        ended(tr("%1 failed").arg(m_runner.jobName(job)));
        if (!demoMode())
            Q_EMIT errorRaised(tr("Job failed"), message);
        reportDemoFailure(tr("image"),
                          tr("pass --data DIR (an MNIST-like IDX folder or a CIFAR-10 binary folder) or install "
                             "Debian's dataset-fashion-mnist"),
                          message, noData);
    });
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
