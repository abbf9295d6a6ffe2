#pragma once

#include <cstdint>

#include <ATen/ATen.h>

#include "image_data.h"
#include "models/mlp.h"

/// Three classes of 1 x 4 x 4 "images" for the image experiments' tests: class k lights up
/// row k (plus noise), so every method can learn them in a few epochs.
inline lcs::ImageDataset tinyImages(int perClass, uint64_t seed)
{
    auto g = lcs::makeGenerator(seed);
    auto make = [&](int n) {
        auto labels = at::arange(3, at::kLong).repeat({n});
        auto images = at::randn({3 * n, 1, 4, 4}, g) * 0.5;
        for (int64_t i = 0; i < 3 * n; ++i)
            images[i][0][labels[i].item<int64_t>()] += 2.0;
        return lcs::ImageSet{images, labels};
    };
    lcs::ImageDataset d;
    d.name = "tiny";
    d.classNames = {"a", "b", "c"};
    d.inputShape = {1, 4, 4};
    d.channelMean = {0.5};
    d.channelStd = {0.25};
    d.train = make(perClass);
    d.test = make(perClass / 2);
    return d;
}
