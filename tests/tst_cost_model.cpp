// The cost matrix table model: in-place edits, validation, undo/redo, referral, M,
// presets, and import/export round trips that refuse bad files and keep the matrix.
#include <QtTest/QtTest>

#include "ui/cost_matrix_model.h"
#include "ui/session.h"

using namespace lcs;
using namespace lcs::ui;

class TestCostModel : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void editUndoRedo()
    {
        CostMatrixModel model;
        QSignalSpy changed(&model, &CostMatrixModel::matrixChanged);
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.columnCount(), 2);
        QCOMPARE(model.headerData(1, Qt::Horizontal, Qt::DisplayRole).toString(), QString("positive"));
        QVERIFY(model.setData(model.index(0, 1), QString(" 0.25 ")));
        QCOMPARE(model.matrix().at(0, 1), 0.25);
        QCOMPARE(model.data(model.index(0, 1), Qt::DisplayRole).toString(), QString("0.25"));
        QVERIFY(model.setData(model.index(1, 0), 3.0));
        QCOMPARE(model.undoStack()->count(), 2);
        model.undoStack()->undo();
        QCOMPARE(model.matrix().at(1, 0), 1.0);
        QCOMPARE(model.matrix().at(0, 1), 0.25);
        model.undoStack()->undo();
        QVERIFY(model.matrix() == costPreset("synthetic"));
        model.undoStack()->redo();
        model.undoStack()->redo();
        QCOMPARE(model.matrix().at(1, 0), 3.0);
        QVERIFY(changed.count() >= 6);
    }

    /// With many classes the rows read "index name", names of more than 16 characters
    /// elided in the middle so that the columns of costs keep their room; the tooltip has
    /// the whole name.
    void manyClassRowsNameTheirClassShortly()
    {
        CostMatrixModel model;
        auto ten = CostMatrix::zeroOne(10, {"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt",
                                            "Sneaker", "Bag", "Ankle boot"});
        model.setMatrixDirect(ten);
        QCOMPARE(model.headerData(0, Qt::Vertical, Qt::DisplayRole).toString(), QString("0 T-shirt/top"));
        QCOMPARE(model.headerData(2, Qt::Vertical, Qt::DisplayRole).toString(), QString("2 Pullover"));
        QCOMPARE(model.headerData(9, Qt::Vertical, Qt::DisplayRole).toString(), QString("9 Ankle boot"));
        QCOMPARE(model.headerData(0, Qt::Vertical, Qt::ToolTipRole).toString(), QString("True class: T-shirt/top"));
        QCOMPARE(model.headerData(3, Qt::Horizontal, Qt::DisplayRole).toString(), QString("3"));
        // Longer than 16 characters: both ends kept, the middle elided.
        model.setMatrixDirect(CostMatrix::zeroOne(5, {"build wind float", "build wind non-float", "containers",
                                                      "tableware", "headlamps"}));
        QCOMPARE(model.headerData(0, Qt::Vertical, Qt::DisplayRole).toString(), QString("0 build wind float"));
        QCOMPARE(model.headerData(1, Qt::Vertical, Qt::DisplayRole).toString(),
                 QString("1 build win") + QChar(0x2026) + QString("-float"));
    }

    void editsToOneCellMergeIntoOneUndoStep()
    {
        CostMatrixModel model;
        QVERIFY(model.setData(model.index(0, 1), 0.2));
        QVERIFY(model.setData(model.index(0, 1), 0.3));
        QVERIFY(model.setData(model.index(0, 1), 0.4));
        QCOMPARE(model.undoStack()->count(), 1);
        model.undoStack()->undo();
        QCOMPARE(model.matrix().at(0, 1), 0.1);
    }

    void badCellValuesAreRefused_data()
    {
        QTest::addColumn<QVariant>("value");
        QTest::addColumn<QString>("messagePart");
        QTest::newRow("text") << QVariant("abc") << "not a number";
        QTest::newRow("empty") << QVariant("") << "not a number";
        QTest::newRow("negative") << QVariant(-0.5) << "negative";
        QTest::newRow("NaN") << QVariant(std::nan("")) << "finite";
        QTest::newRow("NaN text") << QVariant("nan") << "finite";
        QTest::newRow("infinity") << QVariant(std::numeric_limits<double>::infinity()) << "finite";
    }
    void badCellValuesAreRefused()
    {
        QFETCH(QVariant, value);
        QFETCH(QString, messagePart);
        CostMatrixModel model;
        QSignalSpy errors(&model, &CostMatrixModel::errorOccurred);
        QVERIFY(!model.setData(model.index(1, 0), value));
        QCOMPARE(errors.count(), 1);
        const QString msg = errors.takeFirst().at(0).toString();
        QVERIFY2(msg.contains(messagePart) && msg.contains("positive"), qPrintable(msg));
        QVERIFY(model.matrix() == costPreset("synthetic"));
        QCOMPARE(model.undoStack()->count(), 0);
    }

    void referralToggleAndCost()
    {
        CostMatrixModel model;
        QVERIFY(model.setReferral(true, 0.2));
        QCOMPARE(model.columnCount(), 3);
        QCOMPARE(model.headerData(2, Qt::Horizontal, Qt::DisplayRole).toString(), QString("refer"));
        QCOMPARE(model.matrix().at(1, 2), 0.2);
        QVERIFY(model.setReferralCost(0.07));
        QCOMPARE(model.matrix().at(0, 2), 0.07);
        model.undoStack()->undo();
        QCOMPARE(model.matrix().at(0, 2), 0.2);
        model.undoStack()->undo();
        QCOMPARE(model.columnCount(), 2);
    }

    void utilityConstantIsCheckedAgainstLargestCost()
    {
        CostMatrixModel model;
        QSignalSpy errors(&model, &CostMatrixModel::errorOccurred);
        QVERIFY(!model.setUtilityConstant(0.5));
        QVERIFY(errors.takeFirst().at(0).toString().contains("smaller than the largest cost"));
        QVERIFY(!model.matrix().utilityConstantSetting());
        QVERIFY(model.setUtilityConstant(2.0));
        QCOMPARE(model.matrix().utilityConstant(), 2.0);
        // Raising a cost above M is refused too.
        QVERIFY(!model.setData(model.index(1, 0), 2.5));
        QVERIFY(model.setUtilityConstant(std::nullopt));
        QVERIFY(model.setData(model.index(1, 0), 2.5));
        QCOMPARE(model.matrix().utilityConstant(), 2.5);
    }

    void presetsAndReset()
    {
        CostMatrixModel model;
        QSignalSpy errors(&model, &CostMatrixModel::errorOccurred);
        QVERIFY(!model.loadPreset("mnist"));  // 10 classes, the experiment has 2
        QVERIFY(errors.takeFirst().at(0).toString().contains("10 classes"));
        QVERIFY(model.resetToZeroOne());
        QCOMPARE(model.matrix().at(0, 1), 1.0);
        QCOMPARE(model.matrix().classNames()[1], std::string("positive"));
        QVERIFY(model.loadPreset("synthetic"));
        QCOMPARE(model.matrix().at(0, 1), 0.1);
    }

    void importExportRoundTrip_data()
    {
        QTest::addColumn<QString>("suffix");
        for (const char* suffix : {"json", "cost"})  // LC Studio's JSON, Weka's .cost
            QTest::newRow(suffix) << QString(suffix);
    }
    void importExportRoundTrip()
    {
        QFETCH(QString, suffix);
        QTemporaryDir dir;
        CostMatrixModel a;
        QVERIFY(a.setData(a.index(1, 0), 4.0));
        QVERIFY(a.setReferral(true, 0.3));
        const QString path = dir.path() + "/m." + suffix;
        QVERIFY(a.exportFile(path));
        CostMatrixModel b;
        QVERIFY(b.importFile(path, 2));
        QCOMPARE(b.matrix().values(), a.matrix().values());
        QCOMPARE(b.matrix().classNames(), a.matrix().classNames());
        QVERIFY(b.matrix().hasReferral());
        b.undoStack()->undo();  // the import is one undoable step
        QVERIFY(b.matrix() == costPreset("synthetic"));
    }

    void badFilesAreRefusedAndMatrixStays_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QByteArray>("contents");
        QTest::addColumn<QString>("messagePart");
        QTest::newRow("malformed json") << "a.json" << QByteArray("{\"costs\": [[0, 1], [1, 0]") << "not valid JSON";
        QTest::newRow("negative json") << "b.json" << QByteArray("{\"costs\": [[0, -1], [1, 0]]}") << "negative";
        QTest::newRow("text entry weka") << "c.cost" << QByteArray("2 2\n0 x\n1 0\n") << "not a finite number";
        QTest::newRow("nan weka") << "d.cost" << QByteArray("2 2\n0 nan\n1 0\n") << "finite";
        QTest::newRow("three classes") << "e.json" << QByteArray("{\"costs\": [[0,1,1],[1,0,1],[1,1,0]]}") << "3 classes";
        QTest::newRow("missing file") << "" << QByteArray() << "cannot open";
        // These three took the window down once (an exception other than CostMatrixError).
        QTest::newRow("overflowing number") << "f.json" << QByteArray("{\"costs\": [[0, 1e400], [1, 0]]}") << "not valid JSON";
        QTest::newRow("negative subnormal") << "g.json" << QByteArray("{\"costs\": [[0, -1e-310], [1, 0]]}") << "-1e-310";
        QTest::newRow("nested 40000 deep") << "h.json" << (QByteArray(40000, '[') + QByteArray(40000, ']')) << "nested deeper";
        QTest::newRow("9 MB") << "i.json" << QByteArray(9 << 20, ' ') << "are read";
        QTest::newRow("weka float header") << "j.cost" << QByteArray("3e9 3e9\n") << "not two integers";
        QTest::newRow("weka row shape") << "k.cost" << QByteArray("2 2\n0 1 1\n1 0\n") << "row 1 has 3 numbers";
    }

    void costsInRangeSaveAndReadBack()
    {
        // Every cost in range (1e-30 to 1e30) round-trips exactly through the files the
        // window writes; beyond float32's reach, costs are refused.
        CostMatrixModel model;
        QVERIFY(!model.setData(model.index(0, 1), 1e-310));
        QVERIFY(model.setData(model.index(0, 1), 1.2345678901234567e-30));
        QVERIFY(model.setUtilityConstant(1.0000000000000002));
        QTemporaryDir dir;
        for (const QString& name : {QStringLiteral("s.json"), QStringLiteral("s.cost")}) {
            QVERIFY(model.exportFile(dir.path() + "/" + name));
            CostMatrixModel back;
            QVERIFY(back.importFile(dir.path() + "/" + name, 2));
            QCOMPARE(back.matrix().at(0, 1), 1.2345678901234567e-30);
        }
        Session session;
        session.experiment = "synthetic";
        session.costs = model.matrix();
        QVERIFY(saveSession(session, dir.path() + "/s.lcsession").isEmpty());
        Session loaded;
        QVERIFY(loadSession(dir.path() + "/s.lcsession", loaded).isEmpty());
        QVERIFY(loaded.costs == model.matrix());
    }
    void badFilesAreRefusedAndMatrixStays()
    {
        QFETCH(QString, name);
        QFETCH(QByteArray, contents);
        QFETCH(QString, messagePart);
        QTemporaryDir dir;
        const QString path = dir.path() + "/" + (name.isEmpty() ? QString("missing.json") : name);
        if (!name.isEmpty()) {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(contents);
        }
        CostMatrixModel model;
        QVERIFY(model.setData(model.index(0, 1), 0.2));
        const CostMatrix before = model.matrix();
        QSignalSpy errors(&model, &CostMatrixModel::errorOccurred);
        QVERIFY(!model.importFile(path, 2));
        QCOMPARE(errors.count(), 1);
        const QString msg = errors.takeFirst().at(0).toString();
        QVERIFY2(msg.contains(messagePart) && msg.contains(path), qPrintable(msg));
        QVERIFY(model.matrix() == before);
        QCOMPARE(model.undoStack()->count(), 1);
    }
};

QTEST_MAIN(TestCostModel)
#include "tst_cost_model.moc"
