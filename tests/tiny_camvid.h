#pragma once

#include "engine/experiments/camvid/camvid_experiment.h"

/// CamVid training cut to seconds on a few tiny generated frames: `side` x `side`
/// pixels, every frame, batches of 2, SGHMC keeping every step after one of burn-in.
inline void shrinkCamvidTraining(lcs::CamvidTrainConfig& t, int side, int sgdEpochs, int sghmcEpochs,
                                 int correctionEpochs)
{
    t.height = side;
    t.width = side;
    t.maxFrames = 0;
    t.sgd.epochs = sgdEpochs;
    t.sgd.batchSize = 2;
    t.sghmc.epochs = sghmcEpochs;
    t.sghmc.batchSize = 2;
    t.sghmc.burnInSteps = 1;
    t.sghmc.thinning = 1;
    t.correction.epochs = correctionEpochs;
    t.correction.batchSize = 2;
}
