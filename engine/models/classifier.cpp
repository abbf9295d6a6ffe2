#include "engine/models/classifier.h"

#include <cmath>
#include <stdexcept>

#include <torch/torch.h>

#include "base/models/architectures.h"
#include "engine/models/segnet.h"

namespace lcs {

FlatMlpImpl::FlatMlpImpl(int64_t inputs, std::vector<int64_t> hidden, int64_t classes)
{
    mlp = register_module("mlp", Mlp(inputs, std::move(hidden), classes));
}

torch::Tensor FlatMlpImpl::forward(torch::Tensor x)
{
    return mlp->forward(x.flatten(1));
}

BasicBlockImpl::BasicBlockImpl(int64_t in, int64_t out, int64_t stride)
{
    using namespace torch::nn;
    conv1 = register_module("conv1", Conv2d(Conv2dOptions(in, out, 3).stride(stride).padding(1).bias(false)));
    bn1 = register_module("bn1", BatchNorm2d(out));
    conv2 = register_module("conv2", Conv2d(Conv2dOptions(out, out, 3).stride(1).padding(1).bias(false)));
    bn2 = register_module("bn2", BatchNorm2d(out));
    shortcut = register_module("shortcut", Sequential());
    if (stride != 1 || in != out) {
        shortcut->push_back(Conv2d(Conv2dOptions(in, out, 1).stride(stride).bias(false)));
        shortcut->push_back(BatchNorm2d(out));
    }
}

torch::Tensor BasicBlockImpl::forward(torch::Tensor x)
{
    auto y = torch::relu(bn1->forward(conv1->forward(x)));
    y = bn2->forward(conv2->forward(y));
    return torch::relu(y + (shortcut->is_empty() ? x : shortcut->forward(x)));
}

ResNet18Impl::ResNet18Impl(int64_t inChannels, int64_t classes, int64_t width)
{
    using namespace torch::nn;
    stem = register_module("stem", Conv2d(Conv2dOptions(inChannels, width, 3).stride(1).padding(1).bias(false)));
    stemBn = register_module("stem_bn", BatchNorm2d(width));
    stages = register_module("stages", Sequential());
    int64_t in = width;
    for (int stage = 0; stage < 4; ++stage) {
        const int64_t out = width << stage;
        stages->push_back(BasicBlock(in, out, stage == 0 ? 1 : 2));
        stages->push_back(BasicBlock(out, out, 1));
        in = out;
    }
    head = register_module("head", Linear(in, classes));
}

torch::Tensor ResNet18Impl::forward(torch::Tensor x)
{
    auto y = torch::relu(stemBn->forward(stem->forward(x)));
    y = stages->forward(y);
    y = torch::adaptive_avg_pool2d(y, {1, 1}).flatten(1);
    return head->forward(y);
}

Classifier ModelSpec::build(at::Generator& generator) const
{
    Classifier model;
    if (architecture == "mlp") {
        int64_t inputs = 1;
        for (auto d : inputShape)
            inputs *= d;
        model = std::make_shared<FlatMlpImpl>(inputs, hidden, classes);
    } else if (architecture == "resnet18") {
        if (inputShape.size() != 3)
            throw std::invalid_argument("resnet18 needs images [C, H, W]");
        model = std::make_shared<ResNet18Impl>(inputShape[0], classes, width);
    } else if (isSegNetArchitecture(architecture)) {
        if (inputShape.size() != 3)
            throw std::invalid_argument(architecture + " needs images [C, H, W]");
        model = makeSegNet(architecture, inputShape[0], classes, dropout);
    } else {
        throw std::invalid_argument("unknown architecture \"" + architecture + "\" (" + architectureNames() + ")");
    }
    initialiseFrom(*model, generator);
    torch::NoGradGuard noGrad;
    for (auto& m : model->modules(/*include_self=*/false)) {
        if (auto* conv = m->as<torch::nn::Conv2dImpl>()) {
            // Kaiming normal, fan_out, for ReLU (torchvision's ResNet initialisation).
            const auto& w = conv->weight;
            const double fanOut = static_cast<double>(w.size(0) * w.size(2) * w.size(3));
            w.normal_(0.0, std::sqrt(2.0 / fanOut), generator);
        } else if (auto* bn = m->as<torch::nn::BatchNorm2dImpl>()) {
            bn->weight.fill_(1.0);
            bn->bias.zero_();
        }
    }
    return model;
}

std::string ModelSpec::describe() const
{
    if (architecture == "mlp") {
        int64_t inputs = 1;
        for (auto d : inputShape)
            inputs *= d;
        std::string s = "mlp " + std::to_string(inputs);
        for (auto h : hidden)
            s += "-" + std::to_string(h);
        return s + "-" + std::to_string(classes);
    }
    if (architecture == "resnet18")
        return architecture + " width " + std::to_string(width);
    return architecture + (dropout > 0 ? " dropout " + std::to_string(dropout).substr(0, 4) : "");
}

void copyParametersAndBuffers(const torch::nn::Module& from, torch::nn::Module& to)
{
    torch::NoGradGuard noGrad;
    const auto source = from.named_parameters(true);
    auto target = to.named_parameters(true);
    if (source.size() != target.size())
        throw std::invalid_argument("copyParametersAndBuffers: networks differ in structure");
    for (auto& item : target) {
        const auto* s = source.find(item.key());
        if (!s || s->sizes() != item.value().sizes())
            throw std::invalid_argument("copyParametersAndBuffers: no matching parameter for " + item.key());
        item.value().copy_(*s);
    }
    const auto sourceBuffers = from.named_buffers(true);
    auto targetBuffers = to.named_buffers(true);
    for (auto& item : targetBuffers) {
        const auto* s = sourceBuffers.find(item.key());
        if (!s || s->sizes() != item.value().sizes())
            throw std::invalid_argument("copyParametersAndBuffers: no matching buffer for " + item.key());
        item.value().copy_(*s);
    }
}

Classifier cloneClassifier(const ModelSpec& spec, const ClassifierImpl& from)
{
    auto generator = makeGenerator(0);
    auto copy = spec.build(generator);
    auto device = from.parameters().empty() ? torch::kCPU : from.parameters().front().device();
    copy->to(device);
    copyParametersAndBuffers(from, *copy);
    copy->train(from.is_training());
    return copy;
}

at::Tensor predictClassProbabilities(ClassifierImpl& model, const at::Tensor& x, int64_t batchSize)
{
    torch::NoGradGuard noGrad;
    const bool wasTraining = model.is_training();
    model.eval();
    const auto device = model.parameters().empty() ? torch::Device(torch::kCPU) : model.parameters().front().device();
    std::vector<at::Tensor> parts;
    for (int64_t start = 0; start < x.size(0); start += batchSize) {
        const auto batch = x.slice(0, start, std::min(start + batchSize, x.size(0))).to(device);
        parts.push_back(torch::softmax(model.forward(batch), 1).to(torch::kCPU, torch::kFloat));
    }
    model.train(wasTraining);
    return parts.empty() ? at::empty({0, 0}) : torch::cat(parts, 0);
}

} // namespace lcs
