// File > Open Sweep: a sweep folder made here (2 seeds x 2 corruption rates, results
// written by the experiment's own writer, one cell failed) opens in the sweep window,
// which lists each cell's state and plots one graph per method: the mean cost at each
// rate with the standard error as its error bar, in the method's catalogue colour.
#include <cmath>

#include <QComboBox>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

#include "base/core/atomic_file.h"
#include "base/core/settings.h"
#include "base/decision/cost_matrix.h"
#include "base/io/session_file.h"
#include "base/sweep/sweep_plan.h"
#include "engine/experiments/experiment.h"
#include "engine/experiments/image/corruption_experiment.h"
#include "tests/gui_test_setup.h"
#include "tests/sweep_fixtures.h"
#include "ui/main_window.h"
#include "ui/method_style.h"
#include "ui/qcustomplot_compat.h"
#include "ui/sweep/sweep_view.h"

namespace {

lcs::CorruptionRow row(double rate, int trial, lcs::ImageMethod method, double cost)
{
    return sweep_fixtures::corruptionRow(rate, trial, method, cost, 1 - cost);
}

using sweep_fixtures::corruptionResults;

} // namespace

class TestSweepView : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { isolateWindowTest(); }

    // A sweep over a setting declared log-scaled (q's learning rate) is drawn on a log
    // axis, and Table 2's paired difference on its own axis on the right, dotted, with
    // triangles; the legend's text is as large as the axis labels.
    void logScaledSettingsAndThePairedDifference()
    {
        QTemporaryDir tmp;
        const std::string dir = tmp.path().toStdString() + "/lr";
        const auto& declared = sweep_fixtures::experimentNamed(lcs::kSyntheticExperiment);
        lcs::SessionData session;
        session.experiment = lcs::kSyntheticExperiment;
        const nlohmann::json values = {{"replicates", 2}, {"methods", {"kfac_laplace"}}, {"correction_iterations", 10},
                                       {"warm_start_steps", 5}, {"threads", 1}};
        session.settings = lcs::checkedSettings(declared.settings, values, "test");
        session.costs = lcs::costPreset("synthetic");
        lcs::writeSweepFolder(dir, session, declared, lcs::parseSweepAxes({"correction_lr=0.001,0.01,0.1"}, declared));
        const auto& experiment = lcs::ExperimentRegistry::global().get(lcs::kSyntheticExperiment);
        const double rates[] = {0.001, 0.01, 0.1};
        for (int cell = 0; cell < 3; ++cell) {
            auto settings = values;
            settings["correction_lr"] = rates[cell];
            const auto run = lcs::runExperiment(experiment, settings, session.costs, {});
            lcs::writeFileAtomically(lcs::sweep_paths::resultsJson(dir, cell), lcs::resultsJson(run.output));
        }
        lcs::ui::MainWindow window;
        QVERIFY2(window.openSweepFolder(QString::fromStdString(dir)), qPrintable(window.lastError()));
        auto* view = window.sweepView();
        QVERIFY2(view->resultsProblem().isEmpty(), qPrintable(view->resultsProblem()));
        view->metricChooser()->setCurrentText("cost");
        QCOMPARE(view->xAxisName(), QString("correction_lr"));
        auto* plot = view->plot();
        QCPAxisRect* rect = plot->axisRect();
        QVERIFY(rect);
        QCOMPARE(rect->axis(QCPAxis::atBottom)->scaleType(), QCPAxis::stLogarithmic);
        QVERIFY(rect->axis(QCPAxis::atRight)->visible());
        int diffGraphs = 0, costGraphs = 0;
        for (int i = 0; i < plot->plottableCount(); ++i)
            if (auto* g = qobject_cast<QCPGraph*>(plot->plottable(i))) {
                QCOMPARE(g->data()->size(), 3);
                QCOMPARE(g->data()->at(0)->key, 0.001);
                if (g->valueAxis() == rect->axis(QCPAxis::atRight)) {
                    ++diffGraphs;
                    QCOMPARE(g->pen().style(), Qt::DotLine);
                    QCOMPARE(g->scatterStyle().shape(), QCPScatterStyle::ssTriangle);
                    QVERIFY(g->name().contains("paired_diff"));
                } else {
                    ++costGraphs;
                    QVERIFY(!g->name().contains("paired_diff"));
                }
            }
        QCOMPARE(diffGraphs, 1);
        QVERIFY(costGraphs >= 2);  // uncorrected and corrected, at least
        QCPLegend* legend = nullptr;
        for (int i = 0; i < plot->plotLayout()->elementCount(); ++i)
            if (auto* l = qobject_cast<QCPLegend*>(plot->plotLayout()->elementAt(i)))
                legend = l;
        QVERIFY(legend);
        QCOMPARE(legend->font().pointSize(), rect->axis(QCPAxis::atBottom)->labelFont().pointSize());
        // A setting not declared log-scaled keeps a linear axis: the corruption sweep below.
    }

    void opensASweepAndPlotsOneGraphPerMethod()
    {
        QTemporaryDir tmp;
        const std::string dir = tmp.path().toStdString() + "/sweep";
        const auto& experiment = sweep_fixtures::experimentNamed(lcs::kCorruptionExperiment);
        lcs::writeSweepFolder(dir, sweep_fixtures::corruptionSession(), experiment,
                              lcs::parseSweepAxes({"rates=0.3,0.5", "seed=0..2"}, experiment));
        using M = lcs::ImageMethod;
        // cells: rate 0.3 x seeds 0, 1, 2 (cells 0-2), rate 0.5 x seeds 0, 1, 2 (cells 3-5).
        // ours at 0.3: 0.1, 0.2, 0.6 -> mean 0.3, s^2 = (0.04 + 0.01 + 0.09) / 2 = 0.07,
        // se = sqrt(0.07 / 3); S at 0.3: 0.4, 0.4, 0.4 -> se 0.
        // ours at 0.5: 0.3, 0.5 (cell 5 failed) -> mean 0.4, se = sqrt(0.02 / 2) = 0.1.
        const double ours03[] = {0.1, 0.2, 0.6};
        for (int seed = 0; seed < 3; ++seed)
            lcs::writeFileAtomically(lcs::sweep_paths::resultsJson(dir, seed),
                                     corruptionResults(0.3, {row(0.3, 0, M::Ours, ours03[seed]), row(0.3, 0, M::SgldS, 0.4)}));
        const double ours05[] = {0.3, 0.5};
        for (int seed = 0; seed < 2; ++seed)
            lcs::writeFileAtomically(lcs::sweep_paths::resultsJson(dir, 3 + seed),
                                     corruptionResults(0.5, {row(0.5, 0, M::Ours, ours05[seed]), row(0.5, 0, M::SgldS, 0.6)}));
        lcs::writeFileAtomically(lcs::sweep_paths::log(dir, 5), "killed\n");
        lcs::writeFileAtomically(lcs::sweep_paths::exitStatus(dir, 5), "137\n");

        lcs::ui::MainWindow window;
        QVERIFY(!window.openSweepFolder(tmp.path() + "/nothing"));
        QVERIFY(window.lastError().contains("not a sweep folder"));
        QVERIFY2(window.openSweepFolder(QString::fromStdString(dir)), qPrintable(window.lastError()));
        auto* view = window.sweepView();
        QVERIFY(view && view->isVisible());
        QVERIFY2(view->resultsProblem().isEmpty(), qPrintable(view->resultsProblem()));

        auto* cells = view->cellTable();
        QCOMPARE(cells->rowCount(), 6);
        const int stateColumn = cells->columnCount() - 2;
        QCOMPARE(cells->item(0, stateColumn)->text(), QString("done"));
        QCOMPARE(cells->item(5, stateColumn)->text(), QString("failed (exit 137)"));
        QCOMPARE(cells->item(5, 1)->text(), QString("0.5"));  // rates
        QCOMPARE(cells->item(5, 2)->text(), QString("2"));    // seed

        QCOMPARE(view->metricChooser()->currentText(), QString("cost"));
        QCOMPARE(view->xAxisName(), QString("rate"));
        auto* plot = view->plot();
        QCOMPARE(plot->axisRect()->axis(QCPAxis::atBottom)->scaleType(), QCPAxis::stLinear);
        QList<QCPGraph*> graphs;
        QList<QCPErrorBars*> bars;
        for (int i = 0; i < plot->plottableCount(); ++i) {
            if (auto* g = qobject_cast<QCPGraph*>(plot->plottable(i)))
                graphs << g;
            if (auto* b = qobject_cast<QCPErrorBars*>(plot->plottable(i)))
                bars << b;
        }
        QCOMPARE(graphs.size(), 2);  // one per method
        QCOMPARE(bars.size(), 2);
        for (auto* g : graphs) {
            const QString method = lcs::ui::markedMethod(g);
            QCOMPARE(g->pen().color(), lcs::ui::methodColourOf(lcs::ui::methodIn(method, "corruption")));
            QCOMPARE(g->data()->size(), 2);
            QCOMPARE(g->data()->at(0)->key, 0.3);
            QCOMPARE(g->data()->at(1)->key, 0.5);
            QCPErrorBars* errors = nullptr;
            for (auto* b : bars)
                if (b->dataPlottable() == g)
                    errors = b;
            QVERIFY(errors);
            QCOMPARE(errors->pen().color(), g->pen().color());
            if (method == "ours") {
                QVERIFY(std::abs(g->data()->at(0)->value - 0.3) < 1e-12);
                QVERIFY(std::abs(errors->data()->at(0).errorPlus - std::sqrt(0.07 / 3)) < 1e-12);
                QVERIFY(std::abs(errors->data()->at(0).errorMinus - std::sqrt(0.07 / 3)) < 1e-12);
                QVERIFY(std::abs(g->data()->at(1)->value - 0.4) < 1e-12);
                QVERIFY(std::abs(errors->data()->at(1).errorPlus - 0.1) < 1e-12);
            } else {
                QCOMPARE(method, QString("sgld_s"));
                QVERIFY(std::abs(g->data()->at(0)->value - 0.4) < 1e-12);
                QCOMPARE(errors->data()->at(0).errorPlus, 0.0);
                QVERIFY(std::abs(g->data()->at(1)->value - 0.6) < 1e-12);
            }
        }
        // Another metric: the same methods, accuracy's numbers.
        view->metricChooser()->setCurrentText("accuracy");
        int accuracyGraphs = 0;
        for (int i = 0; i < plot->plottableCount(); ++i)
            if (auto* g = qobject_cast<QCPGraph*>(plot->plottable(i))) {
                ++accuracyGraphs;
                if (lcs::ui::markedMethod(g) == "ours")
                    QVERIFY(std::abs(g->data()->at(0)->value - 0.7) < 1e-12);
            }
        QCOMPARE(accuracyGraphs, 2);

        // The failed cell rerun: the next refresh shows it done and averages it in.
        // ours at 0.5: 0.3, 0.5, 0.7 -> mean 0.5, se = sqrt(0.04 / 3).
        QFile::remove(QString::fromStdString(lcs::sweep_paths::exitStatus(dir, 5)));
        lcs::writeFileAtomically(lcs::sweep_paths::resultsJson(dir, 5),
                                 corruptionResults(0.5, {row(0.5, 0, M::Ours, 0.7), row(0.5, 0, M::SgldS, 0.6)}));
        view->metricChooser()->setCurrentText("cost");
        view->refresh();
        QCOMPARE(cells->item(5, stateColumn)->text(), QString("done"));
        bool seen = false;
        for (int i = 0; i < plot->plottableCount(); ++i)
            if (auto* b = qobject_cast<QCPErrorBars*>(plot->plottable(i)))
                if (lcs::ui::markedMethod(b) == "ours") {
                    auto* g = qobject_cast<QCPGraph*>(b->dataPlottable());
                    QVERIFY(std::abs(g->data()->at(1)->value - 0.5) < 1e-12);
                    QVERIFY(std::abs(b->data()->at(1).errorPlus - std::sqrt(0.04 / 3)) < 1e-12);
                    seen = true;
                }
        QVERIFY(seen);
    }
};

QTEST_MAIN(TestSweepView)
#include "tst_sweep_view.moc"
