#include "ui/evidence_panel.h"

#include <cmath>

#include <QColor>
#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

#include "base/inference/method_catalog.h"
#include "engine/decision/evidence.h"
#include "ui/method_style.h"
#include "ui/results_table.h"

namespace lcs::ui {

QColor worseColour()
{
    return QColor(0xb0, 0x00, 0x20);
}

QString evidenceTabTitle(bool worse)
{
    return worse ? QObject::tr("Held-out evidence: q worse") : QObject::tr("Held-out evidence");
}

namespace {

const QColor kBetter(0x1b, 0x6e, 0x20);

QString number(double v, int digits)
{
    return std::isfinite(v) ? QString::number(v, 'f', digits) : QStringLiteral("–");
}

QString signedNumber(double v)
{
    return (v >= 0 ? QStringLiteral("+") : QString()) + QString::number(v, 'f', 4);
}

/// "+0.0030 [+0.0004, +0.0061]": the paired change and its 95% interval.
QString changeCell(const PairedDifference& d)
{
    return QString("%1 [%2, %3]").arg(signedNumber(d.mean), signedNumber(d.low), signedNumber(d.high));
}

QTableWidgetItem* verdictItem(Verdict v)
{
    auto* item = new QTableWidgetItem(QString::fromLatin1(verdictName(v)));
    if (v == Verdict::Worse)
        item->setForeground(worseColour());
    else if (v == Verdict::Better)
        item->setForeground(kBetter);
    return item;
}

QTableWidget* readOnlyTable(QWidget* parent, const QString& name)
{
    auto* table = new QTableWidget(parent);
    table->setObjectName(name);
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->verticalHeader()->hide();
    fitColumnsToContents(table);
    return table;
}

} // namespace

EvidencePanel::EvidencePanel(QWidget* parent) : QWidget(parent)
{
    setObjectName("evidence_panel");
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_verdict = new QLabel(this);
    m_verdict->setObjectName("evidence_verdict");
    m_verdict->setWordWrap(true);
    m_verdict->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_rules = readOnlyTable(this, "evidence_rules");
    m_confusionCaption = new QLabel(this);
    m_confusionCaption->setWordWrap(true);
    m_confusion = readOnlyTable(this, "evidence_confusion");
    m_confusion->verticalHeader()->show();
    layout->addWidget(m_verdict);
    layout->addWidget(m_rules, 2);
    layout->addWidget(m_confusionCaption);
    layout->addWidget(m_confusion, 1);
    showNoEvidence(tr("Held-out evidence appears here once a run has labelled rows q never saw."));
}

QString EvidencePanel::verdictText() const
{
    return m_verdict->text();
}

void EvidencePanel::setVerdict(const QStringList& sentences, bool worse, bool better)
{
    m_worse = worse;
    m_verdict->setText(sentences.join("\n"));
    QPalette palette = m_verdict->palette();
    palette.setColor(QPalette::WindowText, worse ? worseColour() : better ? kBetter : QWidget::palette().color(QPalette::WindowText));
    m_verdict->setPalette(palette);
}

void EvidencePanel::showNoEvidence(const QString& why)
{
    setVerdict({why}, false, false);
    m_rules->clear();
    m_rules->setRowCount(0);
    m_rules->setColumnCount(0);
    m_rules->hide();
    m_confusionCaption->hide();
    m_confusion->hide();
}

void EvidencePanel::showCorrection(const CorrectionEvidence& e, const CostMatrix& costs)
{
    if (e.rules.empty() || e.comparisons.empty()) {
        showNoEvidence(tr("No held-out evidence in this run."));
        return;
    }
    showVerdictOf(e);
    fillRules(e);
    fillConfusion(e, costs);
}

void EvidencePanel::showVerdictOf(const CorrectionEvidence& e)
{
    // The kept rule first: its decisions are the run's, its files and models.
    const auto* kept = e.comparison(e.kept);
    const auto& onQ = e.comparisons[0];
    QStringList sentences;
    if (kept)
        sentences << tr("Decisions kept: %1. %2")
                         .arg(QString::fromStdString(e.kept), QString::fromStdString(verdictSentence(*kept, e.setName)));
    else
        sentences << tr("Decisions kept: P (the uncorrected decisions).");
    sentences << tr("Why: %1.").arg(QString::fromStdString(e.keptReason));
    if (e.kept != "q")
        sentences << tr("Verdict on q: %1").arg(QString::fromStdString(verdictSentence(onQ, e.setName)));
    const double keptCost = kept ? kept->candidate.cost : e.rules[0].cost;
    for (const auto& c : e.comparisons)
        if (c.candidate.rule != e.kept && c.candidate.cost < keptCost)
            sentences << tr("Note: %1 costs less than the kept rule on these rows (%2 against %3); the choice was "
                            "made on the validation rows.")
                             .arg(QString::fromStdString(c.candidate.rule))
                             .arg(c.candidate.cost, 0, 'f', 4)
                             .arg(keptCost, 0, 'f', 4);
    // Red where the kept rule or q is worse than P: a worse q is said even when P is kept.
    const Verdict v = kept ? kept->verdict : Verdict::NoClearDifference;
    setVerdict(sentences, v == Verdict::Worse || onQ.verdict == Verdict::Worse, v == Verdict::Better);
}

void EvidencePanel::fillRules(const CorrectionEvidence& e)
{
    m_rules->clear();
    m_rules->setColumnCount(7);
    m_rules->setHorizontalHeaderLabels({tr("rule"), tr("cost"), tr("accuracy"), tr("referral"), tr("ECE"),
                                        tr("change vs P [95%]"), tr("verdict")});
    m_rules->horizontalHeaderItem(5)->setToolTip(
        tr("Mean paired change in test cost against P, with a 95% bootstrap interval over rows (< 0: cheaper)"));
    m_rules->horizontalHeaderItem(4)->setToolTip(tr("Top-label expected calibration error, 15 bins"));
    m_rules->setRowCount(static_cast<int>(e.rules.size()));
    // The kept rule's row first, then P (the reference), then the rest in the run's order.
    std::vector<size_t> order;
    for (size_t k = 0; k < e.rules.size(); ++k)
        if (e.rules[k].rule == e.kept)
            order.push_back(k);
    for (size_t k = 0; k < e.rules.size(); ++k)
        if (e.rules[k].rule != e.kept)
            order.push_back(k);
    for (int row = 0; row < static_cast<int>(order.size()); ++row) {
        const size_t k = order[static_cast<size_t>(row)];
        const auto& r = e.rules[k];
        auto* name = new QTableWidgetItem(QString::fromStdString(r.rule) + (r.rule == e.kept ? tr(" (kept)") : QString()));
        if (r.rule == e.kept)
            name->setFont([&] { QFont f = font(); f.setBold(true); return f; }());
        m_rules->setItem(row, 0, name);
        m_rules->setItem(row, 1, new QTableWidgetItem(number(r.cost, 4)));
        m_rules->setItem(row, 2, new QTableWidgetItem(number(r.accuracy, 3)));
        m_rules->setItem(row, 3, new QTableWidgetItem(number(r.referralRate, 3)));
        m_rules->setItem(row, 4, new QTableWidgetItem(number(r.ece, 3)));
        if (k > 0 && k - 1 < e.comparisons.size()) {
            const auto& c = e.comparisons[k - 1];
            m_rules->setItem(row, 5, new QTableWidgetItem(changeCell(c.difference)));
            m_rules->setItem(row, 6, verdictItem(c.verdict));
        } else {
            m_rules->setItem(row, 5, new QTableWidgetItem(tr("reference")));
            m_rules->setItem(row, 6, new QTableWidgetItem(QString()));
        }
    }
    m_rules->show();
}

void EvidencePanel::fillConfusion(const CorrectionEvidence& e, const CostMatrix& costs)
{
    // P's and q's decisions on the same rows, side by side in each cell: where q moves
    // rows between classes (how many malignant tumours were missed) reads at a glance.
    const auto& p = e.rules[0];
    const auto* keptRule = e.rule(e.kept);
    const auto& q = keptRule ? *keptRule : e.rules.size() > 1 ? e.rules[1] : e.rules[0];
    const int classes = costs.numClasses(), decisions = costs.numDecisions();
    if (classes <= 0 || p.confusion.size() != static_cast<size_t>(classes * decisions) ||
        q.confusion.size() != p.confusion.size()) {
        m_confusionCaption->hide();
        m_confusion->hide();
        return;
    }
    auto className = [&](int k) {
        return k < static_cast<int>(costs.classNames().size()) && !costs.classNames()[static_cast<size_t>(k)].empty()
                   ? QString::fromStdString(costs.classNames()[static_cast<size_t>(k)])
                   : tr("class %1").arg(k);
    };
    m_confusionCaption->setText(tr("Confusion on the %1 rows, P → %2, the kept rule (rows: true class; columns: decision)")
                                    .arg(QString::fromStdString(e.setName), QString::fromStdString(q.rule)));
    m_confusion->clear();
    m_confusion->setRowCount(classes);
    m_confusion->setColumnCount(decisions);
    QStringList columns, rows;
    for (int d = 0; d < decisions; ++d)
        columns << (d < classes ? className(d) : QString::fromStdString(costs.decisionName(d)));
    for (int y = 0; y < classes; ++y)
        rows << className(y);
    m_confusion->setHorizontalHeaderLabels(columns);
    m_confusion->setVerticalHeaderLabels(rows);
    for (int y = 0; y < classes; ++y)
        for (int d = 0; d < decisions; ++d) {
            const auto at = static_cast<size_t>(y * decisions + d);
            const auto before = p.confusion[at], after = q.confusion[at];
            auto* item = new QTableWidgetItem(before == after ? QString::number(before)
                                                              : QString("%1 → %2").arg(before).arg(after));
            if (before != after)
                item->setFont([&] { QFont f = font(); f.setBold(true); return f; }());
            m_confusion->setItem(y, d, item);
        }
    m_confusionCaption->show();
    m_confusion->show();
}

void EvidencePanel::showReplicates(const QVector<ResultRow>& rows, const QStringList& methods,
                                   const QStringList& labels)
{
    QStringList sentences;
    bool anyWorse = false, allBetter = true, any = false;
    m_rules->clear();
    m_rules->setColumnCount(5);
    m_rules->setHorizontalHeaderLabels({tr("method"), tr("P"), tr("kept"), tr("change [95%]"), tr("verdict")});
    m_rules->horizontalHeaderItem(2)->setToolTip(
        tr("Test cost of the rule each replicate kept on its validation rows (q, P or a calibration of P; q "
           "where there are no validation rows), mean over replicates"));
    m_rules->horizontalHeaderItem(3)->setToolTip(
        tr("Mean change in test cost q - P over replicates, with a 95% Student t interval over replicates "
           "(< 0: the correction lowered the cost)"));
    m_rules->setRowCount(static_cast<int>(methods.size()));
    for (int i = 0; i < methods.size(); ++i) {
        std::vector<double> uncorrected, corrected;
        for (const auto& r : rows)
            if (QString::fromStdString(r.method) == methods[i]) {
                uncorrected.push_back(r.uncorrectedCost);
                corrected.push_back(r.correctedCost);
            }
        const bool known = parseMethod(methods[i].toStdString()).has_value();
        const QString label = known ? QString::fromStdString(methodLabel(*parseMethod(methods[i].toStdString())))
                              : i < labels.size() ? labels[i] : methods[i];
        m_rules->setItem(i, 0, methodItem(methods[i], known ? QString() : label));
        if (uncorrected.size() < 2) {
            // One replicate has no spread: its costs, and no interval to read.
            for (int c = 1; c < 5; ++c)
                m_rules->setItem(i, c, new QTableWidgetItem(QStringLiteral("–")));
            if (!uncorrected.empty()) {
                m_rules->setItem(i, 1, new QTableWidgetItem(number(uncorrected[0], 4)));
                m_rules->setItem(i, 2, new QTableWidgetItem(number(corrected[0], 4)));
                m_rules->setItem(i, 4, new QTableWidgetItem(tr("one replicate: no interval")));
            }
            allBetter = false;
            continue;
        }
        any = true;
        auto c = compareOverReplicates(uncorrected, corrected);
        c.candidate.rule = "the kept rule";
        m_rules->setItem(i, 1, new QTableWidgetItem(number(c.reference.cost, 4)));
        m_rules->setItem(i, 2, new QTableWidgetItem(number(c.candidate.cost, 4)));
        m_rules->setItem(i, 3, new QTableWidgetItem(changeCell(c.difference)));
        m_rules->setItem(i, 4, verdictItem(c.verdict));
        sentences << label + ": " + QString::fromStdString(verdictSentence(c, "test", "replicates"));
        anyWorse = anyWorse || c.verdict == Verdict::Worse;
        allBetter = allBetter && c.verdict == Verdict::Better;
    }
    if (!any)
        sentences << tr("Verdicts need three or more finished replicates per method.");
    setVerdict(sentences, anyWorse, any && allBetter);
    m_rules->show();
    m_confusionCaption->hide();
    m_confusion->hide();
}

} // namespace lcs::ui
