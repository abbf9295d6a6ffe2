#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <ATen/core/Generator.h>
#include <ATen/core/Tensor.h>

/// Labelled image sets as tensors (MNIST-like IDX folders and CIFAR-10 binary folders),
/// and the transforms the paper's image experiments use: label corruption, rotation,
/// augmented copies for the calibration set D', and input noise.
namespace lcs {

struct ImageSet {
    at::Tensor images;  ///< [N, C, H, W] float32, standardised with the training set's statistics
    at::Tensor labels;  ///< [N] int64
    int64_t size() const { return labels.defined() ? labels.size(0) : 0; }
};

/// A dataset source: what a model and a cost matrix need to know about the data.
struct ImageDataset {
    std::string name;                     ///< "fashion-mnist", "cifar10", or the folder's path
    std::vector<std::string> classNames;
    std::vector<int64_t> inputShape;      ///< {C, H, W}
    int64_t ignoreLabel = -1;             ///< none for classification
    std::vector<double> channelMean, channelStd;  ///< the standardisation applied
    ImageSet train, test;
    int64_t classes() const { return static_cast<int64_t>(classNames.size()); }
    int64_t inputSize() const;
};

struct ImageDataLimits {
    int64_t maxTrain = 0;  ///< 0 = all; else a seeded random subset of this many
    int64_t maxTest = 0;
    uint64_t subsetSeed = 0;
    /// A preview: keep this fraction (rounded up) of each split after the limits above;
    /// the rows kept are among those the full run keeps (the same seeded order, cut
    /// shorter). 1 = everything.
    double fraction = 1;
};

/// `spec` is a folder (an IDX folder with train-/t10k- images and labels, gzip or not,
/// or a CIFAR-10 binary folder) or a name: "fashion-mnist" (Debian's
/// /usr/share/datasets/fashion-mnist), "mnist" (/usr/share/datasets/mnist, or
/// $LCS_MNIST_DIR), "cifar10" ($LCS_CIFAR10_DIR). Throws InputError naming what is missing.
ImageDataset loadImageDataset(const std::string& spec, const ImageDataLimits& limits = {});
/// The folder `spec` names: the folder itself, or that of fashion-mnist, mnist
/// ($LCS_MNIST_DIR) or cifar10 ($LCS_CIFAR10_DIR). Throws InputError when there is none.
std::string imageDataFolder(const std::string& spec);

/// An IDX folder: {train,t10k}-{images-idx3,labels-idx1}-ubyte, each optionally `.gz`.
/// Class names from `classes.txt` (one per line) when present, Fashion-MNIST's names
/// when the folder's name says fashion, else the digits.
ImageDataset loadIdxDataset(const std::string& dir, const ImageDataLimits& limits = {});
ImageDataset loadCifar10Dataset(const std::string& dir, const ImageDataLimits& limits = {});

/// Images [N, H, W] bytes and labels [N] from two IDX files, checked against each other.
ImageSet imageSetFromIdx(const std::string& imagesPath, const std::string& labelsPath, int64_t classes);

/// The paper's label corruption: round(rate * N) training points, chosen uniformly
/// without replacement, get a label drawn uniformly from all classes (which may equal the
/// true one). Returns the new labels; `labels` is not modified.
at::Tensor corruptLabels(const at::Tensor& labels, double rate, int64_t classes, at::Generator& generator);

/// Rotates each image [N, C, H, W] about its centre by anglesDegrees[n] (counter-clockwise),
/// bilinear, zero (= mean after standardisation) outside the image.
at::Tensor rotateImages(const at::Tensor& images, const at::Tensor& anglesDegrees);

/// N angles uniform in [-maxDegrees, maxDegrees].
at::Tensor randomAngles(int64_t n, double maxDegrees, at::Generator& generator);

/// `copies` randomly rotated copies of every image, stacked copy-major: [copies * N, ...].
at::Tensor rotatedCopies(const at::Tensor& images, int copies, double maxDegrees, at::Generator& generator);

} // namespace lcs
