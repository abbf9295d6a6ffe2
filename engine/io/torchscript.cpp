#include "engine/io/torchscript.h"

#include <cmath>
#include <stdexcept>

#include <torch/torch.h>

#include "base/core/number_format.h"
#include "engine/models/segnet.h"

namespace lcs {

std::string scriptAttributeName(const std::string& dotted)
{
    std::string out;
    for (char c : dotted)
        out += c == '.' ? std::string("__") : std::string(1, c);
    return out;
}

namespace {

std::string intPair(const torch::ExpandingArray<2>& a)
{
    return "[" + std::to_string((*a)[0]) + ", " + std::to_string((*a)[1]) + "]";
}

/// Writes a forward pass line by line, naming the module's attributes as
/// scriptAttributeName does.
class ForwardSource {
public:
    void line(const std::string& text) { m_body += "    " + text + "\n"; }
    std::string source(bool withPredictive) const
    {
        return std::string(withPredictive ? "def forward(self, x, p):\n" : "def forward(self, x):\n") + m_body;
    }

    static std::string self(const std::string& dotted) { return "self." + scriptAttributeName(dotted); }

    static std::string linear(const std::string& prefix, const std::string& x)
    {
        return "torch.addmm(" + self(prefix + "bias") + ", " + x + ", " + self(prefix + "weight") + ".t())";
    }

    static std::string conv(const torch::nn::Conv2dImpl& c, const std::string& prefix, const std::string& x)
    {
        const auto* padding = c10::get_if<torch::ExpandingArray<2>>(&c.options.padding());
        if (!padding)
            throw std::invalid_argument("TorchScript export: a convolution with symbolic padding");
        return "torch.conv2d(" + x + ", " + self(prefix + "weight") + ", " +
               (c.options.bias() ? self(prefix + "bias") : std::string("None")) + ", " + intPair(c.options.stride()) +
               ", " + intPair(*padding) + ", " + intPair(c.options.dilation()) + ", " +
               std::to_string(c.options.groups()) + ")";
    }

    /// BatchNorm in eval mode: the running statistics, momentum unused.
    static std::string batchNorm(const torch::nn::BatchNorm2dImpl& b, const std::string& prefix, const std::string& x)
    {
        return "torch.batch_norm(" + x + ", " + self(prefix + "weight") + ", " + self(prefix + "bias") + ", " +
               self(prefix + "running_mean") + ", " + self(prefix + "running_var") + ", False, 0.0, " +
               formatNumber(b.options.eps()) + ", False)";
    }

    /// conv -> BatchNorm -> ReLU, as SegNet's stages and ResNet's stem.
    void convBnRelu(const torch::nn::Module& conv, const std::string& convPrefix, const torch::nn::Module& bn,
                    const std::string& bnPrefix)
    {
        line("x = torch.relu(" +
             batchNorm(*bn.as<torch::nn::BatchNorm2dImpl>(), bnPrefix,
                       ForwardSource::conv(*conv.as<torch::nn::Conv2dImpl>(), convPrefix, "x")) +
             ")");
    }

private:
    std::string m_body;
};

void writeMlp(const MlpImpl& mlp, ForwardSource& src)
{
    src.line("x = torch.flatten(x, 1)");
    const auto layers = mlp.linearLayers();
    for (size_t i = 0; i < layers.size(); ++i) {
        const auto affine = ForwardSource::linear("layers." + std::to_string(i) + ".", "x");
        src.line("x = " + (i + 1 < layers.size() ? "torch.relu(" + affine + ")" : affine));
    }
}

void writeResNet(const ResNet18Impl& net, ForwardSource& src)
{
    src.convBnRelu(*net.stem, "stem.", *net.stemBn, "stem_bn.");
    for (size_t k = 0; k < net.stages->size(); ++k) {
        const auto& block = *net.stages->ptr(k)->as<BasicBlockImpl>();
        const std::string p = "stages." + std::to_string(k) + ".";
        src.line("y = torch.relu(" + ForwardSource::batchNorm(*block.bn1, p + "bn1.", ForwardSource::conv(*block.conv1, p + "conv1.", "x")) + ")");
        src.line("y = " + ForwardSource::batchNorm(*block.bn2, p + "bn2.", ForwardSource::conv(*block.conv2, p + "conv2.", "y")));
        if (block.shortcut->is_empty()) {
            src.line("x = torch.relu(y + x)");
        } else {
            const auto& conv = *block.shortcut->ptr(0)->as<torch::nn::Conv2dImpl>();
            const auto& bn = *block.shortcut->ptr(1)->as<torch::nn::BatchNorm2dImpl>();
            src.line("x = torch.relu(y + " +
                     ForwardSource::batchNorm(bn, p + "shortcut.1.", ForwardSource::conv(conv, p + "shortcut.0.", "x")) +
                     ")");
        }
    }
    src.line("x = torch.mean(x, [2, 3])");  // adaptive average pooling to 1 x 1
    src.line("x = " + ForwardSource::linear("head.", "x"));
}

void writeSegNetStage(const SegNetStageImpl& stage, const std::string& prefix, ForwardSource& src)
{
    for (size_t i = 0; i + 1 < stage.layers->size(); i += 2)
        src.convBnRelu(*stage.layers->ptr(i), prefix + "layers." + std::to_string(i) + ".", *stage.layers->ptr(i + 1),
                       prefix + "layers." + std::to_string(i + 1) + ".");
}

void writeSegNet(const SegNetImpl& net, ForwardSource& src)
{
    const size_t stages = net.encoder->size();
    for (size_t s = 0; s < stages; ++s) {
        writeSegNetStage(*net.encoder->ptr(s)->as<SegNetStageImpl>(), "encoder." + std::to_string(s) + ".", src);
        const std::string n = std::to_string(s);
        src.line("size" + n + " = x.size()");
        src.line("x, index" + n + " = torch.max_pool2d_with_indices(x, [2, 2], [2, 2])");
    }
    for (size_t k = 0; k < stages; ++k) {
        const std::string level = std::to_string(stages - 1 - k);
        src.line("x = torch.max_unpool2d(x, index" + level + ", [size" + level + "[2], size" + level + "[3]])");
        writeSegNetStage(*net.decoder->ptr(k)->as<SegNetStageImpl>(), "decoder." + std::to_string(k) + ".", src);
    }
    src.line("x = " + ForwardSource::conv(*net.classifier, "classifier.", "x"));
}

} // namespace

torch::jit::Module scriptClassifier(const torch::nn::Module& model, const ModelSpec& spec, const ModelInfo& info)
{
    const InputStandardisation standardisation{info.inputMean, info.inputStd};
    const auto& inputColumns = info.inputColumns;
    const bool residualOnPredictive = info.residualOnPredictive;
    torch::jit::Module script(c10::QualifiedName("__torch__.lcstudio.Classifier"));
    for (const auto& item : model.named_parameters())
        script.register_parameter(scriptAttributeName(item.key()), item.value().detach().to(torch::kCPU).clone(),
                                  /*is_buffer=*/false);
    for (const auto& item : model.named_buffers())
        script.register_buffer(scriptAttributeName(item.key()), item.value().detach().to(torch::kCPU).clone());

    ForwardSource src;
    if (const auto indicators = encodedIndicators(inputColumns); !indicators.empty()) {
        const auto fill = encodedFill(inputColumns);
        if (spec.inputShape.size() != 1 || static_cast<int64_t>(fill.size()) != spec.inputShape[0])
            throw std::invalid_argument("TorchScript export: the columns encode to " + std::to_string(fill.size()) +
                                        " features, the network takes another shape");
        std::vector<double> filled;  // every feature's fill, 0 where it has none (NaN stays NaN there)
        std::vector<int64_t> values, flags;
        for (double f : fill)
            filled.push_back(std::isnan(f) ? 0.0 : f);
        for (const auto& [value, flag] : indicators) {
            values.push_back(static_cast<int64_t>(value));
            flags.push_back(static_cast<int64_t>(flag));
        }
        script.register_buffer("missing_fill", torch::tensor(filled, torch::kDouble).to(torch::kFloat).reshape({1, -1}));
        script.register_buffer("missing_value_columns", torch::tensor(values, torch::kLong));
        script.register_buffer("missing_flag_columns", torch::tensor(flags, torch::kLong));
        // Only the imputing columns' NaN are filled: a NaN elsewhere stays and shows.
        src.line("missing = torch.isnan(x.index_select(1, self.missing_value_columns))");
        src.line("x = x.index_copy(1, self.missing_value_columns, torch.where(missing, "
                 "self.missing_fill.index_select(1, self.missing_value_columns), "
                 "x.index_select(1, self.missing_value_columns)))");
        src.line("x = x.index_copy(1, self.missing_flag_columns, torch.maximum(x.index_select(1, "
                 "self.missing_flag_columns), missing.to(x.dtype)))");
    }
    if (!standardisation.mean.empty()) {
        if (standardisation.mean.size() != standardisation.std.size() || spec.inputShape.empty() ||
            static_cast<int64_t>(standardisation.mean.size()) != spec.inputShape[0])
            throw std::invalid_argument("TorchScript export: one mean and std per input channel are needed");
        // Shaped to broadcast along dimension 1 of [N, C, ...].
        std::vector<int64_t> shape(spec.inputShape.size() + 1, 1);
        shape[1] = static_cast<int64_t>(standardisation.mean.size());
        const auto asTensor = [&](const std::vector<double>& v) {
            return torch::tensor(v, torch::kDouble).to(torch::kFloat).reshape(shape);
        };
        script.register_buffer("input_mean", asTensor(standardisation.mean));
        script.register_buffer("input_std", asTensor(standardisation.std));
        src.line("x = (x - self.input_mean) / self.input_std");
    }
    if (const auto* mlp = model.as<MlpImpl>())
        writeMlp(*mlp, src);
    else if (const auto* resnet = model.as<ResNet18Impl>())
        writeResNet(*resnet, src);
    else if (const auto* segnet = model.as<SegNetImpl>())
        writeSegNet(*segnet, src);
    else
        throw std::invalid_argument("TorchScript export: no writer for " + spec.describe());
    if (residualOnPredictive) {
        if (!model.as<MlpImpl>())
            throw std::invalid_argument("TorchScript export: a residual q must be an MLP");
        const auto row = [](const std::vector<double>& v) {
            return torch::tensor(v, torch::kDouble).to(torch::kFloat).reshape({1, static_cast<int64_t>(v.size())});
        };
        if (!info.predictiveScale.empty()) {
            if (info.predictiveScale.size() != info.predictiveShift.size())
                throw std::invalid_argument("TorchScript export: one calibration scale and shift per class");
            script.register_buffer("predictive_scale", row(info.predictiveScale));
            script.register_buffer("predictive_shift", row(info.predictiveShift));
            src.line("p = torch.softmax(self.predictive_scale * torch.log(torch.clamp(p, min=1e-12)) + "
                     "self.predictive_shift, 1)");
        } else if (!info.isotonicX.empty()) {
            if (info.isotonicX.size() != info.isotonicY.size() || spec.classes != 2)
                throw std::invalid_argument("TorchScript export: isotonic knots calibrate two classes, x and y alike");
            script.register_buffer("isotonic_x", row(info.isotonicX).reshape({-1}));
            script.register_buffer("isotonic_y", row(info.isotonicY).reshape({-1}));
            // Linear between the knots, clipped outside them (IsotonicMap): the knot at or
            // left of p1 and the one after it, the weight clamped to [0, 1].
            const std::string last = std::to_string(std::max<size_t>(info.isotonicX.size(), 2) - 1);
            src.line("p1 = p[:, 1].contiguous()");
            if (info.isotonicX.size() == 1) {
                src.line("c1 = torch.zeros_like(p1) + self.isotonic_y[0]");
            } else {
                src.line("hi = torch.clamp(torch.searchsorted(self.isotonic_x, p1, right=True), 1, " + last + ")");
                src.line("x0 = self.isotonic_x.index_select(0, hi - 1)");
                src.line("x1 = self.isotonic_x.index_select(0, hi)");
                src.line("y0 = self.isotonic_y.index_select(0, hi - 1)");
                src.line("y1 = self.isotonic_y.index_select(0, hi)");
                src.line("c1 = y0 + torch.clamp((p1 - x0) / (x1 - x0), 0.0, 1.0) * (y1 - y0)");
            }
            src.line("p = torch.stack([1.0 - c1, c1], 1)");
        }
        src.line("return torch.softmax(x + torch.log(torch.clamp(p, min=1e-12)), 1)");
    } else {
        src.line("return torch.softmax(x, 1)");
    }
    script.define(src.source(residualOnPredictive));
    return script;
}

} // namespace lcs
