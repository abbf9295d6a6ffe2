// File formats and file writing: numbers that read back, atomic writes that survive a
// full disk, model files tied to their sidecar, collapse detection by hand.
#include <array>
#include <cmath>
#include <filesystem>
#include <functional>
#include <csignal>
#include <limits>
#include <map>
#include <set>

#include <sys/resource.h>

#include <QDirIterator>
#include <QtTest/QtTest>

#include <torch/torch.h>

#include "base/core/atomic_file.h"
#include "base/core/input_error.h"
#include "base/core/number_format.h"
#include "base/core/seeds.h"
#include "base/core/settings.h"
#include "base/core/utf8.h"
#include "base/inference/method_catalog.h"
#include "base/io/session_file.h"
#include "engine/calibration/correction.h"
#include "engine/decision/decisions.h"
#include "engine/experiments/camvid/camvid_experiment.h"
#include "engine/experiments/experiment.h"
#include "engine/experiments/experiment_names.h"
#include "engine/experiments/image/corruption_experiment.h"
#include "engine/experiments/image/image_experiment_support.h"
#include "engine/experiments/synthetic/synthetic_report.h"
#include "engine/io/model_io.h"
#include "tests/thrown.h"

using namespace lcs;

namespace {

/// Files larger than `bytes` cannot be written while this lives: write() fails with
/// EFBIG as on a full disk (SIGXFSZ is ignored so the process survives it).
class FileSizeLimit {
public:
    explicit FileSizeLimit(rlim_t bytes)
    {
        ::getrlimit(RLIMIT_FSIZE, &m_old);
        m_oldHandler = std::signal(SIGXFSZ, SIG_IGN);
        rlimit limit = m_old;
        limit.rlim_cur = bytes;
        ::setrlimit(RLIMIT_FSIZE, &limit);
    }
    ~FileSizeLimit()
    {
        ::setrlimit(RLIMIT_FSIZE, &m_old);
        std::signal(SIGXFSZ, m_oldHandler);
    }

private:
    rlimit m_old{};
    void (*m_oldHandler)(int) = nullptr;
};

QStringList temporariesIn(const QString& dir)
{
    return QDir(dir).entryList({"*.tmp.*"}, QDir::Files);
}

} // namespace


namespace {

/// A folder's entries (files, folders, links), sorted, joined by commas.
QString entries(const std::string& folder)
{
    QStringList names =
        QDir(QString::fromStdString(folder)).entryList(QDir::Files | QDir::Dirs | QDir::NoDotAndDotDot | QDir::System);
    names.sort();
    return names.join(",");
}

/// Every file below `folder` (hidden ones included) with its contents, "path=contents",
/// sorted, joined by "; ": a folder's whole state in one comparison, leftovers included.
QString folderState(const std::string& folder)
{
    const QDir root(QString::fromStdString(folder));
    QStringList files;
    QDirIterator it(root.path(), QDir::Files | QDir::Hidden | QDir::System, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        files << root.relativeFilePath(path) + "=" + QString::fromStdString(readFile(path.toStdString()));
    }
    files.sort();
    return files.join("; ");
}

} // namespace

class TestFormats : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // UTF-8 by Unicode's table of well-formed sequences: each bad form found at its first
    // byte, every good one passed whole.
    void utf8FindsTheFirstBadByte_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<qint64>("firstBad");
        QTest::newRow("ascii") << QByteArray("label,x") << qint64(-1);
        QTest::newRow("two, three and four bytes") << QByteArray("caf\xc3\xa9 \xe2\x82\xac \xf0\x9d\x84\x9e") << qint64(-1);
        QTest::newRow("latin-1") << QByteArray("caf\xe9") << qint64(3);
        QTest::newRow("overlong slash") << QByteArray("a\xc0\xaf") << qint64(1);
        QTest::newRow("overlong three") << QByteArray("ab\xe0\x80\xaf") << qint64(2);
        QTest::newRow("surrogate") << QByteArray("\xed\xa0\x80") << qint64(0);
        QTest::newRow("above U+10FFFF") << QByteArray("x\xf4\x90\x80\x80") << qint64(1);
        QTest::newRow("F5") << QByteArray("\xf5\x80\x80\x80") << qint64(0);
        QTest::newRow("cut off") << QByteArray("ok\xe2\x82") << qint64(2);
        QTest::newRow("lone continuation") << QByteArray("\x80") << qint64(0);
        QTest::newRow("bad third byte") << QByteArray("\xe2\x82\x41") << qint64(0);
        QTest::newRow("U+10FFFF") << QByteArray("\xf4\x8f\xbf\xbf") << qint64(-1);
    }
    void utf8FindsTheFirstBadByte()
    {
        QFETCH(QByteArray, text);
        QFETCH(qint64, firstBad);
        const size_t found = lcs::firstInvalidUtf8(std::string_view(text.constData(), size_t(text.size())));
        QCOMPARE(found == std::string_view::npos ? qint64(-1) : qint64(found), firstBad);
    }

    // Limits on names count characters: 100 letters of any script fit "at most 100".
    void utf8LengthCountsCharacters_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<qint64>("characters");
        QTest::newRow("empty") << QByteArray("") << qint64(0);
        QTest::newRow("ascii") << QByteArray("label") << qint64(5);
        QTest::newRow("two bytes") << QByteArray("caf\xc3\xa9") << qint64(4);
        QTest::newRow("three bytes") << QByteArray("\xe6\x97\xa5\xe6\x9c\xac") << qint64(2);
        QTest::newRow("four bytes") << QByteArray("\xf0\x9d\x84\x9e!") << qint64(2);
        QTest::newRow("100 x three bytes") << QByteArray("\xe6\x97\xa5").repeated(100) << qint64(100);
    }
    void utf8LengthCountsCharacters()
    {
        QFETCH(QByteArray, text);
        QFETCH(qint64, characters);
        QCOMPARE(qint64(lcs::utf8Length(std::string_view(text.constData(), size_t(text.size())))), characters);
    }

    void stagedFoldersAreAllOrNothing()
    {
        QTemporaryDir dir;
        const std::string base = dir.path().toStdString();
        // Not committed (an error part-way): nothing is left, not even the staging folder.
        {
            StagedFolder staged(base + "/models");
            writeFileAtomically(staged.path() + "/a.pt", "A");
        }
        QCOMPARE(entries(base), QString());
        // A new folder: the staging folder becomes it.
        {
            StagedFolder staged(base + "/models/");
            writeFileAtomically(staged.path() + "/a.pt", "A");
            writeFileAtomically(staged.path() + "/b.pt", "B");
            staged.commit();
        }
        QCOMPARE(entries(base), QString("models"));
        QCOMPARE(entries(base + "/models"), QString("a.pt,b.pt"));
        // An existing folder: each file replaces its namesake, other files stay.
        writeFileAtomically(base + "/models/keep.txt", "K");
        {
            StagedFolder staged(base + "/models");
            writeFileAtomically(staged.path() + "/a.pt", "A2");
            staged.commit();
        }
        QCOMPARE(entries(base), QString("models"));
        QCOMPARE(entries(base + "/models"), QString("a.pt,b.pt,keep.txt"));
        QCOMPARE(QString::fromStdString(readFile(base + "/models/a.pt")), QString("A2"));
        QCOMPARE(QString::fromStdString(readFile(base + "/models/keep.txt")), QString("K"));
        // A symlink in the way is not replaced, and no other file moves either (every
        // target is checked before the first move, whatever order the folder lists).
        QVERIFY(QFile::link(QString::fromStdString(base + "/models/keep.txt"), QString::fromStdString(base + "/models/c.pt")));
        StagedFolder staged(base + "/models");
        for (const char* name : {"a.pt", "b.pt", "c.pt", "d.pt"})
            writeFileAtomically(staged.path() + "/" + name, "new");
        QVERIFY_THROWS_EXCEPTION(OutputError, staged.commit());
        QVERIFY(QFileInfo(QString::fromStdString(base + "/models/c.pt")).isSymLink());
        QCOMPARE(QString::fromStdString(readFile(base + "/models/keep.txt")), QString("K"));
        QCOMPARE(QString::fromStdString(readFile(base + "/models/a.pt")), QString("A2"));
        QCOMPARE(QString::fromStdString(readFile(base + "/models/b.pt")), QString("B"));
        QCOMPARE(entries(base + "/models"), QString("a.pt,b.pt,c.pt,keep.txt"));
    }

    // The outputs of one run commit together or not at all: a move that fails part-way
    // (here a staged file taken away behind the set's back, as a disk gone or a file made
    // immutable would) puts back every output already moved, leaves every old file as it
    // was and no temporary, staging folder or backup behind.
    void outputSetsCommitTogetherOrNotAtAll()
    {
        QTemporaryDir dir;
        const std::string base = dir.path().toStdString();
        writeFileAtomically(base + "/r.json", "old json");
        writeFileAtomically(base + "/r.csv", "old csv");
        QVERIFY(QDir().mkpath(QString::fromStdString(base + "/models")));
        writeFileAtomically(base + "/models/q.pt", "old q");
        {
            OutputSet set;
            set.stageFile(base + "/r.json", "new json");
            set.stageFile(base + "/r.csv", "new csv");
            const std::string models = set.stageFolder(base + "/models");
            QCOMPARE(set.stageFolder(base + "/models/"), models);
            writeFileAtomically(models + "/q.pt", "new q");
            writeFileAtomically(models + "/s.pt", "new s");
            for (const auto& name : QDir(QString::fromStdString(base)).entryList({"r.csv.tmp.*"}, QDir::Files))
                QVERIFY(QFile::remove(QString::fromStdString(base) + "/" + name));
            try {
                set.commit();
                QFAIL("committed");
            } catch (const OutputError& e) {
                QVERIFY2(QString(e.what()).contains("r.csv") &&
                             QString(e.what()).contains("every output of the run is left as it was"),
                         e.what());
            }
        }
        QCOMPARE(folderState(base), QString("models/q.pt=old q; r.csv=old csv; r.json=old json"));
        // Committed: every one new, a new folder made whole, nothing else left.
        {
            OutputSet set;
            set.stageFile(base + "/r.json", "new json");
            writeFileAtomically(set.stageFolder(base + "/models") + "/s.pt", "new s");
            writeFileAtomically(set.stageFolder(base + "/fresh") + "/a.pt", "A");
            set.commit();
        }
        const QString committed = "fresh/a.pt=A; models/q.pt=old q; models/s.pt=new s; r.csv=old csv; r.json=new json";
        QCOMPARE(folderState(base), committed);
        // Never committed (an error or a signal before the end): nothing changes.
        {
            OutputSet set;
            set.stageFile(base + "/r.csv", "newer csv");
            writeFileAtomically(set.stageFolder(base + "/other") + "/a.pt", "A");
        }
        QCOMPARE(folderState(base), committed);
    }

    // `--save-models DIR --json DIR/r.json` with a new DIR: the file is staged into the
    // folder's staging (any spelling of it) and goes into place with it; one named like a
    // file the run wrote there (--json DIR/q.pt.json) is refused, replacing nothing;
    // uncommitted, neither exists.
    void aFileInsideAStagedFolderGoesWithIt()
    {
        QTemporaryDir dir;
        const std::string base = dir.path().toStdString();
        const auto text = [&](const std::string& path) { return QString::fromStdString(readFile(path)); };
        {
            OutputSet set;
            const std::string staging = set.stageFolder(base + "/new/");
            writeFileAtomically(staging + "/q.pt", "q");
            set.stageFile(base + "/./new/results.json", "the flag's");
            set.stageFile(base + "/new/r.csv", "csv");
            QVERIFY_THROWS_EXCEPTION(OutputError, set.stageFile(base + "/new/q.pt", "a table"));
            QCOMPARE(text(staging + "/q.pt"), QString("q"));
            QCOMPARE(entries(base), QString(QString::fromStdString(std::filesystem::path(staging).filename().string())));
        }
        QCOMPARE(entries(base), QString());
        {
            OutputSet set;
            const std::string staging = set.stageFolder(base + "/new");
            writeFileAtomically(staging + "/q.pt", "q");
            set.stageFile(base + "/new/results.json", "the flag's");
            set.stageFile(base + "/beside.json", "beside");
            set.commit();
        }
        QCOMPARE(entries(base), QString("beside.json,new"));
        QCOMPARE(entries(base + "/new"), QString("q.pt,results.json"));
        QCOMPARE(text(base + "/new/results.json"), QString("the flag's"));
        QCOMPARE(text(base + "/beside.json"), QString("beside"));
    }

    void camvidSessionRoundTrips()
    {
        const auto catalogue = sessionCatalogue();
        SessionData s;
        s.experiment = "camvid";
        s.settings = {{"data", "/data/camvid"}, {"preset", "cpu"},      {"max_train", 17},
                      {"max_eval", 5},          {"mc_dropout", true},   {"measure_fps", true},
                      {"seed", 9223372036854775807LL}, {"device", "cpu"}};
        s.costs = costPreset("camvid");
        QCOMPARE(s.costs.numClasses(), 12);
        s.costs.set(8, 3, 4.5);  // an edited cell survives
        const auto back = sessionFromJson(sessionToJson(s), "s.lcsession", catalogue);
        QCOMPARE(back.experiment, std::string("camvid"));
        QVERIFY2(back.settings == s.settings, back.settings.dump().c_str());
        QVERIFY(back.costs == s.costs);
        QCOMPARE(back.costs.at(8, 3), 4.5);
        QVERIFY(sessionToJson(s).find("\"version\": 3") != std::string::npos);
        // Without preset and mc_dropout: the declared defaults (cpu, as for every CamVid
        // action; the window's form starts at demo; no MC dropout).
        auto camvidSession = [&](int version, const std::string& settings) {
            return sessionFromJson(R"({"format": "lcstudio-session", "version": )" + std::to_string(version) +
                                       R"(, "experiment": "camvid", "settings": )" + settings + R"(, "cost_matrix": )" +
                                       costMatrixToJson(costPreset("camvid")) + "}",
                                   "m.lcsession", catalogue);
        };
        const auto minimal = camvidSession(3, R"({"data": "d"})");
        QCOMPARE(minimal.settings.at("preset").get<std::string>(), std::string("cpu"));
        // Version 2: no preset meant demo, and its "cpu" named another run (120 frames of
        // SegNet-light), so it is refused rather than repeated as the new cpu preset; the
        // same holds for a results record that names no session version (written before 3).
        QCOMPARE(camvidSession(2, R"({"data": "d"})").settings.at("preset").get<std::string>(), std::string("demo"));
        QCOMPARE(camvidSession(2, R"({"data": "d", "preset": "demo"})").settings.at("preset").get<std::string>(),
                 std::string("demo"));
        QVERIFY(thrown([&] { camvidSession(2, R"({"data": "d", "preset": "cpu"})"); }).contains("120-frame"));
        nlohmann::json record{{"run",
                               {{"experiment", "camvid"},
                                {"settings", {{"data", "d"}, {"preset", "cpu"}}},
                                {"cost_matrix", nlohmann::json::parse(costMatrixToJson(costPreset("camvid")))}}}};
        QVERIFY(thrown([&] { sessionFromJson(record.dump(), "old.json", catalogue); }).contains("120-frame"));
        record["run"]["session_version"] = kSessionVersion;
        QCOMPARE(sessionFromJson(record.dump(), "new.json", catalogue).settings.at("preset").get<std::string>(),
                 std::string("cpu"));
        QCOMPARE(minimal.settings.at("mc_dropout").get<bool>(), false);
        QCOMPARE(minimal.settings.at("measure_fps").get<bool>(), false);  // the command line's default
        QVERIFY(minimal.settings.at("max_train").is_null());  // the preset's, decided at run time
    }

    /// Files of the previous version open with their settings under the declared names.
    void versionOneSessionsOpen()
    {
        const auto catalogue = sessionCatalogue();
        auto v1 = [&](const std::string& experiment, const std::string& settings, const CostMatrix& costs,
                      const std::string& paths = "{}") {
            return sessionFromJson(R"({"format": "lcstudio-session", "version": 1, "experiment": ")" + experiment +
                                       R"(", "settings": )" + settings + R"(, "cost_matrix": )" +
                                       costMatrixToJson(costs) + R"(, "data_paths": )" + paths + "}",
                                   experiment + ".lcsession", catalogue);
        };
        // Version 1 wrote every field for every experiment; 0 and "" meant "the preset's".
        const std::string every = R"({"replicates": 3, "methods": %M, "seed": "42", "threads": 2,
            "correction_iterations": 77, "grid_resolution": 40, "device": "cpu", "data": %D, "preset": "cpu",
            "rates": [0.25], "referral_costs": [0.1, 0.2], "trials": 2, "max_train": 0, "max_test": 5,
            "epochs": 0, "mc_dropout": true})";
        auto fill = [&](std::string methods, std::string data) {
            std::string t = every;
            t.replace(t.find("%M"), 2, methods);
            t.replace(t.find("%D"), 2, data);
            return t;
        };
        const auto syn = v1("synthetic", fill(R"(["bbvi"])", R"("")"), costPreset("synthetic"));
        QCOMPARE(syn.settings.at("replicates").get<int>(), 3);
        QCOMPARE(syn.settings.at("seed").get<long long>(), 42LL);
        QCOMPARE(syn.settings.at("correction_iterations").get<int>(), 77);
        QCOMPARE(syn.settings.at("grid_resolution").get<int>(), 40);
        QCOMPARE(syn.settings.at("threads").get<int>(), 2);

        const auto cor = v1("corruption", fill(R"(["sgld_s", "ours"])", R"("")"), CostMatrix::zeroOne(10),
                            R"({"images": "/data/fmnist"})");
        QCOMPARE(cor.settings.at("data").get<std::string>(), std::string("/data/fmnist"));  // from the data paths
        QVERIFY(cor.settings.at("rates") == nlohmann::json({0.25}));
        QVERIFY(cor.settings.at("max_train").is_null());  // 0: all
        QCOMPARE(cor.settings.at("max_test").get<long long>(), 5LL);
        QVERIFY(cor.settings.at("epochs").is_null());  // 0: the preset's
        QCOMPARE(cor.settings.at("trials").get<int>(), 2);

        auto withReferral = CostMatrix::zeroOne(10);
        withReferral.setReferral(0.3);
        const auto sel = v1("selective", fill(R"(["sghmc", "ours"])", R"("fashion-mnist")"), withReferral);
        QVERIFY(sel.settings.at("referral_costs") == nlohmann::json({0.1, 0.2}));
        QVERIFY(!sel.costs.hasReferral());  // the referral costs are the swept setting

        // (Version 1's camvid "cpu" preset is version 2's, refused as there: see above.)
        QCOMPARE(v1("camvid", R"({"data": "/d"})", costPreset("camvid")).settings.at("preset").get<std::string>(),
                 std::string("demo"));  // version 1's default
        auto camvidV1 = fill(R"(["cw_sgd", "sghmc_s", "ours"])", R"("/data/camvid")");
        camvidV1.replace(camvidV1.find(R"("preset": "cpu")"), 15, R"("preset": "paper")");
        const auto cam = v1("camvid", camvidV1, costPreset("camvid"));
        QCOMPARE(cam.settings.at("preset").get<std::string>(), std::string("paper"));
        QCOMPARE(cam.settings.at("max_eval").get<long long>(), 5LL);  // version 1's max_test
        QVERIFY(cam.settings.at("max_train").is_null());
        QCOMPARE(cam.settings.at("mc_dropout").get<bool>(), true);
        // 0 frames meant the preset's: unset now (a declared count starts at 1).
        const auto camZero = v1("camvid", R"({"data": "/d", "max_test": 0})", costPreset("camvid"));
        QVERIFY(camZero.settings.at("max_eval").is_null());
        // And a file from a newer program is refused, naming the version.
        try {
            sessionFromJson(R"({"format": "lcstudio-session", "version": 4, "experiment": "synthetic", "cost_matrix": )" +
                                costMatrixToJson(costPreset("synthetic")) + "}",
                            "new.lcsession", catalogue);
            QFAIL("accepted");
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).contains("version") && QString(e.what()).contains("is 4"), e.what());
        }
    }

    /// Where a preset decides a default, each preset's value is declared, read off the
    /// presets themselves (the appendix's epochs and the CPU presets').
    void presetValuesAreDeclared()
    {
        auto spec = [](const std::vector<SettingSpec>& specs, const char* name) { return *findSetting(specs, name); };
        const auto corruption = ExperimentRegistry::global().get(kCorruptionExperiment).settings();
        const auto epochs = spec(corruption, "epochs");
        QVERIFY2(epochs.presetValues == nlohmann::json({{"cpu", {{"colour", 3}, {"grayscale", 4}}},
                                                          {"paper", {{"colour", 50}, {"grayscale", 100}}}}),
                 epochs.presetValues.dump().c_str());
        QCOMPARE(presetValuesText(epochs), std::string("cpu 3 (colour), 4 (grayscale); paper 50 (colour), 100 (grayscale)"));
        QVERIFY(settingsHelp({epochs}).find("default the preset's: cpu 3 (colour)") != std::string::npos);
        // The same for both kinds of data: said once.
        const auto selective = ExperimentRegistry::global().get(kSelectiveExperiment).settings();
        QCOMPARE(presetValuesText(spec(selective, "copies")), std::string("cpu 1; paper 10"));
        // Only where it applies: the MLP has no width.
        QVERIFY(spec(corruption, "width").presetValues == nlohmann::json({{"cpu", {{"colour", 8}}},
                                                                         {"paper", {{"colour", 64}}}}));
        const auto camvid = ExperimentRegistry::global().get(kCamvidExperiment).settings();
        QCOMPARE(presetValuesText(spec(camvid, "max_train")), std::string("cpu all; demo 60; paper all"));
        QCOMPARE(presetValuesText(spec(camvid, "max_eval")), std::string("cpu all; demo 24; paper all"));
        // Every action's settings come from the one declaration: the same spec in each.
        for (const char* action : {"train", "correct"})
            QVERIFY(spec(camvidActionSettings(action), "max_train").presetValues == spec(camvid, "max_train").presetValues);
        QCOMPARE(presetValuesText(spec(camvidActionSettings("train"), "epochs")), std::string("cpu 40; demo 30; paper 160"));
        QCOMPARE(presetValuesText(spec(camvidActionSettings("train"), "held_out")), std::string("cpu 0.1; demo 0; paper 0"));
    }

    void badCamvidSessionsNameTheField_data()
    {
        QTest::addColumn<QString>("settings");
        QTest::addColumn<int>("classes");
        QTest::addColumn<QString>("fragment");
        QTest::newRow("preset") << R"({"data": "d", "preset": "huge"})" << 12 << R"(setting --preset: "huge" is not one of demo, cpu, paper)";
        QTest::newRow("negative training frames") << R"({"data": "d", "max_train": -1})" << 12 << R"(setting --max-train: "-1")";
        QTest::newRow("negative validation frames") << R"({"data": "d", "max_eval": -3})" << 12 << R"(setting --max-eval: "-3")";
        QTest::newRow("no data") << R"({"preset": "cpu"})" << 12 << R"(setting "data" is required)";
        QTest::newRow("empty data") << R"({"data": ""})" << 12 << R"(--data needs a non-empty value)";
        QTest::newRow("methods") << R"({"data": "d", "methods": ["ours"]})" << 12 << R"(unknown setting "methods")";
        QTest::newRow("mc_dropout") << R"({"data": "d", "mc_dropout": 1})" << 12 << R"(setting "mc_dropout" must be true or false)";
        QTest::newRow("classes") << R"({"data": "d"})" << 3 << R"((cost_matrix): )";
    }

    void badCamvidSessionsNameTheField()
    {
        QFETCH(QString, settings);
        QFETCH(int, classes);
        QFETCH(QString, fragment);
        const std::string text = R"({"format": "lcstudio-session", "version": 3, "experiment": "camvid", "settings": )" +
                                 settings.toStdString() + R"(, "cost_matrix": )" +
                                 costMatrixToJson(CostMatrix::zeroOne(classes)) + "}";
        try {
            sessionFromJson(text, "bad.lcsession", sessionCatalogue());
            QFAIL("accepted");
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).contains(fragment) && QString(e.what()).startsWith("bad.lcsession"), e.what());
        }
    }

    void numbersReadBackExactly_data()
    {
        QTest::addColumn<double>("value");
        QTest::newRow("0.1") << 0.1;
        QTest::newRow("subnormal 1e-310") << 1e-310;
        QTest::newRow("smallest subnormal") << std::numeric_limits<double>::denorm_min();
        QTest::newRow("largest") << std::numeric_limits<double>::max();
        QTest::newRow("negative zero") << -0.0;
        QTest::newRow("1/3") << 1.0 / 3.0;
        QTest::newRow("1 + epsilon") << 1.0 + std::numeric_limits<double>::epsilon();
    }
    // Table columns count characters: "±" is two bytes but one column.
    void paddingCountsCharacters()
    {
        QCOMPARE(padded("0.1 ± 0.2", 12), std::string("0.1 ± 0.2   "));
        QCOMPARE(padded("0.15", 6), std::string("0.15  "));
        QCOMPARE(padded("longer than", 4), std::string("longer than"));
    }

    void numbersReadBackExactly()
    {
        QFETCH(double, value);
        const auto text = formatNumber(value);
        const auto back = parseFiniteNumber(text);
        QVERIFY2(back.has_value(), text.c_str());
        QCOMPARE(std::signbit(*back), std::signbit(value));
        QCOMPARE(*back, value);
    }

    void wideCsvIsAViewOfTheLongTable()
    {
        // Lines in the order the long table first names their keys, a column per (rule,
        // metric), an absent figure an empty cell, counts whole, text quoted.
        auto row = [](double setting, int trial, std::string method, std::string rule, std::string metric,
                      double value) {
            return Observation{"rate", setting, trial, std::move(method), std::move(rule), std::move(metric), value};
        };
        const std::vector<Observation> rows{row(0.5, 1, "ours", "corrected", "cost", 0.25),
                                            row(0.5, 1, "ours", "uncorrected", "cost", 0.5),
                                            row(0.1, 0, "sghmc", "uncorrected", "cost", 0.75),
                                            row(0.5, 1, "ours", "", "pixels", 12000000),
                                            row(0.5, 1, "a,b", "corrected", "cost", 1)};
        WideLayout layout;
        layout.setting = "rate";
        layout.columns = {{"before", "uncorrected", "cost"}, {"after", "corrected", "cost"}, {"pixels", "", "pixels", true}};
        QCOMPARE(QString::fromStdString(wideCsv(rows, layout)),
                 QString("rate,trial,method,before,after,pixels\n"
                         "0.5,1,ours,0.5,0.25,12000000\n"
                         "0.1,0,sghmc,0.75,,\n"
                         "0.5,1,\"a,b\",,1,\n"));
        // With the rule as a key column, each rule is a line of its own.
        WideLayout byRule;
        byRule.trial.clear();
        byRule.rule = "decisions";
        byRule.columns = {{"cost", "", "cost"}};
        QCOMPARE(QString::fromStdString(wideCsv({rows[0], rows[1]}, byRule)),
                 QString("method,decisions,cost\nours,corrected,0.25\nours,uncorrected,0.5\n"));
    }

    void syntheticCsvKeepsTableTwosColumns()
    {
        // method before replicate, and the paired difference uncorrected - corrected.
        SyntheticResult r;
        MethodSummary m;
        m.method = InferenceMethod::Bbvi;
        ReplicateOutcome o;
        o.replicate = 1;
        o.method = m.method;
        o.uncorrected.averageCost = 0.5;
        o.corrected.averageCost = 0.125;
        o.uncorrected.accuracy = o.corrected.accuracy = 0.75;
        o.collapsed = true;
        m.replicates.push_back(o);
        r.methods.push_back(m);
        const auto lines = QString::fromStdString(lcs::resultsCsv(lcs::syntheticOutput(r))).split('\n');
        QVERIFY2(lines[0].startsWith("method,replicate,uncorrected_cost,corrected_cost,paired_diff,uncorrected_accuracy,"),
                 qPrintable(lines[0]));
        QVERIFY2(lines[1].startsWith("bbvi,1,0.5,0.125,0.375,0.75,0.75,"), qPrintable(lines[1]));
        const auto header = lines[0].split(','), cells = lines[1].split(',');
        QCOMPARE(cells[header.indexOf("collapsed")], QString("1"));
        QCOMPARE(cells[header.indexOf("temperature_cost")], QString());  // no baseline fitted: an empty cell
        // A referral rate only with a referral decision: without one it is 0 by construction.
        QVERIFY(!lines[0].contains("referral_rate"));
        r.record.costs = CostMatrix::zeroOne(2);
        r.record.costs.setReferral(0.2);
        r.methods[0].replicates[0].uncorrected.referralRate = 0.25;
        r.methods[0].replicates[0].corrected.referralRate = 0.5;
        const auto withReferral = QString::fromStdString(lcs::resultsCsv(lcs::syntheticOutput(r))).split('\n');
        const auto h = withReferral[0].split(','), c = withReferral[1].split(',');
        QCOMPARE(c[h.indexOf("uncorrected_referral_rate")], QString("0.25"));
        QCOMPARE(c[h.indexOf("corrected_referral_rate")], QString("0.5"));
    }

    void summaryCellsAreReadOffTheLongTable()
    {
        // Two trials of ours at r = 0.5: costs 0.2 and 0.4 (mean 0.3, sample std
        // sqrt(0.02) = 0.1414...), the second trial's accuracy undefined (every image
        // referred), its q collapsed; a row of another method and r stays out.
        auto row = [](double r, int trial, const char* method, const char* metric, double value) {
            return Observation{"referral_cost", r, trial, method, "", metric, value};
        };
        const std::vector<Observation> rows{
            row(0.5, 0, "ours", "cost", 0.2),      row(0.5, 0, "ours", "accuracy", 0.9),
            row(0.5, 0, "ours", "collapsed", 0),   row(0.5, 1, "ours", "cost", 0.4),
            row(0.5, 1, "ours", "collapsed", 1),   row(0.5, 0, "sghmc", "cost", 9),
            row(0.5, 0, "sghmc", "collapsed", 0),  row(0.1, 0, "ours", "cost", 7),
            row(0.1, 0, "ours", "collapsed", 0)};
        const ObservedCell cell(rows, 0.5, "ours");
        QVERIFY(!cell.empty());
        QCOMPARE(cell.collapsed(), 1);
        const auto cost = cell.figure("cost");
        QCOMPARE(cost.count, 2);
        QVERIFY(std::abs(cost.mean - 0.3) < 1e-15);
        QVERIFY(std::abs(cost.std - std::sqrt(0.02)) < 1e-15);
        const auto accuracy = cell.figure("accuracy");
        QVERIFY(std::isnan(accuracy.mean) && std::isnan(accuracy.std));
        QVERIFY(ObservedCell(rows, 0.2, "ours").empty());
    }

    void undefinedMetricsAreEmptyCellsAndNulls()
    {
        // Everything referred: accuracy and NLL are undefined. The CSV row leaves their
        // cells empty (read back as missing), never "nan"; the JSON has null.
        auto costs = CostMatrix::zeroOne(2);
        costs.setReferral(0.25);
        const auto m = evaluateDecisions(at::full({2, 2}, 0.5, at::kDouble), at::tensor({2, 2}, at::kLong),
                                         at::tensor({0, 1}, at::kLong), costs);
        const std::vector<ImageRunRow> rows{{0.5, 0, ImageMethod::Ours, m, 1.5, false}};
        const auto observations = runRowsObservations(rows, "referral_cost", true);
        const auto csv = wideCsv(observations, runRowsLayout("referral_cost", true));
        QCOMPARE(QString::fromStdString(csv),
                 QString("referral_cost,trial,method,cost,accuracy,referral_rate,nll,seconds,collapsed\n"
                         "0.5,0,ours,0.25,,1,,1.5,0\n"));
        const auto json = runRowJson("referral_cost", 0.5, 0, ImageMethod::Ours, m, 1.5, false, true);
        QVERIFY(json["accuracy"].is_null() && json["nll"].is_null());
        QCOMPARE(json["cost"].get<double>(), 0.25);
    }

    void strictNumberParsing_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<bool>("accepted");
        QTest::newRow("plain") << "0.25" << true;
        QTest::newRow("leading plus") << "+2" << true;
        QTest::newRow("subnormal") << "1e-310" << true;
        QTest::newRow("nan") << "nan" << false;
        QTest::newRow("inf") << "inf" << false;
        QTest::newRow("overflow") << "1e400" << false;
        QTest::newRow("underflow of a non-zero literal") << "1e-400" << false;
        QTest::newRow("trailing text") << "1x" << false;
        QTest::newRow("trailing space") << "1 " << false;
        QTest::newRow("empty") << "" << false;
    }
    void strictNumberParsing()
    {
        QFETCH(QString, text);
        QFETCH(bool, accepted);
        QCOMPARE(parseFiniteNumber(text.toStdString()).has_value(), accepted);
    }

    void failedWriteKeepsTheOldFile()
    {
        QTemporaryDir dir;
        const std::string path = (dir.path() + "/out.json").toStdString();
        writeFileAtomically(path, "old contents\n");
        {
            FileSizeLimit limit(16);
            QVERIFY_THROWS_EXCEPTION(OutputError, writeFileAtomically(path, std::string(4096, 'x')));
        }
        QCOMPARE(readFile(path), std::string("old contents\n"));
        QVERIFY2(temporariesIn(dir.path()).isEmpty(), qPrintable(temporariesIn(dir.path()).join(", ")));
        QVERIFY_THROWS_EXCEPTION(OutputError, writeFileAtomically((dir.path() + "/no/such/dir/x").toStdString(), "x"));
    }

    void staleTemporariesOfDeadProcessesAreRemoved()
    {
        QTemporaryDir dir;
        const QString path = dir.path() + "/model.pt";
        // pid 2^22 + 1 is above Linux's pid_max default, so no such process runs; our
        // own pid's temporary belongs to a live writer and must stay.
        const QString dead = path + ".tmp.4194305.0";
        const QString live = path + QString(".tmp.%1.99").arg(QCoreApplication::applicationPid());
        for (const QString& p : {dead, live}) {
            QFile f(p);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("partial");
        }
        writeFileAtomically(path.toStdString(), "new");
        QVERIFY(!QFile::exists(dead));
        QVERIFY(QFile::exists(live));
        // A killed run's staging folder, with the networks it had written, goes when the
        // next run stages the same folder.
        const QString models = dir.path() + "/models";
        const QString deadStaging = models + ".tmp.4194305.3";
        QVERIFY(QDir().mkpath(deadStaging + "/sub"));
        writeFileAtomically((deadStaging + "/q.pt").toStdString(), "partial");
        {
            StagedFolder staged(models.toStdString());
            writeFileAtomically(staged.path() + "/q.pt", "whole");
            staged.commit();
        }
        QVERIFY(!QFileInfo::exists(deadStaging));
        QCOMPARE(QString::fromStdString(readFile((models + "/q.pt").toStdString())), QString("whole"));
    }

    void readFileRefusesTooLargeAndFolders()
    {
        QTemporaryDir dir;
        const std::string path = (dir.path() + "/big.txt").toStdString();
        writeFileAtomically(path, std::string(1000, 'a'));
        QVERIFY_THROWS_EXCEPTION(InputError, readFile(path, 999));
        QCOMPARE(readFile(path, 1000).size(), size_t(1000));
        QVERIFY_THROWS_EXCEPTION(InputError, readFile(dir.path().toStdString()));
    }

    void modelSaveOnAFullDiskLeavesTheOldPair()
    {
        QTemporaryDir dir;
        const std::string path = (dir.path() + "/q.pt").toStdString();
        auto gen = makeGenerator(1);
        Mlp first(2, std::vector<int64_t>{50}, 2), second(2, std::vector<int64_t>{50}, 2);
        initialiseFrom(*first, gen);
        initialiseFrom(*second, gen);
        ModelInfo info;
        info.role = "q";
        info.costs = costPreset("synthetic");
        info.collapsed = true;
        saveModel(first, info, path);
        {
            FileSizeLimit limit(512);  // the weights alone are ~1.5 kB
            QVERIFY_THROWS_EXCEPTION(OutputError, saveModel(second, info, path));
        }
        QVERIFY(temporariesIn(dir.path()).isEmpty());
        auto loaded = loadMlp(path);
        QVERIFY(loaded.info.collapsed);
        QVERIFY(loaded.info.costs == info.costs);
        auto x = torch::randn({5, 2}, gen);
        QVERIFY(torch::allclose(loaded.model->forward(x), first->forward(x)));
    }

    void weightsOfAnotherSaveAreRefused()
    {
        QTemporaryDir dir;
        const std::string a = (dir.path() + "/a.pt").toStdString(), b = (dir.path() + "/b.pt").toStdString();
        auto gen = makeGenerator(2);
        Mlp netA(2, std::vector<int64_t>{8}, 2), netB(2, std::vector<int64_t>{8}, 2);
        initialiseFrom(*netA, gen);
        initialiseFrom(*netB, gen);
        saveModel(netA, {}, a);
        saveModel(netB, {}, b);
        // b's weights under a's sidecar: same architecture, other save.
        writeFileAtomically(a, readFile(b));
        try {
            loadMlp(a);
            QFAIL("mismatched weights were loaded");
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).contains("does not match"), e.what());
        }
    }

    void collapseIsDetectedByHand()
    {
        const auto L = costTensor(costPreset("synthetic"));
        // p decides negative for row 0 and positive for row 1 (threshold q(pos) > 1/11).
        auto p = torch::tensor({{0.99f, 0.01f}, {0.5f, 0.5f}});
        auto oneClass = torch::tensor({{0.99f, 0.01f}, {0.98f, 0.02f}});   // both negative
        auto faithful = torch::tensor({{0.97f, 0.03f}, {0.6f, 0.4f}});     // negative, positive
        QVERIFY(decisionsCollapsed(oneClass, p, L));
        QVERIFY(!decisionsCollapsed(faithful, p, L));
        // A p that itself decides one class everywhere leaves nothing to collapse from.
        QVERIFY(!decisionsCollapsed(oneClass, oneClass, L));
    }

    void warmStartFitsThePredictive()
    {
        // A smooth predictive on a 1-D line: after the warm start alone (no correction
        // steps) q must match it closely, where a random q is far off.
        auto gen = makeGenerator(3);
        auto x = torch::linspace(-3, 3, 200).unsqueeze(1);
        auto pos = torch::sigmoid(2.0 * x.squeeze(1) - 1.0);
        auto p = torch::stack({1 - pos, pos}, 1);
        CorrectionConfig config;
        config.epochs = 0;
        config.hidden = {16};
        auto warm = trainCorrection(x, p, costPreset("synthetic"), config, gen, {});
        QVERIFY2(warm.warmStartKl < 0.01, qPrintable(QString("KL after warm start %1").arg(warm.warmStartKl)));
        config.warmStartSteps = 0;
        auto cold = trainCorrection(x, p, costPreset("synthetic"), config, gen, {});
        auto q = predictProbabilities(*cold.q, x);
        const double coldKl = (q * (q.log() - p.log())).sum(1).mean().item<double>();
        QVERIFY2(coldKl > 10 * warm.warmStartKl, qPrintable(QString("random q KL %1").arg(coldKl)));
    }

    // Methods as data: one row per id, a seed tag per row that no other row shares, and
    // colours a reader can tell apart within every experiment.
    void methodCatalogueIsConsistent()
    {
        std::set<std::string> ids;
        std::set<uint64_t> tags;
        std::map<std::string, std::set<std::string>> coloursByExperiment;
        const QRegularExpression hex("^#[0-9A-F]{6}$");
        for (const auto& m : methodCatalog()) {
            QVERIFY2(ids.insert(m.id).second, m.id.c_str());
            QVERIFY2(tags.insert(m.seedTag).second, m.id.c_str());
            QVERIFY2(hex.match(QString::fromStdString(m.colour)).hasMatch(), m.colour.c_str());
            QVERIFY(!m.label.empty());
            for (const auto& e : m.experiments)
                QVERIFY2(coloursByExperiment[e].insert(m.colour).second, (e + ": " + m.id).c_str());
        }
        // Told apart by every reader: CIE76 distance in Lab between every two colours of an
        // experiment, as seen with normal vision and simulated protanopia, deuteranopia and
        // tritanopia (Machado, Oliveira and Fernandes 2009, severity 1, in linear RGB), at
        // least 15, and at least 30 from "ours", the method every other is compared with.
        const double machado[4][3][3] = {
            {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}},
            {{0.152286, 1.052583, -0.204868}, {0.114503, 0.786281, 0.099216}, {-0.003882, -0.048116, 1.051998}},
            {{0.367322, 0.860646, -0.227968}, {0.280085, 0.672501, 0.047413}, {-0.011820, 0.042940, 0.968881}},
            {{1.255528, -0.076749, -0.178779}, {-0.078411, 0.930809, 0.147602}, {0.004733, 0.691367, 0.303900}}};
        const auto seenLab = [&](const std::string& hexColour, int vision) {
            double rgb[3], seen[3];
            for (int c = 0; c < 3; ++c) {
                const double v = std::stoi(hexColour.substr(1 + 2 * c, 2), nullptr, 16) / 255.0;
                rgb[c] = v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
            }
            for (int r = 0; r < 3; ++r)
                seen[r] = std::clamp(machado[vision][r][0] * rgb[0] + machado[vision][r][1] * rgb[1] +
                                         machado[vision][r][2] * rgb[2], 0.0, 1.0);
            const double x = (0.4124 * seen[0] + 0.3576 * seen[1] + 0.1805 * seen[2]) / 0.95047;
            const double y = 0.2126 * seen[0] + 0.7152 * seen[1] + 0.0722 * seen[2];
            const double z = (0.0193 * seen[0] + 0.1192 * seen[1] + 0.9505 * seen[2]) / 1.08883;
            const auto f = [](double t) { return t > 0.008856 ? std::cbrt(t) : 7.787 * t + 16.0 / 116; };
            return std::array<double, 3>{116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))};
        };
        for (const auto& experiment : {"synthetic", "corruption", "selective", "camvid"}) {
            const auto ids = methodIdsFor(experiment);
            for (size_t a = 0; a < ids.size(); ++a)
                for (size_t b = a + 1; b < ids.size(); ++b)
                    for (int vision = 0; vision < 4; ++vision) {
                        const auto p = seenLab(methodInfo(ids[a]).colour, vision);
                        const auto q = seenLab(methodInfo(ids[b]).colour, vision);
                        const double distance = std::hypot(p[0] - q[0], p[1] - q[1], p[2] - q[2]);
                        const double least = ids[a] == "ours" || ids[b] == "ours" ? 30 : 15;
                        QVERIFY2(distance >= least, qPrintable(QString("%1: %2 and %3, vision %4: %5")
                                                                   .arg(experiment)
                                                                   .arg(QString::fromStdString(ids[a]))
                                                                   .arg(QString::fromStdString(ids[b]))
                                                                   .arg(vision)
                                                                   .arg(distance)));
                    }
        }
        // Every experiment offers methods, in the order the CLI and the tables list them.
        QCOMPARE(methodIdsFor("synthetic"), (std::vector<std::string>{"bbvi", "sghmc", "sgld", "kfac_laplace"}));
        QCOMPARE(methodIdsFor("corruption"), (std::vector<std::string>{"sgld_s", "sgld", "lc_sgld", "cw_sgd", "ours"}));
        QCOMPARE(methodIdsFor("selective"), (std::vector<std::string>{"sghmc", "lc_sghmc", "ours", "ours_no_s"}));
        QCOMPARE(methodIdsFor("camvid"),
                 (std::vector<std::string>{"mc_dropout", "lc_mc_dropout", "cw_sgd", "sghmc_s", "ours"}));
        // The enums' names and labels are the catalogue's.
        for (auto m : allImageMethods())
            QCOMPARE(imageMethodLabel(m), methodInfo(imageMethodName(m)).label);
        for (auto m : allMethods())
            QCOMPARE(methodSeedTag(m), methodInfo(methodName(m)).seedTag);
        QVERIFY(findMethodInfo("no_such_method") == nullptr);
        QVERIFY_THROWS_EXCEPTION(std::logic_error, methodInfo("no_such_method"));
    }

    // Seeds: splitmix64 (values from an independent implementation), and coordinates taken
    // from a setting's value, so 0.125 and 0.12 are different streams.
    void seedsFollowCoordinates()
    {
        QCOMPARE(mixSeed(7, 3, 100), uint64_t(0x7ba603ead52d22f1ULL));
        QCOMPARE(seedFor(7, {3, 100}), mixSeed(mixSeed(7, 3), 100));
        QVERIFY(settingCoordinate(0.125) != settingCoordinate(0.12));
        QCOMPARE(settingCoordinate(-0.0), settingCoordinate(0.0));
        QVERIFY(seedFor(1, {settingCoordinate(0.5), 0}) != seedFor(1, {settingCoordinate(0.5), 1}));
    }

    // Settings declared once: each kind parses its own values and refuses the rest with a
    // message naming the flag (the words the CLI's catalogue of bad inputs expects).
    void settingValuesParseByKind_data()
    {
        QTest::addColumn<int>("which");
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("parsed");  // the JSON, or empty when refused
        QTest::addColumn<QString>("message");
        QTest::newRow("integer") << 0 << "12" << "12" << "";
        QTest::newRow("integer below") << 0 << "0" << "" << "--replicates: \"0\" is not an integer in 1..10000";
        QTest::newRow("integer as float") << 0 << "1e3" << "" << "is not an integer";
        QTest::newRow("number") << 1 << "0.25" << "0.25" << "";
        QTest::newRow("number at the open end") << 1 << "0" << "" << "--correction-lr: \"0\" is not a number in (0, 10]";
        QTest::newRow("number at the closed end") << 1 << "10" << "10.0" << "";
        QTest::newRow("number nan") << 1 << "nan" << "" << "is not a number";
        QTest::newRow("choice") << 2 << "isotropic" << "\"isotropic\"" << "";
        QTest::newRow("choice unknown") << 2 << "gauss" << "" << "--bbvi-prior: \"gauss\" is not fan_in or isotropic";
        QTest::newRow("methods") << 3 << "sghmc,bbvi" << "[\"sghmc\",\"bbvi\"]" << "";
        QTest::newRow("methods twice") << 3 << "bbvi,bbvi" << "" << "listed twice";
        QTest::newRow("methods trailing comma") << 3 << "bbvi," << "" << "unknown method \"\"";
        QTest::newRow("text empty") << 4 << "" << "" << "--device needs a non-empty value";
        QTest::newRow("numbers") << 5 << "0.3, 0.125" << "[0.3,0.125]" << "";
        QTest::newRow("numbers outside") << 5 << "0.5,1.5" << "" << "--rates: 1.5 is outside [0, 1]";
        QTest::newRow("numbers twice") << 5 << "0.5,0.5" << "" << "--rates: 0.5 is listed twice";
        QTest::newRow("numbers trailing comma") << 5 << "0.5," << "" << "is not a comma-separated list of numbers";
        QTest::newRow("numbers nan") << 5 << "0.5,nan" << "" << "\"nan\" is not a finite number";
    }

    void settingValuesParseByKind()
    {
        QFETCH(int, which);
        QFETCH(QString, text);
        QFETCH(QString, parsed);
        QFETCH(QString, message);
        const std::vector<SettingSpec> specs{
            integerSetting("replicates", "N", "replicates", 10, 1, 10000),
            numberSetting("correction_lr", "X", "learning rate", 0.03, 0, 10, true),
            choiceSetting("bbvi_prior", "P", "prior", "fan_in", {"fan_in", "isotropic"}),
            methodsSetting("methods", "methods", nlohmann::json::array(), methodIdsFor("synthetic")),
            textSetting("device", "D", "device", "cpu"),
            numbersSetting("rates", "rates", nlohmann::json::array(), 0, 1)};
        const auto& spec = specs[static_cast<size_t>(which)];
        try {
            const auto v = parseSettingValue(spec, text.toStdString());
            QVERIFY2(message.isEmpty(), "accepted a bad value");
            QCOMPARE(QString::fromStdString(v.dump()), parsed);
        } catch (const InputError& e) {
            QVERIFY2(!message.isEmpty(), e.what());
            QVERIFY2(QString(e.what()).contains(message), e.what());
        }
        QCOMPARE(settingFlag(spec), QString::fromStdString("--" + spec.name).replace('_', '-').toStdString());
    }

    // A settings object from a file: checked by the flags' own parser, completed with
    // the defaults, and refused naming the source and the setting.
    void checkedSettingsCompleteAndRefuse()
    {
        const std::vector<SettingSpec> specs{integerSetting("points", "N", "points", 400, 30, 1000),
                                             numberSetting("temperature", "T", "t", 3.0, 0.0, 10.0, true),
                                             numbersSetting("rates", "rates", nlohmann::json::array({0.5}), 0, 1),
                                             choiceSetting("preset", "P", "p", "cpu", {"cpu", "paper"})};
        const auto done = checkedSettings(specs, {{"points", 31}, {"rates", {0.25, 0.75}}}, "s.json");
        QCOMPARE(done.at("points").get<int>(), 31);
        QCOMPARE(done.at("temperature").get<double>(), 3.0);
        QCOMPARE(done.at("rates"), (nlohmann::json{0.25, 0.75}));
        QCOMPARE(done.at("preset").get<std::string>(), std::string("cpu"));
        auto refusal = [&](const nlohmann::json& values) -> std::string {
            try {
                checkedSettings(specs, values, "s.json");
            } catch (const InputError& e) {
                return e.what();
            }
            return "accepted";
        };
        QVERIFY(refusal({{"points", 29}}).find("s.json") != std::string::npos);   // below the range
        QVERIFY(refusal({{"points", 29}}).find("--points") != std::string::npos);
        QVERIFY(refusal({{"points", 30.5}}).find("must be an integer") != std::string::npos);
        QVERIFY(refusal({{"temperature", 0.0}}).find("--temperature") != std::string::npos);  // (0, 10]
        QVERIFY(refusal({{"rates", {0.5, 0.5}}}).find("listed twice") != std::string::npos);
        QVERIFY(refusal({{"preset", "laptop"}}).find("cpu or paper") != std::string::npos);
        QVERIFY(refusal({{"point", 40}}).find("unknown setting \"point\"") != std::string::npos);
        QCOMPARE(refusal(nlohmann::json::array()), std::string("s.json: settings must be a JSON object"));
        // What JSON writers produce for the same values is accepted: 31.0 for 31, one
        // number for a one-item list.
        QCOMPARE(checkedSettings(specs, {{"points", 31.0}}, "s.json").at("points"), nlohmann::json(31));
        QCOMPARE(checkedSettings(specs, {{"rates", 0.25}}, "s.json").at("rates"), (nlohmann::json{0.25}));
        const std::vector<SettingSpec> methods{methodsSetting("methods", "m", {"bbvi"}, {"bbvi", "sghmc"})};
        QVERIFY_THROWS_EXCEPTION(InputError, checkedSettings(methods, {{"methods", {"bbvi,sghmc"}}}, "s.json"));
    }

    // The help is derived: every declared setting's flag, its default and its choices.
    void settingsHelpListsEverySetting()
    {
        const std::vector<SettingSpec> specs{integerSetting("correction_iterations", "N", "q training steps", 500, 1, 9),
                                             choiceSetting("bbvi_prior", "P", "prior", "fan_in", {"fan_in", "isotropic"})};
        const auto help = QString::fromStdString(settingsHelp(specs));
        QVERIFY(help.contains("--correction-iterations N\n"));  // too long for the column: help below
        QVERIFY(help.contains("q training steps (default 500)"));
        QVERIFY(help.contains("--bbvi-prior P"));
        QVERIFY(help.contains("prior: fan_in, isotropic (default fan_in)"));
        for (const auto& line : help.split('\n'))
            QVERIFY2(line.size() <= 88, qPrintable(line));
    }
};

QTEST_APPLESS_MAIN(TestFormats)
#include "tst_formats.moc"
