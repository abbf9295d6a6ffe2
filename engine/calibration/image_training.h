#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <ATen/core/Generator.h>
#include <ATen/core/Tensor.h>

#include "base/decision/cost_matrix.h"
#include "engine/calibration/correction.h"
#include "engine/core/job.h"
#include "engine/core/training_loop.h"
#include "engine/inference/methods.h"
#include "engine/models/classifier.h"

/// Training for any Classifier with autograd: SGD and class-weighted
/// SGD, SGLD/SGHMC with online distillation into a student S (Bayesian dark knowledge),
/// the loss-calibrated sampler LC-SGLD/LC-SGHMC, and the correction q on S or on a
/// stored predictive. Inputs are tensors [N, ...] on the CPU; networks may live on CUDA.
namespace lcs {

/// Class-weighted cross-entropy as PyTorch computes it with `weight=` and mean reduction:
///   sum_n w[y_n] (-log softmax(z_n)[y_n]) / sum_n w[y_n]
/// over the points (pixels of [N, C, H, W] logits with [N, H, W] labels) whose label is
/// not ignoreLabel. classWeights [C]; undefined means every weight 1.
at::Tensor weightedCrossEntropy(const at::Tensor& logits, const at::Tensor& labels, const at::Tensor& classWeights,
                                int64_t ignoreLabel = -1);

/// The loss-calibrated sampler's extra potential per point, averaged:
///   mean_n -log sum_y u(y, h*_n) p(y|x_n),  u = M - L,  h*_n = argmin_d sum_y p(y|x_n) L[y, d]
/// with h* held fixed (no gradient through the decision). costs [C, D].
at::Tensor utilityPotential(const at::Tensor& logits, const at::Tensor& costs, double utilityConstant);

/// Classes whose decision column is cheaper to get wrong than the others': the
/// "important" classes CW-SGD up-weights (columns 3 and 8 of the MNIST preset).
std::vector<int64_t> importantClasses(const CostMatrix& costs);

/// Called at the end of every epoch with the network being trained (for live test-set
/// curves); runs on the job's thread.
using EpochCallback = std::function<void(int epoch, ClassifierImpl& model)>;

/// Random augmentation of a batch of standardised images [N, C, H, W], one draw per
/// image, the same for the image and its label map (segmentation). Crops and jitter make
/// a network see each frame at other scales, places and exposures, as frames of another
/// sequence come.
struct ImageAugmentation {
    bool flips = false;      ///< left-right flip with probability 1/2
    /// Crop a share s ~ U[cropScale, 1] of the height and of the width (the same s, so
    /// the aspect ratio stays) at a uniform place and resize it back to H x W: images
    /// bilinear, label maps nearest. 1: no crops.
    double cropScale = 1.0;
    /// Exposure and contrast: x -> a x + b per image, a ~ U[1 - jitter, 1 + jitter] and
    /// b ~ U[-jitter, jitter] in units of the standardised inputs. 0: none.
    double jitter = 0.0;
    bool active() const { return flips || cropScale < 1.0 || jitter > 0.0; }
};

/// Replaces `x` [N, C, H, W] and `y` (label maps [N, H, W]; classifier labels [N] and an
/// undefined `y` are left alone) by an augmented copy; the tensors passed in are not
/// written. Flips alone draw exactly what the flips of earlier versions drew.
void augmentBatch(at::Tensor& x, at::Tensor& y, const ImageAugmentation& augmentation, at::Generator& generator);

struct SgdConfig {
    int epochs = 1;
    int batchSize = 64;
    double learningRate = 0.05;     ///< peak learning rate of the schedule
    LrSchedule schedule = LrSchedule::OneCycle;
    double momentum = 0.9;
    double weightDecay = 1e-4;
    std::vector<double> classWeights;  ///< empty: plain cross-entropy; else CW-SGD
    int64_t ignoreLabel = -1;          ///< segmentation: the void label
    ImageAugmentation augmentation;    ///< of each training batch (images)

    /// Named setters, so that a preset reads field by field on one line:
    /// SgdConfig().withEpochs(100).withLearningRate(0.05).withWeightDecay(5e-4).
    SgdConfig& withEpochs(int v) { epochs = v; return *this; }
    SgdConfig& withBatchSize(int v) { batchSize = v; return *this; }
    SgdConfig& withLearningRate(double v) { learningRate = v; return *this; }
    SgdConfig& withSchedule(LrSchedule v) { schedule = v; return *this; }
    SgdConfig& withWeightDecay(double v) { weightDecay = v; return *this; }
};

/// Minibatch SGD on (weighted) cross-entropy; trains `model` in place.
void trainSgd(ClassifierImpl& model, const TrainingSet& data, const SgdConfig& config, at::Generator& generator,
              const JobContext& ctx, const std::string& phase = "sgd", const EpochCallback& onEpoch = {});

struct SgldDistillationConfig {
    int epochs = 10;                ///< passes over D, one teacher step per minibatch
    int batchSize = 64;
    double learningRate = 1e-4;     ///< step on the minibatch mean NLL (see SghmcOptions)
    double momentum = 0.0;          ///< 0 = SGLD
    double priorPrecision = 6.0;
    double temperature = 1.0;
    long long burnInSteps = 1000;
    long long thinning = 1000;      ///< steps between collected samples after burn-in
    int keepSamples = 30;           ///< the predictive averages the last this many samples
    bool distil = true;             ///< train a student S alongside (one step per teacher step)
    SgdConfig student;              ///< its optimiser (epochs are the teacher's) and the augmentation of its D' batches
    double calibrationNoiseStd = 0; ///< D' = rows of the calibration inputs + N(0, this^2)
    /// Start S as a copy of the chain's initial network instead of a fresh one. For
    /// segmentation, a student trained from scratch for the chain's few epochs stays far
    /// behind the network the chain starts from (pixel accuracy 0.42 against 0.60 on
    /// CamVid val), and q can only correct the S it is given.
    bool studentFromInitial = false;
    /// LC-SGLD / LC-SGHMC: sample p(theta|D) G(h*|D), i.e. add utilityPotential to the
    /// minibatch potential. Not used when null.
    const CostMatrix* lossCalibration = nullptr;
    int64_t ignoreLabel = -1;       ///< segmentation: the void label
};

struct TrainingCurvePoint {
    std::string phase;
    int epoch = 0;
    double loss = 0;
    double studentLoss = 0;
};

struct SgldDistillationResult {
    Classifier teacher;             ///< the last sample
    Classifier student;             ///< S, null without distillation
    at::Tensor evalPredictive;      ///< [M, C] mean softmax of the kept samples on evalInputs
    int samplesKept = 0;
    std::vector<TrainingCurvePoint> curve;
    double seconds = 0;
    double secondsPerEpoch = 0;
};

/// SGLD (momentum 0) or SGHMC from `initial` (copied; e.g. a MAP network), with online
/// distillation: per minibatch one sampler step on D, then one student step on a batch
/// of D' (rows of `calibrationInputs` drawn uniformly, plus Gaussian noise of
/// config.calibrationNoiseStd) with loss -sum_y p_teacher(y|x') log S(y|x') against the
/// teacher after that sampler step. onEpoch sees the student (the teacher without
/// distillation).
///
/// MLP teacher and student on the CPU (without loss calibration) take the fast path:
/// hand-written gradients, the student's step on a second core alongside the teacher's
/// next sampler step (fastpath/mlp_distillation.h). Every other network runs through
/// autograd, one step after the other.
SgldDistillationResult runSgldDistillation(const ModelSpec& spec, const ClassifierImpl& initial,
                                           const TrainingSet& data, const at::Tensor& calibrationInputs,
                                           const at::Tensor& evalInputs, const SgldDistillationConfig& config, at::Generator& generator,
                                           const JobContext& ctx, const std::string& phase = "sgld",
                                           const EpochCallback& onEpoch = {});

/// q with its run: curves per step and per epoch, the collapse check, seconds.
struct ImageCorrectionResult : CorrectionRun {
    Classifier q;
};

/// Trains q, warm-started from `warmStart` (copied), with runCorrection and autograd.
/// onEpoch sees q at the end of every epoch.
ImageCorrectionResult trainImageCorrection(const ModelSpec& spec, const ClassifierImpl& warmStart,
                                           const at::Tensor& calibrationInputs, const PredictiveSource& source,
                                           const CostMatrix& costs, const CorrectionConfig& config,
                                           at::Generator& generator, const JobContext& ctx,
                                           const std::string& phase = "correction", const EpochCallback& onEpoch = {});

} // namespace lcs
