#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <ATen/core/Generator.h>
#include <ATen/core/Tensor.h>

#include "calibration/correction.h"
#include "core/job.h"
#include "decision/cost_matrix.h"
#include "inference/methods.h"
#include "models/classifier.h"

/// Training for any Classifier with autograd: SGD and class-weighted
/// SGD, SGLD/SGHMC with online distillation into a student S (Bayesian dark knowledge),
/// the loss-calibrated sampler LC-SGLD/LC-SGHMC, and the correction q on S or on a
/// stored predictive. Inputs are tensors [N, ...] on the CPU; networks may live on CUDA.
namespace lcs {

enum class LrSchedule { Constant, OneCycle, Cosine };

/// The learning rate at `step` (0-based) of `total` steps. OneCycle is PyTorch's
/// OneCycleLR with its defaults: from maxLr/25 up to maxLr over the first 30% of steps,
/// then down to maxLr/(25 * 1e4), both halves cosine-shaped. Cosine anneals maxLr to 0.
double scheduledLearningRate(LrSchedule schedule, double maxLr, long long step, long long total);

/// Rows of class scores: [N, C] as it is, per-pixel [N, C, H, W] as [N*H*W, C].
at::Tensor classRows(const at::Tensor& t);

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

struct SgdConfig {
    int epochs = 1;
    int batchSize = 64;
    double learningRate = 0.05;     ///< peak learning rate of the schedule
    LrSchedule schedule = LrSchedule::OneCycle;
    double momentum = 0.9;
    double weightDecay = 1e-4;
    std::vector<double> classWeights;  ///< empty: plain cross-entropy; else CW-SGD
    int64_t ignoreLabel = -1;          ///< segmentation: the void label
    bool flips = false;                ///< random left-right flips of each batch (images)
};

/// Minibatch SGD on (weighted) cross-entropy; trains `model` in place.
void trainSgd(ClassifierImpl& model, const TrainingSet& data, const SgdConfig& config, at::Generator& generator,
              const JobContext& ctx, const std::string& phase = "sgd", const EpochCallback& onEpoch = {});

/// Makes a perturbed batch of the calibration/distillation set D' from clean inputs.
using InputPerturbation = std::function<at::Tensor(const at::Tensor& clean, at::Generator& generator)>;

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
    SgdConfig student;              ///< its optimiser; epochs are the teacher's
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
/// distillation: per minibatch one sampler step on D, then one student step on a
/// perturbed batch of D' (`calibrationInputs`, drawn uniformly, through `perturb`) with
/// loss -sum_y p_teacher(y|x') log S(y|x'). onEpoch sees the student (the teacher
/// without distillation).
SgldDistillationResult runSgldDistillation(const ModelSpec& spec, const ClassifierImpl& initial,
                                           const TrainingSet& data, const at::Tensor& calibrationInputs,
                                           const InputPerturbation& perturb, const at::Tensor& evalInputs,
                                           const SgldDistillationConfig& config, at::Generator& generator,
                                           const JobContext& ctx, const std::string& phase = "sgld",
                                           const EpochCallback& onEpoch = {});

struct ImageCorrectionConfig {
    int epochs = 1;                 ///< passes over D'
    int batchSize = 64;
    double learningRate = 0.05;     ///< peak of the one-cycle schedule
    LrSchedule schedule = LrSchedule::OneCycle;
    double momentum = 0.9;
    double weightDecay = 0.0;
    double inputNoiseStd = 0.01;    ///< N(0, s^2) on calibration inputs, as the authors do
    /// Train q with dropout off and BatchNorm on its running statistics, i.e. as the
    /// deterministic network that makes the decisions. The objective compares q with S
    /// in S's inference mode, so this trains the function that is scored; with dropout on,
    /// q's decision c flickers between steps on every uncertain input.
    bool inferenceMode = false;
    /// How each input's decision c is chosen. false: the Bayes decision under the current
    /// q (the paper's coordinate step). true: the decision that minimises the objective
    /// jointly with q(.|x), i.e. the Bayes decision under p with the costs 1 - exp(-L/M)
    /// (correctionOptimumCosts), fixed per input. Warm-started from S, the coordinate step
    /// returns S's own decision on nearly every input (q boosts whatever it decides), so q
    /// moves only through the network's spill-over; the joint step aims q at the
    /// objective's optimum instead.
    bool jointDecision = false;
};

struct ImageCorrectionResult {
    Classifier q;
    std::vector<CorrectionStep> curve;  ///< one entry per epoch (means over its steps)
    bool collapsed = false;             ///< see decisionsCollapsed
    double seconds = 0;
};

/// Where the predictive p that q corrects comes from: the student S (amortised,
/// evaluated on the same noisy inputs as q), or a stored predictive [N', C] aligned with
/// the calibration inputs (the MC average, no S).
struct PredictiveSource {
    ClassifierImpl* student = nullptr;
    at::Tensor stored;
};

/// Trains q, warm-started from `warmStart` (copied), on the correction objective of
/// the correction objective (calibration/correction.h) over D' with SGD momentum and a one-cycle schedule.
ImageCorrectionResult trainImageCorrection(const ModelSpec& spec, const ClassifierImpl& warmStart,
                                           const at::Tensor& calibrationInputs, const PredictiveSource& source,
                                           const CostMatrix& costs, const ImageCorrectionConfig& config,
                                           at::Generator& generator, const JobContext& ctx,
                                           const std::string& phase = "correction", const EpochCallback& onEpoch = {});

} // namespace lcs
