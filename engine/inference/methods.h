#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <ATen/core/Generator.h>
#include <torch/nn/module.h>

#include "engine/core/job.h"
#include "engine/fastpath/bayes_mlp.h"
#include "engine/models/mlp.h"

/// Posterior approximations for MLP classifiers. Each run takes a labelled training set
/// (x [N, D] float, y [N] int64), the inputs on which the posterior predictive is needed
/// (evalInputs [M, D]), and returns the Monte Carlo predictive there.
namespace lcs {

/// Running average of softmax outputs over posterior samples: the
/// posterior predictive without keeping the samples.
class PredictiveAverage {
public:
    void add(const torch::Tensor& probs);
    int count() const { return m_count; }
    /// The average so far; throws when no sample was added.
    torch::Tensor mean() const;

private:
    torch::Tensor m_sum;
    int m_count = 0;
};

struct TrainingSet {
    torch::Tensor x;  ///< [N, D] float
    torch::Tensor y;  ///< [N] int64
};

struct MapConfig {
    int iterations = 2000;
    double learningRate = 0.01;   ///< Adam
    double priorPrecision = 1.0;
    int batchSize = 0;            ///< 0 = full batch
};

struct SgmcmcConfig {
    double learningRate = 0.1;
    double momentum = 0.5;        ///< 0 = SGLD
    double priorPrecision = 1.0;
    double temperature = 1.0;
    int burnIn = 300;
    int samples = 100;
    int thinning = 50;
    int batchSize = 0;            ///< 0 = full batch
};

struct BbviConfig {
    int iterations = 5000;
    double learningRate = 0.01;   ///< Adam
    BbviPrior prior;
    double initialLogVariance = -9.0;
    int samples = 100;            ///< weight samples for the predictive
    int batchSize = 0;
};

struct KfacConfig {
    MapConfig map;
    int fisherLabelDraws = 10;    ///< labels drawn from the model per input for G
    int samples = 100;
    /// Precision per layer (sqrt(N) A + sqrt(tau) I) (x) (sqrt(N) G + sqrt(tau) I),
    /// Ritter et al. 2018; N = scale, tau = norm.
    double scale = -1;            ///< < 0: the number of training points
    double norm = -1;             ///< < 0: the MAP prior precision
};

/// Result of an inference run: the predictive on evalInputs and, where the method has a
/// single network to show for itself (MAP, the BBVI means), that network.
struct InferenceOutput {
    torch::Tensor predictive;                     ///< [M, C] probabilities
    std::shared_ptr<torch::nn::Module> model;     ///< may be null
    double seconds = 0;
};

/// Mean NLL + tau/(2N) |theta|^2 with Adam; trains `model` in place.
void trainMap(Mlp& model, const TrainingSet& data, const MapConfig& config, at::Generator& generator,
              const JobContext& ctx, const std::string& phase = "map");

/// Sees every posterior sample runSgmcmc collects, in order: the sampler iteration it was
/// taken after (1-based, burn-in included, so burnIn + k * thinning for the k-th sample)
/// and its softmax probabilities on evalInputs [M, C]. Runs on the job's thread.
using SampleVisitor = std::function<void(long long iteration, const torch::Tensor& probs)>;

/// SGHMC or SGLD (momentum 0): burnIn steps, then `samples` draws, one every `thinning`
/// steps; the predictive is the mean of exactly those draws' softmax outputs.
InferenceOutput runSgmcmc(Mlp model, const TrainingSet& data, const torch::Tensor& evalInputs,
                          const SgmcmcConfig& config, at::Generator& generator, const JobContext& ctx,
                          const std::string& phase = "sghmc", const SampleVisitor& visitor = {});

InferenceOutput runBbvi(int64_t inputs, std::vector<int64_t> hidden, int64_t classes, const TrainingSet& data,
                        const torch::Tensor& evalInputs, const BbviConfig& config, at::Generator& generator,
                        const JobContext& ctx);

/// One Linear layer's Laplace posterior in matrix-normal form: W~ = [W b] ~ MN(mean,
/// gTilde^-1, aTilde^-1), i.e. precision aTilde (x) gTilde in column-stacked vec([W b]) order.
struct KfacLayerPosterior {
    torch::Tensor mean;    ///< [out, in+1] float, the MAP weights with the bias as last column
    torch::Tensor aTilde;  ///< [in+1, in+1] double, sqrt(N) A + sqrt(tau) I
    torch::Tensor gTilde;  ///< [out, out] double, sqrt(N) G + sqrt(tau) I
};

/// The MAP fit (trains `model` in place) and the KFAC-Laplace posterior of every layer,
/// what runKfacLaplace samples from.
std::vector<KfacLayerPosterior> fitKfacLaplace(Mlp& model, const TrainingSet& data, const KfacConfig& config,
                                               at::Generator& generator, const JobContext& ctx);

InferenceOutput runKfacLaplace(Mlp model, const TrainingSet& data, const torch::Tensor& evalInputs,
                               const KfacConfig& config, at::Generator& generator, const JobContext& ctx);

// ---------------------------------------------------------------- building blocks (tested)

/// Kronecker factors of one Linear layer's Fisher block: A = E[a a^T] over inputs with a
/// trailing 1 for the bias, G = E[g g^T] over gradients of the NLL w.r.t. the layer's
/// pre-activations. In column-stacked vec([W b]) order the block is A (x) G.
struct KfacFactors {
    torch::Tensor A;  ///< [in+1, in+1]
    torch::Tensor G;  ///< [out, out]
};

/// Factors for every layer of `model` on inputs x with the given labels (one label per
/// row; pass labels drawn from the model for the "true Fisher").
std::vector<KfacFactors> kfacFactors(Mlp& model, const torch::Tensor& x, const torch::Tensor& labels);

/// The "true Fisher" factors: kfacFactors with labels drawn from the model's own
/// predictive softmax(model(x)), `labelDraws` labels per input (at least 1). A does not
/// depend on the labels; G is the average over the draws, an unbiased estimate of
/// E_x E_{y~p(y|x)}[g g^T].
std::vector<KfacFactors> kfacSampledFisherFactors(Mlp& model, const torch::Tensor& x, int labelDraws,
                                                  at::Generator& generator);

/// The damped Kronecker factors of one layer's posterior precision (Ritter et al. 2018):
/// sqrt(N) A + sqrt(tau) I and sqrt(N) G + sqrt(tau) I in double, so that their Kronecker
/// product is N A (x) G + sqrt(N tau) (A (x) I + I (x) G) + tau I.
struct KfacPrecisionFactors {
    torch::Tensor aTilde;
    torch::Tensor gTilde;
};
KfacPrecisionFactors kfacPrecisionFactors(const KfacFactors& factors, double scale, double norm);

/// Draws W ~ MN(mean, U, V): rows covariance U [out, out], columns covariance V
/// [in, in], i.e. vec_col(W) ~ N(vec_col(mean), V (x) U). Given as Cholesky factors.
torch::Tensor sampleMatrixNormal(const torch::Tensor& mean, const torch::Tensor& cholU, const torch::Tensor& cholV,
                                 at::Generator& generator);


} // namespace lcs
