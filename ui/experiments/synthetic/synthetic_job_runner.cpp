#include "synthetic_job_runner.h"

#include <chrono>
#include <map>
#include <mutex>
#include <optional>

#include <torch/torch.h>

#include "decision/decisions.h"
#include "core/input_error.h"
#include "experiments/own_predictive_experiment.h"
#include "experiments/synthetic_experiment.h"
#include "experiments/synthetic_report.h"
#include "experiments/synthetic_settings.h"
#include "io/model_io.h"
#include "worker_thread.h"

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

TaskView baseView(const SyntheticConfig& config, const SyntheticPredictive& p, const at::Tensor& costs)
{
    TaskView v;
    v.replicate = p.replicate;
    v.method = QString::fromStdString(methodName(p.method));
    v.numClasses = static_cast<int>(classCount(config));
    // Points are drawn on the plane only: a table of more features shows no regions.
    if (featureCount(config) == 2) {
        v.train = points(p.data.trainX);
        v.trainLabels = ints(p.data.trainY);
        v.calibration = points(p.data.calibrationX);
        v.test = points(p.data.testX);
        v.testLabels = ints(p.data.testY);
    }
    v.testDecisionsUncorrected = ints(bayesDecisions(p.testProbs, costs));
    if (p.gridProbs.defined())
        v.uncorrected = regionGrid(config, p.gridProbs, costs);
    return v;
}

} // namespace

/// Lives on the runner's thread. Owns the cache of posterior predictives and the last
/// corrections; everything it sends out is plain data.
class SyntheticWorker : public ExperimentWorker {
    Q_OBJECT
public:
    SyntheticWorker() : ExperimentWorker(tr("Run (sample + correct)"), tr("Correction")) {}

    std::atomic<int> inferenceRuns{0};

protected:
    void execute(JobKind job, const QVariant& settingsValue, const CostMatrix& costs, QString& json,
                 QString& csv) override
    {
            const auto start = Clock::now();
            const auto request = settingsValue.value<SyntheticRequest>();
            if (request.experiment == QLatin1String(kOwnPredictiveExperiment)) {
                correctOwn(job, request, costs, json, csv);
                return;
            }
            const auto& settings = request.settings;
            const bool sampling = job != JobKind::Recorrect;
            const bool tabular = request.experiment == QLatin1String(kTabularExperiment);
            // Sampling reads the data (a table: from its file); a re-correction takes only
            // the correction's settings and keeps the cached data.
            SyntheticConfig config = [&] {
                if (sampling)
                    return tabular ? tabularConfigFrom(settings, costs) : syntheticConfigFrom(settings, costs);
                SyntheticConfig c;
                applySettings(tabular ? tabularSettings() : syntheticSettings(), settings, c);
                return c;
            }();
            // The window draws the decision regions whatever grid a session asks for.
            config.gridResolution = windowRegionGrid(config.gridResolution);
            const auto L = costTensor(costs);
            const bool correcting = job != JobKind::Sample;
            // One plan over the job's stages: sampling, correction or both.
            TaskPlan plan;
            for (const auto& t : syntheticPlan(sampling ? config : m_cacheConfig))
                if ((sampling && t.task.stage == kSamplingStage) || (correcting && t.task.stage == kCorrectionStage))
                    plan.push_back(t);
            ProgressChannel channel(this, sampling ? tr("sampling") : tr("correcting"));
            channel.setPlan(plan, PlanProgress::Order::Parallel);
            if (sampling) {
                Q_EMIT logMessage(tr("Sampling %1 replicate(s) x %2 method(s) on %3 thread(s)")
                                      .arg(config.replicates).arg(config.methods.size()).arg(config.threads));
                ++runs;
                auto predictives = sampleAll(config, channel.context(cancelToken()));
                channel.flush();
                inferenceRuns += static_cast<int>(predictives.size());
                m_own.reset();
                m_cache = std::move(predictives);
                m_cacheConfig = config;
                for (const auto& p : m_cache)
                    emitView(&SyntheticJobRunner::taskUpdated, baseView(config, p, L));
                emitView(&SyntheticJobRunner::posteriorReady, settings);
                Q_EMIT cacheReady(tr("Posterior of %1 replicate(s) x %2 method(s) cached: a cost edit re-runs only "
                                     "the correction.").arg(config.replicates).arg(config.methods.size()),
                                  costs);
                Q_EMIT logMessage(tr("Posterior sampled in %1 s").arg(secondsSince(start), 0, 'f', 2));
            }
            if (correcting) {
                if (m_cache.empty())
                    throw std::runtime_error("no posterior yet: run sampling first (Run > Sample Posterior Only)");
                // The cached posterior fixes data, replicates and methods; the correction
                // settings and the costs come from this request.
                SyntheticConfig cc = m_cacheConfig;
                cc.costs = costs;
                cc.correction.epochs = config.correction.epochs;
                cc.correction.residual = config.correction.residual;
                cc.threads = config.threads;
                cc.device = config.device;
                const auto correctionStart = Clock::now();
                Q_EMIT logMessage(tr("Correcting %1 cached predictive(s)").arg(m_cache.size()));
                const bool regions = hasRegionGrid(cc);
                const auto grid = regions ? syntheticGrid(cc.data, cc.gridResolution) : at::Tensor();
                std::mutex emitMutex;
                std::vector<ReplicateOutcome> outcomes(m_cache.size());
                auto observers = [&](const SyntheticPredictive& p) -> CorrectionObserver {
                    auto last = std::make_shared<Clock::time_point>(Clock::time_point{});
                    auto view = std::make_shared<TaskView>(baseView(cc, p, L));
                    return [this, last, view, regions, &cc, &grid, &L, &p](const CorrectionStep& s, MlpImpl& q) {
                        view->curve.push_back({s.step, s.loss, s.kl, s.expectedCost});
                        const auto now = Clock::now();
                        if (now - *last < kEmitInterval)
                            return;
                        *last = now;
                        if (regions)
                            view->corrected = regionGrid(
                                cc, correctedProbabilities(q, grid, p.gridProbs, cc.correction.residual), L);
                        emitView(&SyntheticJobRunner::taskUpdated, *view);
                    };
                };
                m_corrections = correctAll(
                    cc, m_cache, costs, channel.context(cancelToken()), observers,
                    [&](size_t i, const SyntheticCorrection& c) {
                        const auto& p = m_cache[i];
                        outcomes[i] = evaluateSynthetic(p, c, costs, cc.selection, cc.seed);
                        TaskView v = baseView(cc, p, L);
                        if (c.gridProbs.defined())
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
                        emitView(&SyntheticJobRunner::taskUpdated, v);
                        emitView(&SyntheticJobRunner::resultRow, row);
                    });
                m_correctionCosts = costs;
                const double correctionSeconds = secondsSince(correctionStart);
                Q_EMIT logMessage(tr("Correction of %1 model(s) took %2 s (posterior reused, not re-sampled)")
                                      .arg(m_cache.size()).arg(correctionSeconds, 0, 'f', 2));
                const auto result = tabulate(cc, outcomes, secondsSince(start));
                json = QString::fromStdString(syntheticJson(result));
                csv = QString::fromStdString(syntheticCsv(result));
                Q_EMIT logMessage(QString::fromStdString(syntheticTable(result)).trimmed());
                channel.flush();
            }
    }

    /// The correction on the user's predictive (the "correct" experiment): a run reads X
    /// and P and keeps them, a re-correction re-trains q from them. The view is one task:
    /// X's points coloured by P's and q's decisions, q's regions when X has 2 features.
    void correctOwn(JobKind job, const SyntheticRequest& request, const CostMatrix& costs, QString& json, QString& csv)
    {
        OwnPredictiveChoices choices;
        applySettings(ownPredictiveSettings(), request.settings, choices);
        if (job != JobKind::Recorrect) {
            Q_EMIT logMessage(tr("Reading %1 and %2").arg(QString::fromStdString(choices.featuresPath),
                                                          QString::fromStdString(choices.predictivePath)));
            m_own = loadOwnPredictive(choices);
            m_ownChoices = choices;
            m_cache.clear();
            m_corrections.clear();
            ++runs;
            emitView(&SyntheticJobRunner::posteriorReady, request.settings);
            Q_EMIT cacheReady(tr("Your predictive cached (%1 rows): a cost edit re-trains only q.")
                                  .arg(m_own->features.size(0)), costs);
        } else if (!m_own) {
            throw std::runtime_error("no predictive yet: run the experiment first");
        } else {
            // The files read at the run; the correction's settings from this request.
            choices.featuresPath = m_ownChoices.featuresPath;
            choices.predictivePath = m_ownChoices.predictivePath;
        }
        const auto& own = *m_own;
        const int64_t classes = own.probabilities.size(1), features = own.features.size(1);
        if (costs.numClasses() != classes)
            throw InputError("the cost matrix has " + std::to_string(costs.numClasses()) + " classes, " +
                             choices.predictivePath + " " + std::to_string(classes));
        const auto L = costTensor(costs);
        // The plane: X's range, padded, square (equal scales on both axes).
        SyntheticConfig plane;
        plane.gridResolution = windowRegionGrid(0);
        const bool plotted = features == 2;
        // A residual q is P x exp(f(x)): off X's points there is no P, so no regions.
        const bool regions = plotted && !choices.correction.correction.residual;
        if (plotted) {
            const double lo = own.features.min().item<double>(), hi = own.features.max().item<double>();
            const double pad = std::max(1e-6, (hi - lo) * 0.1);
            plane.data.boxMin = lo - pad;
            plane.data.boxMax = hi + pad;
        }
        const auto grid = regions ? syntheticGrid(plane.data, plane.gridResolution) : at::Tensor();
        TaskView view;
        view.method = QString::fromLatin1(kOwnPredictiveSeries);
        view.numClasses = static_cast<int>(classes);
        if (plotted)
            view.test = points(own.features);
        view.testDecisionsUncorrected = ints(bayesDecisions(own.probabilities, L));
        ProgressChannel channel(this, tr("correcting"));
        auto last = Clock::time_point{};
        const auto observer = [&](const CorrectionStep& step, MlpImpl& q) {
            view.curve.push_back({step.step, step.loss, step.kl, step.expectedCost});
            const auto now = Clock::now();
            if (now - last < kEmitInterval)
                return;
            last = now;
            if (regions)
                view.corrected = regionGrid(plane, predictProbabilities(q, grid), L);
            emitView(&SyntheticJobRunner::taskUpdated, view);
        };
        const auto& c = choices.correction;
        const auto evidence = loadEvidenceInputs(choices, own, costs);
        auto r = correctOwnPredictive(own, costs, c.correction, c.seed, channel.context(cancelToken()), observer,
                                      evidence);
        channel.flush();
        view.curve.clear();
        for (const auto& step : r.correction.curve)
            view.curve.push_back({step.step, step.loss, step.kl, step.expectedCost});
        if (regions)
            view.corrected = regionGrid(plane, predictProbabilities(*r.correction.q, grid), L);
        view.testDecisionsCorrected = ints(r.decisionsAfter);
        view.correctionDone = true;
        emitView(&SyntheticJobRunner::taskUpdated, view);
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
        emitView(&SyntheticJobRunner::resultRow, row);
        if (r.hasEvidence)
            emitView(&SyntheticJobRunner::correctionEvidence, r.evidence, costs);
        m_ownQ = r.correction.q;
        m_ownCosts = costs;
        m_ownCollapsed = r.correction.collapsed;
        m_ownResidual = r.correction.residual;
        json = QString::fromStdString(ownPredictiveResultsJson(r, costs, choices));
        csv = QString::fromStdString(ownCorrectionCsv(r, costs));
        Q_EMIT logMessage(QString::fromStdString(ownPredictiveTable(r, costs, own.samples)).trimmed());
    }

public:

    /// Saves the correction network of (replicate, method) and, where one exists, the
    /// MAP network / last posterior sample.
    void saveModel(int replicate, const QString& method, const QString& path)
    {
        try {
            if (method == QLatin1String(kOwnPredictiveSeries) && m_ownQ) {
                ModelInfo info;
                info.experiment = kOwnPredictiveExperiment;
                info.method = "ours";
                info.role = "q";
                info.seed = m_ownChoices.correction.seed;
                info.costs = m_ownCosts;
                info.collapsed = m_ownCollapsed;
                info.residualOnPredictive = m_ownResidual;
                lcs::saveModel(m_ownQ, info, path.toStdString());
                emitView(&SyntheticJobRunner::modelSaved, path, QString());
                return;
            }
            for (size_t i = 0; i < m_cache.size() && i < m_corrections.size(); ++i) {
                const auto& p = m_cache[i];
                if (p.replicate != replicate || QString::fromStdString(methodName(p.method)) != method)
                    continue;
                const auto infos = syntheticModelInfos(m_cacheConfig, m_correctionCosts, p, m_corrections[i]);
                lcs::saveModel(m_corrections[i].q, infos.q, path.toStdString());
                QStringList written{path};
                if (infos.network) {
                    QString other = path;
                    if (other.endsWith(".pt"))
                        other.chop(3);
                    other += "_" + QString::fromStdString(infos.network->role) + ".pt";
                    lcs::saveModel(Mlp(std::dynamic_pointer_cast<MlpImpl>(p.model)), *infos.network,
                                   other.toStdString());
                    written << other;
                }
                emitView(&SyntheticJobRunner::modelSaved, written.join(", "), QString());
                return;
            }
            emitView(&SyntheticJobRunner::modelSaved, QString(), tr("no corrected model for replicate %1, %2: run the correction first")
                                             .arg(replicate + 1).arg(method));
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
            if (!m_cache.empty()) {
                config.data = m_cacheConfig.data;
                config.table = m_cacheConfig.table;
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
    std::optional<OwnPredictive> m_own;   ///< the user's predictive ("correct" experiment)
    OwnPredictiveChoices m_ownChoices;
    Mlp m_ownQ{nullptr};
    CostMatrix m_ownCosts;
    bool m_ownCollapsed = false;
    bool m_ownResidual = false;           ///< m_ownQ is a residual q (needs P to decide)
    std::vector<SyntheticPredictive> m_cache;
    SyntheticConfig m_cacheConfig;
    std::vector<SyntheticCorrection> m_corrections;
    CostMatrix m_correctionCosts;
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
