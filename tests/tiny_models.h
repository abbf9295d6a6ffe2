#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "engine/calibration/image_training.h"
#include "engine/models/classifier.h"

/// A small MLP's spec: `inputShape` ({features} for points, {C, H, W} for images),
/// `classes` outputs, the given hidden widths.
inline lcs::ModelSpec mlpSpec(std::vector<int64_t> inputShape, int64_t classes, std::vector<int64_t> hidden)
{
    lcs::ModelSpec spec;
    spec.inputShape = std::move(inputShape);
    spec.classes = classes;
    spec.hidden = std::move(hidden);
    return spec;
}

/// An SGLD/SGHMC distillation run's schedule (the rest at SgldDistillationConfig's defaults).
inline lcs::SgldDistillationConfig distillationSchedule(int epochs, int batchSize, double learningRate,
                                                        long long burnInSteps, long long thinning)
{
    lcs::SgldDistillationConfig config;
    config.epochs = epochs;
    config.batchSize = batchSize;
    config.learningRate = learningRate;
    config.burnInSteps = burnInSteps;
    config.thinning = thinning;
    return config;
}
