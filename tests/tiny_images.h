#pragma once

#include <cstdint>

#include <ATen/ATen.h>

#include "datasets/image_data.h"
#include "engine/models/mlp.h"

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

/// An image experiment's config (CorruptionConfig, SelectiveConfig) cut to seconds on
/// tiny images: one hidden layer of `hidden` units, batches of 16, `epochs` epochs of the
/// MAP network and of `chain` (its SG-MCMC chain, keeping every step after 2 of burn-in),
/// `correctionEpochs` of q.
template <class Config, class Chain>
void shrinkImageRun(Config& c, Chain& chain, int64_t hidden, int epochs, int correctionEpochs)
{
    c.model.hidden = {hidden};
    c.map.epochs = epochs;
    c.map.batchSize = 16;
    chain.epochs = epochs;
    chain.batchSize = 16;
    chain.burnInSteps = 2;
    chain.thinning = 1;
    c.correction.epochs = correctionEpochs;
    c.correction.batchSize = 16;
}
