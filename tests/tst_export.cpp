// Models and arrays leaving and entering LC Studio: every network kind saved as
// TorchScript and read back (by LibTorch's own loader and by LC Studio's), and NumPy's
// .npy files through xtensor with the checks xtensor leaves out.
//
// With LCS_EXPORT_DIR set, each exported network is also left there with raw inputs
// (x.npy) and the probabilities the C++ network gives (expected.npy), for
// torchscript_python.py to check from Python.

#include <cmath>
#include <cstring>
#include <tuple>

#include <QtTest/QtTest>

#include <torch/csrc/jit/serialization/import.h>
#include <torch/torch.h>

#include "base/core/atomic_file.h"
#include "base/core/input_error.h"
#include "base/io/npy.h"
#include "engine/decision/baselines.h"
#include "engine/fastpath/mlp_backward.h"
#include "engine/io/model_io.h"
#include "engine/io/torchscript.h"
#include "engine/models/segnet.h"
#include "tests/tiny_models.h"

using namespace lcs;

namespace {

/// BatchNorm statistics and affine terms away from their initial 0 / 1, so that a
/// forward that skipped or misordered any of them would give other numbers.
void randomiseBatchNorms(torch::nn::Module& model, at::Generator& generator)
{
    torch::NoGradGuard noGrad;
    for (auto& m : model.modules(/*include_self=*/false))
        if (auto* bn = m->as<torch::nn::BatchNorm2dImpl>()) {
            bn->running_mean.normal_(0.0, 0.5, generator);
            bn->running_var.uniform_(0.5, 2.0, generator);
            bn->weight.normal_(1.0, 0.3, generator);
            bn->bias.normal_(0.0, 0.3, generator);
        }
}

/// (x - mean) / std per channel (dimension 1), as the experiments standardise data.
at::Tensor standardised(const at::Tensor& raw, const InputStandardisation& s)
{
    if (s.mean.empty())
        return raw;
    std::vector<int64_t> shape(raw.dim(), 1);
    shape[1] = static_cast<int64_t>(s.mean.size());
    const auto mean = torch::tensor(s.mean, torch::kDouble).to(torch::kFloat).reshape(shape);
    const auto std = torch::tensor(s.std, torch::kDouble).to(torch::kFloat).reshape(shape);
    return (raw - mean) / std;
}

NumericArray arrayOf(const at::Tensor& t)
{
    const auto c = t.to(torch::kDouble).contiguous();
    NumericArray a;
    a.shape = c.sizes().vec();
    a.values.assign(c.data_ptr<double>(), c.data_ptr<double>() + c.numel());
    return a;
}

/// The bytes of a little-endian float64 .npy file with a hand-written header.
std::string npyFile(const std::string& dict, const std::vector<double>& values, int major = 1)
{
    std::string header = dict;
    const size_t fixed = major == 1 ? 10 : 12;
    while ((fixed + header.size() + 1) % 64 != 0)
        header += ' ';
    header += '\n';
    std::string out = std::string("\x93NUMPY", 6) + char(major) + char(0);
    const size_t n = header.size();
    out += char(n & 0xff);
    out += char((n >> 8) & 0xff);
    if (major == 2)
        out += std::string(2, '\0');
    out += header;
    out.append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(double));
    return out;
}

/// Puts `weights` in place of `path`'s weights file and updates its sidecar's size and
/// checksum, as someone editing a saved model by hand would.
void replaceWeights(const std::string& path, const std::string& weights)
{
    auto sidecar = readFile(path + ".json", 1 << 20);
    const auto info = modelInfoFromJson(sidecar, path);
    sidecar.replace(sidecar.find(info.weightsChecksum), 16, checksumHex(weights));
    const auto bytesText = "\"bytes\": " + std::to_string(info.weightsBytes);
    sidecar.replace(sidecar.find(bytesText), bytesText.size(), "\"bytes\": " + std::to_string(weights.size()));
    writeFileAtomically(path, weights);
    writeFileAtomically(path + ".json", sidecar);
}

std::string scriptBytes(torch::jit::Module& script)
{
    std::ostringstream out;
    script.save(out);
    return out.str();
}

} // namespace

class TestExport : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // An MLP on a table standardises raw rows itself: its forward, the fast path's trace,
    // the saved TorchScript file and both loaders give the network applied to
    // (x - mean) / std computed by hand. A residual q's file computes softmax(log p + f(x)).
    void tableMlpStandardisesItsInputs()
    {
        auto gen = makeGenerator(4);
        Mlp net(2, std::vector<int64_t>{5}, 2);
        initialiseFrom(*net, gen);
        const auto raw = torch::tensor(std::vector<float>{3.0f, -2.0f, 1.0f, 6.0f, -1.0f, 0.0f}).reshape({3, 2});
        // Mean (1, -2), std (2, 4), by hand: (3, -2) -> (1, 0), (1, 6) -> (0, 2), (-1, 0) -> (-1, 0.5).
        const auto byHand = torch::tensor(std::vector<float>{1.0f, 0.0f, 0.0f, 2.0f, -1.0f, 0.5f}).reshape({3, 2});
        const auto expected = torch::softmax(net->forward(byHand), 1);
        net->setInputStandardisation({1.0, -2.0}, {2.0, 4.0});
        QVERIFY(torch::allclose(torch::softmax(net->forward(raw), 1), expected, 0, 1e-6));
        QVERIFY(torch::allclose(torch::softmax(traceMlp(*net, raw).logits, 1), expected, 0, 1e-6));
        QTemporaryDir tmp;
        const std::string path = tmp.filePath("q.pt").toStdString();
        ModelInfo info;
        info.role = "q";
        saveModel(net, info, path);
        const auto loaded = loadClassifier(path);
        QCOMPARE(loaded.info.inputMean, (std::vector<double>{1.0, -2.0}));
        QVERIFY(torch::allclose(loaded.probabilities(raw), expected, 0, 1e-6));
        auto mlp = loadMlp(path);
        QVERIFY(torch::allclose(torch::softmax(mlp.model->forward(raw), 1), expected, 0, 1e-6));
        auto script = torch::jit::load(path);
        QVERIFY(torch::allclose(script.forward({raw}).toTensor(), expected, 0, 1e-6));

        // The residual form: q = softmax(log p + f(x)) = p * softmax(f) renormalised.
        const auto p = torch::tensor(std::vector<float>{0.9f, 0.1f, 0.5f, 0.5f, 0.2f, 0.8f}).reshape({3, 2});
        const auto residual = expected * p / (expected * p).sum(1, true);
        info.residualOnPredictive = true;
        const std::string rpath = tmp.filePath("r.pt").toStdString();
        saveModel(net, info, rpath);
        const auto rloaded = loadClassifier(rpath);
        QVERIFY(rloaded.info.residualOnPredictive);
        QVERIFY(torch::allclose(rloaded.probabilities(raw, p), residual, 0, 1e-6));
        auto rscript = torch::jit::load(rpath);
        QVERIFY(torch::allclose(rscript.forward({raw, p}).toTensor(), residual, 0, 1e-6));

        // A residual q on a calibrated P carries the calibration: scale 1/2, shift
        // (0, log 3) turns p into sqrt(p) * (1, 3) renormalised, by hand (0.5, 0.5),
        // (0.25, 0.75), (1/7, 6/7); the loader, the TorchScript file and the sidecar agree.
        info.predictiveCalibration = "vector";
        info.predictiveScale = {0.5, 0.5};
        info.predictiveShift = {0.0, std::log(3.0)};
        const auto calibrated =
            torch::tensor(std::vector<float>{0.5f, 0.5f, 0.25f, 0.75f, 1.0f / 7, 6.0f / 7}).reshape({3, 2});
        const auto onCalibrated = expected * calibrated / (expected * calibrated).sum(1, true);
        const std::string bpath = tmp.filePath("b.pt").toStdString();
        saveModel(net, info, bpath);
        const auto bloaded = loadClassifier(bpath);
        QCOMPARE(bloaded.info.predictiveCalibration, std::string("vector"));
        QVERIFY(torch::allclose(bloaded.probabilities(raw, p), onCalibrated, 0, 1e-6));
        QVERIFY(torch::allclose(torch::jit::load(bpath).forward({raw, p}).toTensor(), onCalibrated, 0, 1e-6));
        const auto bsidecar = readFile(bpath + ".json", 1 << 20);
        for (const auto& [from, to, message] : std::vector<std::tuple<std::string, std::string, std::string>>{
                 {"\"residual_on_predictive\": true", "\"residual_on_predictive\": false", "applies to a residual q only"},
                 {"\"rule\": \"vector\"", "\"rule\": \"sigmoid\"",
                  "not temperature, offsets, platt, vector, constant or isotonic"},
                 {"\"rule\": \"vector\"", "\"rule\": \"isotonic\"", "unknown field \"predictive_calibration.scale\" (known: rule, x, y)"}}) {
            auto edited = bsidecar;
            QVERIFY2(edited.find(from) != std::string::npos, from.c_str());
            edited.replace(edited.find(from), from.size(), to);
            try {
                modelInfoFromJson(edited, "b.pt.json");
                QFAIL(("accepted: " + message).c_str());
            } catch (const InputError& e) {
                QVERIFY2(QString(e.what()).contains(QString::fromStdString(message)), e.what());
            }
        }
        info.predictiveCalibration.clear();
        info.predictiveScale.clear();
        info.predictiveShift.clear();

        // A table's categorical columns travel in the sidecar; they must encode to the
        // network's inputs, levels sorted.
        info.residualOnPredictive = false;
        info.inputColumns = {InputColumn{"colour", {"blue", "red"}}};
        const std::string cpath = tmp.filePath("c.pt").toStdString();
        saveModel(net, info, cpath);
        QCOMPARE(loadClassifier(cpath).info.inputColumns.size(), size_t{1});
        QCOMPARE(loadClassifier(cpath).info.inputColumns[0].levels, (std::vector<std::string>{"blue", "red"}));
        const auto sidecar = readFile(cpath + ".json", 1 << 20);
        for (const auto& [from, to, message] :
             std::vector<std::tuple<std::string, std::string, std::string>>{
                 {"\"red\"", "\"red\", \"zed\"", "encode to 3 features, the network takes 2"},
                 {"\"blue\",", "\"sky\",", "must be sorted and distinct (\"red\" is out of place)"}}) {
            auto edited = sidecar;
            edited.replace(edited.find(from), from.size(), to);
            try {
                modelInfoFromJson(edited, "c.pt.json");
                QFAIL(("accepted: " + message).c_str());
            } catch (const InputError& e) {
                QVERIFY2(QString(e.what()).contains(QString::fromStdString(message)), e.what());
            }
        }
        // A numeric column that imputes: its value and its 0/1 "missing" feature are the
        // network's two inputs. The file's forward fills a NaN with missing_fill (0.5) and
        // sets the flag, as LC Studio's loaded model does: a NaN row decides as the row
        // (0.5, 1) does, in the TorchScript module and in the loaded classifier alike.
        info.inputColumns = {InputColumn{"x", {}, true, 0.5}};
        const std::string mpath = tmp.filePath("m.pt").toStdString();
        saveModel(net, info, mpath);
        const auto imputing = loadClassifier(mpath);  // its probe includes a row with x missing
        QVERIFY(imputing.info.inputColumns[0].missingIndicator);
        QCOMPARE(imputing.info.inputColumns[0].fill, 0.5);
        const auto nan = std::numeric_limits<float>::quiet_NaN();
        const auto missingRow = torch::tensor({nan, 0.0f}).reshape({1, 2});
        const auto filledRow = torch::tensor({0.5f, 1.0f}).reshape({1, 2});
        QVERIFY(torch::allclose(imputing.probabilities(missingRow), imputing.probabilities(filledRow)));
        QVERIFY(!torch::allclose(imputing.probabilities(torch::tensor({0.5f, 0.0f}).reshape({1, 2})),
                                 imputing.probabilities(filledRow)));  // the flag matters to this network
        auto module = torch::jit::load(mpath);
        const auto scripted = module.forward({missingRow}).toTensor();
        QVERIFY2(torch::allclose(scripted, imputing.probabilities(filledRow), 1e-5, 1e-6),
                 c10::str(scripted, imputing.probabilities(filledRow)).c_str());
        QVERIFY(readFile(mpath + ".json", 1 << 20).find("\"missing_fill\": 0.5") != std::string::npos);

        // Only an MLP corrects a predictive as a residual: a ResNet sidecar that claims it
        // is refused, whichever field the file lists first.
        ModelInfo resnet;
        resnet.architecture = "resnet18";
        resnet.inputShape = {1, 8, 8};
        resnet.width = 4;
        resnet.classes = 3;
        resnet.torchScript = true;
        resnet.residualOnPredictive = true;
        resnet.weightsBytes = 1 << 20;
        resnet.weightsChecksum = "0123456789abcdef";
        try {
            modelInfoFromJson(modelInfoToJson(resnet), "resnet.pt.json");
            QFAIL("a residual ResNet was accepted");
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).contains("residual_on_predictive") && QString(e.what()).contains("MLP only"),
                     e.what());
        }
    }

    // The rule a run kept, saved as one model of the predictive: P, or a calibration of P
    // inside a residual whose network is zero. Each file's forward(x, p) (LC Studio's
    // loader, LibTorch's TorchScript and, in torchscript_python, PyTorch's) must give the
    // calibration's own probabilities as FittedCalibration computes them in double, and
    // its Bayes decisions must be the rule's on every row (the constant rule's shares
    // decide its constant decision).
    void keptRulesSaveAsOneModel_data()
    {
        QTest::addColumn<int>("classes");
        QTest::addColumn<QString>("rule");
        for (const char* rule : {"P", "temperature", "offsets", "platt", "isotonic", "constant"})
            QTest::addRow("2 classes, %s", rule) << 2 << rule;
        for (const char* rule : {"temperature", "offsets", "vector", "constant"})
            QTest::addRow("3 classes, %s", rule) << 3 << rule;
    }

    void keptRulesSaveAsOneModel()
    {
        QFETCH(int, classes);
        QFETCH(QString, rule);
        // A predictive too sure of itself: the truth is softmax(log p / 2.5 + (0, 0.4, ..)).
        auto generator = makeGenerator(11);
        const int64_t n = 240;
        const auto logits = torch::randn({n, classes}, generator) * 3;
        const auto pTensor = torch::softmax(logits, 1).to(torch::kDouble);
        auto truthLogits = logits / 2.5;
        truthLogits.select(1, 1) += 0.4;
        const auto labelsTensor = torch::multinomial(torch::softmax(truthLogits, 1), 1, false, generator).reshape({-1});
        ClassProbabilities p;
        p.rows = n;
        p.classes = classes;
        p.values.assign(pTensor.data_ptr<double>(), pTensor.data_ptr<double>() + n * classes);
        std::vector<int64_t> labels(labelsTensor.data_ptr<int64_t>(), labelsTensor.data_ptr<int64_t>() + n);
        auto costs = CostMatrix::zeroOne(classes);
        costs.set(1, 0, 4);  // missing class 1 costs 4

        ModelInfo info;
        info.role = "kept_rule";
        info.residualOnPredictive = true;
        info.decisionRule = rule.toStdString();
        info.costs = costs;
        ClassProbabilities expected = p;
        std::vector<int64_t> expectedDecisions;
        if (rule == "P") {
            expectedDecisions = bayesDecisionsOf(p, costs);
        } else {
            const auto kinds = calibrationsFor(classes);
            const auto kind = *std::find_if(kinds.begin(), kinds.end(),
                                            [&](CalibrationKind k) { return rule == calibrationName(k); });
            const auto fitted = fitCalibration(kind, p, labels, costs);
            setPredictiveCalibration(fitted, classes, info);
            expectedDecisions = fitted.decisions(p, costs);
            if (fitted.hasProbabilities()) {
                expected = fitted.probabilities(p);
            } else {
                for (int64_t i = 0; i < n; ++i)
                    std::copy(fitted.classShares.begin(), fitted.classShares.end(), expected.values.begin() + i * classes);
            }
        }
        Mlp zero(3, std::vector<int64_t>{}, classes);
        {
            torch::NoGradGuard noGrad;
            for (auto& t : zero->parameters())
                t.zero_();
        }
        QTemporaryDir tmp;
        const std::string dir = qEnvironmentVariableIsSet("LCS_EXPORT_DIR")
                                    ? qEnvironmentVariable("LCS_EXPORT_DIR").toStdString()
                                    : tmp.path().toStdString();
        const std::string name = "kept_" + std::to_string(classes) + "_" + rule.toStdString();
        const std::string path = dir + "/" + name + ".pt";
        saveModel(zero, info, path);

        const auto loaded = loadClassifier(path);  // its probe compares the file's forward with ours
        QCOMPARE(loaded.info.decisionRule, rule.toStdString());
        const auto x = torch::randn({n, 3}, generator);
        const auto pFloat = pTensor.to(torch::kFloat);
        const auto want = torch::tensor(expected.values, torch::kDouble).reshape({n, classes});
        const auto ours = loaded.probabilities(x, pFloat).to(torch::kDouble);
        const double error = (ours - want).abs().max().item<double>();
        QVERIFY2(error < 1e-5, qPrintable(QString("the loaded kept rule differs by %1").arg(error)));
        auto script = torch::jit::load(path);
        const auto scripted = script.forward({x, pFloat}).toTensor().to(torch::kDouble);
        const double scriptError = (scripted - want).abs().max().item<double>();
        QVERIFY2(scriptError < 1e-5, qPrintable(QString("the TorchScript kept rule differs by %1").arg(scriptError)));
        ClassProbabilities decided = p;
        decided.values.assign(scripted.data_ptr<double>(), scripted.data_ptr<double>() + n * classes);
        QCOMPARE(bayesDecisionsOf(decided, costs), expectedDecisions);
        if (qEnvironmentVariableIsSet("LCS_EXPORT_DIR")) {
            writeFileAtomically(dir + "/" + name + ".x.npy", npyBytes(arrayOf(x), true));
            writeFileAtomically(dir + "/" + name + ".p.npy", npyBytes(arrayOf(pFloat), true));
            writeFileAtomically(dir + "/" + name + ".expected.npy", npyBytes(arrayOf(want)));
        }

        // The sidecar must name a rule that fits its calibration.
        const auto sidecar = readFile(path + ".json", 1 << 20);
        const std::string field = "\"decision_rule\": \"" + rule.toStdString() + "\"";
        QVERIFY2(sidecar.find(field) != std::string::npos, sidecar.c_str());
        auto edited = sidecar;
        edited.replace(edited.find(field), field.size(), rule == "P" ? "\"decision_rule\": \"temperature\"" : "\"decision_rule\": \"P\"");
        try {
            modelInfoFromJson(edited, "kept.pt.json");
            QFAIL("a decision rule that is not its calibration was accepted");
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).contains("decision_rule"), e.what());
        }
        if (rule == "isotonic") {  // knots must increase within [0, 1]
            edited = sidecar;
            const auto at = edited.find("\"x\": [");
            QVERIFY(at != std::string::npos);
            edited.insert(at + 6, "0.9,");  // a first knot above the second
            const auto atY = edited.find("\"y\": [");
            QVERIFY(atY != std::string::npos);
            edited.insert(atY + 6, "0.5,");
            try {
                modelInfoFromJson(edited, "kept.pt.json");
                QFAIL("isotonic knots out of order were accepted");
            } catch (const InputError& e) {
                QVERIFY2(QString(e.what()).contains("the knots must increase"), e.what());
            }
        }
    }

    void networksExportAsTorchScript_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::newRow("mlp on points") << "mlp_points";
        QTest::newRow("mlp on images") << "mlp_images";
        QTest::newRow("resnet18") << "resnet18";
        QTest::newRow("segnet light") << "segnet_light";
        QTest::newRow("segnet") << "segnet";
    }
    void networksExportAsTorchScript()
    {
        QFETCH(QString, kind);
        ModelSpec spec;
        InputStandardisation standardisation;
        if (kind == "mlp_points") {
            spec.inputShape = {2};
            spec.hidden = {50};
            spec.classes = 2;
        } else if (kind == "mlp_images") {
            spec.inputShape = {1, 28, 28};
            spec.hidden = {200};
            standardisation = {{0.286}, {0.353}};
        } else if (kind == "resnet18") {
            spec.architecture = "resnet18";
            spec.inputShape = {3, 32, 32};
            spec.width = 8;
            standardisation = {{0.49, 0.48, 0.45}, {0.25, 0.24, 0.26}};
        } else {
            spec.architecture = kind.toStdString();
            spec.inputShape = kind == "segnet" ? std::vector<int64_t>{3, 32, 32} : std::vector<int64_t>{3, 32, 48};
            spec.classes = 11;
            spec.dropout = 0.3;  // off in the export, as in eval mode
            standardisation = {{0.39, 0.41, 0.42}, {0.30, 0.31, 0.31}};
        }
        auto generator = makeGenerator(7);
        auto net = spec.build(generator);
        randomiseBatchNorms(*net, generator);
        std::vector<int64_t> xShape{5};
        xShape.insert(xShape.end(), spec.inputShape.begin(), spec.inputShape.end());
        const auto raw = torch::rand(xShape, generator);
        const auto expected = predictClassProbabilities(*net, standardised(raw, standardisation));

        QTemporaryDir tmp;
        const std::string dir = qEnvironmentVariableIsSet("LCS_EXPORT_DIR")
                                    ? qEnvironmentVariable("LCS_EXPORT_DIR").toStdString()
                                    : tmp.path().toStdString();
        const std::string path = dir + "/" + kind.toStdString() + ".pt";
        ModelInfo info;
        info.role = "test";
        info.inputMean = standardisation.mean;
        info.inputStd = standardisation.std;
        saveModel(*net, spec, info, path);

        // LibTorch's TorchScript loader runs the file's own forward on raw inputs.
        auto script = torch::jit::load(path);
        const auto scripted = script.forward({raw}).toTensor();
        QCOMPARE(scripted.sizes().vec(), expected.sizes().vec());
        const double scriptError = (scripted - expected).abs().max().item<double>();
        QVERIFY2(scriptError < 1e-5, qPrintable(QString("TorchScript differs by %1").arg(scriptError)));
        // Probabilities: non-negative and summing to 1 over the class dimension.
        QVERIFY((scripted.sum(1) - 1).abs().max().item<double>() < 1e-5);

        // LC Studio's loader rebuilds the network with identical parameters and buffers.
        const auto loaded = loadClassifier(path);
        QCOMPARE(loaded.info.inputMean, standardisation.mean);
        QCOMPARE(loaded.info.inputStd, standardisation.std);
        const auto again = predictClassProbabilities(*loaded.model, standardised(raw, standardisation));
        QVERIFY(torch::equal(again, expected));

        if (qEnvironmentVariableIsSet("LCS_EXPORT_DIR")) {
            writeFileAtomically(dir + "/" + kind.toStdString() + ".x.npy", npyBytes(arrayOf(raw), true));
            writeFileAtomically(dir + "/" + kind.toStdString() + ".expected.npy", npyBytes(arrayOf(expected)));
        }
    }

    void aTamperedExportIsRefused()
    {
        auto spec = mlpSpec({2}, 2, {4});
        auto generator = makeGenerator(1);
        auto net = spec.build(generator);
        QTemporaryDir tmp;
        const std::string a = tmp.filePath("a.pt").toStdString(), b = tmp.filePath("b.pt").toStdString();
        saveModel(*net, spec, {}, a);
        spec.hidden = {5};
        auto wider = spec.build(generator);
        saveModel(*wider, spec, {}, b);
        // b's weights under a's sidecar, checksum updated: the shapes give it away.
        replaceWeights(a, readFile(b, 1 << 20));
        try {
            loadClassifier(a);
            QFAIL("weights of another shape were loaded");
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).contains("layers__0__weight"), e.what());
        }
    }

    void editedForwardsAndNonFiniteWeightsAreRefused_data()
    {
        QTest::addColumn<QString>("forward");
        QTest::addColumn<QString>("message");
        const QString layers = "    x = torch.relu(torch.addmm(self.layers__0__bias, x, self.layers__0__weight.t()))\n"
                               "    x = torch.addmm(self.layers__1__bias, x, self.layers__1__weight.t())\n";
        QTest::newRow("logits, not probabilities") << layers + "    return x\n" << "does not compute the network";
        QTest::newRow("negated") << layers + "    return -torch.softmax(x, 1)\n" << "does not compute the network";
        QTest::newRow("wrong shape") << "    return torch.softmax(x, 0)[0:1]\n" << "does not compute the network";
        QTest::newRow("nan weight") << QString() << "holds values that are not finite";
    }
    void editedForwardsAndNonFiniteWeightsAreRefused()
    {
        QFETCH(QString, forward);
        QFETCH(QString, message);
        auto spec = mlpSpec({2}, 2, {4});
        auto generator = makeGenerator(3);
        auto net = spec.build(generator);
        QTemporaryDir tmp;
        const std::string path = tmp.filePath("q.pt").toStdString();
        saveModel(*net, spec, {}, path);
        const auto& mlp = *dynamic_cast<FlatMlpImpl&>(*net).mlp;
        if (forward.isEmpty()) {
            // The file's own forward, over a weight made NaN.
            torch::NoGradGuard noGrad;
            mlp.named_parameters()["layers.1.bias"].fill_(std::nan(""));
            auto script = scriptClassifier(mlp, spec, {});
            replaceWeights(path, scriptBytes(script));
        } else {
            torch::jit::Module script(c10::QualifiedName("__torch__.lcstudio.Classifier"));
            for (const auto& item : mlp.named_parameters())
                script.register_parameter(scriptAttributeName(item.key()), item.value().detach().clone(), false);
            script.define("def forward(self, x):\n" + forward.toStdString());
            replaceWeights(path, scriptBytes(script));
        }
        try {
            loadClassifier(path);
            QFAIL("accepted");
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).contains(message), e.what());
        }
    }

    void checksumsAreStandardFnv1a()
    {
        // Published FNV-1a 64 values: "" is the offset basis itself.
        QCOMPARE(QString::fromStdString(checksumHex("")), QString("cbf29ce484222325"));
        QCOMPARE(QString::fromStdString(checksumHex("a")), QString("af63dc4c8601ec8c"));
        QCOMPARE(QString::fromStdString(checksumHex("foobar")), QString("85944171f73967e8"));
    }

    void versionTwoModelsStillLoad()
    {
        // A version 2 pair as earlier releases wrote it: a LibTorch archive of the Mlp's
        // parameters and a sidecar whose checksum used the old basis.
        Mlp mlp(2, std::vector<int64_t>{3}, 2);
        auto generator = makeGenerator(5);
        initialiseFrom(*mlp, generator);
        std::ostringstream bytes;
        torch::serialize::OutputArchive archive;
        mlp->save(archive);
        archive.save_to(bytes);
        const std::string weights = bytes.str();
        QTemporaryDir tmp;
        const std::string path = tmp.filePath("old.pt").toStdString();
        writeFileAtomically(path, weights);
        writeFileAtomically(path + ".json",
                            R"({"format": "lcstudio-model", "version": 2, "role": "q", "architecture": {"type": "mlp",
                               "inputs": 2, "hidden": [3], "classes": 2}, "weights": {"bytes": )" +
                                std::to_string(weights.size()) + R"(, "fnv1a64": ")" + checksumHex(weights, true) +
                                R"("}})");
        const auto loaded = loadClassifier(path);
        QVERIFY(!loaded.info.torchScript);
        const auto x = torch::randn({4, 2}, generator);
        QVERIFY(torch::equal(loaded.probabilities(x), torch::softmax(mlp->forward(x), 1)));
    }

    void npyReadsWhatNumpyWrites_data()
    {
        QTest::addColumn<QByteArray>("file");
        QTest::addColumn<QString>("shape");
        // Values 0..5 stored as numpy would for a 2 x 3 array: C order as they are,
        // Fortran order column by column (0 3 1 4 2 5).
        QTest::newRow("C order")
            << QByteArray::fromStdString(npyFile("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }",
                                                 {0, 1, 2, 3, 4, 5}))
            << "2x3";
        QTest::newRow("Fortran order")
            << QByteArray::fromStdString(npyFile("{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3), }",
                                                 {0, 3, 1, 4, 2, 5}))
            << "2x3";
        QTest::newRow("format 2.0")
            << QByteArray::fromStdString(npyFile("{'descr': '<f8', 'fortran_order': False, 'shape': (6,), }",
                                                 {0, 1, 2, 3, 4, 5}, 2))
            << "6";
        // '=' is the writer's native order (numpy's on every little-endian machine), and
        // the keys may come in any order.
        QTest::newRow("native order")
            << QByteArray::fromStdString(npyFile("{'descr': '=f8', 'fortran_order': False, 'shape': (6,), }",
                                                 {0, 1, 2, 3, 4, 5}))
            << "6";
        QTest::newRow("keys in another order")
            << QByteArray::fromStdString(npyFile("{'shape': (3, 2), 'fortran_order': False, 'descr': '<f8'}",
                                                 {0, 1, 2, 3, 4, 5}))
            << "3x2";
        // Integers as np.save writes labels (int64 by default), and the other widths: the
        // .npy header is the same, the payload holds the integers themselves.
        const auto integers = [](const char* descr, auto zero) {
            std::vector<decltype(zero)> v{0, 1, 2, 3, 4, 5};
            std::string file = npyFile(std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (6,), }", {});
            file.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(zero));
            return QByteArray::fromStdString(file);
        };
        QTest::newRow("int64") << integers("<i8", int64_t{0}) << "6";
        QTest::newRow("int32") << integers("<i4", int32_t{0}) << "6";
        QTest::newRow("uint8") << integers("|u1", uint8_t{0}) << "6";
        QTest::newRow("int16") << integers("<i2", int16_t{0}) << "6";
        // A header longer than 127 bytes: its length's low byte is above 0x7f.
        QTest::newRow("long header")
            << QByteArray::fromStdString(npyFile("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }" +
                                                     std::string(100, ' '),
                                                 {0, 1, 2, 3, 4, 5}))
            << "2x3";
    }
    void npyReadsWhatNumpyWrites()
    {
        QFETCH(QByteArray, file);
        QFETCH(QString, shape);
        const auto a = parseNpy(file.toStdString(), "f.npy", 1, 3, 100);
        QStringList dims;
        for (auto d : a.shape)
            dims << QString::number(d);
        QCOMPARE(dims.join("x"), shape);
        QCOMPARE(a.values, (std::vector<double>{0, 1, 2, 3, 4, 5}));
    }

    void npyRoundTrips()
    {
        NumericArray a{{2, 2, 2}, {0.1, -2, 3e-300, 4, 5, 6, 7, 1.0 / 3}};
        QCOMPARE(parseNpy(npyBytes(a), "a", 3, 3, 8).values, a.values);
        const auto f = parseNpy(npyBytes(a, true), "a", 3, 3, 8);
        QCOMPARE(f.shape, a.shape);
        QCOMPARE(f.values[7], static_cast<double>(1.0f / 3.0f));
    }

    void badNpyFilesAreRefused_data()
    {
        QTest::addColumn<QByteArray>("file");
        QTest::addColumn<QString>("message");
        const std::string good = npyFile("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }", {0, 1, 2, 3, 4, 5});
        auto row = [](const char* name, const std::string& bytes, const char* message) {
            QTest::newRow(name) << QByteArray::fromStdString(bytes) << message;
        };
        row("empty", "", "not a .npy file");
        row("text", "x,y\n1,2\n", "not a .npy file");
        row("version 3", std::string("\x93NUMPY\x03\x00", 8) + good.substr(8), "version 3.0");
        row("truncated data", good.substr(0, good.size() - 3), "cut off or has trailing bytes");
        row("trailing bytes", good + "xyz", "cut off or has trailing bytes");
        row("header past the end", good.substr(0, 40), "does not fit the file");
        row("big-endian", npyFile("{'descr': '>f8', 'fortran_order': False, 'shape': (6,), }", {0, 1, 2, 3, 4, 5}),
            "big-endian");
        row("complex", npyFile("{'descr': '<c8', 'fortran_order': False, 'shape': (6,), }", {0, 1, 2, 3, 4, 5}),
            "dtype <c8 is not a float or an integer");
        row("objects", npyFile("{'descr': '|O', 'fortran_order': False, 'shape': (6,), }", {0, 1, 2, 3, 4, 5}),
            "has 'descr' '|O', not a byte order, a kind and a size");
        row("rank 4", npyFile("{'descr': '<f8', 'fortran_order': False, 'shape': (1, 1, 2, 3), }", {0, 1, 2, 3, 4, 5}),
            "4 dimensions");
        row("too many values", npyFile("{'descr': '<f8', 'fortran_order': False, 'shape': (999999999999, 999999999999), }", {}),
            "more than 100 values");
        row("nan", npyFile("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", {1, std::nan("")}),
            "value 1 (in C order) is not finite");
        row("garbage header", npyFile("{'descr': '<f8', 'shape': (6,), }", {0, 1, 2, 3, 4, 5}),
            "lacks 'fortran_order'");
        // 30,000 dimensions in a 60 kB header: refused at the rank cap, never on the stack.
        std::string manyDimensions = "{'descr': '<f8', 'fortran_order': False, 'shape': (";
        for (int i = 0; i < 30000; ++i)
            manyDimensions += "1,";
        row("30000 dimensions", npyFile(manyDimensions + "), }", {0}), "has more than 32 dimensions");
        row("a key twice", npyFile("{'descr': '<f8', 'fortran_order': False, 'shape': (6,), 'shape': (6,), }", {0, 1, 2, 3, 4, 5}),
            "gives 'shape' twice");
        row("unknown key", npyFile("{'descr': '<f8', 'fortran_order': False, 'shape': (6,), 'extra': 1, }", {0, 1, 2, 3, 4, 5}),
            "unknown key 'extra'");
        row("13 digits", npyFile("{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000000,), }", {}),
            "a dimension of more than 12 digits");
        row("order", npyFile("{'descr': '<f8', 'fortran_order': 0, 'shape': (6,), }", {0, 1, 2, 3, 4, 5}),
            "'fortran_order' that is not True or False");
        row("negative", npyFile("{'descr': '<f8', 'fortran_order': False, 'shape': (-6,), }", {0, 1, 2, 3, 4, 5}),
            "'shape' that is not a tuple of whole numbers");
        row("unclosed", npyFile("{'descr': '<f8', 'fortran_order': False, 'shape': (6,), ", {0, 1, 2, 3, 4, 5}),
            "lacks its closing '}'");
    }
    void badNpyFilesAreRefused()
    {
        QFETCH(QByteArray, file);
        QFETCH(QString, message);
        try {
            parseNpy(file.toStdString(), "bad.npy", 1, 3, 100);
            QFAIL("accepted");
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).startsWith("bad.npy: ") && QString(e.what()).contains(message), e.what());
        }
    }
};

QTEST_APPLESS_MAIN(TestExport)
#include "tst_export.moc"
