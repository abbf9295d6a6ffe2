#include "ui/experiments/camvid/camvid_conversion.h"

#include <cmath>
#include <cstring>
#include <utility>

#include <QObject>

#include "engine/experiments/camvid/camvid_entry.h"

namespace lcs::ui {

namespace {

QVector<double> toQVector(const std::vector<double>& v)
{
    return QVector<double>(v.begin(), v.end());
}

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

CamvidFrameView frameView(const CamvidVisitedFrame& f)
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

/// A preview as plain data for the GUI thread (QImages own their pixels).
CamvidPreviewView previewView(const CamvidPreview& p)
{
    CamvidPreviewView v;
    v.network = QString::fromStdString(p.network);
    v.epoch = p.epoch;
    v.recorrection = p.recorrection;
    for (const auto& f : p.frames)
        v.frames.push_back(frameView(f));
    return v;
}

void sendComparison(const CamvidIouView& v, const ViewSink& sink)
{
    sink.send(v);
    sink.log(QObject::tr("Validation (%1 frames, void ignored): mIoU %2 -> %3, decision cost %4 -> %5 "
                         "(S uncorrected -> q corrected); q changed %6% of S's decisions; S decided at the "
                         "correction's optimum: cost %7")
                          .arg(v.frames).arg(v.before.meanIou, 0, 'f', 4).arg(v.after.meanIou, 0, 'f', 4)
                          .arg(v.before.cost, 0, 'f', 4).arg(v.after.cost, 0, 'f', 4)
                          .arg(100.0 * v.changedShare, 0, 'f', 2).arg(v.costAtOptimum, 0, 'f', 4));
}

} // namespace

void CamvidViewAdapter::begin(JobKind job, const JobRequest&)
{
    m_suffix = job == JobKind::Recorrect ? QStringLiteral(", re-corrected") : QString();
    m_epochs.clear();
    m_frames.clear();
    m_preview = {};
    m_hasPreview = false;
}

void CamvidViewAdapter::collect(const Progress& p)
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

void CamvidViewAdapter::flush(const ViewSink& sink)
{
    if (!m_epochs.isEmpty())
        sink.send(std::exchange(m_epochs, {}));
    // Previews come from training, frames from the evaluation after it.
    if (m_hasPreview) {
        sink.send(std::exchange(m_preview, {}));
        m_hasPreview = false;
    }
    if (!m_frames.isEmpty())
        sink.send(std::exchange(m_frames, {}));
}

void CamvidViewAdapter::show(const ViewEvent& event, const ViewSink& sink)
{
    const auto handle = viewHandlers(
        [&](const CamvidRunStarted& e) {
            sink.send(CamvidStage{CamvidStage::Training, 0, {}, {}});
            sink.log(QObject::tr("CamVid from %1: %2 training frames at %3x%4, %5; CW-SGD %6 epochs, SGHMC + S "
                                 "%7 epochs, q %8 epochs%9")
                         .arg(QString::fromStdString(e.data))
                         .arg(e.maxFrames > 0 ? QObject::tr("up to %1").arg(e.maxFrames) : QObject::tr("every"))
                         .arg(e.width).arg(e.height)
                         .arg(QString::fromStdString(e.architecture)).arg(e.sgdEpochs)
                         .arg(e.sghmcEpochs).arg(e.correctionEpochs)
                         .arg(e.mcDropout ? QObject::tr(", MC dropout too") : QString()));
        },
        [&](const CamvidPreview& p) {
            // Only a network's latest preview waits for the next sending; the last one of
            // S goes out before q's first replaces it.
            auto preview = previewView(p);
            if (m_hasPreview && m_preview.network != preview.network)
                sink.send(std::exchange(m_preview, {}));
            m_preview = std::move(preview);
            m_hasPreview = true;
            sink.maybeFlush();
        },
        [&](const CamvidEvaluating& e) {
            sink.flush();  // the last previews before the evaluated frames replace them
            sink.send(CamvidStage{CamvidStage::Evaluation, e.frames, {}, {}});
        },
        [&](const CamvidVisitedFrame& f) {
            m_frames.push_back(frameView(f));
            sink.maybeFlush();
        },
        [&](const CamvidEvaluated& e) {
            sink.flush();  // every frame before the figures
            const auto& c = e.comparison;
            CamvidIouView view =
                iouView(c.classNames, c.uncorrected, c.corrected, c.optimum.averageCost, c.changes, c.frames,
                        c.keptRule);
            view.recorrected = e.recorrected;
            view.correctionSeconds = e.correctionSeconds;
            sendComparison(view, sink);
        },
        [&](const CamvidModelsOpened& e) {
            const QString description = QString::fromStdString(e.description);
            sink.log(description);
            sink.send(CamvidStage{CamvidStage::ModelsOpened, 0, QString::fromStdString(e.folder), description});
        },
        [&](const CamvidEvalResult& result) {
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
                                       *result.studentToCorrected, result.frames, result.keptRule),
                               sink);
        },
        [&](const CamvidFpsMeasured& e) {
            CamvidFpsView f;
            for (const auto& p : e.fps.points) {
                f.ensembles << p.ensemble;
                f.ensembleFps << p.ensembleFps;
            }
            f.qFps = e.fps.qFps;
            f.rawFps = e.fps.rawFps;
            f.width = e.fps.width;
            f.height = e.fps.height;
            f.ensembleLabel = e.mcDropout ? QObject::tr("MC dropout, k passes")
                                          : QObject::tr("k dropout passes of S (ensemble cost)");
            f.ensembleMethod = e.mcDropout ? QStringLiteral("mc_dropout") : QStringLiteral("sghmc_s");
            sink.send(f);
            sink.log(QString::fromStdString(camvidFpsTable(e.fps)).trimmed());
        });
    handle(event);
}

} // namespace lcs::ui
