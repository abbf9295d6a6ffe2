// The experiment model's proof: an experiment declared here, in the test binary alone,
// runs through the CLI (its command, flags, --help and results files derived from the
// declaration) and through the window's job runner (run, progress, re-correction),
// with no change to any other file.
#include <QLineEdit>
#include <QSpinBox>
#include <QtTest>

#include <dlfcn.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <sstream>

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

#include "app/cli_commands.h"
#include "base/core/input_error.h"
#include "base/core/number_format.h"
#include "engine/calibration/correction.h"
#include "engine/core/threads.h"
#include "engine/decision/decisions.h"
#include "engine/decision/evidence.h"
#include "engine/io/model_io.h"
#include "engine/models/mlp.h"
#include "engine/experiments/experiment.h"
#include "engine/experiments/run_record.h"
#include "engine/experiments/plane_view_builder.h"
#include "engine/experiments/run_views.h"
#include "engine/experiments/synthetic/synthetic_experiment.h"
#include "tests/gui_test_setup.h"
#include "tests/tiny_idx.h"
#include "ui/cost_matrix_model.h"
#include "ui/experiments/page_list.h"
#include "ui/experiments/registry/registry_page.h"
#include "ui/job_runner.h"
#include "ui/main_window.h"
#include "ui/settings_form.h"

using namespace lcs;
using namespace lcs::ui;

namespace {

/// Three Gaussian classes in the plane (unit variance, means below) and an overconfident
/// predictive: p(y|x) = softmax_y(-T/2 |x - m_y|^2) with temperature T > 1, the exact
/// posterior (equal priors) sharpened. q corrects it on unlabelled points for the costs.
const double kMeans[3][2] = {{-1.0, 0.0}, {1.0, 0.0}, {0.0, 1.5}};

struct GaussianData {
    at::Tensor x, y;
};

GaussianData sampleGaussians(int64_t n, at::Generator& gen)
{
    auto y = at::randint(3, {n}, gen, at::kLong);
    auto x = at::randn({n, 2}, gen, at::kFloat);
    auto means = at::tensor(std::vector<float>{float(kMeans[0][0]), float(kMeans[0][1]), float(kMeans[1][0]),
                                               float(kMeans[1][1]), float(kMeans[2][0]), float(kMeans[2][1])})
                     .view({3, 2});
    return {x + means.index_select(0, y), y};
}

at::Tensor sharpenedPosterior(const at::Tensor& x, double temperature)
{
    auto means = at::tensor(std::vector<float>{float(kMeans[0][0]), float(kMeans[0][1]), float(kMeans[1][0]),
                                               float(kMeans[1][1]), float(kMeans[2][0]), float(kMeans[2][1])})
                     .view({3, 2});
    auto sq = (x.unsqueeze(1) - means.unsqueeze(0)).pow(2).sum(2);  // [N, 3]
    return at::softmax(-0.5 * temperature * sq, 1);
}

nlohmann::json metricsJson(const DecisionMetrics& m)
{
    nlohmann::json j;
    j["cost"] = m.averageCost;
    j["accuracy"] = m.accuracy;
    return j;
}

struct GaussianRun {
    GaussianData calibration, test;
    at::Tensor pCalibration, pTest;
    nlohmann::json settings;
};

/// A run's q under `costs`: both decision rules on the test set, as results.
ExperimentOutput correctGaussians(const GaussianRun& run, const CostMatrix& costs, const JobContext& ctx)
{
    CorrectionConfig config;
    config.epochs = run.settings.at("iterations").get<int>();
    config.warmStartSteps = 50;
    auto gen = at::make_generator<at::CPUGeneratorImpl>(run.settings.at("seed").get<uint64_t>() + 1);
    // Reports as the plan's one task, with one count over the warm start and the
    // correction, so the task never reads as done before its last step.
    JobContext named = ctx;
    named.progress = [&ctx, &config](const Progress& p) {
        Progress q = p;
        q.task = TaskIdentity{"q", std::nullopt, 0};
        q.total = config.warmStartSteps + config.epochs;
        q.step = p.phase == "correction" ? config.warmStartSteps + p.step : p.step;
        ctx.report(q);
    };
    auto out = trainCorrection(run.calibration.x, run.pCalibration, costs, config, gen, named);
    const auto L = costTensor(costs);
    const auto qTest = predictProbabilities(*out.q, run.test.x);
    const auto before = evaluateDecisions(run.pTest, bayesDecisions(run.pTest, L), run.test.y, costs);
    const auto after = evaluateDecisions(qTest, bayesDecisions(qTest, L), run.test.y, costs);
    RunRecord record;
    record.experiment = "three_gaussians";
    record.costs = costs;
    record.settings = run.settings;
    record.seed = run.settings.at("seed").get<uint64_t>();
    ExperimentOutput output;
    output.record = record;
    output.fields = {{"uncorrected", metricsJson(before)}, {"corrected", metricsJson(after)}};
    output.csvText = "rule,cost,accuracy\nuncorrected," + formatNumber(before.averageCost) + "," +
                     formatNumber(before.accuracy) + "\ncorrected," + formatNumber(after.averageCost) + "," +
                     formatNumber(after.accuracy) + "\n";
    output.table = "three Gaussians: cost " + formatNumber(before.averageCost) + " -> " +
                   formatNumber(after.averageCost) + "\n";
    return output;
}

class GaussianState : public RecorrectionState {
public:
    GaussianState(GaussianRun run, CostMatrix costs) : m_run(std::move(run)), m_costs(std::move(costs)) {}
    std::string describe() const override { return "three Gaussians: p cached"; }
    CostMatrix costs() const override { return m_costs; }
    ExperimentOutput recorrect(const CostMatrix& costs, const JobContext& ctx) override
    {
        costs.validateFor(3);
        ctx.declarePlan({{TaskIdentity{"q", std::nullopt, 0}, 1.0}});
        m_costs = costs;
        return correctGaussians(m_run, costs, ctx);
    }

private:
    GaussianRun m_run;
    CostMatrix m_costs;
};

class ThreeGaussians : public Experiment {
public:
    std::string name() const override { return "three_gaussians"; }
    std::string title() const override { return "three Gaussian classes, an overconfident predictive"; }
    std::string description() const override
    {
        return "Draws calibration and test points from three unit Gaussians, sharpens the exact\n"
               "posterior by a temperature and corrects it with q for the cost matrix.\n";
    }
    std::vector<SettingSpec> settings() const override
    {
        return {integerSetting("points", "N", "calibration and test points each", 400, 30, 100000),
                integerSetting("iterations", "N", "correction steps", 150, 1, 100000),
                numberSetting("temperature", "T", "sharpening of the exact posterior", 3.0, 0.0, 100.0, true),
                integerSetting("seed", "S", "seed of the draws", 0, 0, 1000000)};
    }
    std::vector<std::string> methods() const override { return {}; }
    CostMatrix defaultCosts(const nlohmann::json&) const override
    {
        // Missing class 2 is ten times as bad as any other error.
        return CostMatrix(3, {0, 1, 1, 1, 0, 1, 10, 10, 0}, false);
    }
    ExperimentRun run(const nlohmann::json& settings, const std::optional<CostMatrix>& costs, const JobContext& ctx,
                      const OutputPaths&) const override
    {
        const CostMatrix L = costs ? *costs : defaultCosts(settings);
        L.validateFor(3);
        ctx.declarePlan({{TaskIdentity{"q", std::nullopt, 0}, 1.0}});
        auto gen = at::make_generator<at::CPUGeneratorImpl>(settings.at("seed").get<uint64_t>());
        const auto n = settings.at("points").get<int64_t>();
        GaussianRun run;
        run.settings = settings;
        run.calibration = sampleGaussians(n, gen);
        run.test = sampleGaussians(n, gen);
        const double t = settings.at("temperature").get<double>();
        run.pCalibration = sharpenedPosterior(run.calibration.x, t);
        run.pTest = sharpenedPosterior(run.test.x, t);
        ExperimentRun out;
        out.output = correctGaussians(run, L, ctx);
        out.cache = std::make_shared<GaussianState>(std::move(run), L);
        return out;
    }
};

nlohmann::json readJson(const QString& path)
{
    std::ifstream in(path.toStdString());
    return nlohmann::json::parse(in);
}

/// The CLI in-process: exit status and what it printed.
std::string readText(const std::string& path)
{
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

struct CliRun {
    int status = -1;
    std::string out, err;
};

CliRun runCommandLine(std::vector<std::string> args)
{
    args.insert(args.begin(), "lcstudio-cli");
    std::vector<char*> argv;
    for (auto& a : args)
        argv.push_back(a.data());
    QTemporaryFile outFile, errFile;
    outFile.open();
    errFile.open();
    std::fflush(stdout);
    std::fflush(stderr);
    const int savedOut = dup(1), savedErr = dup(2);
    dup2(outFile.handle(), 1);
    dup2(errFile.handle(), 2);
    CliRun r;
    r.status = cli::runCli(static_cast<int>(argv.size()), argv.data());
    std::fflush(stdout);
    std::fflush(stderr);
    dup2(savedOut, 1);
    dup2(savedErr, 2);
    ::close(savedOut);
    ::close(savedErr);
    outFile.seek(0);
    errFile.seek(0);
    r.out = outFile.readAll().toStdString();
    r.err = errFile.readAll().toStdString();
    return r;
}

} // namespace

/// The toy experiment's own page, registered by the test as a plug-in's would be.
class ThreeGaussiansPage : public RegistryExperimentPage {
public:
    using RegistryExperimentPage::RegistryExperimentPage;
    QString resultsTitle() const override { return "Three Gaussians: decisions"; }
};

class TestExperimentRegistry : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        isolateWindowTest();
        ExperimentRegistry::global().add(std::make_shared<ThreeGaussians>());
        QVERIFY_THROWS_EXCEPTION(std::logic_error,
                                 ExperimentRegistry::global().add(std::make_shared<ThreeGaussians>()));
    }

    void registryHasThePapersExperimentsAndTheAddedOne()
    {
        QStringList names;
        for (const auto* e : ExperimentRegistry::global().all())
            names << QString::fromStdString(e->name());
        QCOMPARE(names, (QStringList{"synthetic", "corruption", "selective", "camvid", "tabular", "correct", "three_gaussians"}));
        QVERIFY_THROWS_EXCEPTION(InputError, ExperimentRegistry::global().get("four_gaussians"));
    }

    // Every route takes its threads from one policy: the experiment's own choice over the
    // cores it may use, one core left to the window's GUI.
    void threadsComeFromOnePolicy()
    {
        const auto& registry = ExperimentRegistry::global();
        const int cores = physicalCores();
        const auto none = nlohmann::json::object();
        QCOMPARE(runThreads(registry.get("corruption"), none, CoreShare::AllCores), cores);
        QCOMPARE(runThreads(registry.get("selective"), none, CoreShare::LeaveOneForGui), std::max(1, cores - 1));
        QCOMPARE(runThreads(registry.get("corruption"), nlohmann::json{{"threads", 3}}, CoreShare::LeaveOneForGui), 3);
        QCOMPARE(runThreads(registry.get("camvid"), none, CoreShare::AllCores), cores);
        QCOMPARE(runThreads(registry.get("synthetic"), nlohmann::json{{"threads", 4}}, CoreShare::AllCores), 1);
        QCOMPARE(runThreads(registry.get("three_gaussians"), none, CoreShare::AllCores), 1);
        // The image command's --threads is its declared setting.
        QVERIFY(findSetting(registry.get("selective").settings(), "threads") != nullptr);
    }

    // Without a threads setting the count is a ceiling: it shrinks by each core other
    // processes keep more than a quarter busy, cores the ceiling leaves free absorbing
    // the first of them, and never below 1.
    void threadsFollowTheLoad_data()
    {
        QTest::addColumn<int>("ceiling");
        QTest::addColumn<double>("othersBusy");
        QTest::addColumn<int>("physical");
        QTest::addColumn<int>("logical");
        QTest::addColumn<int>("expected");
        QTest::newRow("idle, 2 cores") << 2 << 0.0 << 2 << 2 << 2;
        QTest::newRow("a fifth of a core: noise") << 2 << 0.2 << 2 << 2 << 2;
        QTest::newRow("a third of a core taken") << 2 << 0.33 << 2 << 2 << 1;
        QTest::newRow("one busy process") << 2 << 1.0 << 2 << 2 << 1;
        QTest::newRow("two busy processes: still 1") << 2 << 2.0 << 2 << 2 << 1;
        QTest::newRow("the window's 1 of 2 stays") << 1 << 1.0 << 2 << 2 << 1;
        QTest::newRow("8 cores, 3 busy") << 8 << 3.0 << 8 << 8 << 5;
        QTest::newRow("ceiling 6 of 8: 2 busy on the free 2") << 6 << 2.0 << 8 << 8 << 6;
        QTest::newRow("ceiling 6 of 8: 3 busy") << 6 << 3.0 << 8 << 8 << 5;
        QTest::newRow("hyper-threads: 2 logical CPUs = 1 core") << 4 << 2.0 << 4 << 8 << 3;
        QTest::newRow("4 threads asked of 2 cores") << 4 << 1.0 << 2 << 2 << 3;
    }
    void threadsFollowTheLoad()
    {
        QFETCH(int, ceiling);
        QFETCH(double, othersBusy);
        QFETCH(int, physical);
        QFETCH(int, logical);
        QFETCH(int, expected);
        QCOMPARE(threadsForLoad(ceiling, othersBusy, physical, logical), expected);
    }

    // Products run on the thread that asks for them: OpenBLAS's own pool stays at one
    // thread wherever the engine sets a thread count, configureThreads or a scope of its
    // own (the bench's per-core sgemm peak once ran on every core through it).
    void blasKeepsToTheCallingThread()
    {
        using GetThreads = int (*)();
        using SetThreads = void (*)(int);
        auto* get = reinterpret_cast<GetThreads>(::dlsym(RTLD_DEFAULT, "openblas_get_num_threads"));
        auto* set = reinterpret_cast<SetThreads>(::dlsym(RTLD_DEFAULT, "openblas_set_num_threads"));
        if (!get || !set)
            QSKIP("the BLAS Debian's alternatives selected is not OpenBLAS");
        set(2);
        {
            lcs::ScopedIntraOpThreads oneThread(1);
            QCOMPARE(get(), 1);
        }
        set(2);
        const int configured = lcs::configuredThreads();
        lcs::configureThreads(1);
        QCOMPARE(get(), 1);
        lcs::configureThreads(configured, lcs::ThreadLoad::Ignore);  // as the tests after expect
    }

    // The command, its --help and its flag checks come from the declaration.
    void cliHelpAndFlagsAreDerived()
    {
        const auto top = runCommandLine({"--help"});
        QCOMPARE(top.status, 0);
        QVERIFY(top.out.find("three_gaussians [options]") != std::string::npos);
        const auto help = runCommandLine({"three_gaussians", "--help"});
        QCOMPARE(help.status, 0);
        QVERIFY(help.out.find("--temperature T") != std::string::npos);
        QVERIFY(help.out.find("correction steps (default 150)") != std::string::npos);
        const auto bad = runCommandLine({"three_gaussians", "--points", "5"});
        QCOMPARE(bad.status, 2);
        QVERIFY2(bad.err.find("--points") != std::string::npos, bad.err.c_str());
        QTemporaryDir dir;
        const QString twoClasses = dir.filePath("two.json");
        saveCostMatrix(CostMatrix::zeroOne(2), twoClasses.toStdString());
        const auto wrongSize = runCommandLine({"three_gaussians", "--costs", twoClasses.toStdString()});
        QCOMPARE(wrongSize.status, 2);
        QVERIFY2(wrongSize.err.find("--costs: " + twoClasses.toStdString() + ": has 2 classes; three_gaussians decides among 3") != std::string::npos,
                 wrongSize.err.c_str());
        const auto unknown = runCommandLine({"three_gaussians", "--rates", "0.5"});
        QCOMPARE(unknown.status, 2);
        QVERIFY2(unknown.err.find("--rates") != std::string::npos, unknown.err.c_str());
    }

    // The CLI and the job runner give the same results for the same settings and costs,
    // and the results record what they were computed under.
    void cliAndJobRunnerAgree()
    {
        QTemporaryDir dir;
        const QString costsPath = dir.filePath("costs.json");
        const CostMatrix costs(3, {0, 1, 1, 1, 0, 1, 5, 5, 0}, false);
        saveCostMatrix(costs, costsPath.toStdString());
        const QString json = dir.filePath("cli.json"), csv = dir.filePath("cli.csv");
        const auto r = runCommandLine({"three_gaussians", "--points", "300", "--iterations", "60", "--seed", "4", "--costs",
                            costsPath.toStdString(), "--json", json.toStdString(), "--csv", csv.toStdString(),
                            "--quiet"});
        QCOMPARE(r.status, 0);
        QVERIFY(r.out.find("three Gaussians: cost") != std::string::npos);
        const auto fromCli = readJson(json);
        QCOMPARE(fromCli.at("run").at("experiment").get<std::string>(), std::string("three_gaussians"));
        QCOMPARE(fromCli.at("run").at("settings").at("points").get<int>(), 300);
        QCOMPARE(fromCli.at("run").at("settings").at("temperature").get<double>(), 3.0);  // the default
        QVERIFY(costsOfResults(fromCli, "cli.json").values() == costs.values());
        QFile csvFile(csv);
        QVERIFY(csvFile.open(QIODevice::ReadOnly));
        QVERIFY(csvFile.readAll().startsWith("rule,cost,accuracy\nuncorrected,"));

        JobRunner runner(ExperimentRegistry::global().get("three_gaussians"));
        QSignalSpy finished(&runner, &JobRunner::finished);
        QSignalSpy progress(&runner, &JobRunner::progress);
        QSignalSpy cached(&runner, &JobRunner::cacheReady);
        const nlohmann::json settings{{"points", 300}, {"iterations", 60}, {"seed", 4}};
        QVERIFY(runner.start(JobRunner::Job::Run, settings, costs));
        QVERIFY(finished.wait(60000));
        const auto fromRunner = nlohmann::json::parse(finished.first().at(2).toString().toStdString());
        QCOMPARE(fromRunner.at("uncorrected"), fromCli.at("uncorrected"));
        QCOMPARE(fromRunner.at("corrected"), fromCli.at("corrected"));
        QCOMPARE(fromRunner.at("run").at("settings"), fromCli.at("run").at("settings"));
        QVERIFY(!progress.isEmpty());
        QVERIFY(progress.last().at(0).value<JobProgress>().fraction > 0.99);
        QCOMPARE(cached.count(), 1);
        QVERIFY(runner.hasCache());
        QCOMPARE(runner.runs(), 1);

        // A re-correction under other costs reuses the run's points: its uncorrected
        // decisions are those of a fresh run under the same costs and seed, and the
        // record holds the new matrix.
        const CostMatrix zeroOne = CostMatrix::zeroOne(3);
        QVERIFY(runner.start(JobRunner::Job::Recorrect, nlohmann::json::object(), zeroOne));
        QVERIFY(finished.wait(60000));
        const auto again = nlohmann::json::parse(finished.last().at(2).toString().toStdString());
        QVERIFY(costsOfResults(again, "recorrected").values() == zeroOne.values());
        QCOMPARE(runner.runs(), 1);
        QCOMPARE(runner.recorrections(), 1);
        const QString zeroOnePath = dir.filePath("zero_one.json"), fresh = dir.filePath("fresh.json");
        saveCostMatrix(zeroOne, zeroOnePath.toStdString());
        QCOMPARE(runCommandLine({"three_gaussians", "--points", "300", "--iterations", "60", "--seed", "4", "--costs",
                                 zeroOnePath.toStdString(), "--json", fresh.toStdString(), "--quiet"})
                     .status,
                 0);
        QCOMPARE(again.at("uncorrected"), readJson(fresh).at("uncorrected"));
    }

    // The added experiment's own maths: under 0-1 costs the Bayes decisions of the
    // sharpened posterior are the nearest mean's whatever the temperature (the softmax of
    // -T/2 |x - m|^2 keeps its argmax), so the uncorrected figures do not change with T;
    // under costs that weigh class 2, a sharper predictive decides class 2 less often and
    // the figures do change.
    void temperatureChangesOnlyCostSensitiveDecisions()
    {
        QTemporaryDir dir;
        const QString zeroOnePath = dir.filePath("zero_one.json");
        saveCostMatrix(CostMatrix::zeroOne(3), zeroOnePath.toStdString());
        auto uncorrected = [&](const char* temperature, bool zeroOne) {
            const QString out = dir.filePath(QStringLiteral("t%1_%2.json").arg(temperature).arg(zeroOne));
            std::vector<std::string> args{"three_gaussians", "--points", "500", "--iterations", "1", "--temperature",
                                          temperature, "--json", out.toStdString(), "--quiet"};
            if (zeroOne) {
                args.push_back("--costs");
                args.push_back(zeroOnePath.toStdString());
            }
            if (runCommandLine(args).status != 0)
                return nlohmann::json();
            return readJson(out).at("uncorrected");
        };
        QCOMPARE(uncorrected("1", true), uncorrected("8", true));
        QVERIFY(uncorrected("1", false) != uncorrected("8", false));
    }

    // The window gives the added experiment a page derived from its declaration: a
    // settings form that parses like the flags, runs on the job runner, results export.
    void windowRunsItFromItsDeclaration()
    {
        MainWindow window;
        QVERIFY(window.experiments().contains("three_gaussians"));
        window.setExperiment("three_gaussians");
        auto* page = qobject_cast<RegistryExperimentPage*>(window.currentPage());
        QVERIFY(page);
        QVERIFY(window.costModel()->matrix().values() == ThreeGaussians().defaultCosts({}).values());
        // Whole numbers in spin boxes over the declared range, at the default.
        auto* points = page->form()->findChild<QSpinBox*>("points");
        QVERIFY(points);
        QCOMPARE(points->minimum(), 30);
        QCOMPARE(points->maximum(), 100000);
        QCOMPARE(points->value(), 400);
        // Other numbers as text, parsed as the flag would be: out of range is refused.
        auto* temperature = page->form()->findChild<QLineEdit*>("temperature");
        QVERIFY(temperature);
        temperature->setText("0");  // the range is (0, 100]
        QVERIFY_THROWS_EXCEPTION(InputError, page->form()->values());
        temperature->setText("3");
        points->setValue(240);
        page->form()->findChild<QSpinBox*>("iterations")->setValue(40);
        const auto values = page->form()->values();
        QCOMPARE(values.at("points").get<int>(), 240);
        QCOMPARE(values.at("iterations").get<int>(), 40);
        QSignalSpy finished(page->runner(), &JobRunner::finished);
        window.runAll();
        QVERIFY(finished.wait(60000));
        const auto results = nlohmann::json::parse(page->resultsJson().toStdString());
        QCOMPARE(results.at("run").at("settings").at("points").get<int>(), 240);
        QCOMPARE(results.at("run").at("experiment").get<std::string>(), std::string("three_gaussians"));
        QVERIFY(page->canRecorrect());
        QVERIFY(page->resultsCsv().startsWith("rule,cost,accuracy"));
        // LCS_SHOT_DIR=DIR saves the page as a user sees it at 1366 x 768 (for review).
        if (const QString shots = qEnvironmentVariable("LCS_SHOT_DIR"); !shots.isEmpty()) {
            window.resize(1366, 768);
            window.show();
            QCoreApplication::processEvents();
            QVERIFY(window.grab().save(shots + "/three_gaussians_1366x768.png"));
        }
        QTemporaryDir dir;
        QVERIFY(page->exportResults(dir.filePath("r.csv")).isEmpty());
        // The name says the format: another is refused, nothing written.
        QVERIFY(page->exportResults(dir.filePath("r.txt")).contains("give a name ending in .json or .csv"));
        QVERIFY(!QFileInfo::exists(dir.filePath("r.txt")));
        // The page has no plots: Export Plots says so and writes nothing.
        QVERIFY(page->exportPlotsStaged(dir.filePath("plots")).contains("no plots"));
        QVERIFY(!QFileInfo::exists(dir.filePath("plots")));
        // The form shows values back, and the defaults for what it is not given.
        page->form()->setValues({{"temperature", 2.5}});
        QCOMPARE(temperature->text(), QString("2.5"));
        QCOMPARE(points->value(), 400);
    }

    // An experiment with a page of its own: one line registers the page beside the
    // built-in ones (PageRegistry), the window lists its experiment once, and makes no
    // derived page for it. The page here is the derived one with a title of its own, as
    // a page of one's own starts (docs/adding-an-experiment.md).
    void aPageOfItsOwnIsRegisteredBesideTheBuiltInOnes()
    {
        const size_t builtIn = PageRegistry::global().factories().size();
        QCOMPARE(builtIn, size_t{3});  // synthetic, the image experiments, CamVid
        PageRegistry::global().add([](CostMatrixModel* costs, CostEditor* editor, QObject* parent) {
            return new ThreeGaussiansPage(ExperimentRegistry::global().get("three_gaussians"), costs, editor, parent);
        });
        MainWindow window;
        QCOMPARE(window.experiments().count("three_gaussians"), 1);
        QCOMPARE(window.experiments().first(), QString("synthetic"));
        window.setExperiment("three_gaussians");
        auto* page = dynamic_cast<ThreeGaussiansPage*>(window.currentPage());
        QVERIFY(page);
        QCOMPARE(page->resultsTitle(), QString("Three Gaussians: decisions"));
        QVERIFY(page->serves("three_gaussians"));
        QVERIFY(!page->serves("synthetic"));
    }

    // The paper's image experiments run through their registry entries too: data named by
    // a setting, the run's results with the cost matrix recorded, and a re-correction on
    // the cached S whose results record the new matrix.
    void imageEntriesRunAndRecorrect_data()
    {
        QTest::addColumn<QString>("experiment");
        QTest::addColumn<QByteArray>("settings");
        QTest::newRow("corruption") << "corruption"
                                    << QByteArray(R"({"rates": [0.5], "methods": ["sgld_s", "ours"], "epochs": 1,
                                                      "map_epochs": 1})");
        QTest::newRow("selective") << "selective"
                                   << QByteArray(R"({"referral_costs": [0.2], "methods": ["sghmc", "ours"],
                                                     "epochs": 1, "map_epochs": 1, "copies": 1})");
    }
    void imageEntriesRunAndRecorrect()
    {
        QFETCH(QString, experiment);
        QFETCH(QByteArray, settings);
        QTemporaryDir dir;
        writeIdxFolder(dir.filePath("idx"), 40, 20);
        auto values = nlohmann::json::parse(settings.toStdString());
        values["data"] = dir.filePath("idx").toStdString();
        JobRunner runner(ExperimentRegistry::global().get(experiment.toStdString()));
        QSignalSpy finished(&runner, &JobRunner::finished);
        QSignalSpy failed(&runner, &JobRunner::failed);
        QVERIFY(runner.start(JobRunner::Job::Run, values, CostMatrix()));
        QVERIFY(finished.wait(120000) || !failed.isEmpty());
        QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.first().at(1).toString()));
        const auto run = nlohmann::json::parse(finished.first().at(2).toString().toStdString());
        QCOMPARE(run.at("run").at("experiment").get<std::string>(), experiment.toStdString());
        QCOMPARE(costsOfResults(run, "run").numClasses(), 10);
        QVERIFY(runner.hasCache());
        CostMatrix edited = CostMatrix::zeroOne(10);
        edited.set(3, 8, 4.0);
        QSignalSpy progress(&runner, &JobRunner::progress);
        QVERIFY(runner.start(JobRunner::Job::Recorrect, nlohmann::json::object(), edited));
        QVERIFY(finished.wait(120000));
        // The engine's re-correction reports carry no identity: the one-task plan names them.
        QVERIFY(!progress.isEmpty());
        QVERIFY(progress.last().at(0).value<JobProgress>().fraction > 0.99);
        const auto again = nlohmann::json::parse(finished.last().at(2).toString().toStdString());
        QCOMPARE(costsOfResults(again, "recorrection").at(3, 8), 4.0);
        QCOMPARE(again.at("recorrection").at("setting").get<double>(), experiment == "corruption" ? 0.5 : 0.2);
        QCOMPARE(runner.runs(), 1);
        QCOMPARE(runner.recorrections(), 1);
    }

    // Every image run draws each method's reliability diagram on the test images: 15 bins
    // per (setting, trial, method) whose counts sum to the test images, and the long
    // table's ECE of each row is the bins' sum_b n_b / N |accuracy_b - confidence_b|.
    void imageRunsWriteReliabilityDiagrams()
    {
        QTemporaryDir dir;
        writeIdxFolder(dir.filePath("idx"), 40, 20);
        const auto& entry = ExperimentRegistry::global().get("corruption");
        auto values = nlohmann::json::parse(R"({"rates": [0.5], "methods": ["sgld_s", "ours"], "epochs": 1,
                                                "map_epochs": 1})");
        values["data"] = dir.filePath("idx").toStdString();
        const auto run = runExperiment(entry, checkedSettings(entry.settings(), values, "test"), std::nullopt, {});
        const auto lines = QString::fromStdString(run.output.reliability).split('\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.front(), QString("rate,trial,method,rule,bin,lower,upper,count,confidence,accuracy"));
        QCOMPARE(lines.size(), 1 + 2 * kReliabilityBins);
        std::map<std::string, std::pair<int, double>> bins;  // method -> (rows, weighted gap)
        for (const auto& line : lines.mid(1)) {
            const auto cells = line.split(',');
            QCOMPARE(cells[0].toDouble(), 0.5);
            QCOMPARE(cells[3], QString("predictive"));
            auto& [rows, gap] = bins[cells[2].toStdString()];
            const int n = cells[7].toInt();
            rows += n;
            if (n)
                gap += n * std::abs(cells[9].toDouble() - cells[8].toDouble());
        }
        QCOMPARE(bins.size(), size_t{2});
        const auto json = nlohmann::json::parse(lcs::resultsJson(run.output));
        int found = 0;
        for (const auto& o : json.at("observations"))
            if (o.at("metric") == "ece") {
                const auto& [rows, gap] = bins.at(o.at("method").get<std::string>());
                QCOMPARE(rows, 20);
                QVERIFY2(std::abs(o.at("value").get<double>() - gap / rows) < 1e-12, o.dump().c_str());
                ++found;
            }
        QCOMPARE(found, 2);
    }

    // A results file is the session that repeats its run: fed back to `run`, the paper's
    // experiments give the same numbers (everything but the seconds).
    void resultsReplayAsSessions_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::newRow("synthetic") << QStringList{"synthetic", "--replicates", "1", "--methods", "sghmc",
                                                  "--correction-iterations", "40", "--warm-start-steps", "10"};
        QTest::newRow("corruption") << QStringList{"corruption", "--data", "IDX", "--rates", "0.5", "--methods",
                                                   "sgld_s,ours", "--epochs", "1", "--map-epochs", "1", "--seed", "3"};
        QTest::newRow("selective") << QStringList{"selective", "--data", "IDX", "--referral-costs", "0.2,0.3",
                                                  "--methods", "sghmc,ours", "--epochs", "1", "--map-epochs", "1",
                                                  "--copies", "1"};
        // A user's predictive: its optional files left empty must replay too.
        QTest::newRow("correct") << QStringList{"correct", "--features", "X", "--predictive", "P",
                                                "--correction-iterations", "20", "--referral", "0.2"};
    }
    void resultsReplayAsSessions()
    {
        QFETCH(QStringList, args);
        QTemporaryDir dir;
        writeIdxFolder(dir.filePath("idx"), 40, 20);
        QFile x(dir.filePath("x.csv")), p(dir.filePath("p.csv"));
        QVERIFY(x.open(QIODevice::WriteOnly) && p.open(QIODevice::WriteOnly));
        x.write("x1,x2\n");
        p.write("p0,p1\n");
        for (int i = 0; i < 40; ++i) {
            const double a = -2 + 0.1 * i, p1 = 1 / (1 + std::exp(-a));
            x.write(QByteArray::number(a) + "," + QByteArray::number(0.05 * (i % 7)) + "\n");
            p.write(QByteArray::number(1 - p1, 'g', 17) + "," + QByteArray::number(p1, 'g', 17) + "\n");
        }
        x.close();
        p.close();
        const std::map<QString, QString> files{
            {"IDX", dir.filePath("idx")}, {"X", x.fileName()}, {"P", p.fileName()}};
        std::vector<std::string> first;
        for (const auto& a : args)
            first.push_back((files.count(a) ? files.at(a) : a).toStdString());
        const std::string original = dir.filePath("original.json").toStdString();
        const std::string replayed = dir.filePath("replayed.json").toStdString();
        first.insert(first.end(), {"--quiet", "--json", original});
        const auto ran = runCommandLine(first);
        QVERIFY2(ran.status == 0, ran.err.c_str());
        const auto again = runCommandLine({"run", original, "--quiet", "--json", replayed});
        QVERIFY2(again.status == 0, again.err.c_str());
        std::function<nlohmann::json(const nlohmann::json&)> withoutSeconds = [&](const nlohmann::json& j) {
            if (j.is_object()) {
                auto out = nlohmann::json::object();
                for (auto it = j.begin(); it != j.end(); ++it)
                    if (it.key().find("second") == std::string::npos)
                        out[it.key()] = withoutSeconds(it.value());
                return out;
            }
            if (j.is_array()) {
                // The long table's timings are rows whose metric names seconds.
                auto out = nlohmann::json::array();
                for (const auto& v : j)
                    if (!(v.is_object() && v.contains("metric") &&
                          v.at("metric").get<std::string>().find("second") != std::string::npos))
                        out.push_back(withoutSeconds(v));
                return out;
            }
            return j;
        };
        const auto a = nlohmann::json::parse(readText(original)), b = nlohmann::json::parse(readText(replayed));
        QCOMPARE(b.at("run").at("settings"), a.at("run").at("settings"));
        QVERIFY(withoutSeconds(a) == withoutSeconds(b));
        QVERIFY(a.contains("runs") || a.contains("methods") || a.contains("rows"));  // numbers to compare
    }

    // The synthetic run publishes what its page draws, as plain views: each task's
    // predictive once (no curve yet), q's curve while it trains (each live view a prefix
    // of the finished one), and each finished task's view and scores, the same numbers the
    // results file gives that replicate (the table is made of these outcomes).
    void syntheticRunPublishesItsViews()
    {
        const auto& entry = ExperimentRegistry::global().get("synthetic");
        const auto settings = checkedSettings(entry.settings(),
                                              {{"replicates", 2}, {"methods", {"sghmc"}},
                                               {"correction_iterations", 40}, {"warm_start_steps", 10}},
                                              "test");
        std::mutex lock;  // the correction views come from one thread per task
        std::map<int, int> sampled, corrected, liveViews;
        std::map<int, std::vector<CurvePoint>> finalCurve, longestLiveCurve;
        std::map<int, double> correctedCost;
        RunViews views;
        views.show = viewHandlers([&](const TaskView& v) {
            std::lock_guard guard(lock);
            QCOMPARE(v.method, std::string("sghmc"));
            QCOMPARE(v.testDecisionsUncorrected.size(), v.test.size());
            if (v.correctionDone) {
                ++corrected[v.replicate];
                finalCurve[v.replicate] = v.curve;
                QCOMPARE(v.testDecisionsCorrected.size(), v.test.size());
            } else if (v.curve.empty()) {
                ++sampled[v.replicate];
            } else {
                ++liveViews[v.replicate];
                if (v.curve.size() > longestLiveCurve[v.replicate].size())
                    longestLiveCurve[v.replicate] = v.curve;
            }
        }, [&](const ResultRow& row) {
            std::lock_guard guard(lock);
            correctedCost[row.replicate] = row.correctedCost;
        });
        JobContext ctx;
        ctx.views = &views;
        const auto run = runExperiment(entry, settings, std::nullopt, ctx, {});
        QCOMPARE(sampled, (std::map<int, int>{{0, 1}, {1, 1}}));
        QCOMPARE(corrected, (std::map<int, int>{{0, 1}, {1, 1}}));
        QCOMPARE(liveViews.size(), size_t(2));  // the first step of each task is always shown
        for (const auto& [replicate, curve] : finalCurve) {
            QVERIFY2(curve.size() >= 40, qPrintable(QString("replicate %1: %2 steps").arg(replicate).arg(curve.size())));
            for (size_t i = 1; i < curve.size(); ++i)
                QVERIFY(curve[i].step > curve[i - 1].step);
            const auto& live = longestLiveCurve[replicate];
            QVERIFY(live.size() <= curve.size());
            for (size_t i = 0; i < live.size(); ++i)
                QCOMPARE(live[i].step, curve[i].step);
        }
        const auto json = nlohmann::json::parse(lcs::resultsJson(run.output));
        for (const auto& r : json.at("methods").at("sghmc").at("replicates"))
            QCOMPARE(r.at("corrected").at("cost").get<double>(), correctedCost.at(r.at("replicate").get<int>()));
    }

    // What the window does besides a run (sampling alone, a saved model on the page's
    // data) is declared as actions of the experiments, run through runExperimentAction;
    // they are the window's only: the command line's commands and groups stay as they were.
    void theWindowsActionsAreDeclaredButNotOnTheCommandLine()
    {
        const auto& registry = ExperimentRegistry::global();
        for (const char* name : {"synthetic", "tabular", "corruption", "selective", "camvid"}) {
            const auto evaluate = findAction(registry.get(name), kEvaluateAction);
            QVERIFY2(evaluate && !evaluate->onCommandLine, name);
            bool model = false;
            for (const auto& spec : evaluate->settings)
                model = model || (spec.name == kSavedModelSetting && spec.required);
            QVERIFY2(model, name);
        }
        for (const char* name : {"synthetic", "tabular"}) {
            const auto sample = findAction(registry.get(name), kSampleAction);
            QVERIFY2(sample && !sample->onCommandLine, name);
            QVERIFY2(commandLineActions(registry.get(name)).empty(), name);
        }
        std::vector<std::string> camvid;
        for (const auto& action : commandLineActions(registry.get("camvid")))
            camvid.push_back(action.name);
        QCOMPARE(camvid, (std::vector<std::string>{"train", "correct", "eval", "fps"}));

        // Sampling alone: every task's predictive published, the state kept, no q, no results.
        const auto& synthetic = registry.get("synthetic");
        const auto settings = checkedSettings(synthetic.settings(),
                                              {{"replicates", 1}, {"methods", {"sghmc"}}, {"grid_resolution", 8}},
                                              "test");
        int views = 0;
        RunViews shown;
        shown.show = viewHandlers([&](const TaskView& v) {
            ++views;
            QVERIFY(v.curve.empty() && !v.correctionDone && v.uncorrected.isValid());
        });
        JobContext ctx;
        ctx.views = &shown;
        const auto sampled = runExperimentAction(synthetic, kSampleAction, settings, std::nullopt, ctx);
        QVERIFY(sampled.cache);
        QCOMPARE(sampled.cache->predictiveCount(), 1);
        QCOMPARE(views, 1);
        QVERIFY(lcs::resultsJson(sampled.output).empty());
        // A saved model that is not there: refused, naming the file.
        auto asked = settings;
        asked[kSavedModelSetting] = "/nonexistent/q.pt";
        QString error;
        try {
            runExperimentAction(synthetic, kEvaluateAction, asked, std::nullopt, {});
        } catch (const std::exception& e) {
            error = QString::fromStdString(e.what());
        }
        QVERIFY2(error.contains("/nonexistent/q.pt"), qPrintable(error));
        // No model at all: refused, naming the setting, for every experiment that declares the action.
        for (const char* name : {"synthetic", "tabular", "corruption", "selective", "camvid"}) {
            error.clear();
            try {
                runExperimentAction(registry.get(name), kEvaluateAction, nlohmann::json::object(), std::nullopt, {});
            } catch (const std::exception& e) {
                error = QString::fromStdString(e.what());
            }
            QVERIFY2(error.contains("no saved model given (model)"), qPrintable(QString(name) + ": " + error));
        }
    }

    // A saved q's regions on the plane are its Bayes decisions, cell by cell: a network
    // whose positive log-odds are x1 by construction (hidden ReLU(x1), ReLU(-x1)) decides
    // "positive" under the paper's matrix (a miss costs 1, a false alarm 0.1) exactly
    // where P(positive) > 0.1 / 1.1, i.e. x1 > log 0.1, and the grid covers the plane's box.
    void savedModelRegionsAreTheModelsBayesDecisions()
    {
        Mlp q(2, std::vector<int64_t>{2}, 2);
        {
            torch::NoGradGuard noGrad;
            for (auto& p : q->parameters())
                p.zero_();
            auto layers = q->linearLayers();
            layers[0]->weight[0][0] = 1.0f;   // h0 = ReLU(x1)
            layers[0]->weight[1][0] = -1.0f;  // h1 = ReLU(-x1)
            layers[1]->weight[1][0] = 1.0f;   // logit(positive) = h0 - h1 = x1
            layers[1]->weight[1][1] = -1.0f;
        }
        QTemporaryDir tmp;
        const std::string path = tmp.filePath("q.pt").toStdString();
        ModelInfo info;
        info.role = "q";
        info.method = "sghmc";
        info.replicate = 3;
        info.inputs = 2;
        info.hidden = {2};
        info.classes = 2;
        saveModel(q, info, path);
        SyntheticConfig plane;
        plane.gridResolution = 9;
        const auto costs = costPreset("synthetic");
        const auto view = savedModelRegions(path, costs, plane);
        QCOMPARE(view.method, std::string("sghmc"));
        QCOMPARE(view.replicate, 3);
        QVERIFY(view.corrected.isValid());
        QCOMPARE(view.corrected.xMin, plane.data.boxMin);
        QCOMPARE(view.corrected.xMax, plane.data.boxMax);
        const auto grid = syntheticGrid(plane.data, 9).contiguous();
        int positives = 0;
        for (int k = 0; k < 81; ++k) {
            const double x1 = grid[k][0].item<double>();
            QCOMPARE(view.corrected.decisions[size_t(k)], x1 > std::log(0.1) ? 1 : 0);
            positives += view.corrected.decisions[size_t(k)];
        }
        QVERIFY(positives > 0 && positives < 81);  // both decisions on the plane
        // Two inputs only, on a plane of two features.
        Mlp wide(3, std::vector<int64_t>{2}, 2);
        info.inputs = 3;
        saveModel(wide, info, path);
        QString error;
        try {
            savedModelRegions(path, costs, plane);
        } catch (const std::exception& e) {
            error = QString::fromStdString(e.what());
        }
        QVERIFY2(error.contains("takes 3 inputs"), qPrintable(error));
    }

    void badSettingsFailTheJobNamingTheSetting()
    {
        JobRunner runner(ExperimentRegistry::global().get("three_gaussians"));
        QSignalSpy failed(&runner, &JobRunner::failed);
        QVERIFY(runner.start(JobRunner::Job::Run, nlohmann::json{{"points", "many"}}, {}));
        QVERIFY(failed.wait(10000));
        QVERIFY2(failed.first().at(1).toString().contains("points"), qPrintable(failed.first().at(1).toString()));
        QVERIFY(runner.start(JobRunner::Job::Recorrect, nlohmann::json::object(), CostMatrix::zeroOne(3)));
        QVERIFY(failed.wait(10000));
        QVERIFY(failed.last().at(1).toString().contains("run three_gaussians first"));
    }
};

QTEST_MAIN(TestExperimentRegistry)
#include "tst_experiment_registry.moc"
