#include "ui/experiments/camvid/camvid_job_runner.h"


#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <map>
#include <utility>


#include <QFileInfo>

#include "base/core/input_error.h"
#include "datasets/camvid_reader.h"
#include "engine/experiments/camvid/camvid_entry.h"
#include "engine/experiments/experiment.h"
#include "engine/experiments/run_views.h"

#include "ui/worker_thread.h"

namespace lcs::ui {

namespace {

QVector<double> toQVector(const std::vector<double>& v)
{
    return QVector<double>(v.begin(), v.end());
}

/// A model folder to evaluate on the validation frames the settings name.
struct CamvidModelRequest {
    QString dir;
    nlohmann::json settings;
};

CamvidIouView::Rule ruleFigures(const DecisionMetrics& m)
{
    return {toQVector(m.perClassIoU), m.meanIoU, m.averageCost, m.accuracy, m.expectedCost};
}

/// S's and q's figures on the evaluated frames as the IoU views show them.
CamvidIouView iouView(const std::vector<std::string>& classNames, const DecisionMetrics& s, const DecisionMetrics& q,
                      double costAtOptimum, const DecisionChanges& changes, int64_t frames,
                      const std::optional<CamvidKeptRule>& kept)
{
    CamvidIouView v;
    for (const auto& n : classNames)
        v.classNames << QString::fromStdString(n);
    v.before = ruleFigures(s);
    v.after = ruleFigures(q);
    v.costAtOptimum = costAtOptimum;
    v.changedShare = changes.points > 0 ? static_cast<double>(changes.changed) / static_cast<double>(changes.points)
                                        : NAN;
    v.frames = frames;
    v.pixels = q.count;
    if (kept) {
        v.keptRule = QString::fromStdString(kept->kept());
        v.keptCost = kept->rule(kept->kept())->metrics.averageCost;
        v.keptReferenceCost = kept->rule("S")->metrics.averageCost;
        v.keptScoredFrames = kept->scoredFrames;
        v.keptReason = QString::fromStdString(kept->choice.reason + "\n\n" + groupedVerdictSentence(kept->evidence));
    }
    return v;
}

} // namespace
} // namespace lcs::ui

Q_DECLARE_METATYPE(lcs::ui::CamvidModelRequest)

namespace lcs::ui {

/// Lives on the runner's thread. A view adapter over the one run path: a run is the
/// registry's CamVid experiment (runExperiment), a re-correction the state it left, Open
/// Model its declared kEvaluateAction (runExperimentAction); the CamVid views they
/// publish become this runner's signals. Save Models writes the state's networks.
class CamvidWorker : public ExperimentWorker {
    Q_OBJECT
public:
    CamvidWorker()
        : ExperimentWorker(tr("CamVid training"), tr("CamVid re-correction"), tr("Sampling"), tr("CamVid model evaluation"))
    {
    }

    /// Writes the cached networks as a model folder into `dir`.
    void saveModels(const QString& dir)
    {
        QStringList written;
        QString error;
        const JobEnding ending = runGuarded([&] {
            if (!m_state)
                throw std::runtime_error("no networks to save: train CamVid first");
            for (const auto& f : m_state->saveModels(dir.toStdString()))
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
        const bool recorrecting = job == JobKind::Recorrect;
        if (recorrecting && !m_state)
            throw std::runtime_error("no S cached: train CamVid first");
        Reporter reporter(this, recorrecting ? tr("re-correction") : tr("CamVid"),
                          recorrecting ? QStringLiteral(", re-corrected") : QString());
        RunViews shown = views(reporter);
        // Kept once S and q are trained: a cancelled evaluation keeps them for re-correction.
        shown.stateCached = [&](const std::shared_ptr<RecorrectionState>& state) {
            m_state = state;
            Q_EMIT cacheReady(QString::fromStdString(m_state->describe()), costs);
        };
        JobContext ctx = reporter.context(cancelToken());
        ctx.views = &shown;
        ExperimentOutput output;
        if (recorrecting) {
            Q_EMIT logMessage(tr("Re-training q for the new costs from the cached S (nothing else retrained)"));
            output = m_state->recorrect(costs, ctx);
            ++recorrections;
        } else {
            auto run = lcs::runExperiment(ExperimentRegistry::global().get(kCamvidExperiment), settings.value<nlohmann::json>(),
                                          costs, ctx, {}, CoreShare::LeaveOneForGui);
            output = std::move(run.output);
            if (run.cache != m_state) {
                m_state = std::move(run.cache);
                Q_EMIT cacheReady(QString::fromStdString(m_state->describe()), costs);
            }
        }
        reporter.flush();
        Q_EMIT logMessage(QString::fromStdString(output.table).trimmed());
        json = QString::fromStdString(lcs::resultsJson(output));
        csv = QString::fromStdString(lcs::resultsCsv(output));
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
            // Previews come from training, frames from the evaluation after it.
            if (m_hasPreview) {
                m_worker->emitView(&CamvidJobRunner::preview, std::exchange(m_preview, {}));
                m_hasPreview = false;
            }
            if (!m_frames.isEmpty())
                m_worker->emitView(&CamvidJobRunner::frames, std::exchange(m_frames, {}));
        }

    private:
        CamvidWorker* m_worker;
        QString m_suffix;
        QVector<CamvidEpochPoint> m_epochs;
        QVector<CamvidFrameView> m_frames;
        CamvidPreviewView m_preview;
        bool m_hasPreview = false;
    };

    /// The views this page draws, from the run's typed events (converted here, on the
    /// job's thread, into plain data).
    RunViews views(Reporter& reporter)
    {
        RunViews v;
        v.show = viewHandlers([this](const CamvidRunStarted& e) {
            // The data checked out: from here on the previous run is replaced.
            m_state.reset();
            Q_EMIT cacheDropped();
            ++runs;
            emitView(&CamvidJobRunner::trainingStarted);
            Q_EMIT logMessage(tr("CamVid from %1: %2 training frames at %3x%4, %5; CW-SGD %6 epochs, SGHMC + S "
                                 "%7 epochs, q %8 epochs%9")
                                  .arg(QString::fromStdString(e.data))
                                  .arg(e.maxFrames > 0 ? tr("up to %1").arg(e.maxFrames) : tr("every"))
                                  .arg(e.width).arg(e.height)
                                  .arg(QString::fromStdString(e.architecture)).arg(e.sgdEpochs)
                                  .arg(e.sghmcEpochs).arg(e.correctionEpochs)
                                  .arg(e.mcDropout ? tr(", MC dropout too") : QString()));
        }, [&reporter](const CamvidPreview& p) { reporter.setPreview(previewView(p)); },
        [this, &reporter](const CamvidEvaluating& e) {
            reporter.flush();  // the last previews before the evaluated frames replace them
            emitView(&CamvidJobRunner::evaluationStarted, e.frames);
        }, [&reporter](const CamvidVisitedFrame& f) { reporter.addFrame(frameView(f)); },
        [this, &reporter](const CamvidEvaluated& e) {
            reporter.flush();  // every frame before the figures
            const auto& c = e.comparison;
            CamvidIouView view =
                iouView(c.classNames, c.uncorrected, c.corrected, c.optimum.averageCost, c.changes, c.frames,
                        c.keptRule);
            view.recorrected = e.recorrected;
            view.correctionSeconds = e.correctionSeconds;
            sendComparison(view);
        }, [this](const CamvidModelsOpened& e) {
            const QString description = QString::fromStdString(e.description);
            Q_EMIT logMessage(description);
            emitView(&CamvidJobRunner::modelEvaluationStarted, QString::fromStdString(e.folder), description);
        }, [this](const CamvidEvalResult& result) {
            // A model folder evaluated (Open Model): where it holds S and q, the IoU views as after a run.
            const CamvidMethodMetrics *student = nullptr, *q = nullptr, *optimum = nullptr;
            for (const auto& row : result.rows) {
                if (row.method == "sghmc_s")
                    (row.rule == "correction_optimum" ? optimum : student) = &row;
                else if (row.method == "ours")
                    q = &row;
            }
            if (student && q && optimum && result.studentToCorrected)
                sendComparison(iouView(result.classNames, student->metrics, q->metrics, optimum->metrics.averageCost,
                                       *result.studentToCorrected, result.frames, result.keptRule));
        }, [this](const CamvidFpsMeasured& e) {
            CamvidFpsView f;
            for (const auto& p : e.fps.points) {
                f.ensembles << p.ensemble;
                f.ensembleFps << p.ensembleFps;
            }
            f.qFps = e.fps.qFps;
            f.rawFps = e.fps.rawFps;
            f.width = e.fps.width;
            f.height = e.fps.height;
            f.ensembleLabel = e.mcDropout ? tr("MC dropout, k passes") : tr("k dropout passes of S (ensemble cost)");
            f.ensembleMethod = e.mcDropout ? QStringLiteral("mc_dropout") : QStringLiteral("sghmc_s");
            emitView(&CamvidJobRunner::framesPerSecond, f);
            Q_EMIT logMessage(QString::fromStdString(camvidFpsTable(e.fps)).trimmed());
        });
        return v;
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

    void sendComparison(const CamvidIouView& v)
    {
        emitView(&CamvidJobRunner::comparison, v);
        Q_EMIT logMessage(tr("Validation (%1 frames, void ignored): mIoU %2 -> %3, decision cost %4 -> %5 "
                             "(S uncorrected -> q corrected); q changed %6% of S's decisions; S decided at the "
                             "correction's optimum: cost %7")
                              .arg(v.frames).arg(v.before.meanIou, 0, 'f', 4).arg(v.after.meanIou, 0, 'f', 4)
                              .arg(v.before.cost, 0, 'f', 4).arg(v.after.cost, 0, 'f', 4)
                              .arg(100.0 * v.changedShare, 0, 'f', 2).arg(v.costAtOptimum, 0, 'f', 4));
    }

    /// Evaluates a model folder as `camvid eval` does, on the validation frames the
    /// settings name (the experiment's kEvaluateAction); where it holds S and q, the viewer
    /// and the IoU views show them as after a run.
    void evaluateFolder(const CamvidModelRequest& r, const CostMatrix& costs, QString& json, QString& csv)
    {
        Reporter reporter(this, tr("model evaluation"));
        const RunViews shown = views(reporter);
        JobContext ctx = reporter.context(cancelToken());
        ctx.views = &shown;
        auto settings = r.settings;
        settings[kSavedModelSetting] = r.dir.toStdString();
        // The experiment's declared action, under the thread policy of every run.
        const auto run = runExperimentAction(ExperimentRegistry::global().get(kCamvidExperiment), kEvaluateAction,
                                             settings, costs, ctx, {}, CoreShare::LeaveOneForGui);
        reporter.flush();
        Q_EMIT logMessage(QString::fromStdString(run.output.table).trimmed());
        json = QString::fromStdString(lcs::resultsJson(run.output));
        csv = QString::fromStdString(lcs::resultsCsv(run.output));
    }

    /// What the last run left (a CamvidState: S, q, the unlabelled frames).
    std::shared_ptr<RecorrectionState> m_state;
};

CamvidJobRunner::CamvidJobRunner(QObject* parent)
    : JobRunner(new CamvidWorker, QStringLiteral("lcs-camvid-jobs"), parent)
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
