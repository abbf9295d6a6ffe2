#include "ui/experiments/image/image_page.h"

#include <cmath>

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QScrollArea>
#include <QSplitter>
#include <QVBoxLayout>

#include "ui/qcustomplot_compat.h"

#include "ui/evidence_panel.h"
#include "ui/experiments/image/image_views.h"
#include "ui/method_style.h"
#include "ui/plot_parts.h"
#include "ui/reliability_view.h"
#include "ui/results_table.h"

namespace lcs::ui {

ImageResultsPage::ImageResultsPage(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* selectors = new QHBoxLayout;
    m_runBox = new QComboBox(this);
    m_runBox->setObjectName("imageRunSelector");
    m_runBox->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_runBox->addItem(tr("follow the run in training"), QString());
    m_comparisonBox = new QComboBox(this);
    m_comparisonBox->setObjectName("imageComparisonSelector");
    m_comparisonBox->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    selectors->addWidget(new QLabel(tr("Curves of:"), this));
    selectors->addWidget(m_runBox);
    selectors->addSpacing(16);
    selectors->addWidget(new QLabel(tr("Decisions of:"), this));
    selectors->addWidget(m_comparisonBox);
    selectors->addStretch(1);
    layout->addLayout(selectors);

    // The live curves beside the summary on top; below, the decisions of the comparison
    // chosen (confusion matrices, the training time in a tab with them) beside the
    // gallery of changed decisions. Where the page is too narrow for a row, its views
    // become tabs, so that each keeps a readable size on a small screen.
    auto* vertical = new QSplitter(Qt::Vertical, this);
    vertical->setChildrenCollapsible(false);
    auto* top = new SideBySideOrTabs(760, vertical);
    top->setObjectName(QStringLiteral("imageTopViews"));
    m_curves = new EpochCurvePlot;
    m_summary = new SummaryPlot;
    top->addView(m_curves, tr("Curves per epoch"), 0, 3);
    top->addView(m_summary, tr("Cost and accuracy"), 1, 2);
    m_bottom = new SideBySideOrTabs(980, vertical);
    auto* bottom = m_bottom;
    bottom->setObjectName(QStringLiteral("imageBottomViews"));
    m_confusion = new ConfusionPlot;
    m_time = new TrainingTimePlot;
    m_galleryScroll = new QScrollArea;
    m_galleryScroll->setWidgetResizable(true);
    m_galleryScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_gallery = new GalleryView(m_galleryScroll);
    m_galleryScroll->setWidget(m_gallery);
    bottom->addView(m_confusion, tr("Confusion matrices"), 0, 3);
    bottom->addView(m_galleryScroll, tr("Changed decisions"), 1, 2);
    m_evidence = new EvidencePanel;
    m_evidence->setObjectName(QStringLiteral("imageEvidence"));
    bottom->addView(m_evidence, evidenceTabTitle(false), 0);
    m_reliability = new ReliabilityView;
    m_reliability->plot()->setObjectName(QStringLiteral("image_reliability_diagram"));  // the table page has its own
    bottom->addView(m_reliability, tr("Calibration"), 0);
    bottom->addView(m_time, tr("Training time"), 0);
    m_riskCoverage = new RiskCoveragePlot;
    bottom->addView(m_riskCoverage, tr("Risk-coverage"), 0);
    vertical->addWidget(top);
    vertical->addWidget(bottom);
    vertical->setSizes({500, 500});  // weights, not pixels
    layout->addWidget(vertical, 1);

    connect(m_curves, &EpochCurvePlot::runsChanged, this, [this](const QStringList& runs) {
        const QString chosen = m_runBox->currentData().toString();
        const QSignalBlocker block(m_runBox);
        while (m_runBox->count() > 1)
            m_runBox->removeItem(1);
        for (const QString& run : runs)
            m_runBox->addItem(run.isEmpty() ? tr("(unnamed)") : run, run);
        const int index = m_runBox->findData(chosen);
        m_runBox->setCurrentIndex(index < 0 ? 0 : index);
    });
    connect(m_runBox, &QComboBox::currentIndexChanged, this,
            [this](int) { m_curves->showRun(m_runBox->currentData().toString()); });
    connect(m_comparisonBox, &QComboBox::currentIndexChanged, this, &ImageResultsPage::showComparison);
}

QList<QCustomPlot*> ImageResultsPage::plots() const
{
    return {m_curves->plot(),       m_summary->plot(),      m_confusion->plot(),
            m_reliability->plot(), m_time->plot(),          m_riskCoverage->plot()};
}

void ImageResultsPage::startRun(const QString& experiment)
{
    m_experiment = experiment;
    m_curves->setExperiment(experiment);
    m_summary->clear();
    m_confusion->clear();
    m_gallery->clear();
    m_reliability->clear();
    m_evidence->showNoEvidence(tr("The evidence of each run appears when its correction has trained."));
    m_time->clear(tr("filled in when the run ends"));
    m_riskCoverage->clear(tr("filled in when the run ends"));
    showViewsOf(experiment);
    m_comparisons.clear();
    const QSignalBlocker block(m_comparisonBox);
    m_comparisonBox->clear();
}

void ImageResultsPage::showViewsOf(const QString& experiment)
{
    // Training time and risk-coverage are selective classification's: another
    // experiment would show them empty, so they leave the page.
    const bool selective = experiment == QLatin1String(kSelectiveExperiment);
    m_bottom->setViewShown(m_time, selective);
    m_bottom->setViewShown(m_riskCoverage, selective);
}

void ImageResultsPage::startRecorrection()
{
    m_curves->removeSeries(QString::fromLatin1(kRecorrectedSeries));
}

void ImageResultsPage::addEpochPoints(const QVector<EpochPoint>& points)
{
    m_curves->addEpochPoints(points);
}

void ImageResultsPage::addTrainingPoints(const QVector<TrainingPoint>& points)
{
    m_curves->addTrainingPoints(points);
}

void ImageResultsPage::addComparison(const ComparisonView& view)
{
    int index = -1;
    if (view.recorrected)
        for (int i = 0; i < m_comparisons.size(); ++i)
            if (m_comparisons[i].recorrected && m_comparisons[i].value == view.value && m_comparisons[i].trial == view.trial)
                index = i;
    if (index < 0) {
        m_comparisons.push_back(view);
        index = static_cast<int>(m_comparisons.size()) - 1;
        m_comparisonBox->addItem(view.title());
    } else {
        m_comparisons[index] = view;
    }
    if (m_comparisonBox->currentIndex() == index)
        showComparison(index);
    else
        m_comparisonBox->setCurrentIndex(index);  // shows it
}

void ImageResultsPage::showComparison(int index)
{
    if (index < 0 || index >= m_comparisons.size())
        return;
    const auto& view = m_comparisons[index];
    m_confusion->setComparison(view);
    m_gallery->setComparison(view);
    m_reliability->setDiagrams(view.reliabilityBefore, view.eceBefore, view.reliabilityAfter, view.eceAfter,
                               methodColourOf(view.uncorrectedMethod),
                               tr("Reliability on the test images, %1; P = %2").arg(view.title(), view.uncorrectedLabel));
    if (view.evidence.rules.empty())
        m_evidence->showNoEvidence(tr("The test set of %1 is too small to split for evidence.").arg(view.title()));
    else
        m_evidence->showCorrection(view.evidence, view.costs);
    // A worse q is never hidden behind the confusion matrices: its tab says so in red
    // and comes to the front.
    const bool worse = m_evidence->worse();
    m_bottom->setViewTitle(m_evidence, evidenceTabTitle(worse), worse ? worseColour() : QColor());
    if (worse)
        m_bottom->bringToFront(m_evidence);
}

void ImageResultsPage::setSummary(const SummaryView& view)
{
    m_summary->setSummary(view);
}

void ImageResultsPage::setTrainingTime(const TrainingTimeView& view)
{
    m_time->setTimes(view);
}

void ImageResultsPage::setRiskCoverage(const RiskCoverageView& view)
{
    m_riskCoverage->setCurves(view);
}

// ---------------------------------------------------------------------------------------

ImageSummaryTable::ImageSummaryTable(QWidget* parent) : QTableWidget(parent)
{
    setObjectName("imageSummaryTable");
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    setSelectionBehavior(QAbstractItemView::SelectRows);
    verticalHeader()->setVisible(false);
    fitColumnsToContents(this);
    setAlternatingRowColors(true);
    clearRows();
}

void ImageSummaryTable::clearRows()
{
    clear();
    setRowCount(0);
    setColumnCount(4);
    setHorizontalHeaderLabels({tr("method"), tr("rate / r"), tr("decision cost"), tr("accuracy")});
}

void ImageSummaryTable::setSummary(const SummaryView& view)
{
    const bool selective = view.experiment == QLatin1String(kSelectiveExperiment);
    clear();
    setColumnCount(selective ? 5 : 4);
    QStringList headers{tr("method"), selective ? tr("r") : tr("rate"), tr("decision cost"),
                        selective ? tr("accuracy (non-referred)") : tr("accuracy")};
    if (selective)
        headers << tr("referred");
    setHorizontalHeaderLabels(headers);
    setRowCount(static_cast<int>(view.points.size()));
    auto pm = [&view](double mean, double std, int digits) {
        if (!std::isfinite(mean))
            return QStringLiteral("n/a");
        // One trial has no spread to show.
        const bool single = std::all_of(view.points.begin(), view.points.end(), [](const SummaryPoint& p) { return p.trials < 2; });
        if (single)
            return QString::number(mean, 'f', digits);
        return QStringLiteral("%1 ± %2").arg(mean, 0, 'f', digits).arg(std, 0, 'f', digits);
    };
    for (int row = 0; row < view.points.size(); ++row) {
        const auto& p = view.points[row];
        QStringList cells{imageSeriesLabel(p.method) + (p.collapsed ? tr(" (q collapsed)") : QString()),
                          QString::number(p.x), pm(p.costMean, p.costStd, 4), pm(p.accuracyMean, p.accuracyStd, 4)};
        if (selective)
            cells << pm(p.referralMean, p.referralStd, 3);
        for (int c = 0; c < cells.size(); ++c)
            setItem(row, c, c == 0 ? methodItem(p.method, cells[c]) : new QTableWidgetItem(cells[c]));
    }
}

} // namespace lcs::ui
