#include "base/io/model_info.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "base/core/input_error.h"
#include "base/core/json_input.h"
#include "base/core/number_format.h"
#include "base/core/utf8.h"
#include "base/core/version.h"
#include "base/models/architectures.h"

namespace lcs {

namespace {

constexpr const char* kFormat = "lcstudio-model";
/// Version 2 added the weights checksum; version 1 sidecars cannot be tied to their
/// weights and are refused with a message saying so. Version 3: the weights file is a
/// TorchScript module, and the sidecar describes its input and output.
constexpr int kVersion = 3;
constexpr int kOldestVersion = 2;
constexpr size_t kMaxNameLength = 100;
/// The values of one image input a sidecar may declare (channels x height x width).
constexpr long long kMaxModelInputValues = 1LL << 22;

} // namespace

int64_t ModelInfo::parameterCount() const
{
    if (architecture != "mlp")
        return -1;
    int64_t total = 0, in = inputs;
    for (int64_t h : hidden) {
        total += (in + 1) * h;
        in = h;
    }
    return total + (in + 1) * classes;
}

std::vector<int64_t> ModelInfo::inputDims() const
{
    if (!inputShape.empty())
        return inputShape;
    return {inputs};
}

std::string ModelInfo::outputMeaning() const
{
    // At most 100 characters: the reader caps the field.
    if (!decisionRule.empty() && decisionRule != "q")
        return "class probabilities [N, C] of the kept rule " + decisionRule.substr(0, 12) +
               "; forward(x, p), p the predictive [N, C]";
    if (residualOnPredictive && !isotonicX.empty())
        return "class probabilities [N, C], softmax(log c + f(x)), c = p through isotonic knots; forward(x, p)";
    if (residualOnPredictive && !predictiveScale.empty())
        return "class probabilities [N, C], softmax(log c + f(x)), c = softmax(s * log p + b); forward(x, p)";
    if (residualOnPredictive)
        return "class probabilities [N, C], softmax(log p + f(x)); forward(x, p), p the predictive [N, C] at x";
    if (isSegNetArchitecture(architecture))
        return "class probabilities per pixel [N, C, H, W], softmax over dimension 1";
    return "class probabilities [N, C], softmax over dimension 1";
}

std::string checksumHex(const std::string& bytes, bool version2)
{
    uint64_t h = version2 ? 1469598103934665603ULL : 14695981039346656037ULL;
    for (unsigned char c : bytes) {
        h ^= c;
        h *= 1099511628211ULL;
    }
    char out[17];
    std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(h));
    return out;
}

std::string modelInfoToJson(const ModelInfo& info)
{
    nlohmann::json j;
    j["format"] = kFormat;
    j["version"] = kVersion;
    j["role"] = info.role;
    j["experiment"] = info.experiment;
    j["method"] = info.method;
    j["replicate"] = info.replicate;
    j["seed"] = info.seed;
    if (info.architecture == "mlp") {
        j["architecture"] = {{"type", "mlp"}, {"inputs", info.inputs}, {"hidden", info.hidden},
                             {"classes", info.classes}, {"activation", "relu"}};
        if (!info.inputShape.empty())
            j["architecture"]["input_shape"] = info.inputShape;
    }
    else if (info.architecture == "resnet18")
        j["architecture"] = {{"type", info.architecture}, {"input_shape", info.inputShape}, {"width", info.width},
                             {"classes", info.classes}};
    else
        j["architecture"] = {{"type", info.architecture}, {"input_shape", info.inputShape}, {"dropout", info.dropout},
                             {"classes", info.classes}};
    nlohmann::json input{{"shape", info.inputDims()}, {"dtype", "float32"}};
    input["values"] = info.inputMean.empty()     ? "as they are (no standardisation)"
                      : !info.inputColumns.empty() ? "the table's columns encoded as input.columns says (each category one-hot; a missing number NaN, which the model fills with missing_fill, setting the 0/1 feature after it); the model standardises them"
                      : info.inputShape.empty() ? "raw features; the model standardises them"
                                                : "raw, pixels in [0, 1]; the model standardises them";
    if (!info.inputMean.empty())
        input["standardisation"] = {{"mean", info.inputMean}, {"std", info.inputStd}};
    if (!info.inputColumns.empty()) {
        // The table's columns before encoding; a categorical one is one-hot over its
        // levels, in this order.
        auto columns = nlohmann::json::array();
        // A numeric column with missing cells in training carries its fill: a missing
        // cell takes it and the "missing" feature after the value is 1.
        for (const auto& c : info.inputColumns)
            columns.push_back(c.categorical()       ? nlohmann::json{{"name", c.name}, {"levels", c.levels}}
                              : c.missingIndicator ? nlohmann::json{{"name", c.name}, {"missing_fill", c.fill}}
                                                    : nlohmann::json{{"name", c.name}});
        input["columns"] = columns;
    }
    j["input"] = input;
    j["output"] = info.outputMeaning();
    j["program"] = std::string(programName()) + " " + programVersion();
    j["weights"] = {{"format", "torchscript"}, {"bytes", info.weightsBytes}, {"fnv1a64", info.weightsChecksum}};
    j["collapsed"] = info.collapsed;
    if (info.residualOnPredictive)
        j["residual_on_predictive"] = true;
    if (!info.predictiveScale.empty())
        j["predictive_calibration"] = {{"rule", info.predictiveCalibration},
                                       {"scale", info.predictiveScale},
                                       {"shift", info.predictiveShift}};
    else if (!info.isotonicX.empty())
        j["predictive_calibration"] = {{"rule", info.predictiveCalibration}, {"x", info.isotonicX}, {"y", info.isotonicY}};
    if (!info.decisionRule.empty())
        j["decision_rule"] = info.decisionRule;
    j["class_names"] = !info.classNames.empty() ? nlohmann::json(info.classNames)
                       : info.costs.empty()     ? nlohmann::json::array()
                                                : nlohmann::json(info.costs.classNames());
    if (!info.costs.empty()) {
        j["cost_matrix"] = nlohmann::json::parse(costMatrixToJson(info.costs));
        j["preset"] = info.costs.name();
    }
    return j.dump(2) + "\n";
}

namespace {

/// A name field (role, experiment, method, ...), capped.
std::string nameField(const JsonObjectReader& r, const char* key)
{
    const auto s = r.stringOr(key, "");
    if (utf8Length(s) > kMaxNameLength)
        r.fail(key, "is longer than " + std::to_string(kMaxNameLength) + " characters");
    return s;
}

/// What the network is for: role, experiment, method, replicate, seed, flags.
void readIdentity(const JsonObjectReader& r, ModelInfo& info)
{
    info.role = nameField(r, "role");
    info.experiment = nameField(r, "experiment");
    info.method = nameField(r, "method");
    info.replicate = static_cast<int>(r.integerOr("replicate", -1, -1, 1 << 20));
    if (r.has("seed")) {
        const auto& s = r.require("seed");
        if (s.is_number_unsigned())
            info.seed = s.get<unsigned long long>();
        else if (s.is_number_integer() && s.get<long long>() >= 0)
            info.seed = static_cast<unsigned long long>(s.get<long long>());
        else
            r.fail("seed", "must be a non-negative integer, got " + jsonExcerpt(s));
    }
    if (r.has("collapsed"))
        info.collapsed = r.boolean("collapsed");
}

/// The architecture object: type and sizes, each capped.
void readArchitecture(const JsonObjectReader& arch, ModelInfo& info)
{
    info.architecture = arch.string("type");
    if (info.architecture == "mlp") {
        arch.refuseUnknown({"type", "inputs", "hidden", "classes", "activation", "input_shape"});
        if (arch.has("activation") && arch.string("activation") != "relu")
            arch.fail("activation", "is not \"relu\"");
        info.inputs = arch.integer("inputs", 1, kMaxModelInputs);
        for (long long h : arch.integers("hidden", kMaxModelHiddenLayers, 1, kMaxModelWidth))
            info.hidden.push_back(h);
    } else if (info.architecture == "resnet18" || isSegNetArchitecture(info.architecture)) {
        const bool resnet = info.architecture == "resnet18";
        arch.refuseUnknown({"type", "input_shape", resnet ? "width" : "dropout", "classes"});
        const auto shape = arch.integers("input_shape", 3, 1, kMaxModelImageSide);
        if (shape.size() != 3 || shape[0] > 4)
            arch.fail("input_shape", "must be [channels (1 to 4), height, width]");
        // One frame's input, and so every activation of a forward on it, bounded before
        // any tensor is made: 3 x 1182 x 1182 at most (CamVid's frames are 3 x 360 x 480).
        if (shape[0] * shape[1] * shape[2] > kMaxModelInputValues)
            arch.fail("input_shape", "is " + std::to_string(shape[0]) + " x " + std::to_string(shape[1]) + " x " +
                                         std::to_string(shape[2]) + " = " +
                                         std::to_string(shape[0] * shape[1] * shape[2]) + " values per frame; at most " +
                                         std::to_string(kMaxModelInputValues));
        info.inputShape.assign(shape.begin(), shape.end());
        if (resnet) {
            info.width = arch.integer("width", 1, 1024);
        } else {
            const auto& d = arch.require("dropout");
            if (!d.is_number() || !(d.get<double>() >= 0.0 && d.get<double>() < 1.0))
                arch.fail("dropout", "must be a number in [0, 1), got " + jsonExcerpt(d));
            info.dropout = d.get<double>();
        }
    } else {
        arch.fail("type", "is \"" + info.architecture.substr(0, 40) + "\", not " + architectureNames());
    }
    info.classes = arch.integer("classes", 1, kMaxCostClasses);

    if (info.architecture == "mlp" && arch.has("input_shape")) {
        const auto shape = arch.integers("input_shape", 3, 1, kMaxModelImageSide);
        int64_t product = 1;
        for (auto d : shape)
            product *= d;
        if (shape.size() != 3 || product != info.inputs)
            arch.fail("input_shape", "must be [channels, height, width] with " + std::to_string(info.inputs) +
                                         " values, the MLP's inputs");
        info.inputShape.assign(shape.begin(), shape.end());
    }
}

/// input.columns: a table's columns, which must encode to the network's inputs.
void readInputColumns(const JsonObjectReader& input, const std::string& source, ModelInfo& info)
{
    const auto& columns = input.require("columns");
    if (!columns.is_array() || columns.empty() || static_cast<int64_t>(columns.size()) > info.inputs)
        input.fail("columns", "must be an array of 1 to " + std::to_string(info.inputs) +
                                  " columns (the network's inputs)");
    size_t width = 0;
    for (size_t i = 0; i < columns.size(); ++i) {
        const JsonObjectReader c(columns[i], source, "input.columns[" + std::to_string(i) + "].");
        c.refuseUnknown({"name", "levels", "missing_fill"});
        InputColumn column{c.string("name"), {}};
        if (column.name.size() > kMaxColumnTextLength)
            c.fail("name", "is longer than " + std::to_string(kMaxColumnTextLength) + " characters");
        if (c.has("levels")) {
            column.levels = c.strings("levels", kMaxCategoryLevels);
            if (column.levels.empty())
                c.fail("levels", "is empty (a numeric column has no levels field)");
            for (size_t k = 0; k < column.levels.size(); ++k) {
                if (column.levels[k].empty() || column.levels[k].size() > kMaxColumnTextLength)
                    c.fail("levels", "holds a level that is empty or longer than " +
                                         std::to_string(kMaxColumnTextLength) + " characters");
                if (k > 0 && !(column.levels[k - 1] < column.levels[k]))
                    c.fail("levels", "must be sorted and distinct (\"" + column.levels[k].substr(0, 40) +
                                         "\" is out of place)");
            }
        }
        if (c.has("missing_fill")) {
            if (column.categorical())
                c.fail("missing_fill", "is for a numeric column (a categorical one has the level " +
                                           std::string(kMissingLevel) + ")");
            column.missingIndicator = true;
            column.fill = c.number("missing_fill");
            if (std::abs(column.fill) > 1e30)
                c.fail("missing_fill", "is beyond 1e30 (a table's numbers are at most that)");
        }
        width += column.width();
        info.inputColumns.push_back(std::move(column));
    }
    if (static_cast<int64_t>(width) != info.inputs)
        input.fail("columns", "encode to " + std::to_string(width) + " features, the network takes " +
                                  std::to_string(info.inputs));
}

/// The input object of a TorchScript file: shape, dtype, standardisation, columns.
void readInput(const JsonObjectReader& input, const std::string& source, ModelInfo& info)
{
    input.refuseUnknown({"shape", "dtype", "values", "standardisation", "columns"});
    const auto shape = input.integers("shape", 3, 1, kMaxModelInputs);
    if (std::vector<int64_t>(shape.begin(), shape.end()) != info.inputDims())
        input.fail("shape", "does not match the architecture's input");
    if (input.string("dtype") != "float32")
        input.fail("dtype", "must be \"float32\"");
    if (input.has("standardisation")) {
        const auto st = input.object("standardisation");
        st.refuseUnknown({"mean", "std"});
        // One per channel of an image, one per feature of a table.
        const auto channels = info.inputDims().front();
        info.inputMean = st.numbers("mean", static_cast<size_t>(channels));
        info.inputStd = st.numbers("std", static_cast<size_t>(channels));
        if (info.inputMean.size() != info.inputStd.size() || static_cast<int64_t>(info.inputMean.size()) != channels)
            st.fail("mean", "needs one mean and one std per input channel (image) or feature (table)");
        for (double s : info.inputStd)
            if (!(s >= 1e-6))
                st.fail("std", "must be at least 1e-6 for every channel");
    }
    if (input.has("columns"))
        readInputColumns(input, source, info);
}

/// "64, 32": an MLP's hidden widths, for messages.
std::string hiddenText(const std::vector<int64_t>& hidden)
{
    std::string out;
    for (const auto h : hidden)
        out += (out.empty() ? "" : ", ") + std::to_string(h);
    return out.empty() ? std::string("none") : out;
}

/// The weights object, checked against the architecture before anything is allocated.
void readWeights(const JsonObjectReader& weights, ModelInfo& info)
{
    weights.refuseUnknown({"format", "bytes", "fnv1a64"});
    if (info.torchScript && weights.string("format") != "torchscript")
        weights.fail("format", "must be \"torchscript\"");
    // The weights file is read whole, at most 1 GiB (model_io's kMaxWeightsBytes).
    info.weightsBytes = static_cast<uint64_t>(weights.integer("bytes", 1, int64_t{1} << 30));
    info.weightsChecksum = weights.string("fnv1a64");
    if (info.weightsChecksum.size() != 16
        || info.weightsChecksum.find_first_not_of("0123456789abcdef") != std::string::npos)
        weights.fail("fnv1a64", "must be 16 lower-case hex digits");
    // Refuse before anything is allocated: the weights file stores 4 bytes per float
    // parameter, so an architecture larger than the file is a wrong sidecar.
    // Named as "bytes", the field a wrong or edited sidecar most likely got wrong; the
    // architecture it was compared with is in the message.
    if (info.architecture == "mlp" && static_cast<uint64_t>(info.parameterCount()) * 4 > info.weightsBytes)
        weights.fail("bytes", std::to_string(info.weightsBytes) + " bytes cannot hold the " +
                                  std::to_string(info.parameterCount()) + " float parameters of the architecture (" +
                                  std::to_string(info.inputs) + " inputs, hidden " + hiddenText(info.hidden) + ", " +
                                  std::to_string(info.classes) + " classes)");
}

/// The matrix the network decides for and its class names, which must fit its classes.
void readDecisions(const JsonObjectReader& r, const std::string& source, ModelInfo& info)
{
    if (r.hasValue("cost_matrix"))
        info.costs = costMatrixFromJson(r.require("cost_matrix").dump(), source + " (cost_matrix)");
    if (r.has("class_names")) {
        const auto names = r.strings("class_names", static_cast<size_t>(kMaxCostClasses));
        if (!names.empty() && static_cast<int64_t>(names.size()) != info.classes)
            r.fail("class_names", "has " + std::to_string(names.size()) + " names for "
                                      + std::to_string(info.classes) + " classes");
        for (const auto& n : names)
            if (utf8Length(n) > kMaxNameLength)
                r.fail("class_names", "has a name longer than " + std::to_string(kMaxNameLength) + " characters");
        info.classNames = names;
    }
    if (!info.costs.empty() && info.costs.numClasses() != info.classes)
        r.fail("cost_matrix", "has " + std::to_string(info.costs.numClasses()) + " classes, the network "
                                  + std::to_string(info.classes));
}

/// predictive_calibration as softmax(scale * log p + shift): one scale and shift per class.
void readAffineCalibration(const JsonObjectReader& c, ModelInfo& info)
{
    c.refuseUnknown({"rule", "scale", "shift"});
    static const std::vector<std::string> kAffine{"temperature", "offsets", "platt", "vector", "constant"};
    if (std::find(kAffine.begin(), kAffine.end(), info.predictiveCalibration) == kAffine.end())
        c.fail("rule", "is \"" + info.predictiveCalibration.substr(0, 40) +
                           "\", not temperature, offsets, platt, vector, constant or isotonic");
    info.predictiveScale = c.numbers("scale", static_cast<size_t>(info.classes));
    info.predictiveShift = c.numbers("shift", static_cast<size_t>(info.classes));
    for (const auto* v : {&info.predictiveScale, &info.predictiveShift})
        if (static_cast<int64_t>(v->size()) != info.classes)
            c.fail(v == &info.predictiveScale ? "scale" : "shift",
                   "has " + std::to_string(v->size()) + " values for " + std::to_string(info.classes) + " classes");
    for (double v : info.predictiveScale)
        if (!std::isfinite(v) || std::abs(v) > 1e6)
            c.fail("scale", "holds " + formatNumber(v) + ", not a finite number within 1e6");
    for (double v : info.predictiveShift)
        if (!std::isfinite(v) || std::abs(v) > 1e6)
            c.fail("shift", "holds " + formatNumber(v) + ", not a finite number within 1e6");
}

/// Isotonic regression's knots: two classes, x strictly increasing, x and y in [0, 1].
void readIsotonicKnots(const JsonObjectReader& c, ModelInfo& info)
{
    c.refuseUnknown({"rule", "x", "y"});
    if (info.classes != 2)
        c.fail("rule", "isotonic calibrates two classes, not " + std::to_string(info.classes));
    constexpr size_t kMaxKnots = 1 << 20;
    info.isotonicX = c.numbers("x", kMaxKnots);
    info.isotonicY = c.numbers("y", kMaxKnots);
    if (info.isotonicX.empty() || info.isotonicX.size() != info.isotonicY.size())
        c.fail("y", "has " + std::to_string(info.isotonicY.size()) + " knots for " +
                        std::to_string(info.isotonicX.size()) + " in x (one or more each, as many)");
    for (size_t i = 0; i < info.isotonicX.size(); ++i) {
        if (!(info.isotonicX[i] >= 0 && info.isotonicX[i] <= 1) || (i > 0 && !(info.isotonicX[i] > info.isotonicX[i - 1])))
            c.fail("x", "knot " + std::to_string(i + 1) + " is " + formatNumber(info.isotonicX[i]) +
                            "; the knots must increase within [0, 1]");
        if (!(info.isotonicY[i] >= 0 && info.isotonicY[i] <= 1))
            c.fail("y", "knot " + std::to_string(i + 1) + " is " + formatNumber(info.isotonicY[i]) + ", not within [0, 1]");
    }
}

} // namespace

ModelInfo modelInfoFromJson(const std::string& text, const std::string& source)
{
    const auto j = parseJsonInput(text, source, JsonLimits{size_t{16} << 20, 16});
    const JsonObjectReader r(j, source);
    r.refuseUnknown({"format", "version", "role", "experiment", "method", "replicate", "seed", "architecture",
                     "weights", "collapsed", "class_names", "cost_matrix", "preset", "input", "output", "program",
                     "residual_on_predictive", "predictive_calibration", "decision_rule"});
    if (r.stringOr("format", "") != kFormat)
        r.fail("format", std::string("must be \"") + kFormat + "\"");
    const auto version = r.integer("version", 1, 1000);
    if (version < kOldestVersion || version > kVersion)
        r.fail("version", "is " + std::to_string(version) + "; this LC Studio reads versions " +
                              std::to_string(kOldestVersion) + " to " + std::to_string(kVersion) +
                              (version < kOldestVersion ? " (older files carry no weights checksum: save the model again)"
                                                        : ""));
    ModelInfo info;
    info.torchScript = version >= 3;
    readIdentity(r, info);
    const auto arch = r.object("architecture");
    readArchitecture(arch, info);
    // After the architecture: only an MLP can be a residual on the predictive.
    if (r.has("residual_on_predictive")) {
        info.residualOnPredictive = r.boolean("residual_on_predictive");
        if (info.residualOnPredictive && info.architecture != "mlp")
            r.fail("residual_on_predictive", "applies to an MLP only");
    }
    if (r.has("predictive_calibration")) {
        if (!info.residualOnPredictive)
            r.fail("predictive_calibration", "applies to a residual q only (residual_on_predictive)");
        const auto c = r.object("predictive_calibration");
        info.predictiveCalibration = c.string("rule");
        if (info.predictiveCalibration == "isotonic")
            readIsotonicKnots(c, info);
        else
            readAffineCalibration(c, info);
    }
    if (r.has("decision_rule")) {
        info.decisionRule = nameField(r, "decision_rule");
        if (!info.residualOnPredictive && info.decisionRule != "q")
            r.fail("decision_rule", "\"" + info.decisionRule + "\" needs a model of the predictive (residual_on_predictive)");
        // q may correct a calibrated P; P has no calibration; a calibration is its own.
        const std::string& calibration = info.predictiveCalibration;
        const bool fits = info.decisionRule == "q"   ? true
                          : info.decisionRule == "P" ? calibration.empty()
                                                     : info.decisionRule == calibration;
        if (!fits)
            r.fail("decision_rule", "is \"" + info.decisionRule + "\" but the predictive calibration is " +
                                        (calibration.empty() ? std::string("none") : "\"" + calibration + "\""));
    }
    if (info.torchScript)
        readInput(r.object("input"), source, info);
    readWeights(r.object("weights"), info);
    readDecisions(r, source, info);
    for (const char* key : {"preset", "output", "program"})
        if (r.has(key))
            nameField(r, key);
    return info;
}

} // namespace lcs
