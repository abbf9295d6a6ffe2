#include "datasets/camvid_data.h"

#include <algorithm>
#include <cmath>

#include <ATen/ATen.h>

#include "base/core/input_error.h"

namespace lcs {

std::pair<at::Tensor, at::Tensor> camvidFrameTensors(const CamvidFrame& frame, const CamvidNormalisation& norm)
{
    const int64_t h = frame.height, w = frame.width;
    auto rgb = at::from_blob(const_cast<uint8_t*>(frame.rgb.data()), {h, w, 3}, at::kByte)
                   .permute({2, 0, 1})
                   .to(at::kFloat)
                   .div_(255.0);
    for (int c = 0; c < 3; ++c)
        rgb[c].sub_(norm.mean[static_cast<size_t>(c)]).div_(norm.std[static_cast<size_t>(c)]);
    auto labels = at::from_blob(const_cast<uint8_t*>(frame.labels.data()), {h, w}, at::kByte).to(at::kLong);
    return {rgb.contiguous(), labels};
}

CamvidSet loadCamvidSplit(const std::string& dir, const std::string& split, int height, int width,
                          const CamvidNormalisation& norm, int64_t maxFrames)
{
    auto pairs = findCamvidSplit(dir, split);
    if (maxFrames > 0 && static_cast<int64_t>(pairs.size()) > maxFrames)
        pairs.resize(static_cast<size_t>(maxFrames));
    std::vector<at::Tensor> images, labels;
    CamvidSet set;
    for (const auto& pair : pairs) {
        const auto frame = readCamvidFrame(pair, height, width);
        if (!images.empty() && (frame.height != images.front().size(1) || frame.width != images.front().size(2)))
            throw InputError(pair.image + ": " + std::to_string(frame.width) + "x" + std::to_string(frame.height) +
                             " differs from the split's first frame; give a size to resize to");
        auto [image, label] = camvidFrameTensors(frame, norm);
        images.push_back(image);
        labels.push_back(label);
        set.frames.push_back(pair.image);
    }
    set.images = at::stack(images);
    set.labels = at::stack(labels);
    return set;
}

CamvidNormalisation camvidNormalisation(const std::string& dir, const std::string& split, int height, int width,
                                        int64_t maxFrames)
{
    auto pairs = findCamvidSplit(dir, split);
    if (maxFrames > 0 && static_cast<int64_t>(pairs.size()) > maxFrames)
        pairs.resize(static_cast<size_t>(maxFrames));
    std::array<double, 3> sum{0, 0, 0}, sumSq{0, 0, 0};
    double count = 0;
    for (const auto& pair : pairs) {
        const auto frame = readCamvidFrame(pair, height, width);
        for (size_t i = 0; i < frame.rgb.size(); i += 3)
            for (size_t c = 0; c < 3; ++c) {
                const double v = frame.rgb[i + c] / 255.0;
                sum[c] += v;
                sumSq[c] += v * v;
            }
        count += static_cast<double>(frame.rgb.size() / 3);
    }
    CamvidNormalisation norm;
    for (size_t c = 0; c < 3; ++c) {
        norm.mean[c] = sum[c] / count;
        norm.std[c] = std::max(1e-3, std::sqrt(std::max(0.0, sumSq[c] / count - norm.mean[c] * norm.mean[c])));
    }
    return norm;
}

at::Tensor camvidDisplayImage(const at::Tensor& image, const CamvidNormalisation& norm)
{
    auto rgb = image.detach().to(at::kCPU, at::kFloat).clone();
    for (int c = 0; c < 3; ++c)
        rgb[c].mul_(norm.std[static_cast<size_t>(c)]).add_(norm.mean[static_cast<size_t>(c)]);
    return rgb.mul(255.0).round().clamp(0, 255).to(at::kByte).permute({1, 2, 0}).contiguous();
}

at::Tensor camvidColourise(const at::Tensor& labels)
{
    std::vector<uint8_t> palette;
    for (const auto& c : camvidColours())
        palette.insert(palette.end(), c.begin(), c.end());
    const auto table = at::from_blob(palette.data(), {kCamvidClasses, 3}, at::kByte).clone();
    const auto flat = labels.detach().to(at::kCPU, at::kLong).reshape({-1}).clamp(0, kCamvidClasses - 1);
    return table.index_select(0, flat).reshape({labels.size(0), labels.size(1), 3});
}

void requireLabelledPixels(const CamvidSet& set, const std::string& dir, const std::string& split)
{
    if (set.labels.numel() == 0 || set.labels.ne(kCamvidVoid).sum().item<int64_t>() == 0)
        throw InputError(dir + ": split \"" + split + "\" has no labelled pixel (every label is void, " +
                         std::to_string(kCamvidVoid) + "): there is nothing to train on");
}

} // namespace lcs
