#include "ui/experiments/synthetic/synthetic_job_runner.h"

#include "engine/experiments/experiment.h"
#include "engine/experiments/run_views.h"
#include "engine/experiments/synthetic/synthetic_settings.h"
#include "ui/worker_thread.h"

namespace lcs::ui {

/// Lives on the runner's thread. A view adapter over the one run path: a run is the
/// registry's experiment (runExperiment), "Sample Posterior Only" and Load Model its
/// declared actions (kSampleAction, kEvaluateAction, through runExperimentAction), a
/// re-correction the state the last job left; the views they publish become this
/// runner's signals. Saving q goes through that state too.
class SyntheticWorker : public ExperimentWorker {
    Q_OBJECT
public:
    SyntheticWorker() : ExperimentWorker(tr("Run (sample + correct)"), tr("Correction")) {}

    std::atomic<int> inferenceRuns{0};

protected:
    void execute(JobKind job, const QVariant& settingsValue, const CostMatrix& costs, QString& json,
                 QString& csv) override
    {
        const auto request = settingsValue.value<SyntheticRequest>();
        RunViews shown;
        shown.show = viewHandlers(
            [this](const TaskView& v) { emitView(&SyntheticJobRunner::taskUpdated, v); },
            [this](const ResultRow& r) { emitView(&SyntheticJobRunner::resultRow, r); },
            [this](const EvidenceShown& e) { emitView(&SyntheticJobRunner::correctionEvidence, e.evidence, e.costs); },
            [this](const ViewLog& log) { Q_EMIT logMessage(QString::fromStdString(log.line)); });
        // Kept as soon as it exists: a correction cancelled after sampling keeps the posteriors.
        shown.stateCached = [&](const std::shared_ptr<RecorrectionState>& state) { keepState(state, request.settings); };
        const bool sampling = job != JobKind::Recorrect;
        ProgressChannel channel(this, sampling ? tr("sampling") : tr("correcting"));
        JobContext ctx = channel.context(cancelToken());
        ctx.views = &shown;
        ExperimentOutput output;
        if (sampling)
            output = runOrSample(job, request, costs, ctx);
        else
            output = recorrectCached(request, costs, ctx);
        channel.flush();
        json = QString::fromStdString(lcs::resultsJson(output));
        csv = QString::fromStdString(lcs::resultsCsv(output));
        if (!output.table.empty())
            Q_EMIT logMessage(QString::fromStdString(output.table).trimmed());
    }

private:
    /// A new run (sampling and correction) or sampling alone: the last job's state is
    /// dropped first, and the new one kept for re-corrections.
    ExperimentOutput runOrSample(JobKind job, const SyntheticRequest& request, const CostMatrix& costs,
                                 const JobContext& ctx)
    {
        if (m_state) {
            m_state.reset();
            Q_EMIT cacheDropped();
        }
        const auto& entry = ExperimentRegistry::global().get(request.experiment.toStdString());
        auto settings = request.settings;
        // The window draws the decision regions whatever grid a session asks for.
        if (const auto grid = settings.find("grid_resolution"); grid != settings.end() && grid->is_number_integer())
            *grid = windowRegionGrid(grid->get<int>());
        ++runs;
        // Sampling alone is the experiment's declared action, run as every run is.
        auto run = job == JobKind::Sample && findAction(entry, kSampleAction)
                       ? runExperimentAction(entry, kSampleAction, settings, costs, ctx, {}, CoreShare::LeaveOneForGui)
                       : lcs::runExperiment(entry, settings, costs, ctx, {}, CoreShare::LeaveOneForGui);
        ExperimentOutput output = std::move(run.output);
        std::shared_ptr<RecorrectionState> state = std::move(run.cache);
        if (state != m_state)  // a run that did not publish its state as it made it
            keepState(state, request.settings);
        return output;
    }

    /// Keeps what a run left for re-correction and tells the page (the posterior's
    /// settings, the cache's line and the matrix q is trained for).
    void keepState(const std::shared_ptr<RecorrectionState>& state, const nlohmann::json& settings)
    {
        m_state = state;
        if (!m_state)
            return;
        inferenceRuns += m_state->predictiveCount();
        emitView(&SyntheticJobRunner::posteriorReady, settings);
        Q_EMIT cacheReady(QString::fromStdString(m_state->describe()), m_state->costs());
    }

    /// q re-trained on the cached predictive for `costs`, with q's settings from the request.
    ExperimentOutput recorrectCached(const SyntheticRequest& request, const CostMatrix& costs, const JobContext& ctx)
    {
        if (!m_state)
            throw std::runtime_error("no posterior yet: run the experiment first (or Run > Sample Posterior Only)");
        if (m_state->predictiveCount() > 0)
            Q_EMIT logMessage(tr("Correcting %1 cached predictive(s)").arg(m_state->predictiveCount()));
        return m_state->recorrect(costs, request.settings, ctx);
    }

public:
    /// Saves q of (replicate, method) from the last correction and, where one exists, the
    /// MAP network / last posterior sample it corrects.
    void saveModel(int replicate, const QString& method, const QString& path)
    {
        try {
            if (!m_state)
                throw std::runtime_error(tr("no corrected model for replicate %1, %2: run the correction first")
                                             .arg(replicate).arg(method).toStdString());
            QStringList written;
            for (const auto& file : m_state->saveModel(replicate, method.toStdString(), path.toStdString()))
                written << QString::fromStdString(file);
            emitView(&SyntheticJobRunner::modelSaved, written.join(QStringLiteral(", ")), QString());
        } catch (const std::exception& e) {
            emitView(&SyntheticJobRunner::modelSaved, QString(), QString::fromStdString(e.what()));
        }
    }

    /// A saved q's decision regions on the plane `settings` name: the experiment's
    /// kEvaluateAction, under the run's thread policy; answers with modelLoaded.
    void loadModel(const QString& experiment, const nlohmann::json& settings, const QString& path,
                   const lcs::CostMatrix& costs)
    {
        TaskView shown;
        const JobEnding ending = runGuarded([&] {
            auto asked = settings;
            asked[kSavedModelSetting] = path.toStdString();
            RunViews views;
            views.show = viewHandlers([&](const TaskView& v) { shown = v; });
            JobContext ctx;
            ctx.views = &views;
            runExperimentAction(ExperimentRegistry::global().get(experiment.toStdString()), kEvaluateAction, asked,
                                costs, ctx, {}, CoreShare::LeaveOneForGui);
        });
        emitView(&SyntheticJobRunner::modelLoaded, ending.succeeded() ? shown : TaskView{}, ending.error);
    }

private:
    /// What the last run or sampling left: a SyntheticState (synthetic, tabular) or an
    /// OwnPredictiveState (correct).
    std::shared_ptr<RecorrectionState> m_state;
};

SyntheticJobRunner::SyntheticJobRunner(QObject* parent)
    : JobRunner(new SyntheticWorker, QStringLiteral("lcs-jobs"), parent)
{
    qRegisterMetaType<nlohmann::json>();
    qRegisterMetaType<SyntheticRequest>();
    qRegisterMetaType<TaskView>();
    qRegisterMetaType<ResultRow>();
    qRegisterMetaType<CorrectionEvidence>();
    connect(this, &SyntheticJobRunner::posteriorReady, this, [this](const nlohmann::json& s) { m_posteriorSettings = s; });
}

int SyntheticJobRunner::inferenceRuns() const
{
    return workerAs<SyntheticWorker>()->inferenceRuns.load();
}

bool SyntheticJobRunner::start(Job job, const nlohmann::json& settings, const CostMatrix& costs,
                               const QString& experiment)
{
    return JobRunner::start(job, QVariant::fromValue(SyntheticRequest{experiment, settings}), costs);
}

bool SyntheticJobRunner::saveModel(int replicate, const QString& method, const QString& path)
{
    if (isBusy())
        return false;
    auto* worker = workerAs<SyntheticWorker>();
    QMetaObject::invokeMethod(worker, [=] { worker->saveModel(replicate, method, path); }, Qt::QueuedConnection);
    return true;
}

bool SyntheticJobRunner::loadModel(const QString& experiment, const nlohmann::json& settings, const QString& path,
                                   const CostMatrix& costs)
{
    if (isBusy())
        return false;
    auto* worker = workerAs<SyntheticWorker>();
    QMetaObject::invokeMethod(worker, [=] { worker->loadModel(experiment, settings, path, costs); },
                              Qt::QueuedConnection);
    return true;
}

} // namespace lcs::ui

#include "synthetic_job_runner.moc"
