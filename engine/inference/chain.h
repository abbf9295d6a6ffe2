#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <ATen/core/Generator.h>
#include <ATen/core/Tensor.h>

#include "engine/core/job.h"
#include "engine/inference/methods.h"
#include "engine/models/mlp.h"

/// The one SG-MCMC loop (SGHMC, and SGLD at momentum 0) for every network and experiment:
/// the synthetic experiment's MLPs through the fast path, the image and segmentation
/// networks through autograd (with online distillation of a student alongside).
namespace lcs {

/// What differs between the networks a chain samples: how the minibatch potential and
/// its gradient are computed.
class ChainNetwork {
public:
    virtual ~ChainNetwork() = default;
    /// The tensors the sampler moves.
    virtual std::vector<at::Tensor> parameters() = 0;
    /// The minibatch's mean negative log-likelihood (plus whatever extra potential the
    /// network adds), with its gradient in parameters()' .grad(), replacing what was
    /// there (the chain does not zero them between steps). The prior enters through the
    /// sampler (SghmcOptions), not here.
    virtual double potentialAndGradient(const at::Tensor& x, const at::Tensor& y) = 0;
    /// Class probabilities of the current sample on the CPU, in inference mode.
    virtual at::Tensor probabilities(const at::Tensor& x) = 0;
};

/// The first five fields are the sampler's own options, in the order SGHMC's and SGLD
/// distillation's configs brace-initialise them; the schedule (steps, burn-in, thinning,
/// kept) is set after.
struct ChainConfig {
    double learningRate = 0.1;    ///< see SghmcOptions
    double momentum = 0.5;        ///< 0 = SGLD
    double priorPrecision = 1.0;
    double temperature = 1.0;
    int batchSize = 0;            ///< 0 = the whole training set each step, in order
    long long steps = 0;          ///< sampler steps in all, in epochs of shuffled minibatches
    long long burnIn = 0;         ///< steps before the first sample
    long long thinning = 1;       ///< steps between samples after burn-in
    int keepLast = 0;             ///< the predictive averages the last this many samples; 0 = all
};

struct ChainEpoch {
    int epoch = 0;
    double nll = 0;               ///< mean potential over the epoch's steps
    double extra = 0;             ///< mean of what afterStep returned (e.g. the student's loss)
};

struct ChainHooks {
    /// After every sampler step, with the minibatch's indices into the training set
    /// (undefined for the whole set); returns a figure to report (e.g. a student's
    /// loss after its own step), or NaN for none.
    std::function<double(const at::Tensor& index, long long step, long long total)> afterStep;
    /// Before sampler step `step` (1-based): standard normals for its noise, one per
    /// parameter element (Sghmc::useStandardNoise), drawn elsewhere; null for the
    /// sampler's own draws.
    std::function<const float*(long long step, int64_t count)> standardNoise;
    /// As each epoch starts: its minibatches' indices into the training set, for sampler
    /// steps firstStep, firstStep + 1, ... (1-based); not called for whole-set steps.
    std::function<void(long long firstStep, const std::vector<at::Tensor>& batches)> epochBatches;
    /// Sampler step `step`'s inputs, the training set's rows `index`, where another thread
    /// gathered them ahead; an undefined tensor for the chain to gather them itself.
    std::function<at::Tensor(long long step, const at::Tensor& index)> minibatchRows;
    /// Every collected sample: the step it was taken at and its probabilities on evalInputs.
    std::function<void(long long step, const at::Tensor& probs)> onSample;
    std::function<void(int epoch)> onEpoch;
    std::string extraName;        ///< what afterStep's figure is, for progress ("student")
};

struct ChainRun {
    at::Tensor predictive;        ///< mean of the kept samples' probabilities on evalInputs
    int samplesKept = 0;
    std::vector<ChainEpoch> epochs;
    double seconds = 0;
};

/// The fast path's network for an Mlp: its parameters as one flat tensor (while the
/// returned object lives), the NLL's gradient by hand (fastpath/mlp_backward.h).
std::unique_ptr<ChainNetwork> mlpChainNetwork(Mlp model);

/// Runs config.steps sampler steps on `data` and averages the samples' predictive on
/// evalInputs. A chain too short to reach a sample uses its last state. Reports progress
/// under `phase` about 100 times and honours cancellation.
ChainRun runChain(ChainNetwork& network, const TrainingSet& data, const at::Tensor& evalInputs,
                  const ChainConfig& config, at::Generator& generator, const JobContext& ctx,
                  const std::string& phase, const ChainHooks& hooks = {});

} // namespace lcs
