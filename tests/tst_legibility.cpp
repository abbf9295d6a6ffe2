// Every page readable as a researcher reads it (issue 18): legends beside the data, never
// on it; one colour per method in every plot and table; every class named on a category
// axis; no clipped results cell; no empty panel for the current experiment; CamVid's S
// and q curves on axes of their own. Each page is filled with a small run (synthetic) or
// with view data of a demo's shape (the image and CamVid pages: their runs take minutes).
#include <algorithm>
#include <cmath>
#include <functional>

#include <QDockWidget>
#include <QHeaderView>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTextStream>
#include <QtTest/QtTest>

#include "tests/gui_test_setup.h"
#include "tests/window_pages.h"

#include "ui/evidence_panel.h"

#include "base/inference/method_catalog.h"
#include "engine/experiments/experiment.h"
#include "ui/experiments/camvid/camvid_page.h"
#include "ui/experiments/camvid/camvid_views.h"
#include "ui/experiments/image/image_page.h"
#include "ui/experiments/image/image_views.h"
#include "ui/main_window.h"
#include "ui/method_style.h"
#include "ui/plot_export.h"
#include "ui/qcustomplot_compat.h"

using namespace lcs;
using namespace lcs::ui;

namespace {

const QStringList kFashion{"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
                           "Sandal",      "Shirt",   "Sneaker",  "Bag",   "Ankle boot"};

/// The synthetic page after a small run (a few seconds).
bool fillSynthetic(MainWindow& window)
{
    Session s;
    s.experiment = "synthetic";
    s.settings = {{"replicates", 2}, {"methods", {"bbvi", "kfac_laplace"}}, {"correction_iterations", 60},
                  {"grid_resolution", 30}, {"threads", 2}};
    s.costs = costPreset("synthetic");
    window.applySession(s);
    QSignalSpy finished(syntheticRunner(window), &JobRunner::finished);
    window.runAll();
    return finished.wait(120000);
}

/// The image page as a demo run leaves it: curves, summary, confusion matrices with
/// Fashion-MNIST's classes and, for selective classification, training time and risk-coverage.
void fillImage(MainWindow& window, const QString& experiment)
{
    window.setExperiment(experiment);
    auto* page = imagePage(window);
    const bool selective = experiment == QLatin1String(kSelectiveExperiment);
    const QString run = selective ? QStringLiteral("trial 0") : QStringLiteral("rate 0.5, trial 0");
    const QStringList networks = selective ? QStringList{"map", "sghmc_s", "lc_sghmc", "ours"}
                                           : QStringList{"map", "sgld_s", "lc_sgld", "cw_sgd", "ours"};
    QVector<EpochPoint> epochs;
    for (int n = 0; n < networks.size(); ++n)
        for (int e = 1; e <= 3; ++e)
            epochs.push_back({run, networks[n], e, 0.3 - 0.01 * (n + e), 0.7 + 0.01 * (n + e), 1.0 - 0.05 * e});
    page->addEpochPoints(epochs);
    const QStringList phases = selective ? QStringList{"map", "sghmc + S", "lc-sghmc, r 0.1", "lc-sghmc, r 0.2",
                                                       "ours, r 0.1", "ours, r 0.2", "ours (no S), r 0.1",
                                                       "ours (no S), r 0.2"}
                                         : QStringList{"map", "sgld + S", "lc-sgld", "cw-sgd", "ours"};
    QVector<TrainingPoint> training;
    for (int p = 0; p < phases.size(); ++p)
        for (int step = 50; step <= 200; step += 50) {
            training.push_back({run, phases[p], "loss", step, 2.0 - 0.1 * p - step / 400.0});
            if (p == 1)
                training.push_back({run, phases[p], "student", step, 2.5 - step / 300.0});
        }
    page->addTrainingPoints(training);

    const QStringList methods = selective ? QStringList{"sghmc", "lc_sghmc", "ours", "ours_no_s"}
                                          : QStringList{"sgld_s", "lc_sgld", "cw_sgd", "ours"};
    SummaryView summary{experiment, selective ? "referral cost r" : "corruption rate", {}};
    for (int m = 0; m < methods.size(); ++m)
        for (double x : selective ? QVector<double>{0.1, 0.2} : QVector<double>{0.3, 0.5})
            summary.points.push_back({methods[m], x, 0.2 + 0.01 * m, 0.01, 0.8 - 0.01 * m, 0.02, 0.3, 0.01, 2, 0});
    page->setSummary(summary);
    window.findChild<ImageSummaryTable*>()->setSummary(summary);

    ComparisonView c;
    c.experiment = experiment;
    c.value = selective ? 0.2 : 0.5;
    c.uncorrectedLabel = methodLabelOf(methods.front());
    c.correctedLabel = methodLabelOf("ours");
    c.classNames = kFashion;
    c.decisionNames = kFashion;
    if (selective)
        c.decisionNames << "refer";
    for (int y = 0; y < c.classes(); ++y)
        for (int d = 0; d < c.decisions(); ++d) {
            c.before << (y == d ? 150 : (y + d) % 4);
            c.after << (y == d ? 160 : (y * d) % 3);
        }
    c.testCount = 2000;
    c.changedCount = 100;
    page->addComparison(c);
    if (selective) {
        page->setTrainingTime({{1, 4.7, 4.6, 9.0}, {2, 5.3, 5.0, 18.0}});
        RiskCoverageView risk{0.2, 0, {}};
        for (const QString& m : methods)
            risk.curves.push_back({m, {0.2, 0.6, 1.0}, {0.01, 0.05, 0.12}, 0.04});
        page->setRiskCoverage(risk);
    }
}

/// The CamVid page as the demo leaves it: epoch curves of every network, IoU of the 11
/// scored classes, frames per second.
void fillCamvid(MainWindow& window)
{
    window.setExperiment("camvid");
    auto* page = camvidPage(window);
    QVector<CamvidEpochPoint> epochs;
    const QStringList series{"cw_sgd", "mc_dropout", "sghmc_s", "ours"};
    for (int s = 0; s < series.size(); ++s)
        for (int e = 1; e <= 4; ++e)
            epochs.push_back({series[s], e, 0.1 + 0.02 * e + 0.01 * s, 0.4 - 0.02 * e, 0.5});
    page->addEpochPoints(epochs);
    CamvidIouView v;
    v.classNames = camvidClassNameList().mid(0, 11);
    for (int c = 0; c < v.classNames.size(); ++c) {
        v.before.iou << 0.6 - 0.05 * c;
        v.after.iou << 0.62 - 0.05 * c;
    }
    v.before.meanIou = 0.35;
    v.after.meanIou = 0.37;
    v.before.cost = 0.268;
    v.after.cost = 0.251;
    v.before.expected = 0.19;
    v.after.expected = 0.15;
    v.costAtOptimum = 0.27;
    v.changedShare = 0.0992;
    v.frames = 24;
    v.keptRule = "vector";  // the first row, across the table's columns
    v.keptCost = 0.2571;
    v.keptReferenceCost = 0.2741;
    v.keptScoredFrames = 12;
    page->setComparison(v);
    window.findChild<CamvidIouTable*>()->setComparison(v);
    CamvidFpsView f;
    f.ensembles = {1, 2, 5, 10};
    f.ensembleFps = {120, 65, 27, 13};
    f.qFps = 130;
    f.width = 120;
    f.height = 90;
    f.ensembleLabel = "MC dropout, k passes";
    f.ensembleMethod = "mc_dropout";
    page->setFps(f);
}

bool fill(MainWindow& window, const QString& experiment)
{
    if (experiment == QLatin1String("synthetic"))
        return fillSynthetic(window);
    if (experiment == QLatin1String("camvid"))
        fillCamvid(window);
    else
        fillImage(window, experiment);
    return true;
}

/// The window shown at `size` with the current page's layout settled.
bool showAt(MainWindow& window, const QSize& size)
{
    window.resize(size);
    window.show();
    if (!QTest::qWaitForWindowExposed(&window))
        return false;
    QTest::qWait(150);  // the docks' first proportions, queued replots
    return true;
}

/// Calls `check` with each tab of every tab widget of the current page in front in turn
/// (once with the page as it is first): a plot in a tab not shown is checked when shown.
void forEveryTab(MainWindow& window, const std::function<void()>& check)
{
    check();
    for (auto* tabs : window.centralWidget()->findChildren<QTabWidget*>()) {
        if (!tabs->isVisible())
            continue;
        const int was = tabs->currentIndex();
        for (int i = 0; i < tabs->count(); ++i) {
            if (!tabs->isTabVisible(i))
                continue;  // a tab the page hides (no cost-benefit curve yet) is not shown
            tabs->setCurrentIndex(i);
            QTest::qWait(20);
            check();
        }
        tabs->setCurrentIndex(was);
    }
}

QList<QCustomPlot*> visiblePlots(MainWindow& window)
{
    QList<QCustomPlot*> out;
    for (auto* plot : window.centralWidget()->findChildren<QCustomPlot*>())
        if (plot->isVisible())
            out << plot;
    return out;
}

/// Every legend of `plot` that shows anything, its layout up to date.
QList<QCPLegend*> shownLegends(QCustomPlot* plot)
{
    plot->replot(QCustomPlot::rpImmediateRefresh);
    QList<QCPLegend*> out;
    for (auto* element : plot->plotLayout()->elements(true))
        if (auto* legend = qobject_cast<QCPLegend*>(element); legend && legend->realVisibility() && legend->itemCount() > 0)
            out << legend;
    return out;
}

/// The tick labels of a bottom `axis` that QCustomPlot leaves undrawn: it skips a label
/// whose rotated box runs past the widget's left or right edge.
QStringList undrawnTickLabels(QCPAxis* axis)
{
    QStringList out;
    const QFontMetricsF metrics(axis->tickLabelFont());
    const double a = qDegreesToRadians(axis->tickLabelRotation());
    const double width = axis->parentPlot()->viewport().width();
    const auto ticks = axis->tickVector();
    const auto labels = axis->tickVectorLabels();
    for (int i = 0; i < ticks.size(); ++i) {
        if (!axis->range().contains(ticks[i]))
            continue;
        const double x = axis->coordToPixel(ticks[i]);
        const QSizeF s = metrics.size(0, labels[i]);
        const double span = std::abs(std::cos(a)) * s.width() + std::abs(std::sin(a)) * s.height();
        // As QCPAxisPainterPrivate places a bottom label: from its tick rightwards when
        // rotated clockwise, ending at it when rotated anticlockwise, centred when level.
        const double left = a > 0 ? x - std::sin(a) * s.height() / 2
                            : a < 0 ? x + std::sin(-a) * s.height() / 2 - span
                                    : x - s.width() / 2;
        if (left < 0 || left + span > width)
            out << labels[i];
    }
    return out;
}

/// Labels of the ticks `axis` shows inside its range.
QStringList shownTickLabels(QCPAxis* axis)
{
    QStringList out;
    const auto ticks = axis->tickVector();
    const auto labels = axis->tickVectorLabels();
    for (int i = 0; i < ticks.size(); ++i)
        if (axis->range().contains(ticks[i]))
            out << labels[i];
    return out;
}

bool hasData(const QCPAbstractPlottable* p)
{
    if (const auto* map = qobject_cast<const QCPColorMap*>(p))
        return !map->data()->isEmpty();
    if (const auto* oneD = dynamic_cast<const QCPPlottableInterface1D*>(p))
        return oneD->dataCount() > 0;
    return false;
}

/// The colour a plottable draws its method in: a bar's fill, else its line.
QColor drawnColour(const QCPAbstractPlottable* p)
{
    if (qobject_cast<const QCPBars*>(p))
        return p->brush().color();
    return p->pen().color();
}

/// The results dock's table of the current page.
QTableWidget* resultsTable(MainWindow& window)
{
    auto* dock = window.findChild<QDockWidget*>("resultsDock");
    for (auto* table : dock->findChildren<QTableWidget*>())
        if (table->isVisible())
            return table;
    return nullptr;
}

void pages_data()
{
    QTest::addColumn<QString>("experiment");
    for (const char* e : {"synthetic", "corruption", "selective", "camvid"})
        QTest::newRow(e) << QString(e);
}

} // namespace

class TestLegibility : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { isolateWindowTest(); }

    void legendsSitBesideTheData_data() { pages_data(); }
    /// No legend covers an axis rect's data area, on any plot of any tab, at both screen sizes.
    void legendsSitBesideTheData()
    {
        QFETCH(QString, experiment);
        MainWindow window;
        QVERIFY(fill(window, experiment));
        for (const QSize size : {QSize(1366, 768), QSize(1920, 1080)}) {
            QVERIFY(showAt(window, size));
            int legends = 0;
            QString overlaps;
            forEveryTab(window, [&] {
                for (auto* plot : visiblePlots(window))
                    for (auto* legend : shownLegends(plot)) {
                        ++legends;
                        for (auto* rect : plot->axisRects())
                            if (legend->outerRect().intersects(rect->rect()))
                                overlaps += QString(" %1 at %2x%3;").arg(plot->objectName()).arg(size.width()).arg(size.height());
                    }
            });
            QVERIFY2(overlaps.isEmpty(), qPrintable("legend over the data:" + overlaps));
            QVERIFY(legends > 0);
        }
    }

    void oneColourPerMethod_data() { pages_data(); }
    /// Every curve and bar that draws a method has the catalogue's colour of a method the
    /// experiment offers; two methods in one plot never share a colour; tables show the
    /// same colour beside a method's name.
    void oneColourPerMethod()
    {
        QFETCH(QString, experiment);
        MainWindow window;
        QVERIFY(fill(window, experiment));
        QStringList labels;
        for (const auto& m : methodCatalog())
            labels << QString::fromStdString(m.label);
        int drawn = 0;
        for (auto* plot : window.currentPage()->centralWidget()->findChildren<QCustomPlot*>()) {
            QHash<QRgb, QString> methodOfColour;
            for (int i = 0; i < plot->plottableCount(); ++i) {
                auto* p = plot->plottable(i);
                const QString method = markedMethod(p);
                if (method.isEmpty()) {
                    for (const QString& label : labels)
                        QVERIFY2(!p->name().startsWith(label),
                                 qPrintable(QString("%1: \"%2\" draws no marked method").arg(plot->objectName(), p->name())));
                    continue;
                }
                ++drawn;
                const auto& offered = methodInfo(method.toStdString()).experiments;
                QVERIFY2(offered.empty() || std::count(offered.begin(), offered.end(), experiment.toStdString()),
                         qPrintable(QString("%1 draws %2, which %3 does not offer").arg(plot->objectName(), method, experiment)));
                QCOMPARE(drawnColour(p).name(), methodColourOf(method).name());
                const QRgb rgb = drawnColour(p).rgb();
                QVERIFY2(methodOfColour.value(rgb, method) == method,
                         qPrintable(QString("%1: %2 and %3 share a colour").arg(plot->objectName(), method, methodOfColour[rgb])));
                methodOfColour.insert(rgb, method);
            }
        }
        QVERIFY(drawn > 0 || experiment == QLatin1String("synthetic"));  // its plots draw no method
        int named = 0;
        for (auto* t : window.findChild<QDockWidget*>("resultsDock")->findChildren<QTableWidget*>()) {
            QList<QTableWidgetItem*> items;
            for (int c = 0; c < t->columnCount(); ++c)
                items << t->horizontalHeaderItem(c);
            for (int r = 0; r < t->rowCount(); ++r)
                for (int c = 0; c < t->columnCount(); ++c)
                    items << t->item(r, c);
            for (auto* item : std::as_const(items)) {
                const QString method = item ? item->data(kMethodRole).toString() : QString();
                if (method.isEmpty())
                    continue;
                ++named;
                QCOMPARE(item->data(Qt::DecorationRole).value<QColor>().name(), methodColourOf(method).name());
            }
        }
        QVERIFY(named > 0);
    }

    void everyCategoryLabelShown_data()
    {
        QTest::addColumn<QString>("experiment");
        QTest::addColumn<QSize>("screen");
        for (const char* e : {"corruption", "selective", "camvid"})
            // 1800 x 1100: the demos' screenshot size, where CamVid's last class was dropped.
            for (const QSize size : {QSize(1366, 768), QSize(1800, 1100), QSize(1920, 1080)})
                QTest::newRow(qPrintable(QString("%1 %2x%3").arg(e).arg(size.width()).arg(size.height())))
                    << QString(e) << size;
    }
    /// A bar chart or matrix with classes on its axis names every class ("Ankle boot",
    /// "Bicyclist", the last ones, were dropped), and QCustomPlot draws each name.
    void everyCategoryLabelShown()
    {
        QFETCH(QString, experiment);
        QFETCH(QSize, screen);
        MainWindow window;
        QVERIFY(fill(window, experiment));
        QVERIFY(showAt(window, screen));
        QList<QPair<QCPAxis*, QStringList>> axes;
        if (experiment == QLatin1String("camvid")) {
            auto* iou = camvidPage(window)->iou()->plot();
            axes.append({iou->axisRect()->axis(QCPAxis::atBottom), camvidClassNameList().mid(0, 11)});
        } else {
            auto* confusion = imagePage(window)->confusion()->plot();
            QStringList decisions = kFashion;
            if (experiment == QLatin1String("selective"))
                decisions << "refer";
            for (auto* rect : confusion->axisRects())
                axes.append({rect->axis(QCPAxis::atBottom), decisions});
            axes.append({confusion->axisRect(0)->axis(QCPAxis::atLeft), kFashion});
        }
        int checked = 0;
        forEveryTab(window, [&] {
            for (const auto& [axis, names] : std::as_const(axes)) {
                if (!axis->parentPlot()->isVisible())
                    continue;
                ++checked;
                axis->parentPlot()->replot(QCustomPlot::rpImmediateRefresh);
                QCOMPARE(shownTickLabels(axis), names);
                if (axis->axisType() == QCPAxis::atBottom)
                    QVERIFY2(undrawnTickLabels(axis).isEmpty(),
                             qPrintable(QString("%1 leaves undrawn: %2").arg(axis->parentPlot()->objectName(),
                                                                              undrawnTickLabels(axis).join(", "))));
            }
        });
        QVERIFY(checked >= axes.size());
    }

    /// The IoU bars name all 11 scored classes at any width a layout gives them, down
    /// to the plots' minimum: the last, "Bicyclist", ran past the right edge and was dropped.
    // The evidence tab: a worse q is said in words and flagged; each cell of the
    // confusion shows P's count and q's where they differ.
    void evidencePanelSaysWhenQIsWorse()
    {
        EvidencePanel panel;
        QVector<ResultRow> rows;
        for (int r = 0; r < 3; ++r) {
            ResultRow row;
            row.replicate = r;
            row.method = "sghmc";
            row.uncorrectedCost = 0.01 * (r + 1);
            row.correctedCost = row.uncorrectedCost + 0.01;
            rows << row;
        }
        panel.showReplicates(rows, {"sghmc"}, {});
        QVERIFY(panel.worse());
        QVERIFY2(panel.verdictText().contains("keep P's decisions"), qPrintable(panel.verdictText()));
        auto* table = panel.findChild<QTableWidget*>("evidence_rules");
        QCOMPARE(table->item(0, 3)->text(), QString("+0.0100 [+0.0100, +0.0100]"));
        QCOMPARE(table->item(0, 4)->text(), QString("worse"));

        const auto costs = CostMatrix::zeroOne(2);
        const std::vector<int64_t> labels{0, 0, 1, 1};
        const auto p = scoreRule("P", {0, 0, 0, 1}, labels, costs);
        const auto q = scoreRule("q", {0, 1, 1, 1}, labels, costs);
        CorrectionEvidence e;
        e.rules = {p, q};
        e.comparisons = {compareRules(p, q, 1)};
        e.keptReason = "a test";
        panel.showCorrection(e, costs);
        QVERIFY(!panel.worse());
        auto* confusion = panel.findChild<QTableWidget*>("evidence_confusion");
        QCOMPARE(confusion->item(0, 0)->text(), QString("2 → 1"));
        QCOMPARE(confusion->item(0, 1)->text(), QString("0 → 1"));
        QCOMPARE(confusion->item(1, 1)->text(), QString("1 → 2"));
    }

    void camvidIouNamesEveryClassWhenNarrow()
    {
        MainWindow window;
        fillCamvid(window);
        auto* iou = camvidPage(window)->iou();
        const QStringList names = camvidClassNameList().mid(0, 11);
        iou->setParent(nullptr);  // alone, at the widths its column may get
        for (int width : {260, 320, 400, 520}) {
            iou->resize(width, 300);
            iou->show();
            QVERIFY(QTest::qWaitForWindowExposed(iou));
            auto* axis = iou->plot()->axisRect()->axis(QCPAxis::atBottom);
            iou->plot()->replot(QCustomPlot::rpImmediateRefresh);
            QCOMPARE(shownTickLabels(axis), names);
            QVERIFY2(undrawnTickLabels(axis).isEmpty(),
                     qPrintable(QString("at %1 px: %2 undrawn").arg(width).arg(undrawnTickLabels(axis).join(", "))));
        }
        delete iou;
    }

    void noResultsCellClipped_data() { pages_data(); }
    /// At 1366 x 768 every column of the results dock's table is as wide as its cells and
    /// its header ask (the dock scrolls sideways when they need more).
    void noResultsCellClipped()
    {
        QFETCH(QString, experiment);
        MainWindow window;
        QVERIFY(fill(window, experiment));
        QVERIFY(showAt(window, QSize(1366, 768)));
        auto* table = resultsTable(window);
        QVERIFY(table && table->rowCount() > 0);
        for (int c = 0; c < table->columnCount(); ++c) {
            const int wanted = std::max(static_cast<QAbstractItemView*>(table)->sizeHintForColumn(c),  // public there
                                        table->horizontalHeader()->sectionSizeHint(c));
            QVERIFY2(table->columnWidth(c) >= wanted,
                     qPrintable(QString("column %1 (%2) is %3 px, its contents %4 px")
                                    .arg(c).arg(table->horizontalHeaderItem(c)->text()).arg(table->columnWidth(c)).arg(wanted)));
        }
    }

    /// File > Export Plots of a 7-class table, its plots never shown on screen (hidden
    /// tabs): each is laid out at the size it is exported at, every axis rect keeps room
    /// for its data (a confusion matrix never collapses to a sliver), and every title,
    /// legend and axis rect lies inside the image with its text whole; the file names say
    /// the experiment, method and replicate.
    void exportedPlotsFitTheirLayout()
    {
        QTemporaryDir dir;
        QFile csv(dir.filePath("glass.csv"));
        QVERIFY(csv.open(QIODevice::WriteOnly));
        QTextStream out(&csv);
        out << "f0,f1,label\n";
        const QStringList classes{"build wind float", "build wind non-float", "vehic wind float",
                                  "vehic wind non-float", "containers", "tableware", "headlamps"};
        for (int i = 0; i < 280; ++i) {
            const int k = i % 7;
            out << std::cos(k) * 3 + ((i * 37) % 100) / 60.0 << "," << std::sin(k) * 3 + ((i * 91) % 100) / 60.0 << ","
                << (i % 10 == 9 ? QString() : classes[k]) << "\n";
        }
        csv.close();
        MainWindow window;
        Session s;
        s.experiment = "tabular";
        s.settings = {{"data", dir.filePath("glass.csv").toStdString()}, {"replicates", 1},
                      {"methods", {"kfac_laplace"}}, {"correction_iterations", 40}, {"threads", 2}};
        s.costs = CostMatrix::zeroOne(7);
        window.applySession(s);
        QSignalSpy finished(syntheticRunner(window), &JobRunner::finished);
        window.runAll();
        QVERIFY(finished.wait(120000));
        const QString plotsDir = dir.filePath("plots");
        QVERIFY(window.currentPage()->exportPlotsStaged(plotsDir).isEmpty());
        const QStringList files = QDir(plotsDir).entryList(QDir::Files);
        QVERIFY(!files.isEmpty());
        for (const auto& f : files)
            QVERIFY2(f.startsWith("tabular_kfac_laplace_r0_"), qPrintable(f));
        QStringList problems;
        for (auto* plot : window.currentPage()->plots()) {
            const int w = std::max(plot->width(), kMinimumExportWidth), h = std::max(plot->height(), kMinimumExportHeight);
            const QRect old = plot->viewport();
            plot->setViewport(QRect(0, 0, w, h));
            plot->replot(QCustomPlot::rpImmediateRefresh);
            const QRect image(0, 0, w, h);
            const QString name = plot->objectName();
            for (auto* rect : plot->axisRects()) {
                if (!image.contains(rect->outerRect()))
                    problems << name + ": an axis rect outside the image";
                if (rect->rect().width() < 150 || rect->rect().height() < 100)
                    problems << QString("%1: data area %2x%3").arg(name).arg(rect->rect().width()).arg(rect->rect().height());
            }
            for (auto* legend : shownLegends(plot))
                if (!image.contains(legend->outerRect()))
                    problems << name + ": legend outside the image";
            for (int i = 0; i < plot->plotLayout()->elementCount(); ++i)
                if (auto* title = qobject_cast<QCPTextElement*>(plot->plotLayout()->elementAt(i))) {
                    const int needed = QFontMetrics(title->font()).horizontalAdvance(title->text());
                    if (!image.contains(title->outerRect()) || needed > title->outerRect().width())
                        problems << name + ": title \"" + title->text() + "\" cut";
                }
            plot->setViewport(old);
            plot->replot(QCustomPlot::rpImmediateRefresh);
        }
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join("; ")));
    }

    void noEmptyPanel_data() { pages_data(); }
    /// Every plot the page shows, in any tab, draws something: a panel the current
    /// experiment never fills (selective classification's in label corruption) is hidden.
    void noEmptyPanel()
    {
        QFETCH(QString, experiment);
        MainWindow window;
        QVERIFY(fill(window, experiment));
        QVERIFY(showAt(window, QSize(1920, 1080)));
        QStringList empty;
        int shown = 0;
        forEveryTab(window, [&] {
            for (auto* plot : visiblePlots(window)) {
                ++shown;
                bool any = false;
                for (int i = 0; i < plot->plottableCount(); ++i)
                    any = any || hasData(plot->plottable(i));
                if (!any && !empty.contains(plot->objectName()))
                    empty << plot->objectName();
            }
        });
        QVERIFY(shown > 0);
        QVERIFY2(empty.isEmpty(), qPrintable("empty: " + empty.join(", ")));
    }

    /// CamVid's S and q count their own epochs after CW-SGD: their curves have an x axis
    /// of their own, labelled as such, in both panels.
    void camvidCorrectionCurvesHaveTheirOwnAxis()
    {
        MainWindow window;
        fillCamvid(window);
        auto* epochs = camvidPage(window)->epochs();
        for (int panel = 0; panel < 2; ++panel) {
            auto* cw = epochs->graph(panel, "cw_sgd");
            auto* s = epochs->graph(panel, "sghmc_s");
            auto* q = epochs->graph(panel, "ours");
            QVERIFY(cw && s && q);
            QVERIFY(q->keyAxis() != cw->keyAxis());
            QVERIFY(q->keyAxis()->axisRect() != cw->keyAxis()->axisRect());
            QCOMPARE(s->keyAxis(), q->keyAxis());
            QCOMPARE(epochs->graph(panel, "mc_dropout")->keyAxis(), cw->keyAxis());
            QVERIFY(q->keyAxis()->label() != cw->keyAxis()->label());
            QVERIFY(q->keyAxis()->label().contains("S and q"));
            QCOMPARE(q->keyAxis()->range().upper, 4.5);  // its own epochs, not CW-SGD's
        }
    }
};

QTEST_MAIN(TestLegibility)
#include "tst_legibility.moc"
