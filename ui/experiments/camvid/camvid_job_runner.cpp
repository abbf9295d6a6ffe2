#include "camvid_job_runner.h"
#include "core/threads.h"
#include "experiments/experiment.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <map>
#include <utility>

#include <ATen/Parallel.h>
#include <torch/utils.h>
#include <c10/util/Exception.h>

#include <QFileInfo>

#include "camvid_reader.h"
#include "core/input_error.h"
#include "experiments/camvid_experiment.h"

#include "camvid_job_hooks.h"
#include "worker_thread.h"

namespace lcs::ui {

namespace {

using Clock = WorkerClock;

/// The ensemble sizes of the frames-per-second plot (paper Fig. 5 right).
const std::vector<int> kEnsembles{1, 2, 5, 10, 20, 30};
constexpr int kFpsFrames = 10;  ///< timed frames per point (fewer are noisy on a shared machine)


QVector<double> toQVector(const std::vector<double>& v)
{
    return QVector<double>(v.begin(), v.end());
}

/// A model folder to evaluate on the validation frames the settings name.
struct CamvidModelRequest {
    QString dir;
    nlohmann::json settings;
};

/// S's and q's figures on the evaluated frames as the IoU views show them.
CamvidIouView iouView(const std::vector<std::string>& classNames, const DecisionMetrics& s, const DecisionMetrics& q,
                      double costAtOptimum, const DecisionChanges& changes, int64_t frames)
{
    CamvidIouView v;
    for (const auto& n : classNames)
        v.classNames << QString::fromStdString(n);
    v.iouBefore = toQVector(s.perClassIoU);
    v.iouAfter = toQVector(q.perClassIoU);
    v.meanIouBefore = s.meanIoU;
    v.meanIouAfter = q.meanIoU;
    v.costBefore = s.averageCost;
    v.costAfter = q.averageCost;
    v.accuracyBefore = s.accuracy;
    v.accuracyAfter = q.accuracy;
    v.expectedBefore = s.expectedCost;
    v.expectedAfter = q.expectedCost;
    v.costAtOptimum = costAtOptimum;
    v.changedShare = changes.points > 0 ? static_cast<double>(changes.changed) / static_cast<double>(changes.points)
                                        : NAN;
    v.frames = frames;
    v.pixels = q.count;
    return v;
}

} // namespace
} // namespace lcs::ui

Q_DECLARE_METATYPE(lcs::ui::CamvidModelRequest)

namespace lcs::ui {

/// Lives on the runner's thread. Owns the last run's CamvidWindowCache; everything it
/// sends out is plain data.
class CamvidWorker : public ExperimentWorker {
    Q_OBJECT
public:
    explicit CamvidWorker(std::shared_ptr<const CamvidJobHooks> hooks)
        : ExperimentWorker(tr("CamVid training"), tr("CamVid re-correction"), tr("Sampling"), tr("CamVid model evaluation")),
          m_hooks(std::move(hooks))
    {
    }

    /// Writes the cached networks as a model folder into `dir`.
    void saveModels(const QString& dir)
    {
        QStringList written;
        QString error;
        const JobEnding ending = runGuarded([&] {
            if (!m_cache)
                throw std::runtime_error("no networks to save: train CamVid first");
            for (const auto& f : saveCamvidWindowModels(*m_cache, dir.toStdString()))
                written << QString::fromStdString(f);
        });
        if (!ending.succeeded())
            written.clear(), error = ending.error;
        emitView(&CamvidJobRunner::modelsSaved, dir, written, error);
    }

protected:
    void execute(JobKind job, const QVariant& settings, const CostMatrix& costs, QString& json, QString& csv) override
    {
        if (job == CamvidJobRunner::kOpenModel) {
            evaluateFolder(settings.value<CamvidModelRequest>(), costs, json, csv);
            return;
        }
        if (job == JobKind::Recorrect)
            recorrect(costs);
        else
            train(settings.value<nlohmann::json>(), costs);
        const auto results = currentResults();
        json = QString::fromStdString(camvidEvalJson(results));
        csv = QString::fromStdString(camvidEvalCsv(results));
    }

private:
    /// The progress channel plus epoch points, evaluated frames and previews.
    class Reporter : public ProgressChannel {
    public:
        Reporter(CamvidWorker* worker, QString prefix, QString seriesSuffix = {})
            : ProgressChannel(worker, std::move(prefix)), m_worker(worker), m_suffix(std::move(seriesSuffix))
        {
            identifyByPhase();
        }
        void addFrame(CamvidFrameView frame)
        {
            std::lock_guard<std::recursive_mutex> lock(m_mutex);
            m_frames.push_back(std::move(frame));
            maybeFlushLocked();
        }
        /// Keeps only the latest preview of a network until the next emission; the last
        /// one of S goes out before q's first replaces it.
        void setPreview(CamvidPreviewView preview)
        {
            std::lock_guard<std::recursive_mutex> lock(m_mutex);
            if (m_hasPreview && m_preview.network != preview.network)
                m_worker->emitView(&CamvidJobRunner::preview, std::exchange(m_preview, {}));
            m_preview = std::move(preview);
            m_hasPreview = true;
            maybeFlushLocked();
        }
        /// A phase the engine does not report (frames per second).
        void phase(const std::string& name, const std::string& detail)
        {
            Progress p;
            p.phase = name;
            p.detail = detail;
            p.total = 1;
            (*this)(p);
            flush();
        }

    protected:
        void collect(const Progress& p) override
        {
            if (!p.test)
                return;
            CamvidEpochPoint e;
            e.series = QString::fromStdString(p.test->model) + m_suffix;
            e.epoch = p.test->epoch;
            e.meanIou = p.test->meanIou.value_or(0.0);
            e.cost = p.test->cost;
            e.accuracy = p.test->accuracy;
            m_epochs.push_back(e);
        }
        void flushViews() override
        {
            if (!m_epochs.isEmpty())
                m_worker->emitView(&CamvidJobRunner::epochPoints, std::exchange(m_epochs, {}));
            if (!m_frames.isEmpty())
                m_worker->emitView(&CamvidJobRunner::frames, std::exchange(m_frames, {}));
            if (m_hasPreview) {
                m_worker->emitView(&CamvidJobRunner::preview, std::exchange(m_preview, {}));
                m_hasPreview = false;
            }
        }

    private:
        CamvidWorker* m_worker;
        QString m_suffix;
        QVector<CamvidEpochPoint> m_epochs;
        QVector<CamvidFrameView> m_frames;
        CamvidPreviewView m_preview;
        bool m_hasPreview = false;
    };

    /// Refuses a missing folder or one without the train (where `training`) and
    /// evaluation splits, naming the path, before anything is dropped or trained.
    static void checkData(const CamvidWindowConfig& config, bool training = true)
    {
        const QString dir = QString::fromStdString(config.train.data);
        if (dir.trimmed().isEmpty())
            throw DataUnavailable("no CamVid folder given (set the data folder, --data or LCS_CAMVID_DIR)");
        if (!QFileInfo(dir).isDir())
            throw DataUnavailable(config.train.data + ": no such folder (expected CamVid's train/, trainannot/, " +
                                  config.evalSplit + "/ and " + config.evalSplit + "annot/)");
        try {
            if (training)
                findCamvidSplit(config.train.data, config.train.split);
            findCamvidSplit(config.train.data, config.evalSplit);
        } catch (const InputError& e) {
            throw DataUnavailable(e.what());
        }
    }

    /// A preview as plain data for the GUI thread (QImages own their pixels).
    static CamvidPreviewView previewView(const CamvidPreview& p)
    {
        CamvidPreviewView v;
        v.network = QString::fromStdString(p.network);
        v.epoch = p.epoch;
        v.recorrection = p.recorrection;
        for (const auto& f : p.frames)
            v.frames.push_back(frameView(f));
        return v;
    }

    static CamvidPreviewSink previewSink(Reporter& reporter)
    {
        return [&reporter](const CamvidPreview& p) { reporter.setPreview(previewView(p)); };
    }

    static CamvidFrameView frameView(const CamvidVisitedFrame& f)
    {
        CamvidFrameView v;
        v.index = static_cast<int>(f.index);
        v.name = QString::fromStdString(f.name);
        v.frame = QImage(f.width, f.height, QImage::Format_RGB888);
        for (int r = 0; r < f.height; ++r)  // QImage rows are padded to 4 bytes
            std::memcpy(v.frame.scanLine(r), f.rgb.data() + size_t(r) * size_t(f.width) * 3, size_t(f.width) * 3);
        v.truth = QVector<quint8>(f.truth.begin(), f.truth.end());
        v.uncorrected = QVector<quint8>(f.uncorrected.begin(), f.uncorrected.end());
        v.corrected = QVector<quint8>(f.corrected.begin(), f.corrected.end());
        return v;
    }

    /// Streams the validation frames to the viewer and sends the IoU comparison.
    CamvidIouView evaluate(bool recorrected, double correctionSeconds)
    {
        Reporter reporter(this, recorrected ? tr("re-correction") : tr("evaluation"));
        reporter.setPlan({{TaskIdentity{"eval", std::nullopt, 0}, 1.0}});
        auto pairs = findCamvidSplit(m_cache->data, m_cache->evalSplit);
        const int count = static_cast<int>(m_cache->maxEvalFrames > 0
                                                ? std::min<int64_t>(m_cache->maxEvalFrames, int64_t(pairs.size()))
                                                : int64_t(pairs.size()));
        emitView(&CamvidJobRunner::evaluationStarted, count);
        const auto result = evaluateCamvidWindow(
            *m_cache, [&](const CamvidVisitedFrame& f) { reporter.addFrame(frameView(f)); }, reporter.context(cancelToken()));
        reporter.flush();
        m_lastComparison = result;
        CamvidIouView v = iouView(result.classNames, result.uncorrected, result.corrected, result.optimum.averageCost,
                                  result.changes, result.frames);
        v.recorrected = recorrected;
        v.correctionSeconds = correctionSeconds;
        sendComparison(v);
        return v;
    }

    void sendComparison(const CamvidIouView& v)
    {
        emitView(&CamvidJobRunner::comparison, v);
        Q_EMIT logMessage(tr("Validation (%1 frames, void ignored): mIoU %2 -> %3, decision cost %4 -> %5 "
                             "(S uncorrected -> q corrected); q changed %6% of S's decisions; S decided at the "
                             "correction's optimum: cost %7")
                              .arg(v.frames).arg(v.meanIouBefore, 0, 'f', 4).arg(v.meanIouAfter, 0, 'f', 4)
                              .arg(v.costBefore, 0, 'f', 4).arg(v.costAfter, 0, 'f', 4)
                              .arg(100.0 * v.changedShare, 0, 'f', 2).arg(v.costAtOptimum, 0, 'f', 4));
    }

    /// Checks a model folder and evaluates it as `camvid eval` does, on the validation
    /// frames the settings name; where it holds S and q, the viewer and the IoU views show
    /// them as after a run.
    void evaluateFolder(const CamvidModelRequest& r, const CostMatrix& costs, QString& json, QString& csv)
    {
        CamvidWindowChoices s;
        applySettings(camvidWindowSettings(), r.settings, s);
        auto config = camvidWindowConfigFor(s);
        if (m_hooks && m_hooks->tuneConfig)
            m_hooks->tuneConfig(config);
        checkData(config, /*training=*/false);
        const std::string dir = r.dir.toStdString();
        const auto description = QString::fromStdString(checkCamvidModelFolder(dir));
        Q_EMIT logMessage(description);
        emitView(&CamvidJobRunner::modelEvaluationStarted, r.dir, description);
        setThreads();
        CamvidEvalConfig ec;
        ec.data = config.train.data;
        ec.split = config.evalSplit;
        ec.modelDir = dir;
        ec.costs = costs;
        ec.maxFrames = config.maxEvalFrames;
        ec.device = config.train.device;
        auto pairs = findCamvidSplit(ec.data, ec.split);
        const int count = static_cast<int>(ec.maxFrames > 0 ? std::min<int64_t>(ec.maxFrames, int64_t(pairs.size()))
                                                             : int64_t(pairs.size()));
        Reporter reporter(this, tr("model evaluation"));
        reporter.setPlan({{TaskIdentity{"eval", std::nullopt, 0}, 1.0}});
        bool viewerStarted = false;
        const auto result = evaluateCamvid(ec, reporter.context(cancelToken()), [&](const CamvidVisitedFrame& f) {
            if (!std::exchange(viewerStarted, true))
                emitView(&CamvidJobRunner::evaluationStarted, count);
            reporter.addFrame(frameView(f));
        });
        reporter.flush();
        const CamvidMethodMetrics *student = nullptr, *q = nullptr, *optimum = nullptr;
        for (const auto& row : result.rows) {
            if (row.method == "sghmc_s")
                (row.rule == "correction_optimum" ? optimum : student) = &row;
            else if (row.method == "ours")
                q = &row;
        }
        if (student && q && optimum && result.studentToCorrected)
            sendComparison(iouView(result.classNames, student->metrics, q->metrics, optimum->metrics.averageCost,
                                   *result.studentToCorrected, result.frames));
        Q_EMIT logMessage(QString::fromStdString(camvidEvalTable(result)).trimmed());
        json = QString::fromStdString(camvidEvalJson(result));
        csv = QString::fromStdString(camvidEvalCsv(result));
    }

    /// The last evaluation in CamVid's one results format (the CLI's `camvid eval` writes
    /// the same), with the run's costs, settings, seed and frames per second.
    CamvidEvalResult currentResults() const
    {
        return camvidWindowResults(m_lastComparison, m_lastConfig, *m_cache, m_lastFps);
    }

    /// The CamVid run's threads by the policy of every route (runThreads: one core stays
    /// with the GUI thread), set on this thread, where the engine runs.
    static void setThreads()
    {
        configureThreads(runThreads(ExperimentRegistry::global().get(kCamvidExperiment), nlohmann::json::object(),
                                    CoreShare::LeaveOneForGui));
        keepFrameBuffers();
    }

    void train(const nlohmann::json& settings, const CostMatrix& costs)
    {
        CamvidWindowChoices s;
        applySettings(camvidWindowSettings(), settings, s);
        auto config = camvidWindowConfigFor(s);
        config.train.costs = camvidDecisionCosts(costs);  // refuses a matrix of the wrong size first
        if (m_hooks && m_hooks->tuneConfig)
            m_hooks->tuneConfig(config);
        checkData(config);
        // From here on the previous run is replaced.
        m_cache.reset();
        Q_EMIT cacheDropped();
        ++runs;
        emitView(&CamvidJobRunner::trainingStarted);
        setThreads();
        // SegNet's dropout draws from LibTorch's global generator, not the job's: seed it
        // so that the same settings give the same run.
        torch::manual_seed(s.seed);
        const auto& t = config.train;
        Q_EMIT logMessage(tr("CamVid from %1: up to %2 training frames at %3x%4, %5; CW-SGD %6 epochs, SGHMC + S %7 "
                             "epochs, q %8 epochs%9")
                              .arg(QString::fromStdString(s.data)).arg(t.maxFrames).arg(t.width).arg(t.height)
                              .arg(QString::fromStdString(t.model.architecture)).arg(t.sgd.epochs).arg(t.sghmc.epochs)
                              .arg(t.correction.epochs).arg(config.trainMcDropout ? tr(", MC dropout too") : QString()));
        Reporter reporter(this, tr("CamVid"));
        reporter.setPlan(camvidWindowPlan(config, /*withFps=*/true));
        config.preview = previewSink(reporter);
        auto run = trainCamvidWindow(config, reporter.context(cancelToken()));
        reporter.flush();
        m_cache = run.cache;
        for (const auto& [m, sec] : run.seconds)
            Q_EMIT logMessage(tr("  %1: %2 s").arg(QString::fromStdString(m), -10).arg(sec, 0, 'f', 1));
        if (run.collapsed)
            Q_EMIT logMessage(tr("Warning: q collapsed to one decision on the unlabelled frames."));
        Q_EMIT cacheReady(tr("S and %1 unlabelled frames cached: editing costs re-trains only q.").arg(run.trainFrames),
                          costs);
        evaluate(false, run.seconds.back().second);
        reporter.phase("fps", "ensembles 1..30");
        auto& ensembleNet = m_cache->mcDropout ? *m_cache->mcDropout : *m_cache->student;
        const auto fps = camvidFramesPerSecond(ensembleNet, *m_cache->q, m_cache->costs, m_cache->height,
                                               m_cache->width, kEnsembles, kFpsFrames, m_cache->device);
        CamvidFpsView f;
        for (const auto& p : fps.points) {
            f.ensembles << p.ensemble;
            f.ensembleFps << p.ensembleFps;
        }
        f.qFps = fps.qFps;
        f.rawFps = fps.rawFps;
        f.width = fps.width;
        f.height = fps.height;
        f.ensembleLabel = m_cache->mcDropout ? tr("MC dropout, k passes") : tr("k dropout passes of S (ensemble cost)");
        f.ensembleMethod = m_cache->mcDropout ? QStringLiteral("mc_dropout") : QStringLiteral("sghmc_s");
        emitView(&CamvidJobRunner::framesPerSecond, f);
        Q_EMIT logMessage(QString::fromStdString(camvidFpsTable(fps)).trimmed());
        m_lastFps = fps;
        m_lastConfig = config;
        m_lastConfig.preview = nullptr;  // holds this job's reporter
    }

    void recorrect(const CostMatrix& costs)
    {
        if (!m_cache)
            throw std::runtime_error("no S cached: train CamVid first");
        Reporter reporter(this, tr("re-correction"), QStringLiteral(", re-corrected"));
        reporter.setPlan({{TaskIdentity{"correction", std::nullopt, 0}, 1.0}});
        Q_EMIT logMessage(tr("Re-training q for the new costs from the cached S (nothing else retrained)"));
        const auto r = recorrectCamvid(*m_cache, costs, reporter.context(cancelToken()), previewSink(reporter));
        reporter.flush();
        ++recorrections;
        Q_EMIT logMessage(tr("Re-correction: q trained in %1 s%2").arg(r.seconds, 0, 'f', 2)
                              .arg(r.collapsed ? tr(" (warning: q collapsed to one decision)") : QString()));
        evaluate(true, r.seconds);
    }

    std::shared_ptr<const CamvidJobHooks> m_hooks;
    std::shared_ptr<CamvidWindowCache> m_cache;
    CamvidFpsResult m_lastFps;
    CamvidComparison m_lastComparison;
    CamvidWindowConfig m_lastConfig;
};

CamvidJobRunner::CamvidJobRunner(QObject* parent, std::shared_ptr<const CamvidJobHooks> hooks)
    : JobRunner(new CamvidWorker(std::move(hooks)), QStringLiteral("lcs-camvid-jobs"), parent)
{
    qRegisterMetaType<nlohmann::json>();
    qRegisterMetaType<QVector<CamvidEpochPoint>>();
    qRegisterMetaType<QVector<CamvidFrameView>>();
    qRegisterMetaType<CamvidPreviewView>();
    qRegisterMetaType<CamvidIouView>();
    qRegisterMetaType<CamvidFpsView>();
    qRegisterMetaType<CamvidModelRequest>();
}

bool CamvidJobRunner::start(Job job, const nlohmann::json& settings, const CostMatrix& costs)
{
    return JobRunner::start(job, QVariant::fromValue(settings), costs);
}

bool CamvidJobRunner::saveModels(const QString& dir)
{
    if (isBusy() || !hasCache())
        return false;
    auto* worker = workerAs<CamvidWorker>();
    QMetaObject::invokeMethod(worker, [worker, dir] { worker->saveModels(dir); }, Qt::QueuedConnection);
    return true;
}

bool CamvidJobRunner::openModels(const QString& dir, const nlohmann::json& settings, const CostMatrix& costs)
{
    return JobRunner::start(kOpenModel, QVariant::fromValue(CamvidModelRequest{dir, settings}), costs);
}

} // namespace lcs::ui

#include "camvid_job_runner.moc"
