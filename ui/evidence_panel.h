#pragma once

#include <QColor>
#include <QStringList>
#include <QVector>
#include <QWidget>

#include "engine/decision/correction_evidence.h"
#include "ui/ui_types.h"

class QLabel;
class QTableWidget;

namespace lcs::ui {

/// The colour of a worse verdict, wherever one is shown (tables, tabs, messages).
QColor worseColour();
/// The title of a tab holding the evidence: it says so when q is worse.
QString evidenceTabTitle(bool worse);

/// The run's held-out evidence, under the results table: a verdict a user can act on
/// (red when q is worse, never hidden), and the numbers behind it. For a user's predictive
/// with labels, every rule (P, q, temperature, offsets) on the test rows with the paired
/// change against P and its 95% interval, and the confusion of P and of the kept rule;
/// for replicated experiments, each method's change over replicates. Without labels it
/// says that nothing shows q helps.
class EvidencePanel : public QWidget {
    Q_OBJECT
public:
    explicit EvidencePanel(QWidget* parent = nullptr);

    /// Nothing to show yet, or a run without labelled rows: `why` says which.
    void showNoEvidence(const QString& why);
    /// `correct` with labels (gatherCorrectionEvidence's result) under `costs`.
    void showCorrection(const CorrectionEvidence& evidence, const CostMatrix& costs);
    /// Replicated experiments: one row per method of `methods` (`labels` for methods
    /// outside the catalogue), the Student t interval over the replicates in `rows` as the
    /// command line's report computes it (compareOverReplicates).
    void showReplicates(const QVector<ResultRow>& rows, const QStringList& methods, const QStringList& labels);

    QString verdictText() const;
    /// The last evidence shown says q is worse than P (on rows, or over replicates).
    bool worse() const { return m_worse; }

private:
    void setVerdict(const QStringList& sentences, bool worse, bool better);
    /// The verdict on q, the rule kept and why, and each baseline that costs less.
    void showVerdictOf(const CorrectionEvidence& e);
    /// One row per rule: its figures and its paired change against P.
    void fillRules(const CorrectionEvidence& e);
    /// P's and q's confusion on the held-out rows, side by side in each cell.
    void fillConfusion(const CorrectionEvidence& e, const CostMatrix& costs);

    QLabel* m_verdict = nullptr;
    QTableWidget* m_rules = nullptr;
    QLabel* m_confusionCaption = nullptr;
    QTableWidget* m_confusion = nullptr;
    bool m_worse = false;
};

} // namespace lcs::ui
