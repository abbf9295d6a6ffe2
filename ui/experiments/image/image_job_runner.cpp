#include "image_job_runner.h"
#include "core/threads.h"
#include "experiments/experiment.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <utility>

#include <ATen/Parallel.h>
#include <torch/torch.h>

#include <QDir>
#include <QTemporaryDir>

#include "core/atomic_file.h"
#include "core/input_error.h"
#include "experiments/corruption_experiment.h"
#include "experiments/image_experiment_support.h"
#include "experiments/image_run_settings.h"
#include "experiments/selective_experiment.h"
#include "image_data.h"
#include "inference/method_catalog.h"

#include "image_conversion.h"
#include "method_style.h"
#include "image_job_hooks.h"
#include "worker_thread.h"

namespace lcs::ui {

namespace {

using Clock = WorkerClock;

/// The window's settings as the engine's choices, through the same declarations as the
/// CLI's flags; one function per experiment then applies them to its preset.
ImageRunChoices runChoices(const ImageRunRequest& r)
{
    ImageRunChoices c;
    applySettings(r.isSelective() ? selectiveSettings() : corruptionSettings(), r.settings, c);
    return c;
}

QString describeShape(const std::vector<int64_t>& shape)
{
    QStringList parts;
    for (auto s : shape)
        parts << QString::number(s);
    return parts.join(QStringLiteral(" x "));
}

} // namespace

/// Lives on the runner's thread. Owns the loaded data set and the last run's
/// CorrectionCache; everything it sends out is plain data.
class ImageWorker : public ExperimentWorker {
    Q_OBJECT
public:
    explicit ImageWorker(std::shared_ptr<const ImageJobHooks> hooks)
        : ExperimentWorker(tr("Image experiment")),
          m_hooks(std::move(hooks))
    {
    }

    /// Copies the last finished run's model files into `dir` through a staging folder,
    /// so that a failure leaves `dir` as it was.
    void saveNetworks(const QString& dir)
    {
        QStringList written;
        QString error;
        try {
            if (!m_networks || m_networkFiles.empty())
                throw std::runtime_error("no networks to save: run the experiment first");
            StagedFolder staged(dir.toStdString());
            for (const auto& file : m_networkFiles)
                for (const char* suffix : {"", ".json"}) {
                    const std::string name = file + suffix;
                    std::error_code ec;
                    std::filesystem::copy_file(m_networks->filePath(QString::fromStdString(name)).toStdString(),
                                               staged.path() + "/" + name, ec);
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
            recorrectCached(costs);
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
        Reporter(ImageWorker* worker, QString phasePrefix, QString run = {}, QString series = {})
            : ProgressChannel(worker, std::move(phasePrefix)), m_worker(worker), m_run(std::move(run)),
              m_series(std::move(series))
        {
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

    const ImageDataset& loadData(const ImageRunChoices& c)
    {
        const QString key = QStringLiteral("%1|%2|%3|%4|%5")
                                .arg(QString::fromStdString(c.data)).arg(c.maxTrain).arg(c.maxTest).arg(c.seed)
                                .arg(c.preview);
        if (m_hooks && m_hooks->loadData) {
            m_data = m_hooks->loadData(c);
            m_dataKey.clear();
            return m_data;
        }
        if (key == m_dataKey)
            return m_data;
        Q_EMIT logMessage(tr("Loading %1 ...").arg(QString::fromStdString(c.data)));
        try {
            m_data = loadChosenData(c);
            m_dataKey = key;
        } catch (const Cancelled&) {
            throw;
        } catch (const std::exception& e) {
            m_dataKey.clear();
            throw DataUnavailable(e.what());
        }
        return m_data;
    }

    /// The run's threads by the policy of every route (runThreads: one core stays with
    /// the GUI thread), set on this thread, where the engine's operations run.
    static void setThreads(const ImageRunRequest& s)
    {
        configureThreads(runThreads(ExperimentRegistry::global().get(s.experiment.toStdString()), s.settings,
                                    CoreShare::LeaveOneForGui));
    }

    ImageDataInfo info(const ImageDataset& data, const QString& experiment, const ModelSpec& model,
                       const CostMatrix& costs) const
    {
        ImageDataInfo i;
        i.experiment = experiment;
        i.name = QString::fromStdString(data.name);
        for (const auto& n : data.classNames)
            i.classNames << QString::fromStdString(n);
        i.inputShape = describeShape(data.inputShape);
        i.trainCount = data.train.size();
        i.testCount = data.test.size();
        i.model = QString::fromStdString(model.describe());
        i.costs = costs;
        return i;
    }

    /// The window's matrix when it fits the data (class names from the data), else the
    /// preset's.
    static CostMatrix costsFor(const CostMatrix& window, const CostMatrix& preset, const ImageDataset& data)
    {
        if (window.numClasses() != data.classes())
            return preset;
        CostMatrix c = window;
        c.setClassNames(data.classNames);
        return c;
    }

    /// The folder a run writes its networks into as they are trained; kept (networks
    /// announced) only when the run finishes.
    struct RunNetworks {
        std::unique_ptr<QTemporaryDir> dir;
        std::vector<std::string> files;
        std::optional<ImageNetworkWriter> writer;  ///< also writes a re-corrected q over the run's
    };

    /// Writes each network as the run reports it (on this thread, while it is valid).
    NetworkSink networkSink(RunNetworks& out, const ImageRunRequest& s, const ImageDataset& data, uint64_t seed)
    {
        out.dir = std::make_unique<QTemporaryDir>(QDir::tempPath() + QStringLiteral("/lcs-networks-XXXXXX"));
        if (!out.dir->isValid()) {
            Q_EMIT logMessage(tr("Warning: no temporary folder for the run's networks (%1): Export Model will have "
                                 "nothing to save.")
                                  .arg(out.dir->errorString()));
            out.dir.reset();
            return {};
        }
        out.writer.emplace(s.experiment.toStdString(), data, seed);
        return [&out](const TrainedNetwork& n) {
            const auto file = out.writer->write(n, out.dir->path().toStdString());
            if (std::find(out.files.begin(), out.files.end(), file) == out.files.end())
                out.files.push_back(file);
        };
    }

    void keepNetworks(RunNetworks& networks, const QString& experiment)
    {
        m_networks = std::move(networks.dir);
        m_networkFiles = std::move(networks.files);
        m_networkWriter = std::move(networks.writer);
        QStringList files;
        for (const auto& f : m_networkFiles)
            files << QString::fromStdString(f);
        emitView(&ImageJobRunner::networksChanged, files.isEmpty() ? QString() : experiment, files);
    }

    void runExperiment(const ImageRunRequest& s, const CostMatrix& costs, QString& json, QString& csv)
    {
        m_cache.reset();
        Q_EMIT cacheDropped();
        // The last run's networks go with its S: Export Model saves one run's networks.
        m_networks.reset();
        m_networkFiles.clear();
        emitView(&ImageJobRunner::networksChanged, QString(), QStringList());
        ++runs;
        const auto choices = runChoices(s);
        const ImageDataset& data = loadData(choices);
        throwIfCancelled();
        RunNetworks networks;  // a failed or cancelled run takes its folder with it
        if (!s.isSelective()) {
            auto config = corruptionConfigFor(choices, data);
            config.costs = costsFor(costs, config.costs, data);
            if (config.costs.hasReferral())
                throw InputError("label corruption decides classes only: turn the referral option off");
            if (m_hooks && m_hooks->tuneCorruption)
                m_hooks->tuneCorruption(config);
            setThreads(s);
            emitView(&ImageJobRunner::dataReady, info(data, s.experiment, config.model, config.costs));
            Q_EMIT logMessage(tr("Label corruption on %1: %2 training, %3 test images; %4; %5 rate(s) x %6 trial(s)")
                                  .arg(QString::fromStdString(data.name)).arg(data.train.size()).arg(data.test.size())
                                  .arg(QString::fromStdString(config.model.describe())).arg(config.rates.size())
                                  .arg(config.trials));
            Reporter reporter(this, QString::fromLatin1(kCorruptionExperiment));
            reporter.setPlan(corruptionPlan(config));
            config.onNetwork = networkSink(networks, s, data, config.seed);
            // Heat maps and the gallery fill in as each run's q is trained, not at the end.
            config.onComparison = [&](const DecisionComparison& c, const at::Tensor& testImages) {
                sendComparison(reporter, c, data, config.costs, testImages, s.experiment, "sgld_s");
            };
            auto result = runCorruptionExperiment(data, config, reporter.context(cancelToken()));
            reporter.flush();
            const auto preview = notePreview(choices, result.seconds, data.train.size(), data.test.size(), result.record);
            emitView(&ImageJobRunner::summary, summaryView(result));
            emitView(&ImageJobRunner::trainingTime, TrainingTimeView{});
            Q_EMIT logMessage(QString::fromStdString(corruptionTable(result) + preview).trimmed());
            json = QString::fromStdString(corruptionJson(result));
            csv = QString::fromStdString(corruptionCsv(result));
            keepCache(s, data, result.cache, config.costs);
        } else {
            auto config = selectiveConfigFor(choices, data);
            // The window's matrix without its referral column is the base the referral
            // costs are added to.
            CostMatrix base = costsFor(costs, config.baseCosts, data);
            base.setReferral(std::nullopt);
            config.baseCosts = base;
            if (m_hooks && m_hooks->tuneSelective)
                m_hooks->tuneSelective(config);
            setThreads(s);
            emitView(&ImageJobRunner::dataReady, info(data, s.experiment, config.model, config.baseCosts));
            Q_EMIT logMessage(tr("Selective classification on %1 (rotated ±%2°): %3 training, %4 test images; %5; "
                                 "%6 referral cost(s) x %7 trial(s)")
                                  .arg(QString::fromStdString(data.name)).arg(config.maxRotationDegrees)
                                  .arg(data.train.size()).arg(data.test.size())
                                  .arg(QString::fromStdString(config.model.describe()))
                                  .arg(config.referralCosts.size()).arg(config.trials));
            Reporter reporter(this, QString::fromLatin1(kSelectiveExperiment));
            reporter.setPlan(selectivePlan(config));
            config.onNetwork = networkSink(networks, s, data, config.seed);
            // Live, with the trial's own rotated test images (what the networks decided on).
            config.onComparison = [&](const DecisionComparison& c, const at::Tensor& testImages) {
                sendComparison(reporter, c, data, selectiveCosts(config.baseCosts, c.rate), testImages, s.experiment,
                               "sghmc");
            };
            auto result = runSelectiveExperiment(data, config, reporter.context(cancelToken()));
            reporter.flush();
            const auto preview = notePreview(choices, result.seconds, data.train.size(), data.test.size(), result.record);
            emitView(&ImageJobRunner::summary, summaryView(result));
            emitView(&ImageJobRunner::trainingTime, trainingTimeView(result));
            emitView(&ImageJobRunner::riskCoverage, riskCoverageView(result));
            Q_EMIT logMessage(QString::fromStdString(selectiveTable(result) + preview).trimmed());
            json = QString::fromStdString(selectiveJson(result));
            csv = QString::fromStdString(selectiveCsv(result));
            keepCache(s, data, result.cache,
                      selectiveCosts(config.baseCosts, result.cache ? result.cache->rate : config.referralCosts.back()));
        }
        keepNetworks(networks, s.experiment);
    }

    /// Decides the test images of the request's data with an exported classifier.
    void evaluateModel(const ImageModelRequest& r, const CostMatrix& costs, QString& json, QString& csv)
    {
        const ImageDataset& data = loadData(runChoices(r.data));
        throwIfCancelled();
        ProgressChannel channel(this, tr("model evaluation"));
        channel.setPlan({{TaskIdentity{"evaluate", std::nullopt, 0}, 1.0}});
        const auto e = evaluateImageModel(r.path.toStdString(), data, costs, channel.context(cancelToken()));
        channel.flush();
        const QString matrix = e.sidecarCosts ? tr("its sidecar's cost matrix (the window's has %1 classes)")
                                                    .arg(costs.numClasses())
                                              : tr("the window's cost matrix");
        // The selective experiment rotates its test images per trial; these are as loaded.
        const QString images = r.data.isSelective() ? tr("test images (as loaded, not rotated)") : tr("test images");
        Q_EMIT logMessage(tr("%1 (%2, %3) on the %4 %5 of %6 under %7: %8")
                              .arg(r.path, QString::fromStdString(e.info.method.empty() ? "?" : e.info.method),
                                   QString::fromStdString(e.info.architecture))
                              .arg(e.metrics.count)
                              .arg(images, QString::fromStdString(e.dataset), matrix,
                                   QString::fromStdString(imageModelEvaluationText(e))));
        json = QString::fromStdString(imageModelEvaluationJson(e));
        csv = QString::fromStdString(imageModelEvaluationCsv(e));
    }

    /// One run's comparison of S (the `uncorrected` method) with q, after the curves that
    /// led to it.
    void sendComparison(Reporter& reporter, const DecisionComparison& c, const ImageDataset& data,
                        const CostMatrix& costs, const at::Tensor& testImages, const QString& experiment,
                        const char* uncorrected)
    {
        reporter.flush();
        auto v = comparisonView(c, data.classNames, costs, testImages, data.channelMean, data.channelStd);
        v.experiment = experiment;
        v.uncorrectedLabel = imageSeriesLabel(QString::fromLatin1(uncorrected));
        v.uncorrectedMethod = methodIn(QString::fromLatin1(uncorrected), experiment);
        v.correctedLabel = imageSeriesLabel(QStringLiteral("ours"));
        emitView(&ImageJobRunner::comparison, v);
    }

    void keepCache(const ImageRunRequest& s, const ImageDataset& data,
                   std::shared_ptr<const CorrectionCache> cache, const CostMatrix& costs)
    {
        m_cache = std::move(cache);
        if (!m_cache) {
            Q_EMIT logMessage(tr("No student S to re-correct (\"ours\" did not run): a cost edit needs a new run."));
            return;
        }
        m_cacheExperiment = s.experiment;
        m_classNames = data.classNames;
        m_mean = data.channelMean;
        m_std = data.channelStd;
        const QString what = s.isSelective() ? tr("r %1").arg(m_cache->rate) : tr("rate %1").arg(m_cache->rate);
        emitView(&ImageJobRunner::cacheExperimentChanged, s.experiment);
        Q_EMIT cacheReady(tr("Student S of %1, trial %2 cached: editing costs re-trains only q.")
                              .arg(what).arg(m_cache->trial + 1),
                          costs);
    }

    void recorrectCached(const CostMatrix& costs)
    {
        if (!m_cache)
            throw std::runtime_error("no student S cached: run the experiment (with \"ours\") first");
        CostMatrix named = costs;
        if (named.numClasses() == static_cast<int>(m_classNames.size()))
            named.setClassNames(m_classNames);
        const bool selective = m_cacheExperiment == QLatin1String(kSelectiveExperiment);
        // The correction reports only "epoch N": its curve joins the cached run's.
        const std::string run = selective ? "trial " + std::to_string(m_cache->trial + 1)
                                          : "rate " + settingText(m_cache->rate) + ", trial " +
                                                std::to_string(m_cache->trial + 1);
        const TaskIdentity task{"ours", m_cache->rate, m_cache->trial};
        Reporter reporter(this, tr("re-correction"), QString::fromStdString(run),
                          QString::fromLatin1(kRecorrectedSeries));
        reporter.setPlan({{task, 1.0}});
        Q_EMIT logMessage(tr("Re-training q for the new costs from the cached S (nothing re-sampled)"));
        const auto r = recorrect(*m_cache, named, reporter.context(cancelToken()));
        reporter.flush();
        auto v = comparisonView(r.comparison, m_classNames, named, m_cache->testImages, m_mean, m_std);
        v.experiment = m_cacheExperiment;
        v.recorrected = true;
        v.seconds = r.seconds;
        v.collapsed = r.collapsed;
        v.uncorrectedLabel = selective ? tr("S (SGHMC student)") : imageSeriesLabel(QStringLiteral("sgld_s"));
        v.uncorrectedMethod = methodIn(selective ? QStringLiteral("sghmc_s") : QStringLiteral("sgld_s"), m_cacheExperiment);
        v.correctedLabel = imageSeriesLabel(QStringLiteral("ours"));
        ++recorrections;
        // Export Model saves the q the window shows: the new one replaces the run's file.
        if (m_networks && m_networkWriter && r.q) {
            TrainedNetwork n;
            n.network = "ours";
            n.settingName = selective ? "r" : "rate";
            n.setting = m_cache->rate;
            n.trial = m_cache->trial;
            n.model = r.q.get();
            n.spec = &m_cache->spec;
            n.costs = &named;
            n.collapsed = r.collapsed;
            m_networkWriter->write(n, m_networks->path().toStdString());
        }
        emitView(&ImageJobRunner::comparison, v);
        Q_EMIT logMessage(tr("Re-correction: q trained in %1 s; test cost %2 -> %3, %4 decision(s) changed%5")
                              .arg(r.seconds, 0, 'f', 2).arg(v.costBefore, 0, 'f', 4).arg(v.costAfter, 0, 'f', 4)
                              .arg(v.changedCount)
                              .arg(r.collapsed ? tr(" (warning: q collapsed to one class)") : QString()));
    }

    std::shared_ptr<const ImageJobHooks> m_hooks;
    ImageDataset m_data;
    QString m_dataKey;
    std::shared_ptr<const CorrectionCache> m_cache;
    QString m_cacheExperiment;
    std::vector<std::string> m_classNames;
    std::vector<double> m_mean, m_std;
    std::unique_ptr<QTemporaryDir> m_networks;  ///< the last finished run's model files
    std::vector<std::string> m_networkFiles;
    std::optional<ImageNetworkWriter> m_networkWriter;
};

ImageJobRunner::ImageJobRunner(QObject* parent, std::shared_ptr<const ImageJobHooks> hooks)
    : JobRunner(new ImageWorker(std::move(hooks)), QStringLiteral("lcs-image-jobs"), parent)
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
