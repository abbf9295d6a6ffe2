#include "engine/inference/chain.h"

#include <chrono>
#include <cmath>
#include <deque>
#include <limits>

#include <torch/torch.h>

#include "engine/core/rows.h"
#include "engine/core/threads.h"
#include "engine/core/training_loop.h"
#include "engine/fastpath/flat_parameters.h"
#include "engine/fastpath/mlp_backward.h"
#include "engine/inference/sghmc.h"

namespace lcs {
namespace {

/// Inputs of any shape are taken as rows (images flattened, as FlatMlpImpl does).
class MlpChainNetwork final : public ChainNetwork {
public:
    explicit MlpChainNetwork(Mlp model) : m_model(std::move(model)), m_flat(*m_model) {}
    std::vector<at::Tensor> parameters() override { return {m_flat.tensor()}; }
    double potentialAndGradient(const at::Tensor& x, const at::Tensor& y) override
    {
        // Sets every gradient (the flat buffer's views), so no zeroing pass before.
        return m_gradients(*m_model, x.flatten(1), y);
    }
    at::Tensor probabilities(const at::Tensor& x) override
    {
        return torch::softmax(traceMlp(*m_model, x.flatten(1)).logits, 1);
    }

private:
    Mlp m_model;
    FlatParameters m_flat;
    FullBatchGradients m_gradients;
};

/// The chain's predictions on the evaluation inputs: all of them averaged as they come,
/// or only the last `keepLast` (> 0).
class KeptSamples {
public:
    explicit KeptSamples(int keepLast) : m_keepLast(keepLast) {}
    void add(const at::Tensor& probs)
    {
        if (m_keepLast == 0) {
            m_all.add(probs);
            return;
        }
        m_last.push_back(probs);
        if (static_cast<int>(m_last.size()) > m_keepLast)
            m_last.pop_front();
    }
    int count() const { return m_keepLast > 0 ? static_cast<int>(m_last.size()) : m_all.count(); }
    PredictiveAverage average() const
    {
        PredictiveAverage average = m_all;
        for (const auto& probs : m_last)
            average.add(probs);
        return average;
    }

private:
    int m_keepLast;
    PredictiveAverage m_all;          // keepLast == 0
    std::deque<at::Tensor> m_last;    // keepLast > 0
};

/// Sampler step `step`'s minibatch (the rows `index`, or the whole set where it is
/// undefined) on `device`: its inputs gathered ahead by the hooks where they were.
std::pair<at::Tensor, at::Tensor> stepBatch(const TrainingSet& data, const at::Tensor& index, long long step,
                                            const ChainHooks& hooks, const c10::Device& device)
{
    at::Tensor x;
    if (index.defined() && hooks.minibatchRows)
        x = hooks.minibatchRows(step, index);
    if (!x.defined())
        x = index.defined() ? gatherRows(data.x, index) : data.x;
    const auto y = index.defined() ? data.y.index_select(0, index) : data.y;
    return {x.to(device), y.to(device)};
}

/// The epoch's running figures for a progress report: its mean NLL so far, the hooks'
/// mean extra figure (where there is one) and the samples kept.
TrainingFigures epochFigures(const ChainEpoch& sums, long long inEpoch, long long extras, int kept)
{
    TrainingFigures f;
    f.nll = sums.nll / static_cast<double>(inEpoch);
    if (extras > 0)
        f.studentLoss = sums.extra / static_cast<double>(extras);
    f.keptSamples = kept;
    return f;
}

} // namespace

std::unique_ptr<ChainNetwork> mlpChainNetwork(Mlp model)
{
    return std::make_unique<MlpChainNetwork>(std::move(model));
}

ChainRun runChain(ChainNetwork& network, const TrainingSet& data, const at::Tensor& evalInputs,
                  const ChainConfig& config, at::Generator& generator, const JobContext& ctx,
                  const std::string& phase, const ChainHooks& hooks)
{
    TORCH_CHECK(config.steps >= 0 && config.burnIn >= 0 && config.thinning > 0 && config.keepLast >= 0,
                "SG-MCMC: steps, burn-in and kept samples must be >= 0 and thinning positive");
    const auto start = std::chrono::steady_clock::now();
    const int64_t n = data.x.size(0);
    Sghmc sampler(network.parameters(),
                  SghmcOptions(config.learningRate)
                      .momentum(config.momentum)
                      .prior_precision(config.priorPrecision)
                      .num_data(static_cast<double>(n))
                      .temperature(config.temperature),
                  generator);
    const long long perEpoch = stepsPerEpoch(n, config.batchSize);
    int64_t parameterCount = 0;
    for (const auto& p : network.parameters())
        parameterCount += p.numel();
    ReportPacer pacer(config.steps);
    const auto device = network.parameters().front().device();

    ChainRun out;
    KeptSamples samples(config.keepLast);
    long long step = 0;
    for (int epoch = 1; step < config.steps; ++epoch) {
        const auto batches = epochBatches(n, config.batchSize, generator);
        if (hooks.epochBatches && batches.front().defined())
            hooks.epochBatches(step + 1, batches);
        ChainEpoch sums{epoch, 0, 0};
        long long inEpoch = 0, extras = 0;
        for (const auto& index : batches) {
            if (step == config.steps)
                break;
            ctx.checkCancelled();
            adaptThreadsToLoad();  // fewer intra-op threads while another process holds a core
            const auto [x, y] = stepBatch(data, index, step + 1, hooks, device);
            const double potential = network.potentialAndGradient(x, y);
            requireFiniteLoss(potential, phase.c_str(), step + 1);
            sums.nll += potential;
            if (hooks.standardNoise)
                if (const float* noise = hooks.standardNoise(step + 1, parameterCount))
                    sampler.useStandardNoise(noise, parameterCount);
            sampler.step();
            ++step;
            ++inEpoch;
            if (hooks.afterStep) {
                const double extra = hooks.afterStep(index, step, config.steps);
                if (std::isfinite(extra)) {
                    sums.extra += extra;
                    ++extras;
                }
            }
            if (step > config.burnIn && (step - config.burnIn) % config.thinning == 0) {
                const auto probs = network.probabilities(evalInputs);
                samples.add(probs);
                if (hooks.onSample)
                    hooks.onSample(step, probs);
            }
            if (ctx.progress && pacer.due(step)) {
                auto p = Progress::at(phase, perEpoch > 1 ? "epoch " + std::to_string(epoch) : std::string(), step,
                                      config.steps);
                p.training = epochFigures(sums, inEpoch, extras, samples.count());
                ctx.report(p);
            }
        }
        sums.nll /= static_cast<double>(std::max(1LL, inEpoch));
        sums.extra = extras > 0 ? sums.extra / static_cast<double>(extras) : std::numeric_limits<double>::quiet_NaN();
        out.epochs.push_back(sums);
        if (hooks.onEpoch)
            hooks.onEpoch(epoch);
    }
    PredictiveAverage average = samples.average();
    if (average.count() == 0)
        average.add(network.probabilities(evalInputs));  // too short a chain: the last state
    out.predictive = average.mean();
    out.samplesKept = average.count();
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return out;
}

} // namespace lcs
