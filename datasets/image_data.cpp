#include "datasets/image_data.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>


#include <ATen/ATen.h>

#include "base/core/atomic_file.h"
#include "base/core/input_error.h"
#include "base/core/number_format.h"
#include "datasets/cifar_reader.h"
#include "datasets/file_checks.h"
#include "datasets/idx_reader.h"

namespace lcs {
namespace {

/// `base` or `base.gz`, whichever exists.
std::string idxPath(const std::string& dir, const std::string& base)
{
    if (isRegularFile(dir + "/" + base))
        return dir + "/" + base;
    if (isRegularFile(dir + "/" + base + ".gz"))
        return dir + "/" + base + ".gz";
    throw InputError(dir + ": " + base + " (or " + base + ".gz) is missing; an MNIST-like folder holds "
                           "train-images-idx3-ubyte, train-labels-idx1-ubyte, t10k-images-idx3-ubyte and "
                           "t10k-labels-idx1-ubyte");
}

std::vector<std::string> fashionMnistNames()
{
    return {"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot"};
}

/// A seeded subset of at most `limit` rows (all rows, in order, when limit is 0 or larger).
ImageSet subset(ImageSet set, int64_t limit, uint64_t seed)
{
    if (limit <= 0 || limit >= set.size())
        return set;
    auto generator = at::make_generator<at::CPUGeneratorImpl>(seed);
    auto index = std::get<0>(at::randperm(set.size(), generator, at::kLong).slice(0, 0, limit).sort());
    return {set.images.index_select(0, index), set.labels.index_select(0, index)};
}

/// Standardises both sets per channel with the training set's mean and std.
void standardise(ImageDataset& data)
{
    // In place, one channel at a time: the training set is the largest thing a run holds
    // (188 MB of Fashion-MNIST as float), and a standardised copy beside it doubled that.
    const auto channels = data.train.images.size(1);
    data.channelMean.clear();
    data.channelStd.clear();
    for (int64_t c = 0; c < channels; ++c) {
        auto train = data.train.images.select(1, c);
        const double mean = train.mean().item<double>();
        const double std = std::max(train.std().item<double>(), 1e-6);
        data.channelMean.push_back(mean);
        data.channelStd.push_back(std);
        for (auto* images : {&data.train.images, &data.test.images})
            if (images->numel() > 0)
                images->select(1, c).sub_(mean).div_(std);
    }
}

/// The rows a limit of `limit` (0: none) keeps of `size`, times `fraction`, rounded up.
int64_t previewLimit(int64_t size, int64_t limit, double fraction)
{
    if (!(fraction > 0 && fraction <= 1))
        throw InputError("the preview fraction " + formatNumber(fraction) + " is not in (0, 1]");
    const int64_t kept = limit > 0 ? std::min(limit, size) : size;
    return fraction == 1 ? limit : std::max<int64_t>(1, static_cast<int64_t>(std::ceil(fraction * static_cast<double>(kept))));
}

void finish(ImageDataset& data, const ImageDataLimits& limits)
{
    // One seeded permutation per split, cut at the limit: a preview's rows are the first
    // of the full run's.
    data.train = subset(data.train, previewLimit(data.train.size(), limits.maxTrain, limits.fraction),
                        limits.subsetSeed * 2 + 1);
    data.test = subset(data.test, previewLimit(data.test.size(), limits.maxTest, limits.fraction),
                       limits.subsetSeed * 2 + 2);
    standardise(data);
    data.inputShape = {data.train.images.size(1), data.train.images.size(2), data.train.images.size(3)};
}

std::vector<std::string> readClassNames(const std::string& path, size_t expected)
{
    const auto text = readFile(path, 1 << 16);
    std::vector<std::string> names;
    size_t start = 0;
    while (start < text.size()) {
        auto end = text.find('\n', start);
        if (end == std::string::npos)
            end = text.size();
        auto line = text.substr(start, end - start);
        while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t'))
            line.pop_back();
        if (!line.empty())
            names.push_back(line);
        start = end + 1;
    }
    if (names.size() != expected)
        throw InputError(path + ": " + std::to_string(names.size()) + " class names, but the labels have " +
                         std::to_string(expected) + " classes");
    return names;
}

} // namespace

int64_t ImageDataset::inputSize() const
{
    int64_t n = 1;
    for (auto d : inputShape)
        n *= d;
    return n;
}

ImageSet imageSetFromIdx(const std::string& imagesPath, const std::string& labelsPath, int64_t classes)
{
    const auto images = readIdxFile(imagesPath);
    const auto labels = readIdxFile(labelsPath);
    if (images.shape.size() != 3)
        throw InputError(imagesPath + ": an image file needs 3 dimensions (count, rows, columns), this one has " +
                         std::to_string(images.shape.size()));
    if (labels.shape.size() != 1)
        throw InputError(labelsPath + ": a label file needs 1 dimension, this one has " +
                         std::to_string(labels.shape.size()));
    if (images.shape[0] != labels.shape[0])
        throw InputError(imagesPath + " holds " + std::to_string(images.shape[0]) + " images but " + labelsPath +
                         " holds " + std::to_string(labels.shape[0]) + " labels");
    for (size_t i = 0; i < labels.values.size(); ++i)
        if (labels.values[i] >= classes)
            throw InputError(labelsPath + ": label " + std::to_string(labels.values[i]) + " of item " +
                             std::to_string(i + 1) + " is out of range (0.." + std::to_string(classes - 1) + ")");
    ImageSet set;
    const auto n = images.shape[0];
    set.images = at::from_blob(const_cast<uint8_t*>(images.values.data()), {n, 1, images.shape[1], images.shape[2]},
                               at::kByte)
                     .to(at::kFloat)
                     .div_(255.0);
    set.labels = at::from_blob(const_cast<uint8_t*>(labels.values.data()), {n}, at::kByte).to(at::kLong);
    return set;
}

ImageDataset loadIdxDataset(const std::string& dir, const ImageDataLimits& limits)
{
    if (!isDirectory(dir))
        throw InputError(dir + ": no such directory");
    constexpr int64_t classes = 10;
    ImageDataset data;
    data.name = dir;
    data.train = imageSetFromIdx(idxPath(dir, "train-images-idx3-ubyte"), idxPath(dir, "train-labels-idx1-ubyte"),
                                 classes);
    data.test = imageSetFromIdx(idxPath(dir, "t10k-images-idx3-ubyte"), idxPath(dir, "t10k-labels-idx1-ubyte"),
                                classes);
    if (data.train.images.sizes().slice(1) != data.test.images.sizes().slice(1))
        throw InputError(dir + ": training and test images differ in size");
    if (isRegularFile(dir + "/classes.txt")) {
        data.classNames = readClassNames(dir + "/classes.txt", classes);
    } else if (dir.find("fashion") != std::string::npos) {
        data.classNames = fashionMnistNames();
    } else {
        for (int64_t k = 0; k < classes; ++k)
            data.classNames.push_back(std::to_string(k));
    }
    finish(data, limits);
    return data;
}

ImageDataset loadCifar10Dataset(const std::string& dir, const ImageDataLimits& limits)
{
    ImageDataset data;
    data.name = dir;
    auto toSet = [](const CifarData& raw) {
        const auto n = static_cast<int64_t>(raw.batch.size());
        ImageSet set;
        set.images = at::from_blob(const_cast<uint8_t*>(raw.batch.pixels.data()),
                                   {n, kCifarChannels, kCifarSide, kCifarSide}, at::kByte)
                         .to(at::kFloat)
                         .div_(255.0);
        set.labels = at::from_blob(const_cast<uint8_t*>(raw.batch.labels.data()), {n}, at::kByte).to(at::kLong);
        return set;
    };
    const auto train = readCifarDirectory(dir, CifarSplit::Train);
    const auto test = readCifarDirectory(dir, CifarSplit::Test);
    data.classNames = train.classNames;
    data.train = toSet(train);
    data.test = toSet(test);
    finish(data, limits);
    return data;
}

std::string imageDataFolder(const std::string& spec)
{
    if (spec.empty())
        throw InputError("no data given (a folder, fashion-mnist, mnist or cifar10)");
    auto fromEnv = [](const char* variable) -> std::string {
        const char* value = std::getenv(variable);
        return value ? value : "";
    };
    std::string dir = spec;
    if (spec == "fashion-mnist") {
        dir = "/usr/share/datasets/fashion-mnist";
        if (!isDirectory(dir))
            throw InputError("fashion-mnist: " + dir + " is missing; install Debian's dataset-fashion-mnist "
                                                       "package or give the folder with --data DIR");
    } else if (spec == "mnist") {
        dir = fromEnv("LCS_MNIST_DIR");
        if (dir.empty())
            dir = "/usr/share/datasets/mnist";
        if (!isDirectory(dir))
            throw InputError("mnist: no MNIST folder (" + dir + "); give the folder with --data DIR or set "
                                                                 "LCS_MNIST_DIR");
    } else if (spec == "cifar10") {
        dir = fromEnv("LCS_CIFAR10_DIR");
        if (dir.empty())
            throw InputError("cifar10: no CIFAR-10 folder; give the cifar-10-batches-bin folder with --data DIR "
                             "or set LCS_CIFAR10_DIR");
    }
    if (!isDirectory(dir))
        throw InputError(dir + ": no such directory");
    return dir;
}

ImageDataset loadImageDataset(const std::string& spec, const ImageDataLimits& limits)
{
    const std::string dir = imageDataFolder(spec);
    ImageDataset data;
    if (isRegularFile(dir + "/test_batch.bin") || isRegularFile(dir + "/data_batch_1.bin"))
        data = loadCifar10Dataset(dir, limits);
    else if (isRegularFile(dir + "/train-images-idx3-ubyte") || isRegularFile(dir + "/train-images-idx3-ubyte.gz") ||
             isRegularFile(dir + "/t10k-images-idx3-ubyte") || isRegularFile(dir + "/t10k-images-idx3-ubyte.gz"))
        data = loadIdxDataset(dir, limits);
    else
        throw InputError(dir + ": neither an MNIST-like IDX folder (train-images-idx3-ubyte[.gz], ...) nor a "
                               "CIFAR-10 binary folder (data_batch_1.bin, test_batch.bin)");
    data.name = spec == dir ? dir : spec;
    return data;
}

at::Tensor corruptLabels(const at::Tensor& labels, double rate, int64_t classes, at::Generator& generator)
{
    if (!(rate >= 0.0 && rate <= 1.0))
        throw InputError("corruption rate " + std::to_string(rate) + " is outside [0, 1]");
    auto out = labels.clone();
    const auto n = labels.size(0);
    const auto count = static_cast<int64_t>(std::llround(rate * static_cast<double>(n)));
    if (count == 0)
        return out;
    const auto chosen = at::randperm(n, generator, at::kLong).slice(0, 0, count);
    const auto random = at::randint(classes, {count}, generator, at::kLong);
    out.index_put_({chosen}, random);
    return out;
}

at::Tensor rotateImages(const at::Tensor& images, const at::Tensor& anglesDegrees)
{
    const auto n = images.size(0);
    const auto radians = anglesDegrees.to(at::kFloat) * static_cast<float>(M_PI / 180.0);
    const auto c = radians.cos();
    const auto s = radians.sin();
    // affine_grid maps output coordinates to input ones in normalised [-1, 1] space with
    // y pointing down; sampling the input at R(-theta) of each output point rotates the
    // image by +theta counter-clockwise as seen on screen. Square images only keep the
    // angle exact (normalised x and y have the same scale).
    auto theta = at::zeros({n, 2, 3}, at::kFloat);
    theta.select(2, 0).select(1, 0).copy_(c);
    theta.select(2, 1).select(1, 0).copy_(-s);
    theta.select(2, 0).select(1, 1).copy_(s);
    theta.select(2, 1).select(1, 1).copy_(c);
    const auto grid = at::affine_grid_generator(theta.to(images.device()), images.sizes(), false);
    return at::grid_sampler(images, grid, /*bilinear*/ 0, /*zeros*/ 0, false);
}

at::Tensor randomAngles(int64_t n, double maxDegrees, at::Generator& generator)
{
    return at::empty({n}, at::kFloat).uniform_(-maxDegrees, maxDegrees, generator);
}

at::Tensor rotatedCopies(const at::Tensor& images, int copies, double maxDegrees, at::Generator& generator)
{
    std::vector<at::Tensor> parts;
    for (int k = 0; k < copies; ++k)
        parts.push_back(rotateImages(images, randomAngles(images.size(0), maxDegrees, generator)));
    return at::cat(parts, 0);
}

} // namespace lcs
