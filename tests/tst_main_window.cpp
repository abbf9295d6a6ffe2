// The main window end to end: a run fills the views (screenshot not blank, both decision
// colours present), a cost edit re-runs only the correction, sessions round-trip.
#include <QTableWidget>
#include <QLabel>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QScrollBar>
#include <QSpinBox>
#include <QWheelEvent>
#include <QtTest/QtTest>

#include "tests/gui_test_setup.h"
#include "tests/window_pages.h"

#include <QColor>
#include <QDockWidget>
#include <QImage>
#include <QSet>
#include <QTabWidget>

#include "engine/core/threads.h"
#include "engine/experiments/experiment.h"
#include "engine/io/model_io.h"
#include "ui/experiments/camvid/camvid_views.h"
#include "ui/experiments/page_list.h"
#include "ui/experiments/synthetic/synthetic_page.h"
#include "ui/file_dialogs.h"
#include "ui/main_window.h"
#include "ui/plot_export.h"
#include "ui/qcustomplot_compat.h"
#include "ui/region_view.h"
#include "ui/settings_form.h"

using namespace lcs;
using namespace lcs::ui;

namespace {

Session smallSession()
{
    Session s;
    s.experiment = "synthetic";
    s.settings = {{"replicates", 1},
                  {"methods", {"kfac_laplace"}},
                  {"correction_iterations", 120},
                  {"grid_resolution", 30},
                  {"threads", 2}};
    s.costs = costPreset("synthetic");
    return s;
}

/// Settings as a run takes them: every declared setting, defaults filled in.
nlohmann::json checked(const nlohmann::json& settings)
{
    return checkedSettings(ExperimentRegistry::global().get("synthetic").settings(), settings, "test");
}

/// Shows the window on the small session and runs the whole pipeline to the end.
bool showAndRun(MainWindow& window)
{
    window.applySession(smallSession());
    window.resize(1400, 900);
    window.show();
    QSignalSpy finished(syntheticRunner(window), &JobRunner::finished);
    window.runAll();
    return finished.wait(120000);
}

/// Distance between colours, to find the region tints in a screenshot.
bool near(QRgb a, const QColor& b)
{
    return std::abs(qRed(a) - b.red()) + std::abs(qGreen(a) - b.green()) + std::abs(qBlue(a) - b.blue()) < 12;
}

} // namespace

class TestMainWindow : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void windowOutputsFollowTheOutputPolicy()
    {
        // The window's save dialogs refuse what the command line refuses: an input (a
        // cost matrix it imported, a model with its sidecar), a path inside the data of a
        // run, a FIFO; the session being saved again may be replaced.
        QTemporaryDir dir;
        const QString costs = dir.filePath("costs.json"), model = dir.filePath("q.pt"), session = dir.filePath("s.lcsession");
        for (const QString& path : {costs, model, model + ".json", session}) {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("{}");
        }
        QVERIFY(QDir(dir.path()).mkdir("data"));
        lcs::ui::noteWindowInput("Import cost matrix", costs, false);
        lcs::ui::noteWindowInput("Open correction model", model + ".json", false);
        lcs::ui::noteWindowInput("Open session", session, false);
        lcs::ui::noteWindowInput("the data", dir.filePath("data"), true);
        using lcs::ui::windowOutputProblem;
        QVERIFY(windowOutputProblem("Export results", costs, false).contains("is also the input of Import cost matrix"));
        QVERIFY(windowOutputProblem("Export results", dir.filePath("./q.pt.json"), false).contains("is also the input"));
        QVERIFY(windowOutputProblem("Export view", dir.filePath("data/plot.png"), false).contains("lies inside"));
        QVERIFY(windowOutputProblem("Export all plots to", dir.path(), true).contains("holds"));
        QVERIFY(windowOutputProblem("Save session", session, false).contains("is also the input of Open session"));
        QVERIFY(windowOutputProblem("Save session", session, false, session).isEmpty());
        QVERIFY(windowOutputProblem("Export results", dir.filePath("results.json"), false).isEmpty());
    }

    void initTestCase() { isolateWindowTest(); }

    /// Window habits: the wheel over a spin box that has no focus leaves its value alone;
    /// the log follows new lines unless the user scrolled up.
    void wheelNeedsFocusAndTheLogFollows()
    {
        MainWindow window;
        window.resize(1366, 768);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QAbstractSpinBox* spin = nullptr;
        for (auto* s : window.findChildren<QSpinBox*>())
            if (s->isVisible() && s->isEnabled() && s->value() < s->maximum() && s->value() > s->minimum()) {
                spin = s;
                break;
            }
        QVERIFY(spin);
        const QString before = spin->text();
        window.setFocus();
        QVERIFY(!spin->hasFocus());
        const QPointF at(spin->width() / 2.0, spin->height() / 2.0);
        QWheelEvent wheel(at, spin->mapToGlobal(at), QPoint(), QPoint(0, -120), Qt::NoButton, Qt::NoModifier,
                          Qt::NoScrollPhase, false);
        QApplication::sendEvent(spin, &wheel);
        QCOMPARE(spin->text(), before);
        spin->setFocus();
        QTRY_VERIFY(spin->hasFocus());
        QWheelEvent focused(at, spin->mapToGlobal(at), QPoint(), QPoint(0, -120), Qt::NoButton, Qt::NoModifier,
                            Qt::NoScrollPhase, false);
        QApplication::sendEvent(spin, &focused);
        QVERIFY2(spin->text() != before, qPrintable(spin->text()));

        QPlainTextEdit* log = nullptr;
        for (auto* edit : window.findChildren<QPlainTextEdit*>())
            if (edit->isReadOnly())
                log = edit;
        QVERIFY(log);
        auto* bar = log->verticalScrollBar();
        auto* page = window.pages().front();
        for (int i = 0; i < 200; ++i)
            Q_EMIT page->logLine(QString("line %1").arg(i));
        QCoreApplication::processEvents();
        QCOMPARE(bar->value(), bar->maximum());
        bar->setValue(bar->maximum() / 2);  // the user reads an earlier line
        const int reading = bar->value();
        Q_EMIT page->logLine(QString("one more"));
        QCOMPARE(bar->value(), reading);
    }

    void screenshotIsNotBlank()
    {
        MainWindow window;
        QVERIFY(showAndRun(window));
        QTest::qWait(400);  // queued replots
        const QImage image = window.grab().toImage();
        QVERIFY(!image.isNull());
        QSet<QRgb> colours;
        int negativeRegion = 0, positiveRegion = 0;
        const QColor negTint = RegionView::decisionColor(0, 2, true), posTint = RegionView::decisionColor(1, 2, true);
        for (int y = 0; y < image.height(); y += 3)
            for (int x = 0; x < image.width(); x += 3) {
                const QRgb c = image.pixel(x, y);
                colours.insert(c);
                negativeRegion += near(c, negTint);
                positiveRegion += near(c, posTint);
            }
        QVERIFY2(colours.size() > 50, qPrintable(QString("only %1 distinct colours").arg(colours.size())));
        // Both decision regions are drawn (each covers a good part of the plane).
        QVERIFY2(negativeRegion > 500 && positiveRegion > 500,
                 qPrintable(QString("region pixels: negative %1, positive %2").arg(negativeRegion).arg(positiveRegion)));
    }

    void plotsExportAsPngSvgPdf()
    {
        MainWindow window;
        QVERIFY(showAndRun(window));
        QTemporaryDir dir;
        const auto plots = window.findChildren<QCustomPlot*>();
        // Three region panels, the curves, the Decisions tab's confusion matrices, the
        // reliability diagram and the cost-benefit curve; the image page's curves,
        // summary, confusion matrices, reliability diagram, training time and
        // risk-coverage; the CamVid page's curves, IoU bars and frames per second.
        QCOMPARE(plots.size(), 16);
        for (auto* plot : plots) {
            for (const QString format : {"png", "svg", "pdf"}) {
                const QString path = dir.path() + "/" + plot->objectName() + "." + format;
                const QString error = exportPlot(plot, path);
                QVERIFY2(error.isEmpty(), qPrintable(error));
                QVERIFY2(QFileInfo(path).size() > 1000, qPrintable(path));
            }
        }
        QFile svg(dir.path() + "/regions_corrected.svg");
        QVERIFY(svg.open(QIODevice::ReadOnly));
        QVERIFY(svg.readAll().contains("<svg"));
        QImage png(dir.path() + "/regions_uncorrected.png");
        QVERIFY(!png.isNull() && png.width() > 300);
        QVERIFY(exportPlot(plots.front(), dir.path() + "/x.bmp").contains("unknown plot format"));
        QVERIFY(!QFile::exists(dir.path() + "/x.bmp"));

        // File > Export Plots: the page's plots as PNG, SVG and PDF, all or none. A folder
        // in the way of one file leaves the destination as it was, with nothing added.
        const QString plotsDir = dir.filePath("all");
        QVERIFY(window.currentPage()->exportPlotsStaged(plotsDir).isEmpty());
        const QStringList exported = QDir(plotsDir).entryList(QDir::Files);
        QCOMPARE(exported.size(), 3 * 6);  // three region panels, the curves, the confusions, reliability
        QDir(plotsDir).removeRecursively();
        QVERIFY(QDir().mkpath(plotsDir + "/" + exported.first()));
        const QString refusal = window.currentPage()->exportPlotsStaged(plotsDir);
        QVERIFY2(refusal.contains(exported.first()), qPrintable(refusal));
        QCOMPARE(QDir(plotsDir).entryList(QDir::Files | QDir::Dirs | QDir::NoDotAndDotDot), QStringList{exported.first()});
        QCOMPARE(QDir(dir.path()).entryList(QDir::Dirs | QDir::NoDotAndDotDot), QStringList{"all"});
    }

    void costEditRerunsOnlyTheCorrection()
    {
        MainWindow window;
        window.applySession(smallSession());
        QSignalSpy finished(syntheticRunner(window), &JobRunner::finished);
        window.runAll();
        QVERIFY(finished.wait(120000));
        const int sampled = syntheticRunner(window)->predictivesSampled();
        QCOMPARE(sampled, 1);
        auto* model = window.costModel();
        QVERIFY(model->setData(model->index(1, 0), 3.0));
        QVERIFY(finished.wait(60000));  // the re-correction, started by the edit
        QCOMPARE(finished.last().at(0).value<JobRunner::Job>(), JobRunner::Job::Recorrect);
        QCOMPARE(syntheticRunner(window)->predictivesSampled(), sampled);
        QVERIFY(window.lastRecorrectionSeconds() > 0);
        // Undo is another edit: another correction, still no sampling.
        model->undoStack()->undo();
        QVERIFY(finished.wait(60000));
        QCOMPARE(syntheticRunner(window)->predictivesSampled(), sampled);
    }

    void fitsSmallScreen_data()
    {
        QTest::addColumn<QString>("experiment");
        QTest::addColumn<QSize>("screen");
        QTest::addColumn<QSize>("smallestPlot");
        for (const char* e : {"synthetic", "corruption", "selective", "camvid", "tabular", "correct"}) {
            QTest::newRow(qPrintable(QString("%1 1366x768").arg(e))) << QString(e) << QSize(1366, 768) << QSize(250, 150);
            QTest::newRow(qPrintable(QString("%1 1920x1080").arg(e))) << QString(e) << QSize(1920, 1080) << QSize(250, 250);
        }
    }

    /// Every experiment's page, with the docks, fits a 1366 x 768 screen, and no plot, in
    /// any tab, is squashed below a readable size: at 1366 x 768, or on a 1920 x 1080
    /// screen below 250 px high.
    void fitsSmallScreen()
    {
        QFETCH(QString, experiment);
        QFETCH(QSize, screen);
        QFETCH(QSize, smallestPlot);
        MainWindow window;
        window.setExperiment(experiment);
        QCOMPARE(window.experiment(), experiment);
        const QSize hint = window.minimumSizeHint();
        // What each part asks for, to tell which one forces the size.
        auto describe = [&window, hint] {
            auto size = [](QWidget* w) {
                return QString("%1 x %2").arg(w->minimumSizeHint().width()).arg(w->minimumSizeHint().height());
            };
            QString parts = QString("minimum size %1 x %2; central %3").arg(hint.width()).arg(hint.height()).arg(size(window.centralWidget()));
            for (auto* dock : window.findChildren<QDockWidget*>())
                parts += QString("; %1 %2").arg(dock->objectName(), size(dock));
            return parts;
        };
        QVERIFY2(hint.width() <= 1366 && hint.height() <= 768, qPrintable(describe()));
        window.resize(screen);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QTest::qWait(100);  // the docks' first proportions are set once shown
        QCOMPARE(window.size(), screen);
        int checked = 0;
        QString small;
        auto check = [&] {
            QList<QWidget*> views;
            for (auto* plot : window.findChildren<QCustomPlot*>())
                views << plot;
            for (auto* viewer : window.findChildren<CamvidOverlayViewer*>())
                views << viewer;
            for (auto* view : views) {
                if (!view->isVisible())
                    continue;  // another experiment's page, or a tab not shown
                ++checked;
                if (view->width() < smallestPlot.width() || view->height() < smallestPlot.height())
                    small += QString(" %1 is %2 x %3;").arg(view->objectName()).arg(view->width()).arg(view->height());
            }
        };
        // Each tab of the page in front in turn: plots hide in tabs on a small screen.
        check();
        for (auto* tabs : window.centralWidget()->findChildren<QTabWidget*>()) {
            if (!tabs->isVisible())
                continue;
            for (int i = 0; i < tabs->count(); ++i) {
                tabs->setCurrentIndex(i);
                QTest::qWait(20);
                check();
            }
        }
        QVERIFY2(small.isEmpty(), qPrintable(small));
        QVERIFY(checked > 0);
    }

    /// Your own data in the window: File > Open Data puts the table in the tabular form; a
    /// run adopts the table's classes, draws three decision regions for 2 features, and
    /// for 3 features shows the curves alone.
    void tablesRunWithRegionsWhenTheyHaveTwoFeatures()
    {
        QTemporaryDir dir;
        // Three well-separated blobs; a quarter of the rows unlabelled.
        auto writeTable = [&](const QString& name, int features) {
            QFile f(dir.filePath(name));
            if (!f.open(QIODevice::WriteOnly))
                return QString();
            QTextStream out(&f);
            for (int j = 0; j < features; ++j)
                out << "f" << j << ",";
            out << "kind\n";
            const double centres[3][2] = {{-3, 0}, {3, 0}, {0, 4}};
            for (int i = 0; i < 240; ++i) {
                const int c = i % 3;
                for (int j = 0; j < features; ++j)
                    out << (j < 2 ? centres[c][j] : 0.0) + 0.6 * std::sin(1.7 * i + 2.3 * j) << ",";
                out << (i % 4 == 0 ? QString() : QStringList{"cat", "dog", "emu"}[c]) << "\n";
            }
            return f.fileName();
        };
        const QString plane = writeTable("plane.csv", 2), wide = writeTable("wide.csv", 3);
        MainWindow window;
        window.resize(1400, 900);
        window.show();
        auto* page = qobject_cast<SyntheticPage*>(pageFor(window.pages(), "tabular"));
        QVERIFY(page);
        const auto opens = page->openActions();
        QCOMPARE(opens.size(), 2);  // Open Data, Open Predictive
        QCOMPARE(opens.front().experiment, QString("tabular"));
        window.setExperiment("tabular");
        QCOMPARE(window.findChild<QDockWidget*>("resultsDock")->windowTitle(), QString("Results (your table)"));
        page->openTable(plane);
        QCOMPARE(QString::fromStdString(page->form()->values().at("data").get<std::string>()), plane);
        page->form()->setValues({{"data", plane.toStdString()}, {"label", "kind"}, {"replicates", 1},
                                 {"methods", {"kfac_laplace"}}, {"correction_iterations", 60},
                                 {"grid_resolution", 30}, {"threads", 1}});
        QSignalSpy finished(syntheticRunner(window), &JobRunner::finished);
        window.runAll();
        QVERIFY(finished.wait(120000));
        QCOMPARE(window.costModel()->matrix().classNames(), (std::vector<std::string>{"cat", "dog", "emu"}));
        QVERIFY(page->resultsJson().contains("\"tabular\""));
        QTest::qWait(400);  // queued replots
        auto* uncorrected = window.findChild<QCustomPlot*>("regions_uncorrected");
        QVERIFY(uncorrected && uncorrected->isVisible());
        // Equal scales on both axes (the panel is not square), the table's box shown whole.
        const auto pixelsPerUnit = [](QCPAxis* axis) { return std::abs(axis->coordToPixel(1) - axis->coordToPixel(0)); };
        QVERIFY(uncorrected->axisRect()->width() != uncorrected->axisRect()->height());
        QVERIFY2(std::abs(pixelsPerUnit(uncorrected->xAxis) / pixelsPerUnit(uncorrected->yAxis) - 1) < 0.01,
                 qPrintable(QString("x %1, y %2 pixels per unit").arg(pixelsPerUnit(uncorrected->xAxis))
                                .arg(pixelsPerUnit(uncorrected->yAxis))));
        QVERIFY(uncorrected->xAxis->range().lower <= -3.6 && uncorrected->yAxis->range().upper >= 4.6);
        // Each class has its own colour, and each class's region is drawn.
        const QImage image = uncorrected->grab().toImage();
        for (int c = 0; c < 3; ++c) {
            const QColor tint = RegionView::decisionColor(c, 3, true);
            for (int other = 0; other < c; ++other)
                QVERIFY(!near(tint.rgb(), RegionView::decisionColor(other, 3, true)));
            QVERIFY(!near(tint.rgb(), RegionView::decisionColor(3, 3, true)));  // nor "refer"'s
            int pixels = 0;
            for (int y = 0; y < image.height(); y += 2)
                for (int x = 0; x < image.width(); x += 2)
                    pixels += near(image.pixel(x, y), tint);
            QVERIFY2(pixels > 200, qPrintable(QString("%1 pixels of class %2's region").arg(pixels).arg(c)));
        }

        // The axes are the table's columns; each panel's legend (outside the data) names
        // every decision's colour and the markers.
        QCOMPARE(uncorrected->xAxis->label(), QString("f0"));
        QCOMPARE(uncorrected->yAxis->label(), QString("f1"));
        const auto legendNames = [&](const char* name) {
            QStringList names;
            auto* plot = window.findChild<QCustomPlot*>(name);
            for (int i = 0; i < plot->plotLayout()->elementCount(); ++i)
                if (auto* legend = qobject_cast<QCPLegend*>(plot->plotLayout()->elementAt(i)))
                    for (int k = 0; k < legend->itemCount(); ++k)
                        if (auto* item = qobject_cast<QCPPlottableLegendItem*>(legend->item(k)))
                            names << item->plottable()->name();
            return names;
        };
        const QStringList regionNames = legendNames("regions_corrected");
        for (const char* expected : {"decide cat", "decide dog", "decide emu", "training (□ class)",
                                     "test (○ truth, fill decision)", "unlabelled"})
            QVERIFY2(regionNames.contains(QString::fromUtf8(expected)), qPrintable(regionNames.join(" | ")));
        QVERIFY2(legendNames("regions_difference").contains("decisions differ"),
                 qPrintable(legendNames("regions_difference").join(" | ")));
        // The Decisions tab: the confusions of P and q on the test rows (counts summing to
        // them), the cost per true class, and the changed rows with the table's columns.
        auto* perClass = window.findChild<QLabel*>("cost_per_class");
        QVERIFY(perClass);
        QVERIFY2(perClass->text().startsWith("Mean cost per true class, P → q: cat "), qPrintable(perClass->text()));
        auto* changedTable = window.findChild<QTableWidget*>("changed_decisions");
        QVERIFY(changedTable && changedTable->columnCount() == 8);
        QCOMPARE(changedTable->horizontalHeaderItem(6)->text(), QString("f0"));
        auto* confusionPlot = window.findChild<QCustomPlot*>("confusion_matrices");
        QVERIFY(confusionPlot);
        // The Calibration tab: P's and q's reliability diagrams on the test rows, each with
        // its ECE in the legend, points within the unit square.
        auto* reliability = window.findChild<QCustomPlot*>("reliability_diagram");
        QVERIFY(reliability);
        QCOMPARE(reliability->graphCount(), 3);
        for (int g = 1; g <= 2; ++g) {
            QVERIFY2(reliability->graph(g)->data()->size() > 0, qPrintable(reliability->graph(g)->name()));
            QVERIFY2(reliability->graph(g)->name().contains("(ECE 0."), qPrintable(reliability->graph(g)->name()));
            for (auto p = reliability->graph(g)->data()->constBegin(); p != reliability->graph(g)->data()->constEnd(); ++p)
                QVERIFY(p->key >= 0 && p->key <= 1 && p->value >= 0 && p->value <= 1);
        }
        // A matrix a user chose (or a session brought) that does not fit the table is kept,
        // never swapped silently: the run waits, and a dialog offers the reset by the name
        // of its button. Keeping the matrix keeps it (and runs nothing); the reset takes
        // the table's classes and runs.
        const CostMatrix chosen(3, {0, 5, 1, 1, 0, 1, 1, 1, 0}, false, {"ant", "bee", "cow"});
        const auto answer = [&](const QString& button) {
            QTRY_VERIFY(window.findChild<QMessageBox*>("costsResetBox"));
            auto* box = window.findChild<QMessageBox*>("costsResetBox");
            QVERIFY2(box->text().contains("(ant, bee, cow) do not fit the data's (cat, dog, emu)"),
                     qPrintable(box->text()));
            QAbstractButton* chosenButton = nullptr;
            for (auto* b : box->buttons())
                if (b->text() == button)
                    chosenButton = b;
            QVERIFY2(chosenButton, qPrintable(button));
            chosenButton->click();
            QTRY_VERIFY(!window.findChild<QMessageBox*>("costsResetBox"));
        };
        QVERIFY(window.costModel()->applyMatrix(chosen, "chosen"));
        QSignalSpy started(page, &ExperimentPage::jobStarted);
        window.runAll();
        answer("Keep My Matrix");
        QCOMPARE(started.count(), 0);
        QCOMPARE(window.costModel()->matrix().classNames(), (std::vector<std::string>{"ant", "bee", "cow"}));
        window.runAll();
        answer("Reset Costs to 0/1 and Run");
        QVERIFY(finished.wait(120000));
        QCOMPARE(window.costModel()->matrix().classNames(), (std::vector<std::string>{"cat", "dog", "emu"}));
        QVERIFY(window.costModel()->matrix() == CostMatrix::zeroOne(3, {"cat", "dog", "emu"}));
        // A plain 0/1 matrix (another data set's default) takes the next table's classes.
        QVERIFY(window.costModel()->resetToZeroOne());

        page->form()->setValues({{"data", wide.toStdString()}, {"label", "kind"}, {"replicates", 1},
                                 {"methods", {"kfac_laplace"}}, {"correction_iterations", 60}, {"threads", 1}});
        window.runAll();
        QVERIFY(finished.wait(120000));
        QCOMPARE(window.costModel()->matrix().classNames(), (std::vector<std::string>{"cat", "dog", "emu"}));
        QVERIFY(page->resultsJson().contains("\"tabular\""));
        // More than two features: the rows in the plane of their first two principal
        // components, decided before and after, with no regions (there is no plane of inputs).
        QTest::qWait(400);
        QVERIFY(uncorrected->isVisible());
        QVERIFY2(uncorrected->xAxis->label().startsWith("PC1 ("), qPrintable(uncorrected->xAxis->label()));
        QVERIFY2(uncorrected->yAxis->label().startsWith("PC2 ("), qPrintable(uncorrected->yAxis->label()));
        int testPoints = 0;
        for (int g = 0; g < uncorrected->graphCount(); ++g)
            if (uncorrected->graph(g)->name().startsWith("test: "))
                testPoints += uncorrected->graph(g)->data()->size();
        QCOMPARE(testPoints, 54);  // the default test share, 0.3 of 180 labelled rows
        auto* curves = window.findChild<QCustomPlot*>("correction_curves");
        QVERIFY(curves && curves->isVisible() && curves->graphCount() > 0);
    }

    /// File > Open Predictive: the user's X and P run through the correction on the
    /// synthetic page; 2-D features show q's regions and the points by P's and q's
    /// decisions; a cost edit re-trains q from the cached predictive.
    void ownPredictiveShowsRegionsAndRecorrects()
    {
        QTemporaryDir dir;
        QFile x(dir.filePath("x.csv")), p(dir.filePath("p.csv"));
        QVERIFY(x.open(QIODevice::WriteOnly) && p.open(QIODevice::WriteOnly));
        QTextStream xs(&x), ps(&p);
        xs << "x1,x2\n";
        ps << "p0,p1\n";
        for (int i = 0; i < 300; ++i) {
            const double a = -3 + 6.0 * ((i * 37) % 300) / 300.0, b = -3 + 6.0 * ((i * 91) % 300) / 300.0;
            const double p1 = 1 / (1 + std::exp(-2 * a));  // class 1 to the right
            xs << a << "," << b << "\n";
            ps << 1 - p1 << "," << p1 << "\n";
        }
        x.close();
        p.close();
        MainWindow window;
        window.resize(1400, 900);
        window.show();
        auto* page = qobject_cast<SyntheticPage*>(pageFor(window.pages(), "correct"));
        QVERIFY(page);
        QCOMPARE(page->openActions().size(), 2);
        QCOMPARE(page->openActions().at(1).experiment, QString("correct"));
        window.setExperiment("correct");
        QVERIFY(!page->canSample());
        page->openPredictive(x.fileName(), p.fileName());
        // The paper's standalone q has regions over the plane (a residual q, the default,
        // needs P, which is known only at X's points).
        page->form()->setValues({{"features", x.fileName().toStdString()}, {"predictive", p.fileName().toStdString()},
                                 {"correction_iterations", 150}, {"q_form", "standalone"}});
        // Missing a positive costs 5: q should move decisions towards class 1.
        CostMatrix costs = CostMatrix::zeroOne(2);
        costs.set(1, 0, 5.0);
        window.costModel()->setMatrixDirect(costs);
        QSignalSpy finished(syntheticRunner(window), &JobRunner::finished);
        QSignalSpy failed(syntheticRunner(window), &JobRunner::failed);
        window.runAll();
        QVERIFY2(finished.wait(120000), failed.isEmpty() ? "" : qPrintable(failed.first().at(1).toString()));
        const auto results = nlohmann::json::parse(page->resultsJson().toStdString());
        QCOMPARE(results.at("run").at("experiment").get<std::string>(), std::string("correct"));
        QCOMPARE(results.at("rows").get<int>(), 300);
        QTest::qWait(400);
        auto* uncorrected = window.findChild<QCustomPlot*>("regions_uncorrected");
        auto* corrected = window.findChild<QCustomPlot*>("regions_corrected");
        QVERIFY(uncorrected->isVisible() && uncorrected->graphCount() >= 2);  // points by P's decisions
        // q's regions cover the plane: both classes appear in its colour map.
        auto* map = qobject_cast<QCPColorMap*>(corrected->plottable(0));
        QVERIFY(map && map->data()->keySize() > 10);
        QSet<int> decided;
        for (int i = 0; i < map->data()->keySize(); ++i)
            for (int j = 0; j < map->data()->valueSize(); ++j)
                decided.insert(static_cast<int>(map->data()->cell(i, j)));
        QCOMPARE(decided.size(), 2);
        const int runs = syntheticRunner(window)->runs();
        QVERIFY(window.costModel()->setData(window.costModel()->index(1, 0), 2.0));
        QVERIFY(finished.wait(60000));
        QCOMPARE(finished.last().at(0).value<JobRunner::Job>(), JobRunner::Job::Recorrect);
        QCOMPARE(syntheticRunner(window)->runs(), runs);  // X and P not read again
        QVERIFY(page->resultsJson().contains("\"experiment\": \"correct\""));
        // Save Model writes the q behind the decisions shown: the re-corrected one.
        QSignalSpy saved(syntheticRunner(window), &JobRunner::modelsSaved);
        const QString qPath = dir.filePath("q.pt");
        QVERIFY(syntheticRunner(window)->saveModel(0, kOwnPredictiveSeries, qPath));
        QVERIFY(saved.wait(10000));
        QVERIFY2(saved.first().at(2).toString().isEmpty(), qPrintable(saved.first().at(2).toString()));
        const auto q = loadMlp(qPath.toStdString());
        QCOMPARE(q.info.experiment, std::string("correct"));
        QCOMPARE(q.info.decisionRule, std::string("q"));  // Export Model saves the kept rule: q without labels
        QCOMPARE(q.info.costs.at(1, 0), 2.0);
    }

    void sessionRoundTrip()
    {
        QTemporaryDir dir;
        const QString path = dir.path() + "/s.lcsession";
        Session s = smallSession();
        s.settings["seed"] = 1234567890123ULL;
        s.costs.set(1, 0, 2.5);
        s.costs.setReferral(0.04);
        {
            MainWindow a;
            a.applySession(s);
            QVERIFY(a.saveSessionFile(path));
        }
        MainWindow b;
        QVERIFY(b.openSessionFile(path));
        const Session back = b.currentSession();
        QVERIFY2(checked(back.settings) == checked(s.settings), back.settings.dump().c_str());
        QVERIFY(back.costs == s.costs);
        // A corrupt session is refused and the window keeps what it had.
        QFile f(dir.path() + "/bad.lcsession");
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"format": "lcstudio-session", "settings": {"replicates": 0}, "cost_matrix": {"costs": [[0,1],[1,0]]}})");
        f.close();
        QVERIFY(!b.openSessionFile(f.fileName()));
        QVERIFY(checked(b.currentSession().settings) == checked(s.settings));
    }
};

QTEST_MAIN(TestMainWindow)
#include "tst_main_window.moc"
