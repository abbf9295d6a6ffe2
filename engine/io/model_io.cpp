#include "engine/io/model_io.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <mutex>
#include <sstream>
#include <thread>

#include <torch/csrc/jit/runtime/print_handler.h>
#include <torch/csrc/jit/serialization/import.h>
#include <torch/serialize.h>

#include "base/core/atomic_file.h"
#include "base/core/input_error.h"
#include "engine/core/training_loop.h"
#include "engine/io/torchscript.h"

namespace lcs {

namespace {

/// Loads serialised weights into `module`. InputArchive replaces tensors wholesale (set_),
/// so a file of another shape would load "successfully": every parameter and buffer is
/// compared with the shape the architecture in `sidecar` gives it.
void loadArchiveWeights(torch::nn::Module& module, const std::string& weights, const std::string& path,
                        const std::string& sidecar)
{
    std::vector<std::pair<std::string, std::vector<int64_t>>> expected;
    for (const auto& item : module.named_parameters())
        expected.emplace_back(item.key(), item.value().sizes().vec());
    for (const auto& item : module.named_buffers())
        expected.emplace_back(item.key(), item.value().sizes().vec());
    try {
        torch::serialize::InputArchive archive;
        archive.load_from(weights.data(), weights.size());
        module.load(archive);
    } catch (const c10::Error& e) {
        throw InputError(path + ": cannot load weights for the architecture in " + sidecar + " (" +
                         e.what_without_backtrace() + ")");
    }
    const auto params = module.named_parameters();
    const auto buffers = module.named_buffers();
    for (const auto& [name, sizes] : expected) {
        const auto* t = params.find(name);
        if (!t)
            t = buffers.find(name);
        if (!t || t->sizes().vec() != sizes)
            throw InputError(path + ": weight \"" + name + "\" has shape " +
                             (t ? c10::str(c10::IntArrayRef(t->sizes())) : std::string("none")) + " but " + sidecar +
                             " describes " + c10::str(c10::IntArrayRef(sizes)));
        if (t->is_floating_point() && !torch::isfinite(*t).all().item<bool>())
            throw InputError(path + ": weight \"" + name + "\" holds values that are not finite");
    }
}

/// Little-endian fields of a zip archive, read with bounds checked by the caller.
uint64_t readLittle(const std::string& bytes, size_t at, int width)
{
    uint64_t v = 0;
    for (int i = width - 1; i >= 0; --i)
        v = (v << 8) | static_cast<unsigned char>(bytes[at + static_cast<size_t>(i)]);
    return v;
}

/// A TorchScript file is a zip archive whose records LibTorch inflates in memory as it
/// loads them. The sizes every record declares (its central directory entry, ZIP64
/// included) are summed before anything is inflated, and refused beyond what the
/// network the sidecar describes can hold: its tensors twice over (a record may hold a
/// copy) and 16 MiB of code and constants. A small file that would inflate to gigabytes
/// is refused here; a record that inflates past its declared size is an error of the
/// zip reader itself.
void checkArchiveRecords(const std::string& bytes, int64_t tensorBytes, const std::string& path,
                         const std::string& sidecar)
{
    constexpr uint32_t kEndOfDirectory = 0x06054b50, kZip64Locator = 0x07064b50, kZip64End = 0x06064b50,
                       kDirectoryEntry = 0x02014b50;
    constexpr size_t kMaxRecords = 100000;
    const auto fail = [&](const std::string& why) {
        throw InputError(path + ": not a TorchScript archive LC Studio can read (" + why + ")");
    };
    if (bytes.size() < 22)
        fail("too short for a zip archive");
    // The end-of-directory record: within the last 64 KiB + 22 bytes (its comment).
    size_t end = std::string::npos;
    const size_t lowest = bytes.size() > 65557 ? bytes.size() - 65557 : 0;
    for (size_t at = bytes.size() - 22 + 1; at-- > lowest;)
        if (readLittle(bytes, at, 4) == kEndOfDirectory) {
            end = at;
            break;
        }
    if (end == std::string::npos)
        fail("no zip end-of-directory record");
    uint64_t records = readLittle(bytes, end + 10, 2);
    uint64_t directorySize = readLittle(bytes, end + 12, 4);
    uint64_t directoryOffset = readLittle(bytes, end + 16, 4);
    if (records == 0xffff || directorySize == 0xffffffff || directoryOffset == 0xffffffff) {
        if (end < 20 || readLittle(bytes, end - 20, 4) != kZip64Locator)
            fail("ZIP64 fields without a ZIP64 locator");
        const uint64_t zip64 = readLittle(bytes, end - 20 + 8, 8);
        if (zip64 > bytes.size() - 56 || readLittle(bytes, static_cast<size_t>(zip64), 4) != kZip64End)
            fail("the ZIP64 end-of-directory record is not where its locator says");
        records = readLittle(bytes, static_cast<size_t>(zip64) + 32, 8);
        directorySize = readLittle(bytes, static_cast<size_t>(zip64) + 40, 8);
        directoryOffset = readLittle(bytes, static_cast<size_t>(zip64) + 48, 8);
    }
    if (records > kMaxRecords)
        fail(std::to_string(records) + " records; at most " + std::to_string(kMaxRecords));
    if (directoryOffset > bytes.size() || directorySize > bytes.size() - directoryOffset)
        fail("the central directory lies outside the file");
    const uint64_t limit = 2 * static_cast<uint64_t>(std::max<int64_t>(tensorBytes, 0)) + (uint64_t{16} << 20);
    uint64_t total = 0;
    size_t at = static_cast<size_t>(directoryOffset);
    const size_t directoryEnd = static_cast<size_t>(directoryOffset + directorySize);
    for (uint64_t r = 0; r < records; ++r) {
        if (at + 46 > directoryEnd || readLittle(bytes, at, 4) != kDirectoryEntry)
            fail("central directory entry " + std::to_string(r + 1) + " is cut short or malformed");
        uint64_t inflated = readLittle(bytes, at + 24, 4);
        const size_t nameLength = readLittle(bytes, at + 28, 2), extraLength = readLittle(bytes, at + 30, 2),
                     commentLength = readLittle(bytes, at + 32, 2);
        const size_t extra = at + 46 + nameLength;
        if (extra + extraLength + commentLength > directoryEnd)
            fail("central directory entry " + std::to_string(r + 1) + " runs past the directory");
        if (inflated == 0xffffffff) {  // the real size is in the ZIP64 extra field (first)
            bool found = false;
            for (size_t e = extra; e + 4 <= extra + extraLength;) {
                const size_t id = readLittle(bytes, e, 2), size = readLittle(bytes, e + 2, 2);
                if (e + 4 + size > extra + extraLength)
                    break;
                if (id == 0x0001 && size >= 8) {
                    inflated = readLittle(bytes, e + 4, 8);
                    found = true;
                    break;
                }
                e += 4 + size;
            }
            if (!found)
                fail("entry " + bytes.substr(at + 46, std::min<size_t>(nameLength, 80)) +
                     " declares a ZIP64 size it does not give");
        }
        total += std::min<uint64_t>(inflated, uint64_t{1} << 62);
        if (total > limit)
            throw InputError(path + ": its zip records inflate to more than " + std::to_string(limit) +
                             " bytes (record " + bytes.substr(at + 46, std::min<size_t>(nameLength, 80)) +
                             " reaches " + std::to_string(total) + "); the network " + sidecar + " describes holds " +
                             std::to_string(tensorBytes) + " bytes of tensors: refused before inflating anything");
        at = extra + extraLength + commentLength;
    }
}

/// A TorchScript file's code runs as it loads (__setstate__) and in its forward, and
/// cannot be interrupted: a loop in it would hang the program. While such code runs,
/// this watches the clock, and stops the process with a message naming the file when the
/// code has not returned within `limit`.
class CodeWatchdog {
public:
    CodeWatchdog(const std::string& path, const std::string& what, std::chrono::seconds limit)
        : m_thread([this, path, what, limit] {
              std::unique_lock<std::mutex> lock(m_mutex);
              if (m_done.wait_for(lock, limit, [this] { return m_finished; }))
                  return;
              std::fprintf(stderr,
                           "lcstudio: %s: %s ran for %lld s without returning (a loop in the file's own code?); "
                           "stopping, since a model's code cannot be interrupted. A .pt file runs code: load only "
                           "models from a source you trust.\n",
                           path.c_str(), what.c_str(), static_cast<long long>(limit.count()));
              std::fflush(stderr);
              std::_Exit(2);
          })
    {
    }
    ~CodeWatchdog()
    {
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_finished = true;
        }
        m_done.notify_all();
        m_thread.join();
    }
    CodeWatchdog(const CodeWatchdog&) = delete;
    CodeWatchdog& operator=(const CodeWatchdog&) = delete;

private:
    std::mutex m_mutex;
    std::condition_variable m_done;
    bool m_finished = false;
    std::thread m_thread;  // last: starts once the members above exist
};

/// The time a file's code may take on its probe: 10 s, and 1 s more per 100,000 input
/// values (a SegNet probe at 3 x 360 x 480 gets 15 s; work beyond that is not a
/// network's forward on one input).
std::chrono::seconds probeLimit(const ModelInfo& info)
{
    int64_t values = 1;
    for (auto d : info.inputDims())
        values *= d;
    return std::chrono::seconds(10 + values / 100000);
}

/// What a model file's code prints (TorchScript's print) goes to stderr, marked, never
/// into a command's output on stdout.
void printToStderr(const std::string& text)
{
    std::string line = text.substr(0, 300);
    while (!line.empty() && line.back() == '\n')
        line.pop_back();
    std::fprintf(stderr, "lcstudio: a model file's code printed: %s\n", line.c_str());
}

/// Copies a TorchScript file's attributes into `module`, each by its name
/// (scriptAttributeName) and checked against the shape and type the architecture in
/// `sidecar` gives it; a missing or extra tensor is refused.
torch::jit::Module loadScriptWeights(torch::nn::Module& module, const std::string& weights, const std::string& path,
                                     const std::string& sidecar)
{
    torch::jit::Module script;
    try {
        torch::jit::setPrintHandler(&printToStderr);
        std::istringstream in(weights);
        const CodeWatchdog watchdog(path, "loading its TorchScript", std::chrono::seconds(30));
        script = torch::jit::load(in, torch::kCPU);
    } catch (const std::exception& e) {
        throw InputError(path + ": not a TorchScript file LC Studio can read (" + std::string(e.what()).substr(0, 200) +
                         ")");
    }
    if (!script.find_method("forward"))
        throw InputError(path + ": the TorchScript module has no forward method");
    torch::NoGradGuard noGrad;
    size_t copied = 0;
    const auto copy = [&](const std::string& name, at::Tensor& target) {
        const std::string attribute = scriptAttributeName(name);
        if (!script.hasattr(attribute) || !script.attr(attribute).isTensor())
            throw InputError(path + ": has no tensor \"" + attribute + "\" for the architecture in " + sidecar);
        const auto value = script.attr(attribute).toTensor();
        if (value.sizes() != target.sizes() || value.scalar_type() != target.scalar_type())
            throw InputError(path + ": tensor \"" + attribute + "\" is " + c10::str(value.sizes()) + " " +
                             std::string(c10::toString(value.scalar_type())) + " but " + sidecar + " describes " +
                             c10::str(target.sizes()) + " " + std::string(c10::toString(target.scalar_type())));
        if (value.is_floating_point() && !torch::isfinite(value).all().item<bool>())
            throw InputError(path + ": tensor \"" + attribute + "\" holds values that are not finite");
        target.copy_(value);
        ++copied;
    };
    for (auto item : module.named_parameters())
        copy(item.key(), item.value());
    for (auto item : module.named_buffers())
        copy(item.key(), item.value());
    // The input standardisation and a residual q's predictive calibration live in the
    // module only (the sidecar repeats them; the probe checks the forward agrees); every
    // other tensor must be one of the network's.
    size_t tensors = 0;
    for (const auto& item : script.named_attributes(/*recurse=*/false))
        if (item.value.isTensor() && item.name != "input_mean" && item.name != "input_std" &&
            item.name != "predictive_scale" && item.name != "predictive_shift" && item.name != "isotonic_x" &&
            item.name != "isotonic_y" && item.name != "missing_fill" &&
            item.name != "missing_value_columns" && item.name != "missing_flag_columns")
            ++tensors;
    if (tensors != copied)
        throw InputError(path + ": holds " + std::to_string(tensors) + " tensors, the architecture in " + sidecar +
                         " has " + std::to_string(copied));
    return script;
}

/// The file's own forward must compute what LC Studio computes with the network it
/// holds (the standardisation, the layers, the softmax): checked on a probe input, so a
/// forward edited after saving cannot make Python and LC Studio decide differently.
void checkScriptForward(torch::jit::Module& script, const LoadedClassifier& loaded, const std::string& path)
{
    std::vector<int64_t> shape{1};
    for (auto d : loaded.info.inputDims())
        shape.push_back(d);
    auto generator = makeGenerator(0x5eed);
    auto probe = torch::rand(shape, generator);
    // A model that imputes gets a second row with every imputing column's value missing.
    if (const auto indicators = encodedIndicators(loaded.info.inputColumns); !indicators.empty()) {
        auto missingRow = probe.clone();
        for (const auto& column : indicators)
            missingRow.index_put_({0, static_cast<int64_t>(column.first)}, std::numeric_limits<float>::quiet_NaN());
        probe = torch::cat({probe, missingRow}, 0);
    }
    // A residual q's second argument: a predictive at the probe's rows.
    const auto p = torch::softmax(torch::rand({probe.size(0), loaded.info.classes}, generator), 1);
    const auto ours = loaded.info.residualOnPredictive ? loaded.probabilities(probe, p) : loaded.probabilities(probe);
    at::Tensor theirs;
    try {
        torch::NoGradGuard noGrad;
        const CodeWatchdog watchdog(path, "its TorchScript forward on a probe input of shape " + c10::str(c10::IntArrayRef(shape)),
                                    probeLimit(loaded.info));
        script.eval();
        theirs = (loaded.info.residualOnPredictive ? script.forward({probe, p}) : script.forward({probe}))
                     .toTensor()
                     .to(torch::kFloat);
    } catch (const std::exception& e) {
        throw InputError(path + ": its TorchScript forward fails on an input of shape " + c10::str(shape) + " (" +
                         std::string(e.what()).substr(0, 200) + ")");
    }
    const double difference =
        theirs.sizes() == ours.sizes() ? (theirs - ours).abs().max().item<double>() : std::numeric_limits<double>::infinity();
    if (!(difference <= 1e-4))
        throw InputError(path + ": its TorchScript forward does not compute the network it holds (largest difference " +
                         (std::isfinite(difference) ? std::to_string(difference) : std::string("in shape")) +
                         " on a probe input); save the model again");
}

constexpr size_t kMaxSidecarBytes = size_t{16} << 20;
constexpr size_t kMaxWeightsBytes = size_t{1} << 30;

/// The weights file, checked against the size and checksum its sidecar records.
std::string readWeightsFor(const ModelInfo& info, const std::string& path, const std::string& sidecar)
{
    std::string weights = readFile(path, kMaxWeightsBytes);
    const std::string checksum = checksumHex(weights, !info.torchScript);
    if (weights.size() != info.weightsBytes || checksum != info.weightsChecksum)
        throw InputError(path + " does not match " + sidecar + " (weights of " + std::to_string(weights.size()) +
                         " bytes, checksum " + checksum + "; the sidecar records " +
                         std::to_string(info.weightsBytes) + " bytes, " + info.weightsChecksum +
                         "): the files come from different saves, or a save was interrupted; save the model again");
    return weights;
}

} // namespace

/// Serialises in memory (LibTorch's file writer reports a full disk from its destructor,
/// which ends in std::terminate), then weights and sidecar atomically, sidecar last.
static void writeModelPair(const torch::nn::Module& model, const ModelSpec& spec, ModelInfo info,
                           const std::string& path)
{
    std::ostringstream bytes;
    try {
        scriptClassifier(model, spec, info).save(bytes);
    } catch (const std::exception& e) {
        throw OutputError("cannot serialise the network for " + path + ": " + std::string(e.what()).substr(0, 300));
    }
    const std::string weights = bytes.str();
    info.weightsBytes = weights.size();
    info.weightsChecksum = checksumHex(weights);
    const std::string sidecar = modelInfoToJson(info);
    writeFileAtomically(path, weights);
    writeFileAtomically(path + ".json", sidecar);
}

ModelSpec modelSpecFromInfo(const ModelInfo& info)
{
    ModelSpec spec;
    spec.architecture = info.architecture;
    spec.classes = info.classes;
    if (info.architecture == "mlp") {
        spec.inputShape = info.inputDims();
        spec.hidden = info.hidden;
    } else {
        spec.inputShape = info.inputShape;
        spec.width = info.width;
        spec.dropout = info.dropout;
    }
    return spec;
}

namespace {

/// The module whose parameters an "mlp" file holds: a FlatMlp's inner Mlp.
const torch::nn::Module& savedModule(const torch::nn::Module& model)
{
    if (const auto* flat = dynamic_cast<const FlatMlpImpl*>(&model))
        return *flat->mlp;
    return model;
}

} // namespace

void saveModel(const torch::nn::Module& model, const ModelSpec& spec, const ModelInfo& infoIn, const std::string& path)
{
    ModelInfo info = infoIn;
    info.architecture = spec.architecture;
    info.classes = spec.classes;
    if (spec.architecture == "mlp") {
        info.inputs = 1;
        for (auto d : spec.inputShape)
            info.inputs *= d;
        info.hidden = spec.hidden;
        info.inputShape = spec.inputShape.size() == 3 ? spec.inputShape : std::vector<int64_t>{};
    } else {
        info.inputShape = spec.inputShape;
        info.width = spec.architecture == "resnet18" ? spec.width : 0;
        info.dropout = spec.architecture == "resnet18" ? 0.0 : spec.dropout;
    }
    info.torchScript = true;
    if (info.classNames.empty() && !info.costs.empty())
        info.classNames = info.costs.classNames();
    writeModelPair(savedModule(model), spec, info, path);
}

void saveModel(const Mlp& model, const ModelInfo& info, const std::string& path)
{
    ModelSpec spec;
    spec.architecture = "mlp";
    spec.inputShape = {model->inputs};
    spec.hidden = model->hidden;
    spec.classes = model->classes;
    ModelInfo withScaling = info;
    if (withScaling.inputMean.empty() && model->inputMean.defined()) {
        const auto m = model->inputMean.to(torch::kDouble).contiguous(), s = model->inputStd.to(torch::kDouble).contiguous();
        withScaling.inputMean.assign(m.data_ptr<double>(), m.data_ptr<double>() + m.numel());
        withScaling.inputStd.assign(s.data_ptr<double>(), s.data_ptr<double>() + s.numel());
    }
    saveModel(*model, spec, withScaling, path);
}

LoadedClassifier loadClassifier(const std::string& path)
{
    const std::string sidecar = path + ".json";
    LoadedClassifier out;
    out.info = modelInfoFromJson(readFile(sidecar, kMaxSidecarBytes), sidecar);
    const std::string weights = readWeightsFor(out.info, path, sidecar);
    out.spec = modelSpecFromInfo(out.info);
    auto generator = makeGenerator(0);
    try {
        out.model = out.spec.build(generator);
    } catch (const std::exception& e) {
        throw InputError(sidecar + ": cannot build the network it describes (" + e.what() + ")");
    }
    auto& target = const_cast<torch::nn::Module&>(savedModule(*out.model));
    out.model->eval();
    if (out.info.torchScript) {
        int64_t tensorBytes = 0;
        for (const auto& t : target.parameters())
            tensorBytes += t.numel() * static_cast<int64_t>(t.element_size());
        for (const auto& t : target.buffers())
            tensorBytes += t.numel() * static_cast<int64_t>(t.element_size());
        checkArchiveRecords(weights, tensorBytes, path, sidecar);
        auto script = loadScriptWeights(target, weights, path, sidecar);
        checkScriptForward(script, out, path);
    } else {
        loadArchiveWeights(target, weights, path, sidecar);
    }
    return out;
}

static at::Tensor imputedInputs(const at::Tensor& raw, const std::vector<InputColumn>& columns)
{
    auto x = raw.to(torch::kFloat);
    const auto indicators = encodedIndicators(columns);
    if (indicators.empty() || x.dim() != 2)
        return x;
    x = x.clone();
    const auto fill = encodedFill(columns);
    for (const auto& [value, flag] : indicators) {
        const auto v = static_cast<int64_t>(value), f = static_cast<int64_t>(flag);
        const auto missing = torch::isnan(x.select(1, v));
        x.select(1, v).masked_fill_(missing, fill[value]);
        x.select(1, f).copy_(torch::maximum(x.select(1, f), missing.to(torch::kFloat)));
    }
    return x;
}

at::Tensor LoadedClassifier::probabilities(const at::Tensor& raw) const
{
    auto x = imputedInputs(raw, info.inputColumns);
    if (!info.inputMean.empty()) {
        std::vector<int64_t> shape(static_cast<size_t>(x.dim()), 1);
        shape[1] = static_cast<int64_t>(info.inputMean.size());
        x = (x - torch::tensor(info.inputMean, torch::kDouble).to(torch::kFloat).reshape(shape)) /
            torch::tensor(info.inputStd, torch::kDouble).to(torch::kFloat).reshape(shape);
    }
    return predictClassProbabilities(*model, x.to(deviceOf(*model)));
}

at::Tensor LoadedClassifier::probabilities(const at::Tensor& raw, const at::Tensor& predictive) const
{
    // softmax(log p + f(x)) = softmax(log p + log softmax(f(x))): a row's constant cancels.
    const auto logF = probabilities(raw).clamp_min(1e-30).log();
    return torch::softmax(logF + calibratedPredictive(predictive).clamp_min(1e-12).log(), 1);
}

at::Tensor LoadedClassifier::calibratedPredictive(const at::Tensor& predictive) const
{
    auto p = predictive.to(torch::kFloat);
    const auto row = [](const std::vector<double>& v) {
        return torch::tensor(v, torch::kDouble).to(torch::kFloat).reshape({1, static_cast<int64_t>(v.size())});
    };
    if (!info.predictiveScale.empty())
        return torch::softmax(row(info.predictiveScale) * p.clamp_min(1e-12).log() + row(info.predictiveShift), 1);
    if (!info.isotonicX.empty()) {
        // IsotonicMap's rule, evaluated as the file's forward evaluates it.
        const auto x = row(info.isotonicX).reshape({-1}), y = row(info.isotonicY).reshape({-1});
        const auto p1 = p.select(1, 1).contiguous();
        at::Tensor c1;
        if (x.size(0) == 1) {
            c1 = torch::zeros_like(p1) + y[0];
        } else {
            const auto hi = torch::searchsorted(x, p1, /*out_int32=*/false, /*right=*/true).clamp(1, x.size(0) - 1);
            const auto x0 = x.index_select(0, hi - 1), x1 = x.index_select(0, hi);
            const auto y0 = y.index_select(0, hi - 1), y1 = y.index_select(0, hi);
            c1 = y0 + ((p1 - x0) / (x1 - x0)).clamp(0.0, 1.0) * (y1 - y0);
        }
        return torch::stack({1 - c1, c1}, 1);
    }
    return p;
}

void setPredictiveCalibration(const FittedCalibration& calibration, int classes, ModelInfo& info)
{
    info.predictiveCalibration = calibration.name();
    if (calibration.softmaxAffine(classes, info.predictiveScale, info.predictiveShift))
        return;
    if (calibration.kind == CalibrationKind::Constant) {
        info.predictiveScale.assign(static_cast<size_t>(classes), 0.0);
        info.predictiveShift.clear();
        // A share of 0 becomes 1e-12: finite in the file, and no decision moves for it.
        for (double share : calibration.classShares)
            info.predictiveShift.push_back(std::log(std::max(share, 1e-12)));
        return;
    }
    info.isotonicX = calibration.isotonic.x;
    info.isotonicY = calibration.isotonic.y;
}

void saveKeptRule(const Mlp& q, const ModelInfo& modelInfoOfQ, const std::string& rule,
                  const FittedCalibration* calibration, const std::string& path)
{
    ModelInfo info = modelInfoOfQ;
    info.role = "kept_rule";
    info.decisionRule = rule;
    if (rule == "q") {
        saveModel(q, info, path);
        return;
    }
    const auto first = q->parameters().front();
    const int64_t inputs = first.size(1), classes = q->parameters().back().size(0);
    info.residualOnPredictive = true;
    info.predictiveCalibration.clear();
    info.predictiveScale.clear();
    info.predictiveShift.clear();
    info.isotonicX.clear();
    info.isotonicY.clear();
    if (rule != "P") {
        if (!calibration || calibration->name() != rule)
            throw std::logic_error("the kept rule " + rule + " has no fitted calibration");
        setPredictiveCalibration(*calibration, static_cast<int>(classes), info);
    }
    // P or a calibration of P: f(x) = 0 whatever x is, one linear layer of zeros.
    Mlp zero(inputs, std::vector<int64_t>{}, classes);
    {
        torch::NoGradGuard noGrad;
        for (auto& t : zero->parameters())
            t.zero_();
    }
    saveModel(zero, info, path);
}

LoadedMlp loadMlp(const std::string& path)
{
    auto loaded = loadClassifier(path);
    auto* flat = dynamic_cast<FlatMlpImpl*>(loaded.model.get());
    if (!flat)
        throw InputError(path + ".json: describes a " + loaded.info.architecture + " network, not an MLP");
    LoadedMlp out{flat->mlp, std::move(loaded.info)};
    // The sidecar's standardisation moves into the network, so its forward takes raw rows.
    out.model->setInputStandardisation(out.info.inputMean, out.info.inputStd);
    out.model->eval();
    return out;
}

} // namespace lcs
