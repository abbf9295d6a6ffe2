#pragma once

#include <cmath>

#include <QImage>
#include <QMetaType>
#include <QString>
#include <QStringList>
#include <QVector>

/// Plain data of the CamVid segmentation experiment that crosses from the job thread to
/// the GUI thread: copied by value, no tensors; every QImage owns its pixels.
namespace lcs::ui {

/// One network's validation figures after one of its epochs (live curves).
struct CamvidEpochPoint {
    QString series;      ///< "cw_sgd", "sghmc_s", "ours", "mc_dropout", "ours, re-corrected"
    int epoch = 0;       ///< 1-based
    double meanIou = 0, cost = 0, accuracy = 0;
};

/// One validation frame with both decision rules, row-major H x W.
struct CamvidFrameView {
    int index = 0;                   ///< position in the evaluated split
    QString name;                    ///< file name
    QImage frame;                    ///< RGB888 at the networks' size, owns its pixels
    QVector<quint8> truth;           ///< 0..10, 11 = void
    QVector<quint8> uncorrected;     ///< S's Bayes decisions under the run's costs
    QVector<quint8> corrected;       ///< q's Bayes decisions under the same costs

    int width() const { return frame.width(); }
    int height() const { return frame.height(); }
    bool isValid() const
    {
        const qsizetype n = qsizetype(frame.width()) * frame.height();
        return n > 0 && truth.size() == n && uncorrected.size() == n && corrected.size() == n;
    }
};

/// The first validation frames decided by the network just trained, while the job runs
/// (live overlays): after an epoch of S, `corrected` of every frame is empty (no q yet);
/// after an epoch of q, `uncorrected` holds the finished S's decisions.
struct CamvidPreviewView {
    QString network;                 ///< "sghmc_s" or "ours"
    int epoch = 0;                   ///< 1-based
    bool recorrection = false;       ///< q retrained for edited costs
    QVector<CamvidFrameView> frames; ///< index 0.. in the evaluated split

    bool hasCorrected() const { return network == QLatin1String("ours"); }
    /// "S after epoch 3", "q after epoch 2", "re-corrected q after epoch 1".
    QString caption() const
    {
        const QString who = network == QLatin1String("ours")
                                ? (recorrection ? QStringLiteral("re-corrected q") : QStringLiteral("q"))
                                : QStringLiteral("S");
        return QStringLiteral("%1 after epoch %2").arg(who).arg(epoch);
    }
};

/// Per-class IoU, mIoU and decision cost on the evaluated frames, uncorrected (S) vs
/// corrected (q), under the matrix q was trained for.
struct CamvidIouView {
    /// One decision rule's figures on the evaluated frames.
    struct Rule {
        QVector<double> iou;         ///< per class; NaN for a class neither truth nor decisions hold
        double meanIou = 0;
        double cost = 0;             ///< mean decision cost per pixel
        double accuracy = 0;
        double expected = NAN;       ///< the cost the network expects under its own predictive
    };
    QStringList classNames;          ///< the 11 scored classes
    Rule before, after;              ///< S's Bayes decisions, q's
    double costAtOptimum = NAN;      ///< S decided at the correction objective's pointwise optimum
    double changedShare = NAN;       ///< fraction of scored pixels where q's decision differs from S's
    qint64 frames = 0, pixels = 0;
    /// The decisions the evaluation keeps (S, q or a calibration of S, chosen on the first
    /// half of the frames) and its cost against S's on the other half; empty without a choice.
    QString keptRule;
    double keptCost = NAN, keptReferenceCost = NAN;
    qint64 keptScoredFrames = 0;
    QString keptReason;              ///< how it was chosen, and the verdict against S
    bool recorrected = false;        ///< after a cost edit
    double correctionSeconds = 0;    ///< q's training time in this job
};

/// Frames per second of the ensemble / MC-dropout predictive with k passes against q.
struct CamvidFpsView {
    QVector<int> ensembles;
    QVector<double> ensembleFps;
    double qFps = 0, rawFps = 0;
    int width = 0, height = 0;
    QString ensembleLabel;           ///< "MC dropout" or "S with dropout on (ensemble cost)"
    QString ensembleMethod = QStringLiteral("sghmc_s");  ///< the network sampled: "mc_dropout" or "sghmc_s"
};

/// A stage of a CamVid job that the views follow.
struct CamvidStage {
    enum Kind {
        Training,      ///< a run's data checked out: the last run is replaced (the views clear)
        Evaluation,    ///< `frames` validation frames follow (the viewer drops the old ones)
        ModelsOpened,  ///< the model folder `dir` checked out (`description`: what it holds); its evaluation follows
    };
    Kind kind = Training;
    int frames = 0;
    QString dir, description;
};

} // namespace lcs::ui

Q_DECLARE_METATYPE(lcs::ui::CamvidStage)
Q_DECLARE_METATYPE(lcs::ui::CamvidPreviewView)
Q_DECLARE_METATYPE(lcs::ui::CamvidIouView)
Q_DECLARE_METATYPE(lcs::ui::CamvidFpsView)
