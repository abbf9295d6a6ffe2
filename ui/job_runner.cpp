#include "job_runner.h"

#include <chrono>
#include <map>
#include <mutex>

#include <torch/torch.h>

#include "decision/decisions.h"
#include "experiments/synthetic_experiment.h"
#include "experiments/synthetic_report.h"
#include "io/model_io.h"
#include "worker_thread.h"

namespace lcs::ui {

namespace {

using Clock = WorkerClock;

SyntheticConfig toConfig(const ExperimentSettings& s, const CostMatrix& costs)
{
    SyntheticConfig c;
    c.replicates = s.replicates;
    c.methods.clear();
    for (const auto& name : s.methods) {
        auto m = parseMethod(name.toStdString());
        if (!m)
            throw std::invalid_argument("unknown inference method \"" + name.toStdString() + "\"");
        c.methods.push_back(*m);
    }
    c.seed = s.seed;
    c.threads = std::max(1, s.threads);
    c.correction.iterations = s.correctionIterations;
    c.gridResolution = s.gridResolution;
    c.device = s.device.toStdString();
    c.costs = costs;
    return c;
}

QVector<QPointF> points(const at::Tensor& x)
{
    auto c = x.contiguous().to(at::kFloat);
    const float* p = c.data_ptr<float>();
    QVector<QPointF> out(static_cast<int>(c.size(0)));
    for (int i = 0; i < out.size(); ++i)
        out[i] = QPointF(p[2 * i], p[2 * i + 1]);
    return out;
}

QVector<int> ints(const at::Tensor& t)
{
    auto c = t.contiguous().to(at::kLong);
    const int64_t* p = c.data_ptr<int64_t>();
    QVector<int> out(static_cast<int>(c.numel()));
    for (int i = 0; i < out.size(); ++i)
        out[i] = static_cast<int>(p[i]);
    return out;
}

RegionGrid regionGrid(const SyntheticConfig& config, const at::Tensor& probs, const at::Tensor& costs)
{
    RegionGrid g;
    g.resolution = config.gridResolution;
    g.xMin = g.yMin = config.data.boxMin;
    g.xMax = g.yMax = config.data.boxMax;
    g.numDecisions = static_cast<int>(costs.size(1));
    g.decisions = ints(bayesDecisions(probs, costs));
    return g;
}

TaskView baseView(const SyntheticConfig& config, const SyntheticPredictive& p, const at::Tensor& costs)
{
    TaskView v;
    v.replicate = p.replicate;
    v.method = QString::fromStdString(methodName(p.method));
    v.train = points(p.data.trainX);
    v.trainLabels = ints(p.data.trainY);
    v.calibration = points(p.data.calibrationX);
    v.test = points(p.data.testX);
    v.testLabels = ints(p.data.testY);
    v.testDecisionsUncorrected = ints(bayesDecisions(p.testProbs, costs));
    if (p.gridProbs.defined())
        v.uncorrected = regionGrid(config, p.gridProbs, costs);
    return v;
}

/// Per-task completion fractions -> one fraction for the whole phase.
class PhaseProgress {
public:
    PhaseProgress(size_t tasks, double from, double to) : m_tasks(tasks), m_from(from), m_to(to) {}
    double update(const std::string& task, double fraction)
    {
        m_parts[task] = fraction;
        double sum = 0;
        for (const auto& [k, v] : m_parts)
            sum += v;
        return m_from + (m_to - m_from) * std::min(1.0, sum / std::max<size_t>(1, m_tasks));
    }

private:
    size_t m_tasks;
    double m_from, m_to;
    std::map<std::string, double> m_parts;
};

} // namespace

/// Lives on the runner's thread. Owns the cache of posterior predictives and the last
/// corrections; everything it sends out is plain data.
class SyntheticWorker : public QObject {
    Q_OBJECT
public:
    explicit SyntheticWorker(CancelToken* cancel) : m_cancel(cancel) {}

    std::atomic<int> inferenceRuns{0};

public Q_SLOTS:
    void run(lcs::ui::JobRunner::Job job, const lcs::ui::ExperimentSettings& settings, const lcs::CostMatrix& costs)
    {
        const auto start = Clock::now();
        QString json, csv;
        const JobEnding ending = runGuarded([&] {
            SyntheticConfig config = toConfig(settings, costs);
            config.costs.validateFor(2);
            const auto L = costTensor(costs);
            const bool sampling = job != JobRunner::Job::Correct;
            const bool correcting = job != JobRunner::Job::Sample;
            const double sampleShare = correcting ? 0.85 : 1.0;
            if (sampling) {
                Q_EMIT logMessage(tr("Sampling %1 replicate(s) x %2 method(s) on %3 thread(s)")
                                      .arg(config.replicates).arg(config.methods.size()).arg(config.threads));
                PhaseProgress phase(static_cast<size_t>(config.replicates) * config.methods.size(), 0.0, sampleShare);
                auto predictives = sampleAll(config, progressContext(phase, tr("sampling")));
                inferenceRuns += static_cast<int>(predictives.size());
                m_cache = std::move(predictives);
                m_cacheConfig = config;
                for (const auto& p : m_cache)
                    Q_EMIT taskUpdated(baseView(config, p, L));
                Q_EMIT posteriorReady(settings);
                Q_EMIT logMessage(tr("Posterior sampled in %1 s").arg(secondsSince(start), 0, 'f', 2));
            }
            if (correcting) {
                if (m_cache.empty())
                    throw std::runtime_error("no posterior yet: run sampling first (Run > Sample)");
                // The cached posterior fixes data, replicates and methods; the correction
                // settings and the costs come from this request.
                SyntheticConfig cc = m_cacheConfig;
                cc.costs = costs;
                cc.correction.iterations = config.correction.iterations;
                cc.threads = config.threads;
                cc.device = config.device;
                const auto correctionStart = Clock::now();
                Q_EMIT logMessage(tr("Correcting %1 cached predictive(s)").arg(m_cache.size()));
                PhaseProgress phase(m_cache.size(), sampling ? sampleShare : 0.0, 1.0);
                const auto grid = syntheticGrid(cc.data, cc.gridResolution);
                std::mutex emitMutex;
                std::vector<ReplicateOutcome> outcomes(m_cache.size());
                auto observers = [&](const SyntheticPredictive& p) -> CorrectionObserver {
                    auto last = std::make_shared<Clock::time_point>(Clock::time_point{});
                    auto view = std::make_shared<TaskView>(baseView(cc, p, L));
                    return [this, last, view, &cc, &grid, &L](const CorrectionStep& s, MlpImpl& q) {
                        view->curve.push_back({s.step, s.loss, s.kl, s.expectedCost});
                        const auto now = Clock::now();
                        if (now - *last < kEmitInterval)
                            return;
                        *last = now;
                        view->corrected = regionGrid(cc, predictProbabilities(q, grid), L);
                        Q_EMIT taskUpdated(*view);
                    };
                };
                m_corrections = correctAll(
                    cc, m_cache, costs, progressContext(phase, tr("correcting")), observers,
                    [&](size_t i, const SyntheticCorrection& c) {
                        const auto& p = m_cache[i];
                        outcomes[i] = evaluateSynthetic(p, c, costs);
                        TaskView v = baseView(cc, p, L);
                        v.corrected = regionGrid(cc, c.gridProbs, L);
                        v.testDecisionsCorrected = ints(bayesDecisions(c.testProbs, L));
                        for (const auto& s : c.curve)
                            v.curve.push_back({s.step, s.loss, s.kl, s.expectedCost});
                        v.correctionDone = true;
                        ResultRow row;
                        row.replicate = p.replicate;
                        row.method = v.method;
                        row.uncorrectedCost = outcomes[i].uncorrected.averageCost;
                        row.correctedCost = outcomes[i].corrected.averageCost;
                        row.collapsed = c.collapsed;
                        std::lock_guard<std::mutex> lock(emitMutex);
                        if (c.collapsed)
                            Q_EMIT logMessage(tr("Warning: replicate %1, %2: q collapsed to one class everywhere "
                                                 "(its corrected decisions are shown but should not be trusted)")
                                                  .arg(p.replicate + 1).arg(v.method));
                        Q_EMIT taskUpdated(v);
                        Q_EMIT resultRow(row);
                    });
                m_correctionCosts = costs;
                const double correctionSeconds = secondsSince(correctionStart);
                Q_EMIT logMessage(tr("Correction of %1 model(s) took %2 s (posterior reused, not re-sampled)")
                                      .arg(m_cache.size()).arg(correctionSeconds, 0, 'f', 2));
                const auto result = tabulate(cc, outcomes, secondsSince(start));
                json = QString::fromStdString(syntheticJson(result));
                csv = QString::fromStdString(syntheticCsv(result));
                Q_EMIT logMessage(QString::fromStdString(syntheticTable(result)).trimmed());
            }
        });
        if (!ending.succeeded())
            json.clear(), csv.clear();
        Q_EMIT done(job, secondsSince(start), json, csv, ending.error, ending.cancelled);
    }

    /// Saves the correction network of (replicate, method) and, where one exists, the
    /// MAP network / last posterior sample.
    void saveModel(int replicate, const QString& method, const QString& path)
    {
        try {
            for (size_t i = 0; i < m_cache.size() && i < m_corrections.size(); ++i) {
                const auto& p = m_cache[i];
                if (p.replicate != replicate || QString::fromStdString(methodName(p.method)) != method)
                    continue;
                ModelInfo info;
                info.experiment = "synthetic";
                info.method = method.toStdString();
                info.replicate = replicate;
                info.seed = m_cacheConfig.seed;
                info.costs = m_correctionCosts;
                info.role = "q";
                info.collapsed = m_corrections[i].collapsed;
                saveMlp(m_corrections[i].q, info, path.toStdString());
                QStringList written{path};
                if (auto mlp = std::dynamic_pointer_cast<MlpImpl>(p.model)) {
                    info.role = p.method == InferenceMethod::KfacLaplace ? "map" : "last_sample";
                    info.collapsed = false;
                    QString other = path;
                    if (other.endsWith(".pt"))
                        other.chop(3);
                    other += "_" + QString::fromStdString(info.role) + ".pt";
                    saveMlp(Mlp(mlp), info, other.toStdString());
                    written << other;
                }
                Q_EMIT modelSaved(written.join(", "), QString());
                return;
            }
            Q_EMIT modelSaved(QString(), tr("no corrected model for replicate %1, %2: run the correction first")
                                             .arg(replicate + 1).arg(method));
        } catch (const std::exception& e) {
            Q_EMIT modelSaved(QString(), QString::fromStdString(e.what()));
        }
    }

    /// Loads a saved correction network and decides with it over the plane under `costs`.
    void loadModel(const QString& path, const lcs::CostMatrix& costs, int gridResolution)
    {
        try {
            auto loaded = loadMlp(path.toStdString());
            if (loaded.info.inputs != 2)
                throw std::runtime_error(path.toStdString() + ": the model takes " + std::to_string(loaded.info.inputs)
                                         + " inputs; the synthetic plane has 2");
            costs.validateFor(static_cast<int>(loaded.info.classes));
            SyntheticConfig config;
            config.gridResolution = gridResolution;
            const auto L = costTensor(costs);
            TaskView v;
            v.replicate = loaded.info.replicate;
            v.method = QString::fromStdString(loaded.info.method.empty() ? "loaded" : loaded.info.method);
            v.corrected = regionGrid(config, predictProbabilities(*loaded.model, syntheticGrid(config.data, gridResolution)), L);
            v.correctionDone = true;
            Q_EMIT modelLoaded(v, QString());
        } catch (const std::exception& e) {
            Q_EMIT modelLoaded(TaskView{}, QString::fromStdString(e.what()));
        }
    }

Q_SIGNALS:
    void progress(const lcs::ui::JobProgress& progress);
    void taskUpdated(const lcs::ui::TaskView& view);
    void resultRow(const lcs::ui::ResultRow& row);
    void logMessage(const QString& line);
    void posteriorReady(const lcs::ui::ExperimentSettings& settings);
    void done(lcs::ui::JobRunner::Job job, double seconds, const QString& json, const QString& csv,
              const QString& error, bool cancelled);
    void modelSaved(const QString& paths, const QString& error);
    void modelLoaded(const lcs::ui::TaskView& view, const QString& error);

private:

    /// Engine progress -> throttled JobProgress signals. Called from the engine's worker
    /// threads, so it serialises itself.
    JobContext progressContext(PhaseProgress& phase, const QString& phaseName)
    {
        auto mutex = std::make_shared<std::mutex>();
        auto last = std::make_shared<Clock::time_point>(Clock::time_point{});
        JobContext ctx;
        ctx.cancel = m_cancel;
        ctx.progress = [this, &phase, phaseName, mutex, last](const Progress& p) {
            std::lock_guard<std::mutex> lock(*mutex);
            const double fraction = phase.update(p.detail, p.total > 0 ? double(p.step) / double(p.total) : 0.0);
            const auto now = Clock::now();
            if (now - *last < kEmitInterval && p.step != p.total)
                return;
            *last = now;
            JobProgress jp;
            jp.phase = phaseName + " (" + QString::fromStdString(p.phase) + ")";
            jp.detail = QString::fromStdString(p.detail);
            jp.step = p.step;
            jp.total = p.total;
            jp.fraction = fraction;
            for (const auto& [k, v] : p.training.named())
                jp.figures.push_back({QString::fromStdString(k), v});
            Q_EMIT progress(jp);
        };
        return ctx;
    }

    CancelToken* m_cancel;
    std::vector<SyntheticPredictive> m_cache;
    SyntheticConfig m_cacheConfig;
    std::vector<SyntheticCorrection> m_corrections;
    CostMatrix m_correctionCosts;
};

JobRunner::JobRunner(QObject* parent) : QObject(parent)
{
    qRegisterMetaType<ExperimentSettings>();
    qRegisterMetaType<JobProgress>();
    qRegisterMetaType<TaskView>();
    qRegisterMetaType<ResultRow>();
    qRegisterMetaType<CostMatrix>();
    qRegisterMetaType<JobRunner::Job>();
    m_worker = new SyntheticWorker(&m_cancel);
    m_worker->moveToThread(&m_thread);
    connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
    connect(m_worker, &SyntheticWorker::progress, this, &JobRunner::progress);
    connect(m_worker, &SyntheticWorker::taskUpdated, this, &JobRunner::taskUpdated);
    connect(m_worker, &SyntheticWorker::resultRow, this, &JobRunner::resultRow);
    connect(m_worker, &SyntheticWorker::logMessage, this, &JobRunner::logMessage);
    connect(m_worker, &SyntheticWorker::posteriorReady, this, [this](const ExperimentSettings& s) {
        m_hasPosterior = true;
        m_posteriorSettings = s;
    });
    connect(m_worker, &SyntheticWorker::done, this,
            [this](Job job, double seconds, const QString& json, const QString& csv, const QString& error, bool wasCancelled) {
                m_busy = false;
                if (wasCancelled) {
                    Q_EMIT logMessage(tr("%1 cancelled").arg(jobName(job)));
                    Q_EMIT cancelled(job);
                } else if (!error.isEmpty()) {
                    Q_EMIT logMessage(tr("%1 failed: %2").arg(jobName(job), error));
                    Q_EMIT failed(job, error);
                } else {
                    Q_EMIT finished(job, seconds, json, csv);
                }
            });
    connect(m_worker, &SyntheticWorker::modelSaved, this, &JobRunner::modelSaved);
    connect(m_worker, &SyntheticWorker::modelLoaded, this, &JobRunner::modelLoaded);
    startWorkerThread(m_thread, m_worker, QStringLiteral("lcs-jobs"));
}

JobRunner::~JobRunner()
{
    stopWorkerThread(m_thread, m_cancel);
}

int JobRunner::inferenceRuns() const
{
    return m_worker ? m_worker->inferenceRuns.load() : 0;
}

QString JobRunner::jobName(Job job)
{
    switch (job) {
    case Job::RunAll: return tr("Run (sample + correct)");
    case Job::Sample: return tr("Sampling");
    case Job::Correct: return tr("Correction");
    }
    return {};
}

bool JobRunner::cudaAvailable()
{
    return torch::cuda::is_available();
}

bool JobRunner::start(Job job, const ExperimentSettings& settings, const CostMatrix& costs)
{
    if (m_busy)
        return false;
    m_busy = true;
    m_cancel.reset();
    Q_EMIT started(job);
    QMetaObject::invokeMethod(m_worker, "run", Qt::QueuedConnection, Q_ARG(lcs::ui::JobRunner::Job, job),
                              Q_ARG(lcs::ui::ExperimentSettings, settings), Q_ARG(lcs::CostMatrix, costs));
    return true;
}

void JobRunner::cancel()
{
    if (m_busy)
        m_cancel.cancel();
}

bool JobRunner::saveModel(int replicate, const QString& method, const QString& path)
{
    if (m_busy)
        return false;
    QMetaObject::invokeMethod(m_worker, "saveModel", Qt::QueuedConnection, Q_ARG(int, replicate),
                              Q_ARG(QString, method), Q_ARG(QString, path));
    return true;
}

bool JobRunner::loadModel(const QString& path, const CostMatrix& costs, int gridResolution)
{
    if (m_busy)
        return false;
    QMetaObject::invokeMethod(m_worker, "loadModel", Qt::QueuedConnection, Q_ARG(QString, path),
                              Q_ARG(lcs::CostMatrix, costs), Q_ARG(int, gridResolution));
    return true;
}

} // namespace lcs::ui

#include "job_runner.moc"
