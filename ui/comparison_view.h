#pragma once

#include <vector>

#include <QImage>
#include <QMetaType>
#include <QString>
#include <QStringList>
#include <QVector>

#include "base/decision/cost_matrix.h"
#include "engine/decision/correction_evidence.h"

/// Both decision rules on the same test rows, as plain data for the GUI thread: what the
/// confusion matrices, the gallery of changed decisions and the decisions view draw,
/// whichever experiment decided (an image run, a table, a user's predictive). Every
/// QImage owns its pixels.
namespace lcs::ui {

/// One test image whose decision the correction changed.
struct GalleryItem {
    qint64 index = 0;         ///< row of the test set
    int label = 0;
    int before = 0, after = 0;  ///< decisions without / with the correction
    QVector<float> probsBefore, probsAfter;
    QImage image;             ///< un-standardised, owns its pixels; null when unavailable
};

/// Both decision rules on the test set of one run: confusion matrices and the changed
/// decisions.
struct ComparisonView {
    QString experiment;          ///< kCorruptionExperiment or kSelectiveExperiment
    double value = 0;            ///< corruption rate or referral cost
    int trial = 0;
    bool recorrected = false;    ///< from a re-correction after a cost edit
    QString uncorrectedLabel;    ///< "SGLD + S", "SGHMC", "S (student)"
    QString uncorrectedMethod;   ///< its catalogue id ("sgld_s", "sghmc"): the colour it is drawn in
    QString correctedLabel;      ///< "Ours (q on S)"
    QStringList classNames;      ///< C rows
    QStringList decisionNames;   ///< D columns (C, or C + 1 with "refer")
    QVector<qint64> before, after;  ///< [C x D] row-major counts, rows = true class
    double costBefore = 0, costAfter = 0;
    double accuracyBefore = 0, accuracyAfter = 0;
    double referralBefore = 0, referralAfter = 0;
    qint64 testCount = 0;
    qint64 changedCount = 0;     ///< all changed decisions; `changed` holds the first ones
    QVector<GalleryItem> changed;
    double seconds = 0;          ///< the re-correction's training time
    bool collapsed = false;
    /// The held-out evidence on the test set's scored half (P = the uncorrected rule),
    /// under `costs`; no rules when the test set was too small to split.
    CorrectionEvidence evidence;
    CostMatrix costs;
    /// Both rules' reliability diagrams and ECE on the whole test set.
    std::vector<ReliabilityBin> reliabilityBefore, reliabilityAfter;
    double eceBefore = 0, eceAfter = 0;

    int classes() const { return static_cast<int>(classNames.size()); }
    int decisions() const { return static_cast<int>(decisionNames.size()); }
    /// "rate 0.5, trial 1" / "r 0.1, trial 1"; for another experiment "replicate 0"
    QString title() const;
};

} // namespace lcs::ui

Q_DECLARE_METATYPE(lcs::ui::ComparisonView)
