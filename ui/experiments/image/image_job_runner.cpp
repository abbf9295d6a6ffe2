#include "ui/experiments/image/image_job_runner.h"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <utility>


#include <QDir>
#include <QTemporaryDir>

#include "base/core/atomic_file.h"
#include "base/core/input_error.h"
#include "datasets/image_data.h"
#include "engine/experiments/image/corruption_experiment.h"
#include "engine/experiments/image/image_experiments.h"
#include "engine/experiments/image/selective_experiment.h"
#include "engine/experiments/run_views.h"

#include "ui/experiments/image/image_conversion.h"
#include "ui/method_style.h"
#include "ui/worker_thread.h"

namespace lcs::ui {

namespace {

QString describeShape(const std::vector<int64_t>& shape)
{
    QStringList parts;
    for (auto s : shape)
        parts << QString::number(s);
    return parts.join(QStringLiteral(" x "));
}

/// The curve name of a cached run ("rate 0.5, trial 1"; selective: "trial 1"), as the
/// engine's progress details name it, so that a re-correction's curve joins it.
QString cachedRunName(const TaskPlan& plan, bool selective)
{
    if (plan.size() != 1 || !plan.front().task.setting)
        return {};
    const auto& task = plan.front().task;
    const QString trial = QStringLiteral("trial %1").arg(task.trial);
    return selective ? trial
                     : QStringLiteral("rate %1, %2").arg(QString::fromStdString(settingText(*task.setting)), trial);
}

} // namespace

/// Lives on the runner's thread. A view adapter over the one run path: jobs run the
/// registry's image experiment (runExperiment, re-corrections on the state it left), and
/// the typed views the run publishes become this runner's signals with plain data. Keeps
/// the last run's networks (saved by the run into a temporary folder) for Export Model.
class ImageWorker : public ExperimentWorker {
    Q_OBJECT
public:
    ImageWorker() : ExperimentWorker(tr("Image experiment")) {}

    /// Copies the last finished run's model files into `dir` through a staging folder,
    /// so that a failure leaves `dir` as it was.
    void saveNetworks(const QString& dir)
    {
        QStringList written;
        QString error;
        try {
            if (!m_networks || m_networkFiles.isEmpty())
                throw std::runtime_error("no networks to save: run the experiment first");
            StagedFolder staged(dir.toStdString());
            for (const auto& file : m_networkFiles)
                for (const char* suffix : {"", ".json"}) {
                    const std::string name = file.toStdString() + suffix;
                    std::error_code ec;
                    std::filesystem::copy_file(networksFolder() + "/" + name, staged.path() + "/" + name, ec);
                    if (ec)
                        throw OutputError("cannot write " + dir.toStdString() + "/" + name + ": " + ec.message());
                    written << QString::fromStdString(name);
                }
            staged.commit();
        } catch (const std::exception& e) {
            written.clear();
            error = QString::fromStdString(e.what());
        }
        emitView(&ImageJobRunner::networksSaved, dir, written, error);
    }

protected:
    void execute(JobKind job, const QVariant& settings, const CostMatrix& costs, QString& json, QString& csv) override
    {
        if (job == JobKind::Recorrect)
            recorrectCached(costs, json, csv);
        else if (job == ImageJobRunner::kOpenModel)
            evaluateModel(settings.value<ImageModelRequest>(), costs, json, csv);
        else
            runExperiment(settings.value<ImageRunRequest>(), costs, json, csv);
    }

private:
    /// The progress channel plus the epoch and training curves: `run` / `series` (when
    /// not empty) name every point, for jobs whose engine progress does not say which run
    /// it belongs to (a re-correction).
    class Reporter : public ProgressChannel {
    public:
        Reporter(ImageWorker* worker, QString phasePrefix, QString series = {})
            : ProgressChannel(worker, std::move(phasePrefix)), m_worker(worker), m_series(std::move(series))
        {
        }
        void nameRun(QString run)
        {
            std::lock_guard lock(m_mutex);
            m_run = std::move(run);
        }

    protected:
        void collect(const Progress& p) override
        {
            QString run, series;
            splitProgressDetail(p.detail, run, series);
            if (!m_run.isEmpty())
                run = m_run;
            if (!m_series.isEmpty())
                series = m_series;
            if (p.test) {
                EpochPoint e;
                e.run = run;
                e.series = series;
                e.epoch = p.test->epoch;
                e.cost = p.test->cost;
                e.accuracy = p.test->accuracy;
                e.nll = p.test->nll;
                m_epochs.push_back(e);
                return;
            }
            for (const auto& [name, value] : p.training.named()) {
                if (name == "samples")  // a count of kept networks, not a curve
                    continue;
                m_training.push_back({run, series, QString::fromStdString(name), p.step, value});
            }
        }
        void flushViews() override
        {
            if (!m_epochs.isEmpty())
                m_worker->emitView(&ImageJobRunner::epochPoints, std::exchange(m_epochs, {}));
            if (!m_training.isEmpty())
                m_worker->emitView(&ImageJobRunner::trainingPoints, std::exchange(m_training, {}));
        }

    private:
        ImageWorker* m_worker;
        QString m_run, m_series;
        QVector<EpochPoint> m_epochs;
        QVector<TrainingPoint> m_training;
    };

    std::string networksFolder() const { return m_networks->path().toStdString() + "/networks"; }

    /// The views this page draws, from the run's typed events (converted here, on the
    /// job's thread, into plain data).
    RunViews views(Reporter& reporter)
    {
        RunViews v;
        v.show = viewHandlers([this](const ImageRunStarted& e) {
            ImageDataInfo i;
            i.experiment = QString::fromStdString(e.experiment);
            i.name = QString::fromStdString(e.dataset);
            for (const auto& n : e.classNames)
                i.classNames << QString::fromStdString(n);
            i.inputShape = describeShape(e.inputShape);
            i.trainCount = e.trainImages;
            i.testCount = e.testImages;
            i.model = QString::fromStdString(e.model);
            i.costs = e.costs;
            emitView(&ImageJobRunner::dataReady, i);
        }, [this, &reporter](const ComparisonShown& e) {
            reporter.flush();  // the curves that led to this q first
            auto view = comparisonView(e.comparison, e.classNames, e.comparison.costs, e.changedImages);
            const QString experiment = QString::fromStdString(e.experiment);
            const QString uncorrected = QString::fromStdString(e.uncorrectedMethod);
            view.experiment = experiment;
            view.recorrected = e.recorrected;
            view.seconds = e.seconds;
            view.collapsed = e.collapsed;
            view.uncorrectedLabel = uncorrected == QLatin1String("sghmc_s") ? tr("S (SGHMC student)")
                                                                            : imageSeriesLabel(uncorrected);
            view.uncorrectedMethod = methodIn(uncorrected, experiment);
            view.correctedLabel = imageSeriesLabel(QStringLiteral("ours"));
            emitView(&ImageJobRunner::comparison, view);
        }, [this](const CorruptionResult& r) {
            emitView(&ImageJobRunner::summary, summaryView(r));
            emitView(&ImageJobRunner::trainingTime, TrainingTimeView{});
        }, [this](const SelectiveResult& r) {
            emitView(&ImageJobRunner::summary, summaryView(r));
            emitView(&ImageJobRunner::trainingTime, trainingTimeView(r));
            emitView(&ImageJobRunner::riskCoverage, riskCoverageView(r));
        });
        return v;
    }

    void dropLastRun()
    {
        m_cache.reset();
        Q_EMIT cacheDropped();
        // The last run's networks go with its S: Export Model saves one run's networks.
        m_networks.reset();
        m_networkFiles.clear();
        emitView(&ImageJobRunner::networksChanged, QString(), QStringList());
    }

    /// The model files the run saved ("<stem>.pt", each beside its sidecar), announced.
    void keepNetworks(const QString& experiment)
    {
        const QDir dir(QString::fromStdString(networksFolder()));
        m_networkFiles = dir.entryList({QStringLiteral("*.pt")}, QDir::Files, QDir::Name);
        emitView(&ImageJobRunner::networksChanged, m_networkFiles.isEmpty() ? QString() : experiment, m_networkFiles);
    }

    void runExperiment(const ImageRunRequest& s, const CostMatrix& costs, QString& json, QString& csv)
    {
        dropLastRun();
        ++runs;
        const Experiment& entry = ExperimentRegistry::global().get(s.experiment.toStdString());
        // Every network the run trains, saved by the run (all of them once it ends).
        OutputPaths outputs;
        m_networks = std::make_unique<QTemporaryDir>(QDir::tempPath() + QStringLiteral("/lcs-networks-XXXXXX"));
        if (m_networks->isValid()) {
            outputs["save_models"] = networksFolder();
        } else {
            Q_EMIT logMessage(tr("Warning: no temporary folder for the run's networks (%1): Export Model will have "
                                 "nothing to save.")
                                  .arg(m_networks->errorString()));
            m_networks.reset();
        }
        Reporter reporter(this, s.experiment);
        const RunViews shown = views(reporter);
        JobContext ctx = reporter.context(cancelToken());
        ctx.views = &shown;
        auto run = lcs::runExperiment(entry, s.settings,
                                      costs.numClasses() > 0 ? std::optional<CostMatrix>(costs) : std::nullopt, ctx,
                                      outputs, CoreShare::LeaveOneForGui);
        reporter.flush();
        Q_EMIT logMessage(QString::fromStdString(run.output.table).trimmed());
        json = QString::fromStdString(lcs::resultsJson(run.output));
        csv = QString::fromStdString(lcs::resultsCsv(run.output));
        m_cache = std::move(run.cache);
        m_cacheExperiment = s.experiment;
        if (m_cache) {
            emitView(&ImageJobRunner::cacheExperimentChanged, s.experiment);
            Q_EMIT cacheReady(QString::fromStdString(m_cache->describe()), m_cache->costs());
        } else {
            Q_EMIT logMessage(tr("No student S to re-correct (\"ours\" did not run): a cost edit needs a new run."));
        }
        if (m_networks)
            keepNetworks(s.experiment);
    }

    /// Re-trains only q on the cached S, through the state the run left (the one
    /// re-correction of every route); its comparison arrives as a view like a run's.
    void recorrectCached(const CostMatrix& costs, QString& json, QString& csv)
    {
        if (!m_cache)
            throw std::runtime_error("no student S cached: run the experiment (with \"ours\") first");
        const bool selective = m_cacheExperiment == QLatin1String(kSelectiveExperiment);
        Reporter reporter(this, tr("re-correction"), QString::fromLatin1(kRecorrectedSeries));
        const RunViews shown = views(reporter);
        JobContext ctx = reporter.context(cancelToken());
        ctx.views = &shown;
        // The re-correction declares the one task it trains: its curve joins that run's.
        ctx.plan = [&reporter, selective, declare = ctx.plan](const TaskPlan& plan, PlanProgress::Order order) {
            reporter.nameRun(cachedRunName(plan, selective));
            declare(plan, order);
        };
        Q_EMIT logMessage(tr("Re-training q for the new costs from the cached S (nothing re-sampled)"));
        const auto output = m_cache->recorrect(costs, ctx);
        reporter.flush();
        ++recorrections;
        Q_EMIT logMessage(QString::fromStdString(output.table).trimmed());
        json = QString::fromStdString(lcs::resultsJson(output));
        csv = QString::fromStdString(lcs::resultsCsv(output));
    }

    /// Decides the test images of the request's data with an exported classifier: the
    /// experiment's declared kEvaluateAction, under the thread policy of every run.
    void evaluateModel(const ImageModelRequest& r, const CostMatrix& costs, QString& json, QString& csv)
    {
        ProgressChannel channel(this, tr("model evaluation"));
        auto settings = r.data.settings;
        settings[kSavedModelSetting] = r.path.toStdString();
        const auto run = runExperimentAction(ExperimentRegistry::global().get(r.data.experiment.toStdString()),
                                             kEvaluateAction, settings, costs, channel.context(cancelToken()), {},
                                             CoreShare::LeaveOneForGui);
        channel.flush();
        Q_EMIT logMessage(QString::fromStdString(run.output.table).trimmed());
        json = QString::fromStdString(lcs::resultsJson(run.output));
        csv = QString::fromStdString(lcs::resultsCsv(run.output));
    }

    std::shared_ptr<RecorrectionState> m_cache;
    QString m_cacheExperiment;
    std::unique_ptr<QTemporaryDir> m_networks;  ///< the last finished run's model files, in "networks/"
    QStringList m_networkFiles;
};

ImageJobRunner::ImageJobRunner(QObject* parent)
    : JobRunner(new ImageWorker(), QStringLiteral("lcs-image-jobs"), parent)
{
    qRegisterMetaType<ImageRunRequest>();
    qRegisterMetaType<ImageDataInfo>();
    qRegisterMetaType<QVector<EpochPoint>>();
    qRegisterMetaType<QVector<TrainingPoint>>();
    qRegisterMetaType<ComparisonView>();
    qRegisterMetaType<SummaryView>();
    qRegisterMetaType<TrainingTimeView>();
    qRegisterMetaType<RiskCoverageView>();
    qRegisterMetaType<ImageModelRequest>();
    connect(this, &ImageJobRunner::cacheExperimentChanged, this, [this](const QString& e) { m_cacheExperiment = e; });
    connect(this, &ImageJobRunner::networksChanged, this, [this](const QString& experiment, const QStringList& files) {
        m_networksExperiment = experiment;
        m_networkFiles = files;
    });
}

bool ImageJobRunner::start(Job job, const QString& experiment, const nlohmann::json& settings, const CostMatrix& costs)
{
    if (job != Job::Recorrect && !isBusy())
        m_cacheExperiment.clear();
    return JobRunner::start(job, QVariant::fromValue(ImageRunRequest{experiment, settings}), costs);
}

bool ImageJobRunner::saveNetworks(const QString& dir)
{
    if (isBusy() || m_networkFiles.isEmpty())
        return false;
    auto* worker = workerAs<ImageWorker>();
    QMetaObject::invokeMethod(worker, [worker, dir] { worker->saveNetworks(dir); }, Qt::QueuedConnection);
    return true;
}

bool ImageJobRunner::openModel(const QString& path, const ImageRunRequest& request, const CostMatrix& costs)
{
    return JobRunner::start(kOpenModel, QVariant::fromValue(ImageModelRequest{path, request}), costs);
}

} // namespace lcs::ui

#include "image_job_runner.moc"
