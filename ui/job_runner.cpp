#include "ui/job_runner.h"

#include <utility>

#include "engine/core/threads.h"
#include "engine/experiments/experiment.h"

namespace lcs::ui {

// ---------------------------------------------------------------------------------------
// ExperimentWorker

ExperimentWorker::ExperimentWorker(QString runName, QString recorrectName, QString sampleName, QString evaluateName)
    : m_runName(std::move(runName)), m_recorrectName(std::move(recorrectName)), m_sampleName(std::move(sampleName)),
      m_evaluateName(std::move(evaluateName))
{
}

QString ExperimentWorker::jobName(JobKind job) const
{
    switch (job) {
    case JobKind::Run: return m_runName;
    case JobKind::Sample: return m_sampleName;
    case JobKind::Recorrect: return m_recorrectName;
    case JobKind::Evaluate: return m_evaluateName;
    }
    return {};
}

void ExperimentWorker::run(int job, const QVariant& settings, const CostMatrix& costs)
{
    const auto start = WorkerClock::now();
    QString json, csv;
    const JobEnding ending = runGuarded([&] { execute(static_cast<JobKind>(job), settings, costs, json, csv); });
    if (!ending.succeeded())
        json.clear(), csv.clear();
    Q_EMIT done(job, secondsSince(start), json, csv, ending.error, ending.cancelled, ending.dataUnavailable);
}

// ---------------------------------------------------------------------------------------
// ProgressChannel

ProgressChannel::ProgressChannel(ExperimentWorker* worker, QString phasePrefix)
    : m_worker(worker), m_prefix(std::move(phasePrefix))
{
}

void ProgressChannel::setPlan(const TaskPlan& plan, PlanProgress::Order order)
{
    std::lock_guard<std::recursive_mutex> lock(m_mutex);
    m_plan.setPlan(plan, order);
}

void ProgressChannel::operator()(const Progress& p)
{
    std::lock_guard<std::recursive_mutex> lock(m_mutex);
    collect(p);
    if (!p.test) {
        m_last = p;
        m_hasLast = true;
        m_plan.report(p);
    }
    maybeFlushLocked();
}

void ProgressChannel::maybeFlushLocked()
{
    if (WorkerClock::now() - m_lastEmit >= kEmitInterval)
        flushLocked();
}

void ProgressChannel::flush()
{
    std::lock_guard<std::recursive_mutex> lock(m_mutex);
    flushLocked();
}

void ProgressChannel::flushLocked()
{
    m_lastEmit = WorkerClock::now();
    flushViews();
    if (!m_hasLast)
        return;
    JobProgress jp;
    jp.phase = m_prefix + QStringLiteral(" (") + QString::fromStdString(m_last.phase) + QStringLiteral(")");
    jp.detail = QString::fromStdString(m_last.detail);
    jp.step = m_last.step;
    jp.total = m_last.total;
    jp.fraction = m_plan.fraction();
    for (const auto& [k, v] : m_last.training.named())
        jp.figures.push_back({QString::fromStdString(k), v});
    Q_EMIT m_worker->progress(jp);
    m_hasLast = false;
}

JobContext ProgressChannel::context(const CancelToken* cancel)
{
    JobContext ctx;
    ctx.cancel = cancel;
    ctx.progress = [this](const Progress& p) { (*this)(p); };
    ctx.plan = [this](const TaskPlan& plan, PlanProgress::Order order) { setPlan(plan, order); };
    // A run's notes join the log (signals are thread-safe; the log is the GUI thread's).
    ctx.note = [this](NoteKind kind, const std::string& line) {
        Q_EMIT m_worker->logMessage((kind == NoteKind::Warning ? QStringLiteral("Warning: ") : QString()) +
                                    QString::fromStdString(line));
    };
    return ctx;
}

// ---------------------------------------------------------------------------------------
// JobRunner

JobRunner::JobRunner(ExperimentWorker* worker, const QString& threadName, QObject* parent)
    : QObject(parent), m_worker(worker)
{
    qRegisterMetaType<JobProgress>();
    qRegisterMetaType<CostMatrix>();
    qRegisterMetaType<JobKind>();
    qRegisterMetaType<nlohmann::json>();
    m_worker->attach(&m_cancel, this);
    m_worker->moveToThread(&m_thread);
    connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
    connect(m_worker, &ExperimentWorker::progress, this, &JobRunner::progress);
    connect(m_worker, &ExperimentWorker::logMessage, this, &JobRunner::logMessage);
    connect(m_worker, &ExperimentWorker::cacheReady, this, [this](const QString& description, const CostMatrix& costs) {
        m_hasCache = true;
        Q_EMIT cacheReady(description, costs);
    });
    connect(m_worker, &ExperimentWorker::cacheDropped, this, [this] { m_hasCache = false; });
    connect(m_worker, &ExperimentWorker::done, this,
            [this](int jobValue, double seconds, const QString& json, const QString& csv, const QString& error,
                   bool wasCancelled, bool dataUnavailable) {
                const auto job = static_cast<Job>(jobValue);
                m_busy = false;
                if (wasCancelled) {
                    Q_EMIT logMessage(tr("%1 cancelled").arg(jobName(job)));
                    Q_EMIT cancelled(job);
                } else if (!error.isEmpty()) {
                    Q_EMIT logMessage(tr("%1 failed: %2").arg(jobName(job), error));
                    Q_EMIT failed(job, error, dataUnavailable);
                } else {
                    Q_EMIT finished(job, seconds, json, csv);
                }
            });
    startWorkerThread(m_thread, m_worker, threadName);
}

JobRunner::~JobRunner()
{
    stopWorkerThread(m_thread, m_cancel);
}

QString JobRunner::jobName(Job job) const
{
    return m_worker->jobName(job);
}

bool JobRunner::cudaAvailable()
{
    return lcs::cudaAvailable();
}

bool JobRunner::start(Job job, const QVariant& settings, const CostMatrix& costs)
{
    if (m_busy)
        return false;
    m_busy = true;
    m_cancel.reset();
    Q_EMIT started(job);
    ExperimentWorker* worker = m_worker;
    QMetaObject::invokeMethod(
        worker, [worker, job, settings, costs] { worker->run(static_cast<int>(job), settings, costs); },
        Qt::QueuedConnection);
    return true;
}

void JobRunner::cancel()
{
    if (m_busy)
        m_cancel.cancel();
}

// ---------------------------------------------------------------------------------------
// ExperimentJobRunner

namespace {

/// The worker of ExperimentJobRunner (and of nothing else: its views are that runner's).
class RegistryWorker : public ExperimentWorker {
public:
    explicit RegistryWorker(const Experiment& experiment)
        : ExperimentWorker(QString::fromStdString(experiment.name())), m_experiment(experiment)
    {
    }

protected:
    void execute(JobKind job, const QVariant& settings, const CostMatrix& costs, QString& json,
                 QString& csv) override;

private:
    const Experiment& m_experiment;
    std::shared_ptr<RecorrectionState> m_cache;
};

void RegistryWorker::execute(JobKind job, const QVariant& settings, const CostMatrix& costs, QString& json,
                             QString& csv)
{
    ProgressChannel channel(this, QString::fromStdString(m_experiment.name()));
    ExperimentOutput output;
    if (job == JobKind::Recorrect) {
        if (!m_cache)
            throw std::runtime_error("nothing cached to re-correct: run " + m_experiment.name() + " first");
        Q_EMIT logMessage(tr("Re-training q for the new costs on the cached run (nothing re-sampled)"));
        output = m_cache->recorrect(costs, channel.context(cancelToken()));
        ++recorrections;
    } else {
        // Bad settings leave the cached run as it was.
        const auto values = checkedSettings(m_experiment.settings(), settings.value<nlohmann::json>(),
                                            m_experiment.name() + " settings");
        m_cache.reset();
        Q_EMIT cacheDropped();
        ++runs;
        auto run = runExperiment(m_experiment, values,
                                 costs.numClasses() > 0 ? std::optional<CostMatrix>(costs) : std::nullopt,
                                 channel.context(cancelToken()), {}, CoreShare::LeaveOneForGui);
        output = std::move(run.output);
        m_cache = std::move(run.cache);
        if (m_cache)
            Q_EMIT cacheReady(QString::fromStdString(m_cache->describe()), m_cache->costs());
    }
    channel.flush();
    Q_EMIT logMessage(QString::fromStdString(output.table).trimmed());
    emitView(&ExperimentJobRunner::table, QString::fromStdString(output.table));
    json = QString::fromStdString(lcs::resultsJson(output));
    csv = QString::fromStdString(lcs::resultsCsv(output));
}

} // namespace

ExperimentJobRunner::ExperimentJobRunner(const Experiment& experiment, QObject* parent)
    : JobRunner(new RegistryWorker(experiment), QStringLiteral("lcs-jobs-") + QString::fromStdString(experiment.name()),
                parent)
{
}

} // namespace lcs::ui
