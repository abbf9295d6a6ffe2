#include "ui/experiments/synthetic/synthetic_job_runner.h"

#include <chrono>
#include <map>
#include <mutex>
#include <optional>

#include <torch/torch.h>

#include "base/core/input_error.h"
#include "engine/decision/decisions.h"
#include "engine/experiments/own_predictive/own_predictive_experiment.h"
#include "engine/experiments/run_views.h"
#include "engine/experiments/synthetic/synthetic_experiment.h"
#include "engine/experiments/synthetic/synthetic_report.h"
#include "engine/experiments/synthetic/synthetic_settings.h"
#include "engine/experiments/synthetic/synthetic_state.h"
#include "engine/io/model_io.h"
#include "engine/models/principal_plane.h"
#include "ui/worker_thread.h"

namespace lcs::ui {

namespace {

using Clock = WorkerClock;

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

/// Above this many features a table's rows are not projected (the eigen-decomposition of
/// a D x D covariance on every task would stall the window).
constexpr int64_t kMaxPlaneFeatures = 2000;

TaskView baseView(const SyntheticConfig& config, const SyntheticPredictive& p, const at::Tensor& costs)
{
    TaskView v;
    v.replicate = p.replicate;
    v.method = QString::fromStdString(methodName(p.method));
    v.numClasses = static_cast<int>(classCount(config));
    // Points are drawn on the plane only: a table of more features shows no regions.
    if (featureCount(config) == 2) {
        if (config.table) {
            v.xName = QString::fromStdString(config.table->featureNames.at(0));
            v.yName = QString::fromStdString(config.table->featureNames.at(1));
        }
        v.train = points(p.data.trainX);
        v.trainLabels = ints(p.data.trainY);
        v.calibration = points(p.data.calibrationX);
        v.test = points(p.data.testX);
        v.testLabels = ints(p.data.testY);
    } else if (config.table && p.data.trainX.size(0) >= 2 && featureCount(config) <= kMaxPlaneFeatures) {
        // A table of more features: its rows in the plane of their first two principal
        // components (fitted on the training rows), where no region can be drawn.
        const auto plane = fitPrincipalPlane(p.data.trainX);
        v.train = points(projectOntoPlane(plane, p.data.trainX));
        v.trainLabels = ints(p.data.trainY);
        v.calibration = points(projectOntoPlane(plane, p.data.calibrationX));
        v.test = points(projectOntoPlane(plane, p.data.testX));
        v.testLabels = ints(p.data.testY);
        v.xName = QObject::tr("PC1 (%1% of the standardised variance)").arg(qRound(100 * plane.explained[0]));
        v.yName = QObject::tr("PC2 (%1%)").arg(qRound(100 * plane.explained[1]));
    }
    v.testDecisionsUncorrected = ints(bayesDecisions(p.testProbs, costs));
    if (p.gridProbs.defined())
        v.uncorrected = regionGrid(config, p.gridProbs, costs);
    return v;
}

/// The test rows whose decision changed from P's to q's, with features and both
/// probability vectors (the first TaskView::kShownChangedRows of them).
void noteChangedRows(TaskView& v, const std::vector<std::string>& names, const at::Tensor& testX,
                     const at::Tensor& before, const at::Tensor& after)
{
    for (int64_t j = 0; j < testX.size(1); ++j)
        v.featureNames << (j < static_cast<int64_t>(names.size()) ? QString::fromStdString(names[size_t(j)])
                                                                  : QStringLiteral("x%1").arg(j + 1));
    const auto x = testX.to(torch::kDouble).contiguous();
    const auto pb = before.to(torch::kDouble).contiguous(), pa = after.to(torch::kDouble).contiguous();
    const int64_t d = x.size(1), k = pb.size(1);
    for (int i = 0; i < v.testDecisionsCorrected.size() && i < v.testDecisionsUncorrected.size(); ++i) {
        if (v.testDecisionsCorrected[i] == v.testDecisionsUncorrected[i])
            continue;
        ++v.changedCount;
        if (v.changedRows.size() >= TaskView::kShownChangedRows)
            continue;
        TaskView::ChangedRow row;
        row.row = i;
        for (int64_t j = 0; j < d; ++j)
            row.features << x.data_ptr<double>()[i * d + j];
        for (int64_t c = 0; c < k; ++c) {
            row.before << pb.data_ptr<double>()[i * k + c];
            row.after << pa.data_ptr<double>()[i * k + c];
        }
        v.changedRows << row;
    }
}

} // namespace

/// The synthetic page's views of one job, from the run's typed events: each task's
/// predictive, its q as it trains (curve and, on the plane, live regions, at most every
/// kEmitInterval) and its scores when done. Events come from the tasks' threads at once:
/// each task's live view is touched by its own thread only, the map of them under a lock.
class SyntheticViews {
public:
    /// Where the views go (the worker's signals).
    struct Emit {
        std::function<void(const TaskView&)> task;
        std::function<void(const ResultRow&)> row;
        std::function<void(const CorrectionEvidence&, const CostMatrix&)> evidence;
        std::function<void(const QString&)> log;
    };

    /// `ownCosts`: the matrix a user's predictive is corrected under (its live view decides with it).
    SyntheticViews(Emit emit, const CostMatrix& ownCosts) : m_emit(std::move(emit)), m_ownCosts(costTensor(ownCosts))
    {
    }

    RunViews views()
    {
        RunViews v;
        v.syntheticSampled = [this](const SyntheticSampled& e) {
            m_emit.task(baseView(e.config, e.predictive, costTensor(e.config.costs)));
        };
        v.syntheticCorrecting = [this](const SyntheticCorrecting& e) { correcting(e); };
        v.syntheticCorrected = [this](const SyntheticCorrected& e) { corrected(e); };
        v.ownCorrecting = [this](const OwnCorrecting& e) { ownCorrecting(e); };
        v.ownCorrected = [this](const OwnCorrected& e) { ownCorrected(e); };
        return v;
    }

private:
    struct LiveTask {
        WorkerClock::time_point last{};
        TaskView view;
    };

    LiveTask& liveTask(const SyntheticConfig& config, const SyntheticPredictive& p)
    {
        std::lock_guard lock(m_mutex);
        auto [it, added] = m_live.try_emplace({p.replicate, static_cast<int>(p.method)});
        if (added)
            it->second.view = baseView(config, p, costTensor(config.costs));
        return it->second;
    }

    /// The region grid's points (one grid per job: every task shares the plane).
    const at::Tensor& grid(const SyntheticDataConfig& box, int resolution)
    {
        std::lock_guard lock(m_mutex);
        if (!m_grid.defined())
            m_grid = syntheticGrid(box, resolution);
        return m_grid;
    }

    void correcting(const SyntheticCorrecting& e)
    {
        auto& live = liveTask(e.config, e.predictive);
        live.view.curve.push_back({e.step.step, e.step.loss, e.step.kl, e.step.expectedCost});
        const auto now = WorkerClock::now();
        if (now - live.last < kEmitInterval)
            return;
        live.last = now;
        if (hasRegionGrid(e.config))
            live.view.corrected = regionGrid(e.config,
                                             correctedProbabilities(e.q, grid(e.config.data, e.config.gridResolution),
                                                                    e.predictive.gridProbs,
                                                                    e.config.correction.residual),
                                             costTensor(e.config.costs));
        m_emit.task(live.view);
    }

    void corrected(const SyntheticCorrected& e)
    {
        const auto& p = e.predictive;
        const auto& c = e.correction;
        const auto L = costTensor(e.config.costs);
        TaskView v = baseView(e.config, p, L);
        if (c.gridProbs.defined())
            v.corrected = regionGrid(e.config, c.gridProbs, L);
        v.testDecisionsCorrected = ints(bayesDecisions(c.testProbs, L));
        for (const auto& s : c.curve)
            v.curve.push_back({s.step, s.loss, s.kl, s.expectedCost});
        v.correctionDone = true;
        noteChangedRows(v, e.config.table ? e.config.table->featureNames : std::vector<std::string>{}, p.data.testX,
                        p.testProbs, c.testProbs);
        v.reliabilityUncorrected = e.outcome.uncorrected.reliability;
        v.reliabilityCorrected = e.outcome.qAlone.reliability;  // q's own, as the Decisions tab's
        v.eceUncorrected = e.outcome.uncorrected.ece;
        v.eceCorrected = e.outcome.qAlone.ece;
        ResultRow row;
        row.replicate = p.replicate;
        row.method = v.method;
        row.uncorrectedCost = e.outcome.uncorrected.averageCost;
        row.correctedCost = e.outcome.corrected.averageCost;
        row.collapsed = c.collapsed;
        std::lock_guard lock(m_mutex);
        m_live.erase({p.replicate, static_cast<int>(p.method)});
        if (c.collapsed)
            m_emit.log(QObject::tr("Warning: replicate %1, %2: q collapsed to one class everywhere (its corrected "
                                   "decisions are shown but should not be trusted)")
                           .arg(p.replicate).arg(v.method));
        m_emit.task(v);
        m_emit.row(row);
    }

    /// The user's X on the plane (2 features): its range, padded, square.
    static SyntheticConfig ownPlane(const OwnPredictive& own)
    {
        SyntheticConfig plane;
        plane.gridResolution = windowRegionGrid(0);
        setPlaneAround(plane.data, own.features.min().item<double>(), own.features.max().item<double>());
        return plane;
    }

    /// The one task of a user's predictive: X's points coloured by P's decisions.
    static TaskView ownView(const OwnPredictive& own, const at::Tensor& L)
    {
        TaskView view;
        view.method = QString::fromLatin1(kOwnPredictiveSeries);
        view.numClasses = static_cast<int>(own.probabilities.size(1));
        if (own.features.size(1) == 2)
            view.test = points(own.features);
        view.testDecisionsUncorrected = ints(bayesDecisions(own.probabilities, L));
        return view;
    }

    /// With labels, the view's test rows become the evidence's held-out rows, with their
    /// truth, both rules' decisions, the changed rows and the reliability diagrams (the
    /// Decisions and Calibration tabs); X's other rows stay on the plane as rows q used
    /// without their labels.
    static void showHeldOutRows(TaskView& view, const OwnPredictive& own, const OwnCorrectionResult& r,
                                const at::Tensor& L)
    {
        const bool twoFeatures = own.features.size(1) == 2;
        view.test.clear();
        view.calibration.clear();
        if (twoFeatures) {
            view.test = points(r.testFeatures);
            std::vector<int64_t> others;
            for (int64_t i = 0; i < own.features.size(0); ++i)
                if (i >= static_cast<int64_t>(r.rowRole.size()) || r.rowRole[size_t(i)] != "test")
                    others.push_back(i);
            if (!others.empty())
                view.calibration = points(own.features.index_select(0, torch::tensor(others)));
        }
        view.testLabels.clear();
        for (const auto y : r.testLabels)
            view.testLabels << static_cast<int>(y);
        view.testDecisionsUncorrected = ints(bayesDecisions(r.testProbsBefore, L));
        view.testDecisionsCorrected = ints(bayesDecisions(r.testProbsAfter, L));
        noteChangedRows(view, {}, r.testFeatures, r.testProbsBefore, r.testProbsAfter);
        view.reliabilityUncorrected = r.reliabilityBefore;
        view.reliabilityCorrected = r.reliabilityAfter;
        view.eceUncorrected = r.eceBefore;
        view.eceCorrected = r.eceAfter;
    }

    void ownCorrecting(const OwnCorrecting& e)
    {
        // One task on one thread: no lock needed for its view.
        if (!m_own) {
            m_own.emplace();
            m_own->view = ownView(e.own, m_ownCosts);
        }
        auto& live = *m_own;
        live.view.curve.push_back({e.step.step, e.step.loss, e.step.kl, e.step.expectedCost});
        const auto now = WorkerClock::now();
        if (now - live.last < kEmitInterval)
            return;
        live.last = now;
        // A residual q is P x exp(f(x)): off X's points there is no P, so no regions.
        if (e.own.features.size(1) == 2 && !e.residual) {
            const auto plane = ownPlane(e.own);
            live.view.corrected = regionGrid(plane, predictProbabilities(e.q, grid(plane.data, plane.gridResolution)),
                                             m_ownCosts);
        }
        m_emit.task(live.view);
    }

    void ownCorrected(const OwnCorrected& e)
    {
        const auto& r = e.result;
        const auto L = costTensor(e.costs);
        TaskView view = ownView(e.own, L);
        for (const auto& step : r.correction.curve)
            view.curve.push_back({step.step, step.loss, step.kl, step.expectedCost});
        if (e.own.features.size(1) == 2 && !r.correction.residual) {
            const auto plane = ownPlane(e.own);
            view.corrected = regionGrid(
                plane, predictProbabilities(*r.correction.q.ptr(), grid(plane.data, plane.gridResolution)), L);
        }
        view.testDecisionsCorrected = ints(r.decisionsAfter);
        view.correctionDone = true;
        if (r.hasEvidence && r.testFeatures.defined())
            showHeldOutRows(view, e.own, r, L);
        m_emit.task(view);
        ResultRow row;
        row.method = view.method;
        row.collapsed = r.correction.collapsed;
        if (r.hasEvidence) {
            // With labels the dock shows what the other experiments show: realised test costs.
            row.uncorrectedCost = r.evidence.rules[0].cost;
            row.correctedCost = r.evidence.rules[1].cost;
            row.verdict = QString::fromStdString(verdictSentence(r.evidence.comparisons[0], r.evidence.setName));
            row.worse = r.evidence.comparisons[0].verdict == Verdict::Worse;
        } else {
            row.uncorrectedCost = r.expectedCostBefore.mean().item<double>();
            row.correctedCost = r.expectedCostAfter.mean().item<double>();
        }
        m_emit.row(row);
        if (r.hasEvidence)
            m_emit.evidence(r.evidence, e.costs);
    }

    Emit m_emit;
    std::mutex m_mutex;
    std::map<std::pair<int, int>, LiveTask> m_live;
    at::Tensor m_grid;
    std::optional<LiveTask> m_own;
    at::Tensor m_ownCosts;
};

/// Lives on the runner's thread. A view adapter over the one run path: a run is the
/// registry's experiment (runExperiment), "Sample Posterior Only" its sampling half
/// (samplePosterior), a re-correction the state the last job left; the typed views they
/// publish become this runner's signals with plain data. Saving and loading q go through
/// that state too.
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
        SyntheticViews::Emit emit;
        emit.task = [this](const TaskView& v) { emitView(&SyntheticJobRunner::taskUpdated, v); };
        emit.row = [this](const ResultRow& r) { emitView(&SyntheticJobRunner::resultRow, r); };
        emit.evidence = [this](const CorrectionEvidence& e, const CostMatrix& c) {
            emitView(&SyntheticJobRunner::correctionEvidence, e, c);
        };
        emit.log = [this](const QString& line) { Q_EMIT logMessage(line); };
        SyntheticViews live(emit, costs);
        RunViews shown = live.views();
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
        json = QString::fromStdString(output.json);
        csv = QString::fromStdString(output.csv);
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
        ExperimentOutput output;
        const auto* posterior = dynamic_cast<const PosteriorExperiment*>(&entry);
        std::shared_ptr<RecorrectionState> state;
        if (job == JobKind::Sample && posterior) {
            state = samplePosterior(*posterior, settings, costs, ctx, CoreShare::LeaveOneForGui);
        } else {
            auto run = lcs::runExperiment(entry, settings, costs, ctx, {}, CoreShare::LeaveOneForGui);
            output = std::move(run.output);
            state = std::move(run.cache);
        }
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

    /// Loads a saved correction network and decides with it over the plane under `costs`.
    void loadModel(const QString& path, const lcs::CostMatrix& costs, int gridResolution)
    {
        try {
            auto loaded = loadMlp(path.toStdString());
            if (loaded.info.residualOnPredictive)
                throw std::runtime_error(path.toStdString() + " is a residual q: it corrects a predictive and needs "
                                         "P at every point, which a plane of points does not have");
            // The plane of the cached run (a 2-feature table's range), else the synthetic one.
            SyntheticConfig config;
            if (const auto* state = dynamic_cast<const SyntheticState*>(m_state.get())) {
                config.data = state->config().data;
                config.table = state->config().table;
            }
            config.gridResolution = gridResolution;
            if (loaded.info.inputs != 2 || featureCount(config) != 2)
                throw std::runtime_error(path.toStdString() + ": the model takes " + std::to_string(loaded.info.inputs)
                                         + " inputs; decision regions are drawn for networks of 2 inputs on 2-D data"
                                           " (decide on other data with lcstudio-cli decide --model)");
            costs.validateFor(static_cast<int>(loaded.info.classes));
            const auto L = costTensor(costs);
            TaskView v;
            v.replicate = loaded.info.replicate;
            v.numClasses = static_cast<int>(loaded.info.classes);
            v.method = QString::fromStdString(loaded.info.method.empty() ? "loaded" : loaded.info.method);
            v.corrected = regionGrid(config, predictProbabilities(*loaded.model, syntheticGrid(config.data, gridResolution)), L);
            v.correctionDone = true;
            emitView(&SyntheticJobRunner::modelLoaded, v, QString());
        } catch (const std::exception& e) {
            emitView(&SyntheticJobRunner::modelLoaded, TaskView{}, QString::fromStdString(e.what()));
        }
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

bool SyntheticJobRunner::loadModel(const QString& path, const CostMatrix& costs, int gridResolution)
{
    if (isBusy())
        return false;
    auto* worker = workerAs<SyntheticWorker>();
    QMetaObject::invokeMethod(worker, [=] { worker->loadModel(path, costs, gridResolution); }, Qt::QueuedConnection);
    return true;
}

} // namespace lcs::ui

#include "synthetic_job_runner.moc"
