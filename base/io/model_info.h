#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/decision/cost_matrix.h"
#include "base/io/input_columns.h"

/// The JSON sidecar written next to a saved network (`<file>.json`): what LC Studio or
/// the CLI need to rebuild the network and decide with it, and a checksum that ties the
/// sidecar to the weights file it was written with. Plain C++ (no LibTorch), so the
/// reader can be fuzzed on its own.
namespace lcs {

/// Caps every sidecar reader applies before anything is allocated.
constexpr int64_t kMaxModelInputs = int64_t{1} << 20;
constexpr int64_t kMaxModelWidth = int64_t{1} << 16;
constexpr size_t kMaxModelHiddenLayers = 16;
constexpr int64_t kMaxModelImageSide = 8192;

struct ModelInfo {
    std::string role;          ///< "q" (correction), "map", "last_sample", ...
    std::string experiment;    ///< e.g. "synthetic"
    std::string method;        ///< inference method the model belongs to
    int replicate = -1;
    unsigned long long seed = 0;
    /// "mlp" (inputs, hidden), or an image network: "resnet18" (inputShape, width),
    /// a SegNet of the architecture table (inputShape, dropout).
    std::string architecture = "mlp";
    int64_t inputs = 0;
    std::vector<int64_t> hidden;
    /// Image networks: {C, H, W}; an MLP on images records it too (its input is the
    /// flattened image), an MLP on points leaves it empty (its input is [inputs]).
    std::vector<int64_t> inputShape;
    /// Per-channel standardisation the network applies to raw inputs (pixels in [0, 1]):
    /// (x - mean) / std along dimension 1. Empty for points, which enter as they are.
    std::vector<double> inputMean, inputStd;
    /// A table's input columns when any is categorical (a network of the tabular
    /// experiment): `decide` encodes a CSV's cells with them. Empty otherwise, and the
    /// input is `inputs` numbers as they come.
    std::vector<InputColumn> inputColumns;
    /// Names of the classes (the cost matrix's when it names them; may be empty).
    std::vector<std::string> classNames;
    int64_t width = 0;                ///< resnet18
    double dropout = 0;               ///< segnet
    int64_t classes = 0;
    CostMatrix costs;          ///< the matrix q was trained for (may be empty)
    bool collapsed = false;    ///< q's training ended collapsed (see CorrectionOutput)
    /// A residual q (CorrectionConfig::residual): forward(x, p) takes the predictive p
    /// [N, C] it corrects at x and returns softmax(log p + f(x)).
    bool residualOnPredictive = false;
    /// A residual q trained on top of a calibration of P (`correct --q-base calibrated`):
    /// forward(x, p) first replaces p by softmax(scale * log p + shift), one scale and
    /// shift per class, then corrects that. Empty: p as given. `predictiveCalibration`
    /// names the calibration ("temperature", "offsets", "platt", "vector", and for a
    /// kept rule also "constant": scale 0, shift the log of the labelled rows' class
    /// shares, whose Bayes decision is the cheapest constant one; or "isotonic").
    std::string predictiveCalibration;
    std::vector<double> predictiveScale, predictiveShift;
    /// "isotonic" (two classes): p(second class) becomes the piecewise-linear map through
    /// these knots (x increasing, both in [0, 1]), clipped outside them.
    std::vector<double> isotonicX, isotonicY;
    /// The decision rule a run kept, saved as one model (`correct --out`'s kept_rule.pt):
    /// "q" (the residual network), "P" or a calibration's name. For any rule but q the
    /// network is a single linear layer of zeros, f(x) = 0, so forward(x, p) is P or the
    /// calibrated P. Empty: the file is a network as trained, not a kept rule.
    std::string decisionRule;
    /// The weights file this sidecar belongs to: its size and FNV-1a 64 checksum (hex).
    uint64_t weightsBytes = 0;
    std::string weightsChecksum;
    /// Sidecar version 3 and later: the weights file is a TorchScript module with a
    /// forward (io/torchscript.h); version 2 files hold a LibTorch archive of weights.
    bool torchScript = true;

    /// The input shape x has after its batch dimension: inputShape, or {inputs}.
    std::vector<int64_t> inputDims() const;
    /// What the forward returns, as the sidecar says it.
    std::string outputMeaning() const;

    /// Number of float parameters of an MLP (weights and biases); -1 for other networks.
    int64_t parameterCount() const;
};

std::string modelInfoToJson(const ModelInfo& info);
/// Strict reader: every field typed and range-checked, unknown fields refused, the
/// architecture capped and required to fit in the recorded weights size. Throws
/// InputError naming `source` and the field.
ModelInfo modelInfoFromJson(const std::string& text, const std::string& source);

/// FNV-1a 64-bit checksum of `bytes` as 16 hex digits (offset basis 14695981039346656037,
/// as every FNV tool computes it). Version 2 sidecars were written with a basis missing
/// its last digit (1469598103934665603): `version2` reproduces that to read them.
std::string checksumHex(const std::string& bytes, bool version2 = false);

} // namespace lcs
