#include "ui/job_runner.h"

#include <filesystem>
#include <functional>
#include <utility>

#include <QDir>
#include <QTemporaryDir>

#include "base/core/atomic_file.h"
#include "engine/core/threads.h"
#include "engine/experiments/experiment.h"

namespace lcs::ui {

// ---------------------------------------------------------------------------------------
// ProgressChannel: engine progress -> JobProgress at most every kEmitInterval (and once
// more by flush()), the fraction of the whole job from the run's plan; the adapter's
// views go out with it. Reports and views may come from several engine threads at once:
// the channel serialises them, so the adapter sees one call at a time.

class ProgressChannel {
public:
    ProgressChannel(JobWorker* worker, ViewAdapter* adapter, QString phasePrefix)
        : m_worker(worker), m_adapter(adapter), m_prefix(std::move(phasePrefix)), m_sink(*this)
    {
    }

    /// Called once, at the run's first report, plan, view or state: the run has accepted
    /// its inputs (a run refused for its data never gets there).
    void onStarted(std::function<void()> started) { m_started = std::move(started); }
    void started()
    {
        std::lock_guard<std::recursive_mutex> lock(m_mutex);
        if (m_started)
            std::exchange(m_started, nullptr)();
    }

    void report(const Progress& p)
    {
        std::lock_guard<std::recursive_mutex> lock(m_mutex);
        started();
        if (m_adapter)
            m_adapter->collect(p);
        if (!p.test) {
            m_last = p;
            m_hasLast = true;
            m_plan.report(p);
        }
        maybeFlushLocked();
    }
    void show(const ViewEvent& event)
    {
        std::lock_guard<std::recursive_mutex> lock(m_mutex);
        started();
        if (const auto* log = std::get_if<const ViewLog*>(&event))
            m_sink.log(QString::fromStdString((*log)->line));
        else if (m_adapter)
            m_adapter->show(event, m_sink);
    }
    void setPlan(const TaskPlan& plan, PlanProgress::Order order)
    {
        std::lock_guard<std::recursive_mutex> lock(m_mutex);
        started();
        m_plan.setPlan(plan, order);
        if (m_adapter)
            m_adapter->planned(plan);
    }
    void flush()
    {
        std::lock_guard<std::recursive_mutex> lock(m_mutex);
        flushLocked();
    }
    void maybeFlush()
    {
        std::lock_guard<std::recursive_mutex> lock(m_mutex);
        maybeFlushLocked();
    }
    /// Reports without an identity are matched on their phase name (CamVid's plan).
    void identifyByPhase() { m_plan.identifyByPhase(); }
    JobWorker* worker() const { return m_worker; }

    /// The engine context that reports here, cancelled by `cancel`, showing views to
    /// `views` (whose show this sets).
    JobContext context(const CancelToken* cancel, RunViews& views);

private:
    void maybeFlushLocked()
    {
        if (WorkerClock::now() - m_lastEmit >= kEmitInterval)
            flushLocked();
    }
    void flushLocked();

    std::recursive_mutex m_mutex;
    std::function<void()> m_started;
    JobWorker* m_worker;
    ViewAdapter* m_adapter;
    QString m_prefix;
    ViewSink m_sink;
    PlanTracker m_plan;
    Progress m_last;
    bool m_hasLast = false;
    WorkerClock::time_point m_lastEmit{};
};

// ---------------------------------------------------------------------------------------
// JobWorker

class JobWorker : public QObject {
    Q_OBJECT
public:
    JobWorker(JobNames names, std::unique_ptr<ViewAdapter> adapter, const CancelToken* cancel)
        : m_names(std::move(names)), m_adapter(std::move(adapter)), m_cancel(cancel)
    {
    }

    std::atomic<int> runs{0}, recorrections{0}, predictivesSampled{0};

    QString jobName(JobKind job) const
    {
        switch (job) {
        case JobKind::Run: return m_names.run;
        case JobKind::Sample: return m_names.sample;
        case JobKind::Recorrect: return m_names.recorrect;
        case JobKind::Evaluate: return m_names.evaluate;
        }
        return {};
    }

    /// Runs `job` and answers with done(); nothing it throws escapes.
    void run(JobKind job, const JobRequest& request, const CostMatrix& costs)
    {
        const auto start = WorkerClock::now();
        QString json, csv;
        const JobEnding ending = runGuarded([&] { execute(job, request, costs, json, csv); });
        if (!ending.succeeded())
            json.clear(), csv.clear();
        Q_EMIT done(static_cast<int>(job), secondsSince(start), json, csv, ending.error, ending.cancelled,
                    ending.dataUnavailable);
    }

    /// Runs `save` on the cached state and answers with modelsSaved(target, files, error).
    template <class Save>
    void saveFromState(const QString& target, Save save)
    {
        QStringList written;
        const JobEnding ending = runGuarded([&] {
            if (!m_state)
                throw std::runtime_error("nothing to save: run the experiment first");
            for (const auto& file : save(*m_state))
                written << QString::fromStdString(file);
        });
        if (!ending.succeeded())
            written.clear();
        Q_EMIT modelsSaved(target, written, ending.error);
    }

    /// Copies the kept files (each with its sidecar) into `dir` through a staging folder,
    /// so that a failure leaves `dir` as it was.
    void exportKept(const QString& dir)
    {
        QStringList written;
        const JobEnding ending = runGuarded([&] {
            if (!m_kept || m_keptFiles.isEmpty())
                throw std::runtime_error("no networks to save: run the experiment first");
            StagedFolder staged(dir.toStdString());
            for (const auto& file : m_keptFiles)
                for (const char* suffix : {"", ".json"}) {
                    const std::string name = file.toStdString() + suffix;
                    std::error_code ec;
                    std::filesystem::copy_file(keptPath(*m_kept) + "/" + name, staged.path() + "/" + name, ec);
                    if (ec)
                        throw OutputError("cannot write " + dir.toStdString() + "/" + name + ": " + ec.message());
                    written << QString::fromStdString(name);
                }
            staged.commit();
        });
        if (!ending.succeeded())
            written.clear();
        Q_EMIT modelsSaved(dir, written, ending.error);
    }

Q_SIGNALS:
    void progress(const lcs::ui::JobProgress& progress);
    void logMessage(const QString& line);
    void view(const QVariant& value);
    void table(const QString& text);
    void cacheReady(const QString& description, const lcs::CostMatrix& costs, const QString& experiment,
                    const nlohmann::json& settings);
    void cacheDropped();
    void keptChanged(const QString& experiment, const QStringList& files);
    void modelsSaved(const QString& target, const QStringList& files, const QString& error);
    void done(int job, double seconds, const QString& json, const QString& csv, const QString& error, bool cancelled,
              bool dataUnavailable);

private:
    void execute(JobKind job, const JobRequest& request, const CostMatrix& costs, QString& json, QString& csv)
    {
        if (m_adapter)
            m_adapter->begin(job, request);
        ProgressChannel channel(this, m_adapter.get(),
                                job == JobKind::Recorrect ? tr("re-correction") : request.experiment);
        RunViews views;
        // Kept as soon as it exists: a run cancelled or failing after it keeps it.
        views.stateCached = [&](const std::shared_ptr<RecorrectionState>& state) {
            channel.started();
            keepState(state, request);
        };
        const JobContext ctx = channel.context(m_cancel, views);
        const std::optional<CostMatrix> given =
            costs.numClasses() > 0 ? std::optional<CostMatrix>(costs) : std::nullopt;
        ExperimentOutput output;
        if (job == JobKind::Recorrect) {
            if (!m_state)
                throw std::runtime_error("nothing cached to re-correct: run " + request.experiment.toStdString() +
                                         " first");
            Q_EMIT logMessage(tr("Re-training q for the new costs on the cached run (nothing re-sampled)"));
            output = m_state->recorrect(costs, request.settings, ctx);
            ++recorrections;
        } else {
            const Experiment& entry = ExperimentRegistry::global().get(request.experiment.toStdString());
            const char* action = job == JobKind::Sample ? kSampleAction : job == JobKind::Evaluate ? kEvaluateAction
                                                                                                   : nullptr;
            auto settings = request.settings;
            if (!action)  // bad settings leave the cached run as it was
                settings = checkedSettings(entry.settings(), settings, entry.name() + " settings");
            OutputPaths outputs;
            auto kept = job == JobKind::Evaluate ? nullptr : keptFolder(request, outputs);
            // The last run's state (and the outputs it kept) give way to this run once it
            // has accepted its inputs: a run refused for its data leaves the last one as it was.
            if (job != JobKind::Evaluate)
                channel.onStarted([&] {
                    replaceLastRun(std::move(kept));
                    ++runs;
                });
            auto run = action ? runExperimentAction(entry, action, settings, given, ctx, outputs,
                                                    CoreShare::LeaveOneForGui)
                              : runExperiment(entry, settings, given, ctx, outputs, CoreShare::LeaveOneForGui);
            channel.started();  // a run that reported nothing at all
            output = std::move(run.output);
            if (run.cache && run.cache != m_state)  // a run that did not publish its state as it made it
                keepState(run.cache, request);
            if (job != JobKind::Evaluate)
                listKept(request.experiment);
        }
        channel.flush();
        if (!output.table.empty()) {
            Q_EMIT logMessage(QString::fromStdString(output.table).trimmed());
            Q_EMIT table(QString::fromStdString(output.table));
        }
        json = QString::fromStdString(resultsJson(output));
        csv = QString::fromStdString(resultsCsv(output));
    }

    void keepState(const std::shared_ptr<RecorrectionState>& state, const JobRequest& request)
    {
        m_state = state;
        if (!m_state)
            return;
        predictivesSampled += m_state->predictiveCount();
        Q_EMIT cacheReady(QString::fromStdString(m_state->describe()), m_state->costs(), request.experiment,
                          request.settings);
    }

    /// Drops the last run's state and the outputs it kept (a page exports one run's
    /// networks); `kept` (may be null) holds this run's.
    void replaceLastRun(std::unique_ptr<QTemporaryDir> kept)
    {
        m_state.reset();
        Q_EMIT cacheDropped();
        m_kept = std::move(kept);
        m_keptFiles.clear();
        Q_EMIT keptChanged(QString(), QStringList());
    }

    /// A temporary folder for the outputs the request keeps, named in `outputs`; null
    /// where it keeps none (or no folder could be made, said in the log).
    std::unique_ptr<QTemporaryDir> keptFolder(const JobRequest& request, OutputPaths& outputs)
    {
        if (request.keptOutputs.isEmpty())
            return nullptr;
        auto dir = std::make_unique<QTemporaryDir>(QDir::tempPath() + QStringLiteral("/lcs-kept-XXXXXX"));
        if (!dir->isValid()) {
            Q_EMIT logMessage(tr("Warning: no temporary folder for the run's networks (%1): there will be nothing "
                                 "to export.")
                                  .arg(dir->errorString()));
            return nullptr;
        }
        for (const auto& name : request.keptOutputs)
            outputs[name.toStdString()] = keptPath(*dir);
        return dir;
    }

    /// The model files the run kept ("<stem>.pt", each beside its sidecar), announced.
    void listKept(const QString& experiment)
    {
        if (!m_kept)
            return;
        m_keptFiles = QDir(QString::fromStdString(keptPath(*m_kept))).entryList({QStringLiteral("*.pt")}, QDir::Files,
                                                                           QDir::Name);
        Q_EMIT keptChanged(m_keptFiles.isEmpty() ? QString() : experiment, m_keptFiles);
    }

    static std::string keptPath(const QTemporaryDir& dir) { return dir.path().toStdString() + "/kept"; }

    JobNames m_names;
    std::unique_ptr<ViewAdapter> m_adapter;
    const CancelToken* m_cancel;
    /// What the last run left for re-correction.
    std::shared_ptr<RecorrectionState> m_state;
    std::unique_ptr<QTemporaryDir> m_kept;  ///< the last run's kept outputs, in "kept/"
    QStringList m_keptFiles;
};

void ProgressChannel::flushLocked()
{
    m_lastEmit = WorkerClock::now();
    if (m_adapter)
        m_adapter->flush(m_sink);
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

JobContext ProgressChannel::context(const CancelToken* cancel, RunViews& views)
{
    JobContext ctx;
    ctx.cancel = cancel;
    ctx.progress = [this](const Progress& p) { report(p); };
    ctx.plan = [this](const TaskPlan& plan, PlanProgress::Order order) { setPlan(plan, order); };
    // A run's notes join the log (signals are thread-safe; the log is the GUI thread's).
    ctx.note = [this](NoteKind kind, const std::string& line) {
        m_sink.log((kind == NoteKind::Warning ? QStringLiteral("Warning: ") : QString()) +
                   QString::fromStdString(line));
    };
    views.show = [this](const ViewEvent& event) { show(event); };
    ctx.views = &views;
    return ctx;
}

// ---------------------------------------------------------------------------------------
// ViewSink

void ViewSink::sendVariant(const QVariant& value) const
{
    Q_EMIT m_channel.worker()->view(value);
}

void ViewSink::log(const QString& line) const
{
    Q_EMIT m_channel.worker()->logMessage(line);
}

void ViewSink::flush() const
{
    m_channel.flush();
}

void ViewSink::maybeFlush() const
{
    m_channel.maybeFlush();
}

// ---------------------------------------------------------------------------------------
// JobRunner

JobRunner::JobRunner(JobNames names, std::unique_ptr<ViewAdapter> adapter, QString experiment, QObject* parent)
    : QObject(parent), m_worker(new JobWorker(std::move(names), std::move(adapter), &m_cancel)),
      m_experiment(std::move(experiment))
{
    qRegisterMetaType<JobProgress>();
    qRegisterMetaType<CostMatrix>();
    qRegisterMetaType<JobKind>();
    qRegisterMetaType<JobRequest>();
    qRegisterMetaType<nlohmann::json>();
    m_worker->moveToThread(&m_thread);
    connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
    connect(m_worker, &JobWorker::progress, this, &JobRunner::progress);
    connect(m_worker, &JobWorker::logMessage, this, &JobRunner::logMessage);
    connect(m_worker, &JobWorker::view, this, &JobRunner::view);
    connect(m_worker, &JobWorker::table, this, &JobRunner::table);
    connect(m_worker, &JobWorker::modelsSaved, this, &JobRunner::modelsSaved);
    connect(m_worker, &JobWorker::cacheReady, this,
            [this](const QString& description, const CostMatrix& costs, const QString& experiment,
                   const nlohmann::json& settings) {
                m_hasCache = true;
                m_cacheExperiment = experiment;
                m_cacheSettings = settings;
                Q_EMIT cacheReady(description, costs);
            });
    connect(m_worker, &JobWorker::cacheDropped, this, [this] {
        m_hasCache = false;
        m_cacheExperiment.clear();
        m_cacheSettings = nlohmann::json();
    });
    connect(m_worker, &JobWorker::keptChanged, this, [this](const QString& experiment, const QStringList& files) {
        m_keptExperiment = experiment;
        m_keptFiles = files;
        Q_EMIT keptChanged(experiment, files);
    });
    connect(m_worker, &JobWorker::done, this,
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
    startWorkerThread(m_thread, m_worker, QStringLiteral("lcs-jobs-") + m_experiment);
}

JobRunner::JobRunner(const Experiment& experiment, QObject* parent)
    : JobRunner(JobNames{QString::fromStdString(experiment.name())}, nullptr,
                QString::fromStdString(experiment.name()), parent)
{
}

JobRunner::~JobRunner()
{
    stopWorkerThread(m_thread, m_cancel);
}

int JobRunner::runs() const
{
    return m_worker->runs.load();
}

int JobRunner::recorrections() const
{
    return m_worker->recorrections.load();
}

int JobRunner::predictivesSampled() const
{
    return m_worker->predictivesSampled.load();
}

QString JobRunner::jobName(Job job) const
{
    return m_worker->jobName(job);
}

bool JobRunner::cudaAvailable()
{
    return lcs::cudaAvailable();
}

bool JobRunner::start(Job job, const JobRequest& request, const CostMatrix& costs)
{
    if (m_busy)
        return false;
    m_busy = true;
    m_cancel.reset();
    Q_EMIT started(job);
    JobWorker* worker = m_worker;
    QMetaObject::invokeMethod(
        worker, [worker, job, request, costs] { worker->run(job, request, costs); }, Qt::QueuedConnection);
    return true;
}

bool JobRunner::start(Job job, const nlohmann::json& settings, const CostMatrix& costs)
{
    return start(job, JobRequest{m_experiment, settings, {}}, costs);
}

void JobRunner::cancel()
{
    if (m_busy)
        m_cancel.cancel();
}

bool JobRunner::saveModel(int replicate, const QString& series, const QString& path)
{
    if (m_busy)
        return false;
    JobWorker* worker = m_worker;
    QMetaObject::invokeMethod(
        worker,
        [worker, replicate, series, path] {
            worker->saveFromState(path, [&](const RecorrectionState& state) {
                return state.saveModel(replicate, series.toStdString(), path.toStdString());
            });
        },
        Qt::QueuedConnection);
    return true;
}

bool JobRunner::saveModels(const QString& dir)
{
    if (m_busy || !m_hasCache)
        return false;
    JobWorker* worker = m_worker;
    QMetaObject::invokeMethod(
        worker,
        [worker, dir] {
            worker->saveFromState(dir, [&](const RecorrectionState& state) { return state.saveModels(dir.toStdString()); });
        },
        Qt::QueuedConnection);
    return true;
}

bool JobRunner::exportKept(const QString& dir)
{
    if (m_busy || m_keptFiles.isEmpty())
        return false;
    JobWorker* worker = m_worker;
    QMetaObject::invokeMethod(worker, [worker, dir] { worker->exportKept(dir); }, Qt::QueuedConnection);
    return true;
}

} // namespace lcs::ui

#include "job_runner.moc"
