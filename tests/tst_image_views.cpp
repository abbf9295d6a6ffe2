// The image experiments in the window: confusion heat maps and their difference, error
// bars of the summary, the gallery of changed decisions, the standardised-tensor ->
// QImage conversion, 10-class cost editing, and a tiny image job through the window (a
// cost edit re-trains only q). The runner's own tests are in tst_image_job_runner.
#include <cmath>

#include <QComboBox>
#include <QTabBar>
#include <QTabWidget>
#include <QPainter>
#include <QStandardItemModel>
#include <QtTest/QtTest>

#include "tests/gui_test_setup.h"
#include "tests/window_pages.h"

#include <torch/torch.h>

#include "engine/core/threads.h"
#include "engine/experiments/experiment.h"
#include "engine/experiments/image/image_experiment_support.h"
#include "ui/cost_matrix_model.h"
#include "ui/decisions_view.h"
#include "ui/evidence_panel.h"
#include "ui/experiment_panel.h"
#include "ui/experiments/image/image_conversion.h"
#include "ui/experiments/image/image_page.h"
#include "ui/experiments/image/image_views.h"
#include "ui/region_view.h"
#include "ui/reliability_view.h"
#include "ui/settings_form.h"
#include <QLabel>
#include <QTableWidget>
#include "tests/image_job_fixtures.h"
#include "tests/tiny_images.h"
#include "ui/main_window.h"
#include "ui/method_style.h"
#include "ui/plot_export.h"
#include "ui/qcustomplot_compat.h"

using namespace lcs;
using namespace lcs::ui;

namespace {

const std::vector<std::string> kFashion{"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
                                        "Sandal",      "Shirt",   "Sneaker",  "Bag",   "Ankle boot"};

/// A comparison of 3 classes whose matrices are not symmetric, so that a transposed or
/// shifted mapping shows.
DecisionComparison knownComparison(bool referral)
{
    DecisionComparison c;
    c.rate = 0.4;
    c.trial = 1;
    const int d = referral ? 4 : 3;
    c.uncorrected.count = c.corrected.count = 30;
    c.uncorrected.numClasses = c.corrected.numClasses = 3;
    c.uncorrected.numDecisions = c.corrected.numDecisions = d;
    if (referral) {
        c.uncorrected.confusion = {7, 2, 0, 1, 1, 8, 0, 1, 3, 0, 6, 1};
        c.corrected.confusion = {8, 0, 0, 2, 1, 9, 0, 0, 1, 1, 8, 0};
    } else {
        c.uncorrected.confusion = {7, 2, 1, 1, 8, 1, 3, 0, 7};
        c.corrected.confusion = {9, 0, 1, 0, 9, 1, 2, 1, 7};
    }
    c.uncorrected.averageCost = 0.3;
    c.corrected.averageCost = 0.2;
    c.uncorrected.accuracy = 0.7;
    c.corrected.accuracy = 0.8;
    c.changedCount = 2;
    c.changed.push_back({4, 1, 0, 1, {0.5f, 0.3f, 0.2f}, {0.3f, 0.6f, 0.1f}});
    c.changed.push_back({9, 2, 2, 0, {0.1f, 0.2f, 0.7f}, {0.6f, 0.2f, 0.2f}});
    return c;
}

CostMatrix tinyCosts(bool referral)
{
    CostMatrix c = CostMatrix::zeroOne(3, {"cat", "dog", "fox"});
    if (referral)
        c.setReferral(0.25);
    return c;
}

} // namespace

class TestImageViews : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // The table pages' decisions by hand: 4 test rows, truth (a, b, b, a), P decides
    // (a, a, b, a), q (a, b, b, b), costs [[0, 1], [5, 0]]. Rows 1 and 3 changed; P's
    // mean cost 5 / 4 = 1.25, q's 1 / 4 = 0.25; per true class a: 0 -> 0.5, b: 2.5 -> 0.
    void decisionsViewByHand()
    {
        lcs::TaskView view;
        view.numClasses = 2;
        view.testLabels = {0, 1, 1, 0};
        view.testDecisionsUncorrected = {0, 0, 1, 0};
        view.testDecisionsCorrected = {0, 1, 1, 1};
        view.featureNames = {"height", "weight"};
        view.changedCount = 2;
        view.changedRows = {{1, {1.5, 60}, {0.7, 0.3}, {0.4, 0.6}}, {3, {1.8, 90}, {0.9, 0.1}, {0.45, 0.55}}};
        view.correctionDone = true;
        lcs::ui::DecisionsView decisions;
        const lcs::CostMatrix costs(2, {0, 1, 5, 0}, false, {"a", "b"});
        decisions.setTask(view, "KFAC-Laplace", {"a", "b"}, costs);
        auto* confusion = decisions.confusion();
        QCOMPARE(confusion->shownCell(0, 0, 0), 2.0);
        QCOMPARE(confusion->shownCell(0, 1, 0), 1.0);
        QCOMPARE(confusion->shownCell(0, 1, 1), 1.0);
        QCOMPARE(confusion->shownCell(1, 0, 1), 1.0);
        QCOMPARE(confusion->shownCell(1, 1, 1), 2.0);
        QCOMPARE(confusion->shownCell(2, 1, 0), -1.0);
        QVERIFY2(decisions.costPerClass()->text().contains("a 0.000 → 0.500 (2 rows); b 2.500 → 0.000 (2 rows)"),
                 qPrintable(decisions.costPerClass()->text()));
        auto* table = decisions.changedTable();
        QCOMPARE(table->rowCount(), 2);
        QCOMPARE(table->horizontalHeaderItem(6)->text(), QString("height"));
        QCOMPARE(table->item(0, 0)->text(), QString("1"));
        QCOMPARE(table->item(0, 1)->text(), QString("b"));
        QCOMPARE(table->item(0, 2)->text(), QString("a"));
        QCOMPARE(table->item(0, 3)->text(), QString("b"));
        QCOMPARE(table->item(0, 4)->text(), QString("0.700, 0.300"));
        QCOMPARE(table->item(0, 7)->text(), QString("60"));
        QCOMPARE(table->item(0, 3)->foreground().color(), QColor(0, 120, 60));   // 5 -> 0: cheaper
        QCOMPARE(table->item(1, 3)->foreground().color(), QColor(176, 0, 32));   // 0 -> 1: dearer
        // A matrix of other classes than the task's clears the view rather than mislabel it.
        decisions.setTask(view, "KFAC-Laplace", {"a", "b", "c"}, lcs::CostMatrix::zeroOne(3));
        QCOMPARE(decisions.changedTable()->rowCount(), 0);
    }

    void initTestCase()
    {
        isolateWindowTest();
        useImageProviders();
    }

    void heatMapsShowCountsAndDifference_data()
    {
        QTest::addColumn<bool>("referral");
        QTest::newRow("3 classes") << false;
        QTest::newRow("3 classes + refer") << true;
    }

    void heatMapsShowCountsAndDifference()
    {
        QFETCH(bool, referral);
        const auto c = knownComparison(referral);
        const auto view = comparisonView(c, {"cat", "dog", "fox"}, tinyCosts(referral), {});
        const int d = referral ? 4 : 3;
        QCOMPARE(view.classes(), 3);
        QCOMPARE(view.decisions(), d);
        QCOMPARE(view.costBefore, 0.3);
        QCOMPARE(view.costAfter, 0.2);
        QCOMPARE(view.changedCount, qint64(2));

        const ConfusionCells cells = confusionCells(view);
        QCOMPARE(cells.rows, 3);
        QCOMPARE(cells.columns, d);
        ConfusionPlot plot;
        plot.setComparison(view);
        for (int y = 0; y < 3; ++y)
            for (int k = 0; k < d; ++k) {
                const double before = static_cast<double>(c.uncorrected.confusion[size_t(y * d + k)]);
                const double after = static_cast<double>(c.corrected.confusion[size_t(y * d + k)]);
                const QByteArray where = QString("true %1, decision %2").arg(y).arg(k).toUtf8();
                QVERIFY2(plot.shownCell(0, y, k) == before, where);
                QVERIFY2(plot.shownCell(1, y, k) == after, where);
                QVERIFY2(plot.shownCell(2, y, k) == after - before, where);
                QCOMPARE(cells.difference[y * d + k], after - before);
            }
        QStringList decisions{"cat", "dog", "fox"};
        if (referral)
            decisions << "refer";
        for (int panel = 0; panel < 3; ++panel)
            QCOMPARE(plot.decisionLabels(panel), decisions);
        QCOMPARE(plot.classLabels(), QStringList({"cat", "dog", "fox"}));
        // The difference map is centred on zero, so that no change is white.
        const QCPRange range = plot.map(2)->dataRange();
        QCOMPARE(range.lower, -range.upper);
        // A view whose counts do not fill the matrix draws nothing rather than garbage.
        ComparisonView broken = view;
        broken.after.removeLast();
        QCOMPARE(confusionCells(broken).rows, 0);
    }

    // The evidence of each comparison: a q that is wrong where S is right is called worse,
    // its tab says so in red and comes to the front; a q that is right where S was wrong
    // gets the plain title.
    void evidenceOfAWorseQComesToTheFront()
    {
        const int64_t n = 60;
        const auto labels = torch::arange(n, torch::kLong).remainder(3);
        const auto right = torch::full({n, 3}, 0.05).scatter(1, labels.unsqueeze(1), 0.9);
        const auto wrong = torch::full({n, 3}, 0.05).scatter(1, (labels + 1).remainder(3).unsqueeze(1), 0.9);
        const auto costs = tinyCosts(false);
        ImageResultsPage page;
        page.resize(1200, 800);
        page.startRun(QString::fromLatin1(kCorruptionExperiment));
        auto tabOf = [&](QWidget* view) -> QTabWidget* {
            for (auto* tabs : page.findChildren<QTabWidget*>())
                if (tabs->indexOf(view) >= 0)
                    return tabs;
            return nullptr;
        };
        const auto worse = compareDecisions(right, wrong, labels, costs, 3);
        QCOMPARE(worse.evidence.comparisons.at(0).verdict, Verdict::Worse);
        QCOMPARE(worse.evidence.kept, std::string("P"));
        page.addComparison(comparisonView(worse, {"cat", "dog", "fox"}, costs));
        QVERIFY(page.evidence()->worse());
        auto* tabs = tabOf(page.evidence());
        QVERIFY(tabs);
        QCOMPARE(tabs->currentWidget(), page.evidence());
        QCOMPARE(tabs->tabText(tabs->indexOf(page.evidence())), evidenceTabTitle(true));
        QCOMPARE(tabs->tabBar()->tabTextColor(tabs->indexOf(page.evidence())), worseColour());

        auto better = compareDecisions(wrong, right, labels, costs, 3);
        better.trial = 1;
        QCOMPARE(better.evidence.comparisons.at(0).verdict, Verdict::Better);
        page.addComparison(comparisonView(better, {"cat", "dog", "fox"}, costs));
        QVERIFY(!page.evidence()->worse());
        tabs = tabOf(page.evidence());
        QCOMPARE(tabs->tabText(tabs->indexOf(page.evidence())), evidenceTabTitle(false));
    }

    // The Calibration tab of a comparison: S right on every image at confidence 0.9
    // (one bin, accuracy 1: ECE 0.1), q wrong on every one at 0.9 (accuracy 0: ECE 0.9).
    void calibrationTabShowsBothRulesOnTheTestImages()
    {
        const int64_t n = 60;
        const auto labels = torch::arange(n, torch::kLong).remainder(3);
        const auto right = torch::full({n, 3}, 0.05, torch::kDouble).scatter(1, labels.unsqueeze(1), 0.9);
        const auto wrong =
            torch::full({n, 3}, 0.05, torch::kDouble).scatter(1, (labels + 1).remainder(3).unsqueeze(1), 0.9);
        ImageResultsPage page;
        page.resize(1200, 800);
        page.startRun(QString::fromLatin1(kCorruptionExperiment));
        QVERIFY(page.reliability()->plot()->graph(1)->data()->isEmpty());
        page.addComparison(comparisonView(compareDecisions(right, wrong, labels, tinyCosts(false), 3),
                                          {"cat", "dog", "fox"}, tinyCosts(false)));
        QCOMPARE(page.reliability()->graphNames(),
                 (QStringList{"calibrated (accuracy = confidence)", "P, uncorrected (ECE 0.100)",
                              "q, corrected (ECE 0.900)"}));
        for (const auto& [graph, accuracy] : {std::pair{1, 1.0}, std::pair{2, 0.0}}) {
            const auto data = page.reliability()->plot()->graph(graph)->data();
            QCOMPARE(data->size(), 1);
            QVERIFY(std::abs(data->begin()->key - 0.9) < 1e-12);
            QCOMPARE(data->begin()->value, accuracy);
        }
        bool tabFound = false;
        for (auto* tabs : page.findChildren<QTabWidget*>())
            if (const int i = tabs->indexOf(page.reliability()); i >= 0)
                tabFound = tabs->tabText(i) == QLatin1String("Calibration");
        QVERIFY(tabFound);
    }

    // Legends on a narrow page: every item of every region panel gets at least the width
    // its text needs (two columns where they fit, else one), so "decide Iris-virginica"
    // is never cut. Points without regions (a table of many features): the decisions are
    // the points' fill colours, and the difference panel lists no region colours.
    void regionLegendsFitAndNameOnlyWhatIsDrawn()
    {
        lcs::TaskView view;
        view.numClasses = 3;
        view.test = {{0, 0}, {1, 1}, {2, 0.5}};
        view.testLabels = {0, 1, 2};
        view.testDecisionsUncorrected = {0, 1, 1};
        view.testDecisionsCorrected = {0, 2, 2};
        view.calibration = {{0.5, 0.5}};
        view.correctionDone = true;
        const QStringList names{"Iris-setosa", "Iris-versicolor", "Iris-virginica"};
        for (const int width : {560, 1400}) {
            lcs::ui::RegionView regions;
            regions.resize(width, 520);
            regions.show();
            regions.setTask(view, names);
            QTest::qWait(50);
            for (auto* plot : regions.plots()) {
                plot->replot();
                QStringList listed;
                for (int i = 0; i < plot->plotLayout()->elementCount(); ++i)
                    if (auto* legend = qobject_cast<QCPLegend*>(plot->plotLayout()->elementAt(i)))
                        for (int k = 0; k < legend->itemCount(); ++k) {
                            auto* item = legend->item(k);
                            if (!item)
                                continue;  // an empty cell of the legend's grid
                            const int needed = static_cast<QCPLayoutElement*>(item)->minimumOuterSizeHint().width();
                            QVERIFY2(item->outerRect().width() >= needed && item->outerRect().right() <= plot->width(),
                                     qPrintable(QString("%1 at %2: %3 px of %4 needed")
                                                    .arg(plot->objectName())
                                                    .arg(width)
                                                    .arg(item->outerRect().width())
                                                    .arg(needed)));
                            if (auto* p = qobject_cast<QCPPlottableLegendItem*>(item))
                                listed << p->plottable()->name();
                        }
                if (plot->objectName() == QLatin1String("regions_difference")) {
                    QVERIFY2(!listed.contains("decisions differ") && !listed.contains("same decision"),
                             qPrintable(listed.join(" | ")));
                    QVERIFY2(listed.contains("test, q decides otherwise"), qPrintable(listed.join(" | ")));
                } else {
                    QVERIFY2(listed.contains("decide Iris-virginica"), qPrintable(listed.join(" | ")));
                }
            }
        }
    }

    void riskCoverageShowsTheLargestReferralCost()
    {
        // Two referral costs, two methods, one trial: the plot shows r = 0.2's curves, each
        // named with its area, and the axes hold every point.
        SelectiveResult r;
        const auto probs = torch::tensor({0.3, 0.7, 0.9, 0.1, 0.4, 0.6, 0.2, 0.8}, torch::kDouble).reshape({4, 2});
        for (double cost : {0.1, 0.2})
            for (auto method : {ImageMethod::Sghmc, ImageMethod::Ours}) {
                SelectiveRow row;
                row.setting = cost;
                row.method = method;
                row.riskCoverage = riskCoverage(probs, torch::tensor({1, 0, 0, 0}, torch::kLong), 4);
                r.rows.push_back(row);
            }
        const auto view = riskCoverageView(r);
        QCOMPARE(view.referralCost, 0.2);
        QCOMPARE(view.curves.size(), 2);
        QCOMPARE(view.curves[0].risk, (QVector<double>{0.0, 0.5, 1.0 / 3.0, 0.5}));
        RiskCoveragePlot plot;
        plot.setCurves(view);
        QCOMPARE(plot.plot()->graphCount(), 2);
        QVERIFY2(plot.plot()->graph(1)->name().contains("(0.3333)"), qPrintable(plot.plot()->graph(1)->name()));
        QVERIFY(plot.plot()->axisRect()->axis(QCPAxis::atLeft)->range().upper >= 0.5);
    }

    void errorBarsHoldMeanAndStd_data()
    {
        QTest::addColumn<QString>("experiment");
        QTest::newRow("corruption") << "corruption";
        QTest::newRow("selective") << "selective";
    }

    void errorBarsHoldMeanAndStd()
    {
        QFETCH(QString, experiment);
        // Listed with x descending: the plot must pair each std with its own point.
        struct Row {
            ImageMethod method;
            double x, cost, costStd, accuracy, accuracyStd;
        };
        const std::vector<Row> rows{{ImageMethod::Ours, 0.7, 0.31, 0.02, 0.61, 0.04},
                                    {ImageMethod::SgldS, 0.7, 0.42, 0.05, 0.52, 0.03},
                                    {ImageMethod::Ours, 0.3, 0.21, 0.01, 0.81, 0.015},
                                    {ImageMethod::SgldS, 0.3, 0.25, 0.03, 0.77, 0.025}};
        SummaryView view;
        if (experiment == "corruption") {
            CorruptionResult r;
            r.trials = 3;
            for (const auto& row : rows)
                r.summary.push_back({row.method, row.x, {row.cost, row.costStd}, {row.accuracy, row.accuracyStd}, {}, 0});
            view = summaryView(r);
        } else {
            SelectiveResult r;
            r.trials = 3;
            for (const auto& row : rows)
                r.summary.push_back(
                    {row.method, row.x, {row.cost, row.costStd}, {row.accuracy, row.accuracyStd}, {0.1, 0.01}, {}, 0, {}});
            view = summaryView(r);
        }
        QCOMPARE(view.points.size(), 4);
        SummaryPlot plot;
        plot.setSummary(view);
        for (const QString method : {"ours", "sgld_s"}) {
            for (int panel = 0; panel < 2; ++panel) {
                QCPGraph* graph = plot.graph(panel, method);
                QCPErrorBars* bars = plot.errorBars(panel, method);
                QVERIFY(graph && bars);
                QVERIFY(bars->dataPlottable() == graph);
                QCOMPARE(graph->data()->size(), 2);
                QCOMPARE(bars->data()->size(), 2);
                for (int i = 0; i < 2; ++i) {
                    const double x = graph->data()->at(i)->key;
                    const auto row = std::find_if(rows.begin(), rows.end(), [&](const Row& r) {
                        return QString::fromStdString(imageMethodName(r.method)) == method && r.x == x;
                    });
                    QVERIFY(row != rows.end());
                    QCOMPARE(graph->data()->at(i)->value, panel == 0 ? row->cost : row->accuracy);
                    QCOMPARE(bars->data()->at(i).errorMinus, panel == 0 ? row->costStd : row->accuracyStd);
                    QCOMPARE(bars->data()->at(i).errorPlus, panel == 0 ? row->costStd : row->accuracyStd);
                }
                QVERIFY(graph->data()->at(0)->key < graph->data()->at(1)->key);
            }
        }
        QVERIFY(!plot.graph(0, "cw_sgd"));
    }

    void galleryShowsExactlyTheChangedDecisions_data()
    {
        QTest::addColumn<int>("changed");
        QTest::newRow("none") << 0;
        QTest::newRow("two") << 2;
        QTest::newRow("the engine's cap") << int(kMaxChangedDecisions);
    }

    void galleryShowsExactlyTheChangedDecisions()
    {
        QFETCH(int, changed);
        // N test images of 3 classes; decision k changed for the test rows listed.
        const int n = 80;
        auto g = makeGenerator(5);
        const auto images = at::randn({n, 1, 4, 4}, g);
        DecisionComparison c = knownComparison(false);
        c.changed.clear();
        for (int i = 0; i < changed; ++i)
            c.changed.push_back({i + 7 > n - 1 ? i : i + 7, i % 3, i % 3, (i + 1) % 3, {0.6f, 0.3f, 0.1f}, {0.1f, 0.6f, 0.3f}});
        c.changedCount = changed + (changed == int(kMaxChangedDecisions) ? 10 : 0);
        auto view = comparisonView(c, {"cat", "dog", "fox"}, tinyCosts(false), changedImages(c, images, {0.5}, {0.25}));
        view.experiment = "corruption";
        view.uncorrectedLabel = "SGLD + S";
        view.uncorrectedMethod = "sgld_s";
        view.correctedLabel = "Ours";
        GalleryView gallery;
        gallery.resize(700, 400);
        gallery.setComparison(view);
        QCOMPARE(gallery.items().size(), changed);
        const QStringList names{"cat", "dog", "fox"};
        for (int i = 0; i < changed; ++i) {
            const auto& item = gallery.items()[i];
            const auto& source = c.changed[size_t(i)];
            QCOMPARE(item.index, source.index);
            QCOMPARE(item.before, int(source.before));
            QCOMPARE(item.after, int(source.after));
            QCOMPARE(item.probsAfter, QVector<float>({0.1f, 0.6f, 0.3f}));
            // The tile's image is that test row, un-standardised.
            QCOMPARE(item.image, imageOf(pixelsFromStandardized(images[source.index], {0.5}, {0.25})));
            QCOMPARE(gallery.caption(i), QString("#%1 true %2: SGLD + S %3 -> Ours %4")
                                             .arg(source.index)
                                             .arg(names[int(source.label)], names[int(source.before)],
                                                  names[int(source.after)]));
        }
        if (changed == 0)
            QVERIFY(gallery.header().contains("changed no test decision"));
        else
            QVERIFY(gallery.header().contains(QString("%1 of 30 test decisions changed (%2 shown)")
                                                  .arg(c.changedCount)
                                                  .arg(changed)));
        // Room for every tile: more decisions, more rows.
        GalleryView other;
        other.setComparison(ComparisonView{});
        QVERIFY(gallery.heightForWidth(700) >= other.heightForWidth(700));
        if (changed > 4)
            QVERIFY(gallery.heightForWidth(700) > gallery.heightForWidth(1400));
        // It paints and exports like the plots.
        QTemporaryDir dir;
        for (const QString format : {"png", "svg", "pdf"}) {
            const QString path = dir.path() + "/gallery." + format;
            const QString error = exportPainting([&](QPainter& p) { gallery.paintGallery(p, 700); },
                                                 QSize(700, gallery.heightForWidth(700)), path, "gallery");
            QVERIFY2(error.isEmpty(), qPrintable(error));
            QVERIFY(QFileInfo(path).size() > 500);
        }
        // Both bars of a tile in their methods' colours, as in every plot.
        QImage painted(700, gallery.heightForWidth(700), QImage::Format_RGB32);
        painted.fill(Qt::white);
        {
            QPainter p(&painted);
            gallery.paintGallery(p, 700);
        }
        const auto pixelsOf = [&](const QColor& colour) {
            int count = 0;
            for (int y = 0; y < painted.height(); ++y)
                for (int x = 0; x < painted.width(); ++x)
                    count += painted.pixel(x, y) == colour.rgb();
            return count;
        };
        QCOMPARE(pixelsOf(methodColourOf("sgld_s")) > 0, changed > 0);
        QCOMPARE(pixelsOf(methodColourOf("ours")) > 0, changed > 0);
    }

    void standardisedTensorToImage_data()
    {
        QTest::addColumn<int>("channels");
        QTest::newRow("grey") << 1;
        QTest::newRow("colour") << 3;
    }

    void standardisedTensorToImage()
    {
        QFETCH(int, channels);
        // Channel c: mean m_c, std s_c; pixel value = round(255 * clamp(x s_c + m_c, 0, 1)).
        const std::vector<double> mean{0.5, 0.2, 0.8}, std{0.25, 0.1, 0.05};
        // Values in [H=2, W=3] per channel, with their expected bytes.
        const double x[3][6] = {{0, 2, -2, 1, -1, 4}, {0, 8, -2, 3, 1, -5}, {0, 4, -16, 2, -2, 10}};
        const int expected[3][6] = {{128, 255, 0, 191, 64, 255},  // 0.5, 1, 0, 0.75, 0.25, clamp
                                    {51, 255, 0, 128, 77, 0},     // 0.2, 1, 0, 0.5, 0.3, clamp
                                    {204, 255, 0, 230, 179, 255}};  // 0.8, clamp, 0, 0.9, 0.7, clamp
        auto t = at::zeros({channels, 2, 3}, at::kFloat);
        for (int c = 0; c < channels; ++c)
            for (int i = 0; i < 6; ++i)
                t[c][i / 3][i % 3] = x[c][i];
        // The engine's pixels (interleaved bytes), then the window's image of them.
        const Pixels pixels = pixelsFromStandardized(t, mean, std);
        QCOMPARE(pixels.channels, channels);
        for (int i = 0; i < 6; ++i)
            for (int c = 0; c < channels; ++c)
                QCOMPARE(int(pixels.bytes[size_t(i * channels + c)]), expected[c][i]);
        const QImage image = imageOf(pixels);
        QCOMPARE(image.width(), 3);
        QCOMPARE(image.height(), 2);
        QCOMPARE(image.format(), channels == 1 ? QImage::Format_Grayscale8 : QImage::Format_RGB888);
        for (int i = 0; i < 6; ++i) {
            const QRgb p = image.pixel(i % 3, i / 3);
            const QByteArray where = QString("pixel %1").arg(i).toUtf8();
            if (channels == 1) {
                QVERIFY2(qGray(p) == expected[0][i] && qRed(p) == expected[0][i], where);
            } else {
                QVERIFY2(qRed(p) == expected[0][i], where);
                QVERIFY2(qGreen(p) == expected[1][i], where);
                QVERIFY2(qBlue(p) == expected[2][i], where);
            }
        }
        // The image owns its pixels: it outlives the tensor unchanged.
        const QImage copy = image.copy();
        t.fill_(-100);
        t = at::Tensor();
        QCOMPARE(image, copy);
        // Shapes it cannot show give a null image.
        QVERIFY(pixelsFromStandardized(at::zeros({2, 2, 2}), mean, std).empty());
        QVERIFY(pixelsFromStandardized(at::zeros({4, 4}), mean, std).empty());
        QVERIFY(imageOf(Pixels{}).isNull());
        QVERIFY(imageOf(Pixels{2, 2, 3, std::vector<uint8_t>(5)}).isNull());  // bytes short of its shape
    }

    void progressDetailsSplitIntoRunAndSeries_data()
    {
        QTest::addColumn<QString>("detail");
        QTest::addColumn<QString>("run");
        QTest::addColumn<QString>("series");
        QTest::newRow("epoch metrics") << "sgld_s, rate 0.5, trial 1" << "rate 0.5, trial 1" << "sgld_s";
        QTest::newRow("corruption phase") << "rate 0.3, trial 2, sgld + S, epoch 4" << "rate 0.3, trial 2" << "sgld + S";
        QTest::newRow("selective phase") << "trial 1, ours (no S), r 0.1, epoch 1" << "trial 1" << "ours (no S), r 0.1";
        QTest::newRow("correction alone") << "epoch 2" << "" << "";
    }

    void progressDetailsSplitIntoRunAndSeries()
    {
        QFETCH(QString, detail);
        QFETCH(QString, run);
        QFETCH(QString, series);
        QString r, s;
        splitProgressDetail(detail.toStdString(), r, s);
        QCOMPARE(r, run);
        QCOMPARE(s, series);
    }

    void epochCurvesFollowTheRun()
    {
        EpochCurvePlot curves;
        curves.setExperiment("corruption");
        curves.addEpochPoints({{"rate 0.3, trial 1", "sgld_s", 1, 0.4, 0.6, 1.2}, {"rate 0.3, trial 1", "sgld_s", 2, 0.3, 0.7, 1.0}});
        curves.addTrainingPoints({{"rate 0.3, trial 1", "sgld + S", "nll", 50, 2.0}, {"rate 0.3, trial 1", "sgld + S", "kl", 50, 9}});
        curves.addEpochPoints({{"rate 0.5, trial 1", "ours", 1, 0.2, 0.8, 0.9}});
        QCOMPARE(curves.runs(), QStringList({"rate 0.3, trial 1", "rate 0.5, trial 1"}));
        QCOMPARE(curves.shownRun(), QString("rate 0.5, trial 1"));  // follows the latest
        QVERIFY(curves.graph(EpochCurvePlot::TopLeft, "ours"));
        QVERIFY(!curves.graph(EpochCurvePlot::TopLeft, "sgld_s"));
        curves.showRun("rate 0.3, trial 1");
        auto* cost = curves.graph(EpochCurvePlot::TopLeft, "sgld_s");
        auto* accuracy = curves.graph(EpochCurvePlot::TopRight, "sgld_s");
        auto* nll = curves.graph(EpochCurvePlot::BottomLeft, "sgld_s");
        QVERIFY(cost && accuracy && nll);
        QCOMPARE(cost->data()->size(), 2);
        QCOMPARE(cost->data()->at(1)->key, 2.0);
        QCOMPARE(cost->data()->at(1)->value, 0.3);
        QCOMPARE(accuracy->data()->at(1)->value, 0.7);
        QCOMPARE(nll->data()->at(0)->value, 1.2);
        // Training NLL goes to the training panel; the correction's KL is not a training loss.
        auto* training = curves.graph(EpochCurvePlot::BottomRight, "sgld + S");
        QVERIFY(training);
        QCOMPARE(training->data()->size(), 1);
        QCOMPARE(training->data()->at(0)->value, 2.0);
    }

    void tenClassPresetsLoadAndEdit_data()
    {
        QTest::addColumn<QString>("preset");
        QTest::addColumn<int>("decisions");
        QTest::newRow("mnist") << "mnist" << 10;
        QTest::newRow("cifar10") << "cifar10" << 10;
        QTest::newRow("selective (referral column)") << "selective" << 11;
    }

    void tenClassPresetsLoadAndEdit()
    {
        QFETCH(QString, preset);
        QFETCH(int, decisions);
        CostMatrixModel model;
        CostMatrix start = CostMatrix::zeroOne(10, kFashion);
        model.setMatrixDirect(start);
        model.setPresetClassNames(kFashion);  // the data's names, not the preset's
        QVERIFY(model.loadPreset(preset));
        QCOMPARE(model.rowCount(), 10);
        QCOMPARE(model.columnCount(), decisions);
        QCOMPARE(model.matrix().classNames(), kFashion);
        QCOMPARE(model.headerData(3, Qt::Vertical, Qt::DisplayRole).toString(), QString("3 Dress"));
        QCOMPARE(model.headerData(3, Qt::Horizontal, Qt::DisplayRole).toString(), QString("3"));
        QCOMPARE(model.headerData(3, Qt::Horizontal, Qt::ToolTipRole).toString(), QString("Decision: Dress"));
        if (decisions == 11)
            QCOMPARE(model.headerData(10, Qt::Horizontal, Qt::DisplayRole).toString(), QString("ref"));
        const CostMatrix loaded = model.matrix();
        QVERIFY(model.setData(model.index(2, 9), 0.4));
        QCOMPARE(model.matrix().at(2, 9), 0.4);
        QVERIFY(model.setData(model.index(9, decisions - 1), 0.15));
        QCOMPARE(model.matrix().at(9, decisions - 1), 0.15);
        QVERIFY(!model.setData(model.index(4, 4), -1.0));  // refused, unchanged
        QCOMPARE(model.matrix().at(4, 4), 0.0);
        model.undoStack()->undo();
        model.undoStack()->undo();
        QVERIFY(model.matrix() == loaded);
        // A preset of another class count is refused and the matrix stays.
        QVERIFY(!model.loadPreset("synthetic"));
        QVERIFY(model.matrix() == loaded);
    }

    void windowSwitchesExperimentsAndTheirCostMatrices()
    {
        MainWindow window;
        QCOMPARE(window.experiment(), QString("synthetic"));
        QCOMPARE(window.costModel()->matrix().numClasses(), 2);
        window.setExperiment("selective");
        QCOMPARE(window.costModel()->matrix().numClasses(), 10);
        QCOMPARE(window.costModel()->matrix().numDecisions(), 11);
        QVERIFY(window.costModel()->setData(window.costModel()->index(0, 10), 0.3));
        window.setExperiment("corruption");
        QCOMPARE(window.costModel()->matrix().numDecisions(), 10);
        window.setExperiment("synthetic");
        QCOMPARE(window.costModel()->matrix().numClasses(), 2);
        window.setExperiment("selective");  // its edit was kept
        QCOMPARE(window.costModel()->matrix().at(0, 10), 0.3);
        // Nothing ran, so nothing re-corrects.
        QTest::qWait(500);
        QVERIFY(!imageRunner(window)->isBusy());
        QCOMPARE(imageRunner(window)->runs(), 0);
    }

    void imageSessionRoundTrip_data()
    {
        QTest::addColumn<QString>("experiment");
        QTest::newRow("corruption") << "corruption";
        QTest::newRow("selective") << "selective";
    }

    void imageSessionRoundTrip()
    {
        QFETCH(QString, experiment);
        QTemporaryDir dir;
        const QString path = dir.path() + "/image.lcsession";
        const auto s = tinySettings(experiment, {{"data", "/data/somewhere/fashion"},
                                                 {"preset", "paper"},
                                                 {"trials", 3},
                                                 {"max_train", 1234},
                                                 {"max_test", 567},
                                                 {"seed", 9876543210123LL},
                                                 {"epochs", 7}});
        CostMatrix costs;
        {
            MainWindow a;
            a.setExperiment(experiment);
            imagePanel(a)->applySettings(s.settings);
            QVERIFY(a.costModel()->setData(a.costModel()->index(3, 8), 0.25));
            costs = a.costModel()->matrix();
            costs.setReferral(std::nullopt);  // a selective session keeps the base matrix
            QVERIFY2(a.saveSessionFile(path), qPrintable(a.lastError()));
        }
        MainWindow b;
        QVERIFY2(b.openSessionFile(path), qPrintable(b.lastError()));
        QCOMPARE(b.experiment(), experiment);
        QCOMPARE(imagePanel(b)->experiment(), experiment);
        // Every declared setting comes back.
        QVERIFY2(imagePanel(b)->settings() == s.settings, imagePanel(b)->settings().dump().c_str());
        QVERIFY(b.costModel()->matrix() == costs);
        QCOMPARE(b.costModel()->matrix().at(3, 8), 0.25);
    }

    void windowValuesStartTheFormButNotASession()
    {
        // The declared window values (subsets that train in minutes) start a new form; a
        // session that leaves them unset ("all") opens as all, not as the window's.
        const auto& corruption = ExperimentRegistry::global().get("corruption");
        QCOMPARE(windowValues(corruption.settings()), (nlohmann::json{{"max_train", 10000}, {"max_test", 2000}}));
        ExperimentPanel panel({&corruption}, {});
        panel.setExperiment("corruption");
        auto* form = panel.findChild<SettingsForm*>("corruptionSettings");
        QVERIFY(form);
        const auto fresh = form->values();
        QCOMPARE(fresh.value("max_train", 0), 10000);
        QCOMPARE(fresh.value("max_test", 0), 2000);
        panel.applySettings({{"data", "fashion-mnist"}});
        QVERIFY2(!form->values().contains("max_train"), form->values().dump().c_str());
    }

    void imagePanelOffersOnlyUsableDevices()
    {
        const auto& corruption = ExperimentRegistry::global().get("corruption");
        ExperimentPanel panel({&corruption}, {});
        auto* box = panel.findChild<QComboBox*>("device");
        QVERIFY(box);
        const int cudaItem = box->findText("cuda");
        QVERIFY(cudaItem > 0);
        const bool cuda = JobRunner::cudaAvailable();
        QCOMPARE(qobject_cast<QStandardItemModel*>(box->model())->item(cudaItem)->isEnabled(), cuda);
        auto s = panel.values();
        s["data"] = "fashion-mnist";
        panel.applySettings(s);
        QCOMPARE(panel.settings().at("device").get<std::string>(), std::string("cpu"));
        // A session from a GPU machine asks for CUDA: granted only where it can run.
        s["device"] = "cuda:0";
        panel.applySettings(s);
        QCOMPARE(panel.settings().at("device").get<std::string>(), std::string(cuda ? "cuda:0" : "cpu"));
    }

    void windowCostEditRecorrectsOnly()
    {
        MainWindow window;
        window.resize(1500, 950);
        window.show();
        window.setExperiment("corruption");
        imagePanel(window)->applySettings(tinySettings("corruption").settings);
        QSignalSpy finished(imageRunner(window), &JobRunner::finished);
        window.runAll();
        QVERIFY(finished.wait(120000));
        QCOMPARE(imageRunner(window)->runs(), 1);
        // The data's classes replaced the 10-class default.
        QCOMPARE(window.costModel()->matrix().numClasses(), 3);
        QCOMPARE(window.costModel()->matrix().classNames(), std::vector<std::string>({"a", "b", "c"}));
        QCOMPARE(imagePage(window)->comparisons().size(), 1);

        auto* model = window.costModel();
        QVERIFY(model->setData(model->index(1, 0), 3.0));
        QVERIFY(finished.wait(60000));  // the re-correction the edit started
        QCOMPARE(finished.last().at(0).value<JobRunner::Job>(), JobRunner::Job::Recorrect);
        QCOMPARE(imageRunner(window)->runs(), 1);
        QCOMPARE(imageRunner(window)->recorrections(), 1);
        QVERIFY(window.lastRecorrectionSeconds() > 0);
        const auto& shown = imagePage(window)->comparisons();
        QCOMPARE(shown.size(), 2);
        QVERIFY(shown.last().recorrected);
        // The heat maps show the re-correction.
        const auto* confusion = imagePage(window)->confusion();
        for (int y = 0; y < 3; ++y)
            for (int d = 0; d < 3; ++d)
                QCOMPARE(confusion->shownCell(1, y, d), double(shown.last().after[y * 3 + d]));

        // Every image view exports to PNG, SVG and PDF.
        QTest::qWait(200);
        QTemporaryDir dir;
        for (auto* plot : imagePage(window)->plots())
            for (const QString format : {"png", "svg", "pdf"}) {
                const QString path = dir.path() + "/" + plot->objectName() + "." + format;
                const QString error = exportPlot(plot, path);
                QVERIFY2(error.isEmpty(), qPrintable(error));
                QVERIFY2(QFileInfo(path).size() > 1000, qPrintable(path));
            }
    }
};

QTEST_MAIN(TestImageViews)
#include "tst_image_views.moc"
