#include "engine/inference/methods.h"

#include <chrono>
#include <cmath>
#include <optional>

#include <torch/torch.h>

#include "base/core/input_error.h"
#include "engine/core/stopwatch.h"
#include "engine/core/training_loop.h"
#include "engine/fastpath/flat_parameters.h"
#include "engine/fastpath/mlp_backward.h"
#include "engine/inference/chain.h"

namespace lcs {

namespace {

/// Reports about a hundred times per phase: often enough for a progress bar, rarely
/// enough to cost nothing.
void reportStep(const JobContext& ctx, const std::string& phase, long long step, long long total,
                const std::function<TrainingFigures()>& figures = {})
{
    if (!ctx.progress)
        return;
    const long long every = std::max<long long>(1, total / 100);
    if (step % every != 0 && step != total)
        return;
    Progress p;
    p.phase = phase;
    p.step = step;
    p.total = total;
    if (figures)
        p.training = figures();
    ctx.report(p);
}

/// Full batch, or a minibatch drawn without replacement from `generator`.
TrainingSet batchOf(const TrainingSet& data, int batchSize, at::Generator& generator)
{
    const int64_t n = data.x.size(0);
    if (batchSize <= 0 || batchSize >= n)
        return data;
    auto idx = torch::randperm(n, generator, torch::dtype(torch::kLong)).slice(0, 0, batchSize).to(data.x.device());
    return {data.x.index_select(0, idx), data.y.index_select(0, idx)};
}

} // namespace

// -------------------------------------------------------------------- PredictiveAverage

void PredictiveAverage::add(const torch::Tensor& probs)
{
    auto p = probs.detach().to(torch::kDouble);
    if (!m_sum.defined())
        m_sum = p.clone();
    else
        m_sum.add_(p);
    ++m_count;
}

torch::Tensor PredictiveAverage::mean() const
{
    TORCH_CHECK(m_count > 0, "PredictiveAverage: no samples were collected");
    return (m_sum / m_count).to(torch::kFloat);
}

// -------------------------------------------------------------------- MAP

void trainMap(Mlp& model, const TrainingSet& data, const MapConfig& config, at::Generator& generator,
              const JobContext& ctx, const std::string& phase)
{
    TORCH_CHECK(config.iterations >= 0, "MAP: iterations must be >= 0");
    const double n = static_cast<double>(data.x.size(0));
    FlatParameters flat(*model);
    torch::optim::Adam adam({flat.tensor()}, torch::optim::AdamOptions(config.learningRate));
    FullBatchGradients gradients;
    for (int it = 1; it <= config.iterations; ++it) {
        ctx.checkCancelled();
        // Gradient of mean NLL + tau/(2N) |theta|^2.
        const auto batch = batchOf(data, config.batchSize, generator);
        const double nll = gradients(*model, batch.x, batch.y);
        requireFiniteLoss(nll, phase.c_str(), it);
        if (config.priorPrecision > 0) {
            torch::NoGradGuard noGrad;
            flat.tensor().mutable_grad().add_(flat.tensor(), config.priorPrecision / n);
        }
        adam.step();
        reportStep(ctx, phase, it, config.iterations, [&] {
            TrainingFigures f;
            f.nll = nll;
            return f;
        });
    }
}

// -------------------------------------------------------------------- SGHMC / SGLD


InferenceOutput runSgmcmc(Mlp model, const TrainingSet& data, const torch::Tensor& evalInputs,
                          const SgmcmcConfig& config, at::Generator& generator, const JobContext& ctx,
                          const std::string& phase, const SampleVisitor& visitor)
{
    TORCH_CHECK(config.samples > 0 && config.thinning > 0 && config.burnIn >= 0,
                "SGHMC: samples and thinning must be positive and burn-in >= 0");
    ChainConfig chain{config.learningRate, config.momentum, config.priorPrecision, config.temperature,
                      config.batchSize};
    chain.burnIn = config.burnIn;
    chain.thinning = config.thinning;
    chain.steps = config.burnIn + static_cast<long long>(config.samples) * config.thinning;
    ChainHooks hooks;
    hooks.onSample = visitor;
    ChainRun run;
    {
        const auto network = mlpChainNetwork(model);
        run = runChain(*network, data, evalInputs, chain, generator, ctx, phase, hooks);
    }
    return {run.predictive, model.ptr(), run.seconds};
}

// -------------------------------------------------------------------- BBVI

InferenceOutput runBbvi(int64_t inputs, std::vector<int64_t> hidden, int64_t classes, const TrainingSet& data,
                        const torch::Tensor& evalInputs, const BbviConfig& config, at::Generator& generator,
                        const JobContext& ctx)
{
    TORCH_CHECK(config.prior.precision > 0, "BBVI: prior precision must be positive");
    const auto start = Clock::now();
    BayesMlp net(inputs, std::move(hidden), classes, config.initialLogVariance);
    {
        torch::NoGradGuard noGrad;
        // Same default as a Linear layer, drawn from this job's generator.
        for (auto& l : net->layers) {
            const double bound = 1.0 / std::sqrt(static_cast<double>(l->weightMean.size(1)));
            l->weightMean.uniform_(-bound, bound, generator);
            l->biasMean.uniform_(-bound, bound, generator);
        }
    }
    net->to(data.x.device());
    const double n = static_cast<double>(data.x.size(0));
    // The local reparameterisation's noise, seeded from this job's generator.
    NormalStream noise(drawSeed(generator));
    // A full batch is the same rows every step: its layouts and squares once.
    const bool fullBatch = config.batchSize <= 0 || config.batchSize >= data.x.size(0);
    std::optional<BbviInputs> fullBatchInputs;
    if (fullBatch)
        fullBatchInputs.emplace(data.x);
    FlatParameters flat(*net);
    torch::optim::Adam adam({flat.tensor()}, torch::optim::AdamOptions(config.learningRate));
    for (int it = 1; it <= config.iterations; ++it) {
        ctx.checkCancelled();
        const auto batch = batchOf(data, config.batchSize, generator);
        // Negative ELBO per training point: E_q[mean NLL] + KL / N.
        const double nll = net->lossAndGradients(fullBatchInputs ? *fullBatchInputs : BbviInputs(batch.x), batch.y,
                                                 config.prior, n, noise);
        requireFiniteLoss(nll, "bbvi", it);
        adam.step();
        reportStep(ctx, "bbvi", it, config.iterations, [&] {
            torch::NoGradGuard noGrad;
            TrainingFigures f;
            f.nll = nll;
            f.kl = net->kl(config.prior).item<double>();
            return f;
        });
    }
    PredictiveAverage predictive;
    for (int s = 0; s < config.samples; ++s) {
        ctx.checkCancelled();
        predictive.add(torch::softmax(net->forwardSampled(evalInputs, generator), 1));
    }
    return {predictive.mean(), net.ptr(), secondsSince(start)};
}

// -------------------------------------------------------------------- KFAC-Laplace

std::vector<KfacFactors> kfacFactors(Mlp& model, const torch::Tensor& x, const torch::Tensor& labels)
{
    auto trace = traceMlp(*model, x);
    // Gradient of the *summed* NLL: row n of every dS_i is then sample n's own gradient.
    auto dLogits = crossEntropyWithGradient(trace.logits, labels).second.mul_(static_cast<double>(x.size(0)));
    const auto dS = backpropagateMlp(*model, trace, dLogits);
    const double n = static_cast<double>(x.size(0));
    std::vector<KfacFactors> factors;
    for (size_t i = 0; i < dS.size(); ++i) {
        const auto& in = trace.inputs[i];
        auto a = torch::cat({in, torch::ones({in.size(0), 1}, in.options())}, 1);
        factors.push_back({a.t().mm(a) / n, dS[i].t().mm(dS[i]) / n});
    }
    return factors;
}

torch::Tensor sampleMatrixNormal(const torch::Tensor& mean, const torch::Tensor& cholU, const torch::Tensor& cholV,
                                 at::Generator& generator)
{
    auto z = standardNormalLike(mean, generator);
    return mean + cholU.matmul(z).matmul(cholV.t());
}

std::vector<KfacFactors> kfacSampledFisherFactors(Mlp& model, const torch::Tensor& x, int labelDraws,
                                                  at::Generator& generator)
{
    const auto probs = torch::softmax(traceMlp(*model, x).logits, 1);
    const int draws = std::max(1, labelDraws);
    std::vector<KfacFactors> factors;
    for (int d = 0; d < draws; ++d) {
        auto labels = torch::multinomial(probs.cpu(), 1, /*replacement=*/true, generator).squeeze(1).to(probs.device());
        auto f = kfacFactors(model, x, labels);
        if (factors.empty()) {
            factors = f;
        } else {
            for (size_t i = 0; i < f.size(); ++i)
                factors[i].G = factors[i].G + f[i].G;
        }
    }
    for (auto& f : factors)
        f.G = f.G / draws;
    return factors;
}

KfacPrecisionFactors kfacPrecisionFactors(const KfacFactors& factors, double scale, double norm)
{
    TORCH_CHECK(scale > 0 && norm > 0, "KFAC-Laplace: scale and norm must be positive");
    auto A = factors.A.to(torch::kDouble);
    auto G = factors.G.to(torch::kDouble);
    auto eyeA = torch::eye(A.size(0), A.options());
    auto eyeG = torch::eye(G.size(0), G.options());
    return {std::sqrt(scale) * A + std::sqrt(norm) * eyeA, std::sqrt(scale) * G + std::sqrt(norm) * eyeG};
}

std::vector<KfacLayerPosterior> fitKfacLaplace(Mlp& model, const TrainingSet& data, const KfacConfig& config,
                                               at::Generator& generator, const JobContext& ctx)
{
    trainMap(model, data, config.map, generator, ctx, "kfac_map");
    ctx.checkCancelled();

    const double n = config.scale > 0 ? config.scale : static_cast<double>(data.x.size(0));
    const double tau = config.norm > 0 ? config.norm : config.map.priorPrecision;
    TORCH_CHECK(tau > 0, "KFAC-Laplace: the prior precision (norm) must be positive");

    // Fisher factors with labels drawn from the model's own predictive (the true Fisher,
    // not the empirical one on the training labels).
    const auto factors = kfacSampledFisherFactors(model, data.x, config.fisherLabelDraws, generator);
    torch::NoGradGuard noGrad;
    auto layers = model->linearLayers();
    std::vector<KfacLayerPosterior> posterior;
    for (size_t i = 0; i < layers.size(); ++i) {
        auto precision = kfacPrecisionFactors(factors[i], n, tau);
        auto mean = torch::cat({layers[i]->weight, layers[i]->bias.unsqueeze(1)}, 1).detach().clone();
        posterior.push_back({mean, precision.aTilde, precision.gTilde});
    }
    return posterior;
}

InferenceOutput runKfacLaplace(Mlp model, const TrainingSet& data, const torch::Tensor& evalInputs,
                               const KfacConfig& config, at::Generator& generator, const JobContext& ctx)
{
    const auto start = Clock::now();
    const auto posterior = fitKfacLaplace(model, data, config, generator, ctx);

    // The covariance is the Kronecker product of the inverses: V = aTilde^-1 (columns),
    // U = gTilde^-1 (rows).
    torch::NoGradGuard noGrad;
    // A factor that is not positive definite (inputs too large to square in float, or
    // not finite) is the data's doing: said as such, not as LibTorch's internal error.
    auto choleskyOfInverse = [](const torch::Tensor& precision, size_t layer, const char* factor) {
        try {
            return torch::linalg::cholesky(torch::cholesky_inverse(torch::linalg::cholesky(precision)))
                .to(torch::kFloat);
        } catch (const c10::Error&) {
            throw InputError("KFAC-Laplace: the curvature factor " + std::string(factor) + " of layer " +
                             std::to_string(layer + 1) + " is not positive definite, so the Laplace posterior "
                             "cannot be sampled; inputs of very large magnitude (near the 1e30 limit) cause this: "
                             "rescale the features, or use another method");
        }
    };
    std::vector<torch::Tensor> cholUs, cholVs;
    for (size_t i = 0; i < posterior.size(); ++i) {
        cholVs.push_back(choleskyOfInverse(posterior[i].aTilde, i, "A (inputs)"));
        cholUs.push_back(choleskyOfInverse(posterior[i].gTilde, i, "G (gradients)"));
    }
    PredictiveAverage predictive;
    for (int s = 0; s < config.samples; ++s) {
        ctx.checkCancelled();
        torch::Tensor h = evalInputs;
        for (size_t i = 0; i < posterior.size(); ++i) {
            auto w = sampleMatrixNormal(posterior[i].mean, cholUs[i], cholVs[i], generator);
            const auto in = w.size(1) - 1;
            h = torch::addmm(w.select(1, in), h, w.narrow(1, 0, in).t());
            if (i + 1 < posterior.size())
                h = torch::relu(h);
        }
        predictive.add(torch::softmax(h, 1));
        reportStep(ctx, "kfac_samples", s + 1, config.samples);
    }
    return {predictive.mean(), model.ptr(), secondsSince(start)};
}

} // namespace lcs
