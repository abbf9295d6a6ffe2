// The CamVid window: overlay maths (palette lookup, opacity blend, difference mask)
// against hand computations, and the wiring end to end on a tiny generated CamVid
// folder: the viewer shows the engine's decisions, the IoU bars hold the engine's
// IoU (recomputed here from the visited frames), a cost edit re-runs only the
// correction and refreshes the viewer, Save Model writes a model folder the CamVid
// commands read and Open Model shows one like a run's evaluation, a bad folder and a
// cancelled run leave the window usable and its last results on screen.
#include <cmath>
#include <memory>

#include <QComboBox>
#include <QLabel>
#include <QPainter>
#include <QPushButton>
#include <QStatusBar>
#include <QtTest/QtTest>
#include <nlohmann/json.hpp>

#include "ui/qcustomplot_compat.h"

#include "base/core/atomic_file.h"
#include "base/core/version.h"
#include "base/io/session_file.h"
#include "datasets/camvid_reader.h"
#include "engine/experiments/camvid/camvid_entry.h"
#include "engine/experiments/camvid/camvid_experiment.h"
#include "engine/experiments/experiment.h"
#include "engine/experiments/run_record.h"
#include "engine/io/model_io.h"
#include "tests/gui_test_setup.h"
#include "tests/thrown.h"
#include "tests/tiny_camvid.h"
#include "tests/window_pages.h"
#include "ui/experiment_panel.h"
#include "ui/experiments/camvid/camvid_experiment_page.h"
#include "tests/view_spy.h"
#include "ui/job_runner.h"
#include "ui/experiments/camvid/camvid_page.h"
#include "ui/experiments/camvid/camvid_views.h"
#include "ui/experiments/experiment_page.h"
#include "ui/main_window.h"
#include "ui/plot_export.h"

using namespace lcs;
using namespace lcs::ui;

namespace {

constexpr int kSide = 32;

/// A frame and label PNG: road (3, dark) left, car (8, bright) right, a grey band of
/// random road/car in the middle, a void top row. Written with QImage (8-bit grey labels).
void writeFrame(const QString& dir, const QString& split, const QString& name, quint32 seed)
{
    QRandomGenerator rng(seed);
    QImage image(kSide, kSide, QImage::Format_RGB888);
    QImage label(kSide, kSide, QImage::Format_Grayscale8);
    for (int r = 0; r < kSide; ++r)
        for (int c = 0; c < kSide; ++c) {
            const int band = c < 11 ? 0 : (c < 21 ? 1 : 2);
            const int base = band == 0 ? 40 : (band == 1 ? 120 : 200);
            const int v = std::clamp(base + rng.bounded(-15, 16), 0, 255);
            image.setPixel(c, r, qRgb(v, v, std::clamp(v + 10, 0, 255)));
            const bool car = band == 2 || (band == 1 && rng.bounded(2) == 1);
            label.scanLine(r)[c] = static_cast<uchar>(r == 0 ? 11 : (car ? 8 : 3));
        }
    QDir().mkpath(dir + "/" + split);
    QDir().mkpath(dir + "/" + split + "annot");
    QVERIFY(image.save(dir + "/" + split + "/" + name));
    QVERIFY(label.save(dir + "/" + split + "annot/" + name));
}

CamvidFrameView makeFrame(int w, int h, quint32 seed)
{
    QRandomGenerator rng(seed);
    CamvidFrameView f;
    f.name = QStringLiteral("f%1.png").arg(seed);
    f.frame = QImage(w, h, QImage::Format_RGB888);
    for (int r = 0; r < h; ++r)
        for (int c = 0; c < w; ++c)
            f.frame.setPixel(c, r, qRgb(rng.bounded(256), rng.bounded(256), rng.bounded(256)));
    for (int i = 0; i < w * h; ++i) {
        f.truth << static_cast<quint8>(rng.bounded(12));
        f.uncorrected << static_cast<quint8>(rng.bounded(11));
        f.corrected << (rng.bounded(3) == 0 ? static_cast<quint8>(rng.bounded(11)) : f.uncorrected.back());
    }
    return f;
}

QColor paletteColour(int label)
{
    const auto& c = camvidColours()[static_cast<size_t>(label)];
    return QColor(c[0], c[1], c[2]);
}

/// IoU per class from the frames' decisions by hand counts (void ignored).
QVector<double> iouByHand(const QVector<CamvidFrameView>& frames, bool corrected)
{
    QVector<qint64> tp(11), fp(11), fn(11);
    for (const auto& f : frames)
        for (qsizetype i = 0; i < f.truth.size(); ++i) {
            const int y = f.truth[i];
            const int d = corrected ? f.corrected[i] : f.uncorrected[i];
            if (y == kCamvidVoid)
                continue;
            if (y == d) {
                ++tp[y];
            } else {
                ++fn[y];
                ++fp[d];
            }
        }
    QVector<double> iou;
    for (int c = 0; c < 11; ++c) {
        const qint64 n = tp[c] + fp[c] + fn[c];
        iou << (n == 0 ? std::nan("") : double(tp[c]) / double(n));
    }
    return iou;
}

/// The bars' values by class (NaN where a class has no bar).
QVector<double> barValues(QCPBars* bars)
{
    QVector<double> out(11, std::nan(""));
    for (auto it = bars->data()->constBegin(); it != bars->data()->constEnd(); ++it)
        out[static_cast<int>(it->key)] = it->value;
    return out;
}

bool sameIou(const QVector<double>& a, const QVector<double>& b, QString* why)
{
    if (a.size() != b.size()) {
        *why = QString("sizes %1 vs %2").arg(a.size()).arg(b.size());
        return false;
    }
    for (int c = 0; c < a.size(); ++c) {
        const bool nanA = std::isnan(a[c]), nanB = std::isnan(b[c]);
        if (nanA != nanB || (!nanA && std::abs(a[c] - b[c]) > 1e-12)) {
            *why = QString("class %1: %2 vs %3").arg(c).arg(a[c]).arg(b[c]);
            return false;
        }
    }
    return true;
}

} // namespace

class TestCamvidViews : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        isolateWindowTest();
        QVERIFY(m_tmp.isValid());
        m_data = m_tmp.path() + "/camvid";
        for (int i = 0; i < 6; ++i)
            writeFrame(m_data, "train", QString("t%1.png").arg(i), quint32(i + 1));
        for (int i = 0; i < 3; ++i)
            writeFrame(m_data, "val", QString("v%1.png").arg(i), quint32(100 + i));
        QDir().mkpath(m_tmp.path() + "/not-camvid");
        // The preset shrunk to seconds on the tiny frames, in the registry's entry.
        CamvidProviders providers;
        providers.tune = [](CamvidWindowConfig& c) {
            shrinkCamvidTraining(c.train, kSide, 8, 4, 2);
            c.maxEvalFrames = 0;
            c.epochEvalFrames = 2;
        };
        ExperimentRegistry::global().replace(makeCamvidExperiment(providers));
        m_window = std::make_unique<MainWindow>();
        m_window->setExperiment("camvid");
        QCOMPARE(m_window->experiment(), QString("camvid"));
        QCOMPARE(m_window->costModel()->matrix().numClasses(), 12);  // the paper's table, void last
    }

    void cleanupTestCase() { m_window.reset(); }

    void labelImageUsesThePalette_data()
    {
        QTest::addColumn<int>("label");
        for (int label = 0; label < 12; ++label)
            QTest::addRow("%s", camvidClassNames()[static_cast<size_t>(label)]) << label;
    }

    void labelImageUsesThePalette()
    {
        QFETCH(int, label);
        // A 3x2 image: the label at (x 1, y 0), its neighbours other labels.
        QVector<quint8> labels{quint8((label + 1) % 12), quint8(label), quint8((label + 5) % 12), 0, 11, quint8(label)};
        const auto image = camvidLabelImage(labels, 3, 2);
        QCOMPARE(image.size(), QSize(3, 2));
        QCOMPARE(QColor(image.pixel(1, 0)), paletteColour(label));
        QCOMPARE(QColor(image.pixel(2, 1)), paletteColour(label));
        QCOMPARE(QColor(image.pixel(0, 0)), paletteColour((label + 1) % 12));
        QCOMPARE(camvidClassColour(label), paletteColour(label));
        QVERIFY(camvidLabelImage(labels, 4, 2).isNull());  // wrong length
    }

    void opacityBlendsFrameAndOverlay_data()
    {
        QTest::addColumn<double>("opacity");
        QTest::newRow("frame only") << 0.0;
        QTest::newRow("quarter") << 0.25;
        QTest::newRow("half") << 0.5;
        QTest::newRow("overlay only") << 1.0;
    }

    void opacityBlendsFrameAndOverlay()
    {
        QFETCH(double, opacity);
        const auto f = makeFrame(7, 5, 3);
        CamvidOverlayViewer viewer;
        viewer.addFrames({f});
        viewer.setOpacity(opacity);
        const auto overlay = camvidLabelImage(f.corrected, 7, 5);
        const auto shown = viewer.panelImage(CamvidOverlayViewer::CorrectedPanel);
        QCOMPARE(shown.size(), QSize(7, 5));
        for (int y = 0; y < 5; ++y)
            for (int x = 0; x < 7; ++x) {
                const QColor a(f.frame.pixel(x, y)), b(overlay.pixel(x, y)), s(shown.pixel(x, y));
                auto mix = [&](int fa, int fb) { return int(std::lround((1 - opacity) * fa + opacity * fb)); };
                QCOMPARE(s.red(), mix(a.red(), b.red()));
                QCOMPARE(s.green(), mix(a.green(), b.green()));
                QCOMPARE(s.blue(), mix(a.blue(), b.blue()));
            }
        if (opacity == 0.0)
            QCOMPARE(shown, f.frame.convertToFormat(QImage::Format_RGB888));
        if (opacity == 1.0)
            QCOMPARE(shown, overlay);
        // The frame panel is the frame whatever the opacity.
        QCOMPARE(viewer.panelImage(CamvidOverlayViewer::FramePanel), f.frame.convertToFormat(QImage::Format_RGB888));
    }

    void viewerPanelsShowTheDecisions()
    {
        const auto f = makeFrame(9, 6, 11);
        CamvidOverlayViewer viewer;
        viewer.addFrames({makeFrame(9, 6, 10), f});
        viewer.setCurrentFrame(1);
        viewer.setOpacity(1.0);
        for (int y = 0; y < 6; ++y)
            for (int x = 0; x < 9; ++x) {
                const int i = y * 9 + x;
                QCOMPARE(QColor(viewer.panelImage(CamvidOverlayViewer::TruthPanel).pixel(x, y)), paletteColour(f.truth[i]));
                QCOMPARE(QColor(viewer.panelImage(CamvidOverlayViewer::UncorrectedPanel).pixel(x, y)),
                         paletteColour(f.uncorrected[i]));
                QCOMPARE(QColor(viewer.panelImage(CamvidOverlayViewer::CorrectedPanel).pixel(x, y)),
                         paletteColour(f.corrected[i]));
            }
    }

    void differenceMarksExactlyTheChangedPixels()
    {
        const auto f = makeFrame(11, 7, 5);
        CamvidOverlayViewer viewer;
        viewer.addFrames({f});
        const auto diff = viewer.panelImage(CamvidOverlayViewer::DifferencePanel);
        QCOMPARE(diff.size(), QSize(11, 7));
        int changed = 0;
        for (int y = 0; y < 7; ++y)
            for (int x = 0; x < 11; ++x) {
                const int i = y * 11 + x;
                const bool differ = f.uncorrected[i] != f.corrected[i];
                changed += differ;
                const bool white = diff.pixel(x, y) == qRgb(255, 255, 255);
                QVERIFY2(white == differ, qPrintable(QString("pixel (%1, %2)").arg(x).arg(y)));
            }
        QVERIFY(changed > 5 && changed < 77);  // the generated frame has both kinds
        QVERIFY(camvidDifferenceImage(f.frame, f.uncorrected, f.corrected.mid(1)).isNull());
    }

    // The kept rule leads the IoU table as one bold row across its columns, with how it
    // was chosen as its tooltip; without a choice (fewer than 4 frames) the table starts
    // with the decision cost as before.
    void iouTableLeadsWithTheKeptRule()
    {
        CamvidIouTable table;
        CamvidIouView v;
        v.classNames = {"Sky", "Road"};
        v.before.iou = {0.5, 0.6};
        v.after.iou = {0.55, 0.58};
        v.before.cost = 0.30;
        v.after.cost = 0.31;
        table.setComparison(v);
        QCOMPARE(table.rowCount(), 7);
        QCOMPARE(table.item(0, 0)->text(), QString("decision cost"));
        v.keptRule = "vector";
        v.keptCost = 0.2571;
        v.keptReferenceCost = 0.2741;
        v.keptScoredFrames = 51;
        v.keptReason = "vector had the lowest cost of the rules that beat S";
        table.setComparison(v);
        QCOMPARE(table.rowCount(), 8);
        QCOMPARE(table.item(0, 0)->text(), QString("kept: vector, cost 0.2571 (S 0.2741)"));
        QCOMPARE(table.columnSpan(0, 0), 4);
        QVERIFY(table.item(0, 0)->font().bold());
        QCOMPARE(table.item(0, 0)->toolTip(), "Costs on the 51 frames the choice did not see.\n" + v.keptReason);
        QCOMPARE(table.item(1, 0)->text(), QString("decision cost"));
        v.keptRule.clear();  // a later run without a choice drops the row and its span
        table.setComparison(v);
        QCOMPARE(table.rowCount(), 7);
        QCOMPARE(table.columnSpan(0, 0), 1);
    }

    void sessionHoldsTheCamvidSettingsAndMatrix()
    {
        const QString path = m_tmp.path() + "/camvid.lcsession";
        const nlohmann::json s = {{"data", m_data.toStdString()}, {"preset", "cpu"},
                                  {"max_train", 5},                {"max_eval", 2},
                                  {"mc_dropout", true},            {"seed", 9876543210123LL}};
        CostMatrix edited;
        {
            MainWindow a;
            a.setExperiment("camvid");
            camvidPanel(a)->applySettings(s);
            // An edited cell (no run yet, so nothing re-trains) and a second one by hand.
            QVERIFY(a.costModel()->setData(a.costModel()->index(8, 3), 4.25));
            QVERIFY(a.costModel()->setData(a.costModel()->index(0, 1), 0.5));
            edited = a.costModel()->matrix();
            QCOMPARE(edited.numClasses(), 12);
            QVERIFY2(a.saveSessionFile(path), qPrintable(a.lastError()));
            // A CamVid session without a data folder cannot be replayed: refused by name.
            auto noData = s;
            noData.erase("data");
            camvidPanel(a)->applySettings(noData);
            QVERIFY(!a.saveSessionFile(m_tmp.path() + "/nodata.lcsession"));
            QVERIFY2(a.lastError().contains("\"data\" is required"), qPrintable(a.lastError()));
            QVERIFY(!QFileInfo::exists(m_tmp.path() + "/nodata.lcsession"));
        }
        // The file is what the CLI replays: the engine reads the same settings.
        const auto data = lcs::loadSessionFile(path.toStdString(), sessionCatalogue());
        QCOMPARE(data.experiment, std::string("camvid"));
        for (const auto& [name, value] : s.items())
            QVERIFY2(data.settings.at(name) == value, name.c_str());
        QVERIFY(data.costs == edited);
        // Reopened in another window (on another experiment): settings and matrix come back.
        MainWindow b;
        QCOMPARE(b.experiment(), QString("synthetic"));
        QVERIFY2(b.openSessionFile(path), qPrintable(b.lastError()));
        QCOMPARE(b.experiment(), QString("camvid"));
        QVERIFY(camvidPanel(b)->settings() == data.settings);
        QVERIFY(b.costModel()->matrix() == edited);
        QCOMPARE(b.costModel()->matrix().at(8, 3), 4.25);
        QCOMPARE(b.costModel()->matrix().at(0, 1), 0.5);
        QVERIFY(!camvidRunner(b)->isBusy());  // opening a session does not start a run
    }

    void trainingFillsViewerBarsAndCurves()
    {
        auto& r = *camvidRunner(*m_window);
        QSignalSpy finished(&r, &JobRunner::finished);
        ViewSpy<CamvidIouView> comparisons(&r);
        ViewSpy<QVector<CamvidFrameView>> frames(&r);
        // Live overlays: every preview that reaches the window is on the viewer's panels
        // (checked as it arrives, after the window's own handler), before the job finishes.
        auto* viewer = camvidPage(*m_window)->viewer();
        viewer->setCurrentFrame(0);
        viewer->setOpacity(1.0);
        ViewSpy<CamvidPreviewView> previews(&r);
        int previewsBeforeFinish = -1, checkedS = 0, checkedQ = 0, busyChecks = 0;
        QString mismatch;
        const auto onPreview = onView<CamvidPreviewView>(&r, this, [&](const CamvidPreviewView& p) {
            busyChecks += r.isBusy();
            const CamvidFrameView* f = nullptr;
            for (const auto& candidate : p.frames)
                if (candidate.index == viewer->currentFrame())
                    f = &candidate;
            if (!f || !viewer->showingPreview()) {
                mismatch = "the viewer does not show the preview's frame " + QString::number(viewer->currentFrame());
                return;
            }
            const int w = f->width(), h = f->height();
            const auto truth = viewer->panelImage(CamvidOverlayViewer::TruthPanel);
            const auto uncorrected = viewer->panelImage(CamvidOverlayViewer::UncorrectedPanel);
            const auto corrected = viewer->panelImage(CamvidOverlayViewer::CorrectedPanel);
            const auto difference = viewer->panelImage(CamvidOverlayViewer::DifferencePanel);
            if (uncorrected.size() != QSize(w, h) || truth.size() != QSize(w, h)) {
                mismatch = "panel size";
                return;
            }
            if (p.network == "ours" && (corrected.size() != QSize(w, h) || difference.size() != QSize(w, h))) {
                mismatch = "q's panels missing after an epoch of q";
                return;
            }
            if (p.network == "sghmc_s" && !corrected.isNull()) {
                mismatch = "a corrected panel before q was trained";
                return;
            }
            for (int i = 0; i < w * h; ++i) {
                const int x = i % w, y = i / w;
                bool ok = QColor(uncorrected.pixel(x, y)) == paletteColour(f->uncorrected[i])
                          && QColor(truth.pixel(x, y)) == paletteColour(f->truth[i]);
                if (p.network == "ours")
                    ok = ok && QColor(corrected.pixel(x, y)) == paletteColour(f->corrected[i])
                         && (difference.pixel(x, y) == qRgb(255, 255, 255)) == (f->uncorrected[i] != f->corrected[i]);
                if (!ok) {
                    mismatch = QString("%1 epoch %2: pixel (%3, %4) differs from the decisions handed over")
                                   .arg(p.network).arg(p.epoch).arg(x).arg(y);
                    return;
                }
            }
            ++(p.network == "ours" ? checkedQ : checkedS);
        });
        const auto onFinish = connect(&r, &JobRunner::finished, this, [&] { previewsBeforeFinish = int(previews.size()); });
        camvidPanel(*m_window)->applySettings({{"data", m_data.toStdString()}, {"measure_fps", true}});
        m_window->runAll();
        QVERIFY(r.isBusy());
        QVERIFY(finished.wait(120000));
        disconnect(onPreview);
        disconnect(onFinish);
        QVERIFY2(mismatch.isEmpty(), qPrintable(mismatch));
        QVERIFY2(previewsBeforeFinish >= 2, qPrintable(QString::number(previewsBeforeFinish)));
        QCOMPARE(busyChecks, previewsBeforeFinish);  // every preview arrived while the job ran
        QVERIFY2(checkedS >= 1 && checkedQ >= 1, qPrintable(QString("S %1, q %2").arg(checkedS).arg(checkedQ)));
        QVERIFY(viewer->previewsReceived() >= previewsBeforeFinish);
        // The last preview is q after its last epoch, decided on the validation frames.
        const auto last = previews.last().at(0).value<CamvidPreviewView>();
        QCOMPARE(last.network, QString("ours"));
        QCOMPARE(last.epoch, 2);
        QCOMPARE(last.frames.size(), 3);
        QCOMPARE(last.frames[1].name, QString("v1.png"));
        // After the evaluation the viewer shows the evaluated frames, no preview.
        QVERIFY(!viewer->showingPreview());
        QCOMPARE(finished.first().at(0).value<JobRunner::Job>(), JobRunner::Job::Run);
        // The results, in the format `camvid eval` writes: JSON with the run's cost matrix,
        // and a CSV (once an empty file) whose rows read back as the comparison's figures.
        const auto json = nlohmann::json::parse(finished.first().at(2).toString().toStdString());
        QCOMPARE(costsOfResults(json, "results"), camvidDecisionCosts(m_window->costModel()->matrix()));
        QCOMPARE(json["run"]["version"].get<std::string>(), std::string(programVersion()));
        const QStringList csvLines = finished.first().at(3).toString().split('\n', Qt::SkipEmptyParts);
        QCOMPARE(csvLines.size(), 4);  // header, S, q, S at the correction's optimum
        QVERIFY(csvLines[0].startsWith("method,decisions,cost,expected_cost,mean_iou"));
        const QStringList qRow = csvLines[2].split(',');
        QCOMPARE(qRow.mid(0, 2), (QStringList{"ours", "corrected"}));
        QCOMPARE(r.runs(), 1);
        QCOMPARE(r.recorrections(), 0);
        QCOMPARE(comparisons.size(), 1);
        const auto view = comparisons.first().at(0).value<CamvidIouView>();
        QCOMPARE(view.frames, 3);
        QCOMPARE(qRow[2].toDouble(), view.after.cost);
        QCOMPARE(qRow[4].toDouble(), view.after.meanIou);
        QCOMPARE(csvLines[1].split(',')[4].toDouble(), view.before.meanIou);
        // File > Export Results writes the same files (the CSV was once empty).
        const QString exportedCsv = m_tmp.path() + "/camvid_results.csv";
        const QString exportedJson = m_tmp.path() + "/camvid_results.json";
        QCOMPARE(m_window->currentPage()->exportResults(exportedCsv), QString());
        QCOMPARE(m_window->currentPage()->exportResults(exportedJson), QString());
        QCOMPARE(QString::fromStdString(readFile(exportedCsv.toStdString(), 1 << 20)), finished.first().at(3).toString());
        QCOMPARE(costsOfResults(nlohmann::json::parse(readFile(exportedJson.toStdString(), 1 << 20)), "export"),
                 camvidDecisionCosts(m_window->costModel()->matrix()));
        auto* page = camvidPage(*m_window);
        QCOMPARE(page->viewer()->frameCount(), 3);
        // The bars hold the engine's IoU; the engine's IoU is what the frames' decisions give.
        QVector<CamvidFrameView> shown;
        for (int i = 0; i < 3; ++i)
            shown << *page->viewer()->frame(i);
        QString why;
        QVERIFY2(sameIou(barValues(page->iou()->bars(0)), view.before.iou, &why), qPrintable(why));
        QVERIFY2(sameIou(barValues(page->iou()->bars(1)), view.after.iou, &why), qPrintable(why));
        QVERIFY2(sameIou(iouByHand(shown, false), view.before.iou, &why), qPrintable(why));
        QVERIFY2(sameIou(iouByHand(shown, true), view.after.iou, &why), qPrintable(why));
        // The share of changed decisions, counted by hand on the labelled pixels, is what the
        // engine reports and the results table shows.
        qint64 scored = 0, changed = 0;
        for (const auto& f : shown)
            for (qsizetype i = 0; i < f.truth.size(); ++i)
                if (f.truth[i] != kCamvidVoid) {
                    ++scored;
                    changed += f.uncorrected[i] != f.corrected[i];
                }
        QCOMPARE(scored, view.pixels);
        QVERIFY(std::abs(view.changedShare - double(changed) / double(scored)) < 1e-12);
        QVERIFY(std::isfinite(view.costAtOptimum) && std::isfinite(view.before.expected) && std::isfinite(view.after.expected));
        auto* table = m_window->findChild<QTableWidget*>("camvidIouTable");
        QVERIFY(table);
        bool rowFound = false;
        for (int row = 0; row < table->rowCount(); ++row)
            if (table->item(row, 0) && table->item(row, 0)->text() == "decisions changed %") {
                QCOMPARE(table->item(row, 2)->text(), QString::number(100.0 * double(changed) / double(scored), 'f', 2));
                rowFound = true;
            }
        QVERIFY(rowFound);
        for (int i = 0; i < 3; ++i) {
            QCOMPARE(last.frames[i].corrected, shown[i].corrected);
            QCOMPARE(last.frames[i].uncorrected, shown[i].uncorrected);
            QCOMPARE(last.frames[i].truth, shown[i].truth);
        }
        // The live curves got every epoch of every network.
        for (const auto& [series, epochs] : {std::pair<QString, int>{"cw_sgd", 8}, {"sghmc_s", 4}, {"ours", 2}}) {
            auto* g = page->epochs()->graph(0, series);
            QVERIFY2(g, qPrintable(series));
            QCOMPARE(g->dataCount(), epochs);
        }
        QVERIFY(page->fps()->ensembleGraph()->dataCount() >= 2);
        QCOMPARE(page->fps()->qLine()->data()->at(0)->value, page->fps()->qLine()->data()->at(1)->value);
        // Every view exports (the plots through plot_export, the viewer as a painting).
        for (auto* plot : page->plots())
            for (const char* format : {"png", "svg", "pdf"}) {
                const QString path = m_tmp.path() + "/" + plot->objectName() + "." + format;
                QCOMPARE(exportPlot(plot, path), QString());
                QVERIFY(QFileInfo(path).size() > 500);
            }
    }

    void costEditRecorrectsOnlyQAndRefreshesTheViewer()
    {
        auto& r = *camvidRunner(*m_window);
        QVERIFY(r.hasCache() && !r.isBusy());
        auto* viewer = camvidPage(*m_window)->viewer();
        viewer->setCurrentFrame(2);
        const int refreshesBefore = viewer->refreshes();
        const auto beforeFrame = *viewer->frame(2);
        QSignalSpy started(&r, &JobRunner::started);
        QSignalSpy finished(&r, &JobRunner::finished);
        ViewSpy<CamvidIouView> comparisons(&r);
        ViewSpy<CamvidPreviewView> previews(&r);
        // Missing a car becomes very expensive: L[Car, Road] = 5.
        auto* model = m_window->costModel();
        QVERIFY(model->setData(model->index(8, 3), 5.0));
        QVERIFY(finished.wait(60000));
        QCOMPARE(started.size(), 1);
        QCOMPARE(started.first().at(0).value<JobRunner::Job>(), JobRunner::Job::Recorrect);
        QCOMPARE(finished.first().at(0).value<JobRunner::Job>(), JobRunner::Job::Recorrect);
        QCOMPARE(r.runs(), 1);  // nothing but q retrained
        QCOMPARE(r.recorrections(), 1);
        QVERIFY(m_window->lastRecorrectionSeconds() > 0);
        bool timingShown = false;
        for (auto* label : m_window->statusBar()->findChildren<QLabel*>())
            timingShown = timingShown || label->text().contains("re-correction on the cached S");
        QVERIFY(timingShown);
        const auto view = comparisons.first().at(0).value<CamvidIouView>();
        QVERIFY(view.recorrected);
        // The re-correction previewed its q live too, and its last preview is the q evaluated.
        QVERIFY(previews.size() >= 1);
        const auto lastPreview = previews.last().at(0).value<CamvidPreviewView>();
        QVERIFY(lastPreview.recorrection);
        QCOMPARE(lastPreview.network, QString("ours"));
        QCOMPARE(lastPreview.frames.size(), 3);
        QCOMPARE(lastPreview.frames[2].corrected, viewer->frame(2)->corrected);
        // The viewer was refilled, on the same frame, with the new decisions.
        QCOMPARE(viewer->currentFrame(), 2);
        QCOMPARE(viewer->frameCount(), 3);
        QVERIFY(viewer->refreshes() > refreshesBefore);
        QCOMPARE(viewer->frame(2)->name, beforeFrame.name);
        QCOMPARE(viewer->frame(2)->truth, beforeFrame.truth);
        QCOMPARE(viewer->frame(2)->frame, beforeFrame.frame);
        // Both rules now decide under the edited matrix; the panel shows the new q's decisions.
        viewer->setOpacity(1.0);
        const auto& f = *viewer->frame(2);
        for (int i = 0; i < kSide * kSide; i += 37)
            QCOMPARE(QColor(viewer->panelImage(CamvidOverlayViewer::CorrectedPanel).pixel(i % kSide, i / kSide)),
                     paletteColour(f.corrected[i]));
        QVector<CamvidFrameView> shown;
        for (int i = 0; i < 3; ++i)
            shown << *viewer->frame(i);
        QString why;
        QVERIFY2(sameIou(barValues(camvidPage(*m_window)->iou()->bars(1)), view.after.iou, &why), qPrintable(why));
        QVERIFY2(sameIou(iouByHand(shown, true), view.after.iou, &why), qPrintable(why));
        QVERIFY(camvidPage(*m_window)->epochs()->graph(0, "ours, re-corrected"));
    }

    // Save Model: the cached networks (q as last re-corrected) as a folder `camvid eval`
    // reads; Open Model: a folder evaluated and shown like a run's evaluation.
    void saveModelWritesAFolderTheCommandsRead()
    {
        auto& r = *camvidRunner(*m_window);
        auto* page = qobject_cast<CamvidExperimentPage*>(m_window->currentPage());
        QVERIFY(page && r.hasCache() && page->canSaveModel() && page->hasModels());
        QSignalSpy saved(&r, &JobRunner::modelsSaved);
        const QString dir = m_tmp.path() + "/models";
        page->saveModelTo(dir);
        QVERIFY(saved.wait(60000));
        QCOMPARE(saved.last().at(2).toString(), QString());
        QCOMPARE(QDir(dir).entryList(QDir::AllEntries | QDir::NoDotAndDotDot, QDir::Name),
                 (QStringList{"camvid.json", "ours.pt", "ours.pt.json", "sghmc_s.pt", "sghmc_s.pt.json"}));
        QString line;
        QCOMPARE(thrown([&] { line = QString::fromStdString(checkCamvidModelFolder(dir.toStdString())); }), QString());
        QVERIFY2(line.contains("32x32") && line.contains("sghmc_s (") && line.contains("ours ("), qPrintable(line));
        // q is the re-corrected one: its sidecar holds the edited matrix.
        const auto edited = camvidDecisionCosts(m_window->costModel()->matrix());
        QCOMPARE(loadClassifier((dir + "/ours.pt").toStdString()).info.costs, edited);
        // `camvid eval` reads the folder, and its q decides the frames as the window showed.
        CamvidEvalConfig eval;
        eval.data = m_data.toStdString();
        eval.modelDir = dir.toStdString();
        eval.costs = m_window->costModel()->matrix();
        CamvidEvalResult result;
        QCOMPARE(thrown([&] { result = evaluateCamvid(eval, {}); }), QString());
        QCOMPARE(result.frames, int64_t(3));
        QVector<double> qIou;
        for (const auto& row : result.rows)
            if (row.method == "ours")
                qIou = QVector<double>(row.metrics.perClassIoU.begin(), row.metrics.perClassIoU.end());
        QString why;
        QVERIFY2(sameIou(barValues(camvidPage(*m_window)->iou()->bars(1)), qIou, &why), qPrintable(why));

        // A folder holding a model already, or a file in the way: refused, nothing left behind.
        const QString blocker = m_tmp.path() + "/blocker";
        QVERIFY(QFile(blocker).open(QIODevice::WriteOnly));
        const QStringList before = QDir(m_tmp.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot);
        for (const auto& [target, expected] : {std::pair<QString, QString>{dir, "already holds a CamVid model"},
                                               {blocker, blocker}}) {
            saved.clear();
            page->saveModelTo(target);
            QVERIFY(saved.wait(60000));
            QVERIFY2(saved.last().at(2).toString().contains(expected), qPrintable(saved.last().at(2).toString()));
        }
        QCOMPARE(QDir(m_tmp.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot), before);
        QCOMPARE(QDir(dir).entryList(QDir::AllEntries | QDir::NoDotAndDotDot).size(), 5);

        // Open Model: the folder evaluated on the form's validation frames, in the views.
        QSignalSpy finished(&r, &JobRunner::finished);
        QSignalSpy failed(&r, &JobRunner::failed);
        ViewSpy<CamvidIouView> comparisons(&r);
        camvidPanel(*m_window)->applySettings({{"data", m_data.toStdString()}});
        page->openModelFrom(dir + "/camvid.json");
        QVERIFY(r.isBusy() && !page->canSaveModel());
        QVERIFY(finished.wait(60000));
        QCOMPARE(finished.first().at(0).value<JobRunner::Job>(), JobRunner::kOpenModel);
        QCOMPARE(r.runs(), 1);  // nothing trained
        QCOMPARE(comparisons.size(), 1);
        const auto view = comparisons.first().at(0).value<CamvidIouView>();
        QVERIFY2(sameIou(view.after.iou, qIou, &why), qPrintable(why));
        auto* viewer = camvidPage(*m_window)->viewer();
        QCOMPARE(viewer->frameCount(), 3);
        QVector<CamvidFrameView> shown;
        for (int i = 0; i < 3; ++i)
            shown << *viewer->frame(i);
        QVERIFY2(sameIou(iouByHand(shown, true), qIou, &why), qPrintable(why));
        QCOMPARE(page->resultsJson(), finished.first().at(2).toString());
        QCOMPARE(page->resultsName(), QString("models_evaluation"));
        QCOMPARE(costsOfResults(nlohmann::json::parse(page->resultsJson().toStdString()), "results"), edited);

        // A folder without its manifest is refused, naming the file.
        const QString broken = m_tmp.path() + "/broken";
        QVERIFY(QDir().mkpath(broken) && QFile::copy(dir + "/ours.pt", broken + "/ours.pt"));
        page->openModelFrom(broken);
        QVERIFY(failed.wait(30000));
        QVERIFY2(failed.first().at(1).toString().contains(broken + "/camvid.json"), qPrintable(failed.first().at(1).toString()));
        QVERIFY(r.hasCache() && page->canSaveModel());
    }

    /// train, correct, eval and fps are the entry's actions on one model folder: their
    /// settings come from the one declaration, and each result records them so that
    /// they check again as that action's.
    void actionsActOnOneModelFolder()
    {
        const auto& entry = ExperimentRegistry::global().get(kCamvidExperiment);
        auto settingsFor = [](const char* action, const nlohmann::json& given) {
            return checkedSettings(camvidActionSettings(action), given, action);
        };
        auto recordChecksAgain = [](const char* action, const std::string& json) {
            const auto run = nlohmann::json::parse(json).at("run");
            QCOMPARE(run.at("action").get<std::string>(), std::string(action));
            QVERIFY2(checkedSettings(camvidActionSettings(action), run.at("settings"), action) == run.at("settings"),
                     run.dump().c_str());
        };
        const QString dir = m_tmp.path() + "/models-actions";
        const auto train = settingsFor("train", {{"data", m_data.toStdString()},
                                                 {"methods", {"mc_dropout", "cw_sgd", "sghmc_s", "ours"}},
                                                 {"seed", 5}});
        ExperimentRun trained;
        QCOMPARE(thrown([&] {
                     trained = runExperimentAction(entry, "train", train, std::nullopt, {}, {{"out", dir.toStdString()}});
                 }),
                 QString());
        recordChecksAgain("train", lcs::resultsJson(trained.output));
        QVERIFY2(trained.output.table.find("saved ours: " + dir.toStdString() + "/ours.pt") != std::string::npos,
                 trained.output.table.c_str());
        QCOMPARE(QDir(dir).entryList({"*.pt"}, QDir::Files, QDir::Name),
                 (QStringList{"cw_sgd.pt", "mc_dropout.pt", "ours.pt", "sghmc_s.pt"}));
        // The same folder again: refused before any training, the folder as it was.
        QVERIFY(thrown([&] { runExperimentAction(entry, "train", train, std::nullopt, {}, {{"out", dir.toStdString()}}); })
                    .contains("already holds a CamVid model"));

        // correct: q re-trained for an edited matrix, which its sidecar then records.
        auto edited = costPreset("camvid");
        edited.set(8, 3, 3.0);
        ExperimentRun corrected;
        const auto correct = settingsFor("correct", {{"data", m_data.toStdString()}, {"model", dir.toStdString()}});
        QCOMPARE(thrown([&] { corrected = runExperimentAction(entry, "correct", correct, edited, {}); }), QString());
        recordChecksAgain("correct", lcs::resultsJson(corrected.output));
        QCOMPARE(loadClassifier((dir + "/ours.pt").toStdString()).info.costs, camvidDecisionCosts(edited));

        // eval: the figures evaluateCamvid gives for the folder, recorded as the action's,
        // under a matrix other than the one q was trained for (which eval takes by default).
        auto scored = costPreset("camvid");
        scored.set(0, 3, 2.0);
        ExperimentRun evaluated;
        const auto eval = settingsFor("eval", {{"data", m_data.toStdString()}, {"model", dir.toStdString()}, {"passes", 3},
                                               {"seed", 7}});
        QCOMPARE(thrown([&] { evaluated = runExperimentAction(entry, "eval", eval, scored, {}); }), QString());
        recordChecksAgain("eval", lcs::resultsJson(evaluated.output));
        CamvidEvalConfig direct;
        direct.data = m_data.toStdString();
        direct.modelDir = dir.toStdString();
        direct.costs = scored;
        direct.mcPasses = 3;
        // Every row the same, MC dropout's included: its masks are drawn from the eval's
        // seed, whatever the process drew before (training, correcting, this eval).
        direct.seed = eval.at("seed").get<uint64_t>();
        const auto expected = evaluateCamvid(direct, {});
        QCOMPARE(lcs::resultsCsv(evaluated.output), lcs::resultsCsv(lcs::camvidEvalOutput(expected)));
        // Its results are no session of the run: refused, naming the action.
        QVERIFY(thrown([&] { sessionFromJson(lcs::resultsJson(evaluated.output), "eval.json", sessionCatalogue()); })
                    .contains("the record of an action"));

        // fps: the folder's MC-dropout net at each ensemble size against one pass of q.
        ExperimentRun timed;
        const auto fps = settingsFor("fps", {{"model", dir.toStdString()}, {"ensemble", {1, 2}}, {"fps_frames", 2}});
        QCOMPARE(thrown([&] { timed = runExperimentAction(entry, "fps", fps, std::nullopt, {}); }), QString());
        const auto figures = nlohmann::json::parse(lcs::resultsJson(timed.output));
        QCOMPARE(figures.at("ensemble").size(), size_t(2));
        QVERIFY(figures.at("q_fps").get<double>() > 0);
        QVERIFY(thrown([&] { runExperimentAction(entry, "fps", settingsFor("fps", {{"model", dir.toStdString()},
                                                                                 {"ensemble", {1, 2.5}}}),
                                                 std::nullopt, {}); })
                    .contains("--ensemble: 2.5 is not a whole number"));
        QVERIFY(thrown([&] { runExperimentAction(entry, "deploy", fps, std::nullopt, {}); }).contains("no action"));
    }

    void badFolderLeavesTheLastRunOnScreen()
    {
        auto& r = *camvidRunner(*m_window);
        auto* viewer = camvidPage(*m_window)->viewer();
        const int shownFrames = viewer->frameCount();
        QVERIFY(shownFrames > 0);
        QSignalSpy failed(&r, &JobRunner::failed);
        const QString notCamvid = m_tmp.path() + "/not-camvid";  // a folder, but no train/ or val/
        camvidPanel(*m_window)->applySettings({{"data", notCamvid.toStdString()}});
        m_window->runAll();
        QVERIFY(failed.wait(30000));
        QVERIFY(failed.first().at(2).toBool());  // data unavailable
        QVERIFY2(failed.first().at(1).toString().contains(notCamvid), qPrintable(failed.first().at(1).toString()));
        QVERIFY(r.hasCache());
        QCOMPARE(r.runs(), 1);
        QCOMPARE(viewer->frameCount(), shownFrames);
        QVERIFY(!r.isBusy());
        // A missing folder is refused before any job starts.
        QSignalSpy started(&r, &JobRunner::started);
        camvidPanel(*m_window)->applySettings({{"data", (m_tmp.path() + "/missing").toStdString()}});
        m_window->runAll();
        QCOMPARE(started.size(), 0);
        QCOMPARE(viewer->frameCount(), shownFrames);
    }

    void cancellingTrainingLeavesTheWindowUsable()
    {
        auto& r = *camvidRunner(*m_window);
        camvidPanel(*m_window)->applySettings({{"data", m_data.toStdString()}});
        QSignalSpy cancelled(&r, &JobRunner::cancelled);
        QSignalSpy progress(&r, &JobRunner::progress);
        m_window->runAll();
        QVERIFY(r.isBusy());
        QVERIFY(progress.wait(30000));
        m_window->cancelJob();
        QVERIFY(cancelled.wait(30000));
        QVERIFY(!r.isBusy());
        QCOMPARE(r.runs(), 2);
        auto* run = m_window->findChild<QPushButton*>("camvidRun");
        auto* cancel = m_window->findChild<QPushButton*>("camvidCancel");
        QVERIFY(run && run->isEnabled());
        QVERIFY(cancel && !cancel->isEnabled());
        QVERIFY(m_window->findChild<QComboBox*>("experimentSelector")->isEnabled());
        // And it can run again to the end.
        QSignalSpy finished(&r, &JobRunner::finished);
        m_window->runAll();
        QVERIFY(finished.wait(120000));
        QVERIFY(r.hasCache());
        QCOMPARE(camvidPage(*m_window)->viewer()->frameCount(), 3);
    }

    // A run with an MC-dropout network saves it too, so `camvid fps` times the folder.
    void savedFolderWithMcDropoutServesFramesPerSecond()
    {
        auto& r = *camvidRunner(*m_window);
        auto* page = qobject_cast<CamvidExperimentPage*>(m_window->currentPage());
        camvidPanel(*m_window)->applySettings({{"data", m_data.toStdString()}, {"mc_dropout", true}});
        QSignalSpy finished(&r, &JobRunner::finished);
        m_window->runAll();
        QVERIFY(r.isBusy() && !page->canSaveModel());
        QVERIFY(finished.wait(120000));
        QSignalSpy saved(&r, &JobRunner::modelsSaved);
        const QString dir = m_tmp.path() + "/models-mc";
        page->saveModelTo(dir);
        QVERIFY(saved.wait(60000));
        QCOMPARE(saved.last().at(2).toString(), QString());
        QVERIFY(saved.last().at(1).toStringList().contains("mc_dropout.pt"));
        CamvidFpsResult fps;
        QCOMPARE(thrown([&] { fps = camvidFramesPerSecond(dir.toStdString(), {1, 2}, 2, "cpu"); }), QString());
        QCOMPARE(fps.points.size(), size_t(2));
        QCOMPARE(fps.height, kSide);
        QVERIFY(fps.qFps > 0 && fps.points[1].ensembleFps > 0);
    }

private:
    QTemporaryDir m_tmp;
    QString m_data;
    std::unique_ptr<MainWindow> m_window;
};

QTEST_MAIN(TestCamvidViews)
#include "tst_camvid_views.moc"
