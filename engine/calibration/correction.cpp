#include "calibration/correction.h"

#include <chrono>
#include <cmath>
#include <limits>

#include <torch/torch.h>

#include "decision/decisions.h"
#include "fastpath/flat_parameters.h"
#include "fastpath/mlp_backward.h"

namespace lcs {

CorrectionTerms correctionObjective(const at::Tensor& qLogits, const at::Tensor& p, const at::Tensor& costs,
                                    double utilityConstant, const at::Tensor& givenDecisions)
{
    TORCH_CHECK(utilityConstant > 0, "correction: M must be positive, got ", utilityConstant);
    TORCH_CHECK(qLogits.sizes() == p.sizes(), "correction: q logits ", qLogits.sizes(), " and p ", p.sizes(),
                " differ in shape");
    const auto L = costs.to(qLogits.options());
    auto logQ = torch::log_softmax(qLogits, 1);
    auto q = logQ.exp();
    auto logP = p.to(qLogits.options()).clamp_min(1e-12).log();

    at::Tensor decisions = givenDecisions;
    if (decisions.defined()) {
        TORCH_CHECK(decisions.dim() == 1 && decisions.size(0) == qLogits.size(0), "correction: ", decisions.sizes(),
                    " decisions for ", qLogits.size(0), " rows");
        decisions = decisions.to(qLogits.device(), at::kLong);
    } else {
        torch::NoGradGuard noGrad;
        decisions = bayesDecisions(q.detach(), L);
    }
    // Column c_b of L for every row: [B, C].
    auto chosenCosts = L.t().index_select(0, decisions);
    auto expectedCost = (q * chosenCosts).sum(1).mean();
    auto kl = (q * (logQ - logP)).sum(1).mean();
    return {expectedCost / utilityConstant + kl, kl, expectedCost, decisions};
}

CorrectionGradient correctionObjectiveWithGradient(const at::Tensor& qLogits, const at::Tensor& logP,
                                                   const at::Tensor& costs, double utilityConstant)
{
    TORCH_CHECK(utilityConstant > 0, "correction: M must be positive, got ", utilityConstant);
    torch::NoGradGuard noGrad;
    auto logQ = torch::log_softmax(qLogits, 1);
    auto q = logQ.exp();
    auto decisions = bayesDecisions(q, costs);
    auto chosenCosts = costs.t().index_select(0, decisions);  // [B, C]: L[y, c_b]
    auto logRatio = logQ - logP;
    auto a = chosenCosts / utilityConstant + logRatio;
    auto perRow = (q * a).sum(1, /*keepdim=*/true);
    const double b = static_cast<double>(qLogits.size(0));
    CorrectionGradient out;
    out.gradient = q * (a - perRow) / b;
    out.terms.loss = perRow.mean();
    out.terms.kl = (q * logRatio).sum(1).mean();
    out.terms.expectedCost = (q * chosenCosts).sum(1).mean();
    out.terms.decisions = decisions;
    return out;
}

at::Tensor closedFormCorrection(const at::Tensor& p, const at::Tensor& costs, int64_t decision,
                                double utilityConstant)
{
    auto w = p * torch::exp(-costs.select(1, decision).to(p.options()) / utilityConstant);
    return w / w.sum(-1, /*keepdim=*/true);
}

at::Tensor correctionOptimumCosts(const at::Tensor& costs, double utilityConstant)
{
    TORCH_CHECK(utilityConstant > 0, "correction: M must be positive, got ", utilityConstant);
    return 1 - torch::exp(-costs / utilityConstant);
}

bool decisionsCollapsed(const at::Tensor& qProbs, const at::Tensor& p, const at::Tensor& costs)
{
    torch::NoGradGuard noGrad;
    const auto L = costs.to(qProbs.device(), qProbs.scalar_type());
    const auto dq = bayesDecisions(qProbs, L);
    const auto dp = bayesDecisions(p.to(qProbs.device(), qProbs.scalar_type()), L);
    const bool qConstant = dq.eq(dq[0]).all().item<bool>();
    const bool pConstant = dp.eq(dp[0]).all().item<bool>();
    return qConstant && !pConstant;
}

at::Tensor predictProbabilities(MlpImpl& model, const at::Tensor& x)
{
    torch::NoGradGuard noGrad;
    const auto device = model.parameters().front().device();
    return torch::softmax(model.forward(x.to(device)), 1).cpu();
}

CorrectionOutput trainCorrection(const at::Tensor& x, const at::Tensor& p, const CostMatrix& costs,
                                 const CorrectionConfig& config, at::Generator& generator, const JobContext& ctx,
                                 const CorrectionObserver& observer, const Mlp* initial)
{
    costs.validateFor(static_cast<int>(p.size(1)));
    TORCH_CHECK(x.size(0) == p.size(0), "correction: ", x.size(0), " calibration inputs but ", p.size(0),
                " predictive rows");
    TORCH_CHECK(config.iterations >= 0 && config.learningRate > 0, "correction: bad iterations or learning rate");
    const auto start = std::chrono::steady_clock::now();

    CorrectionOutput out;
    if (initial) {
        out.q = Mlp(x.size(1), (*initial)->hidden, p.size(1));
        torch::NoGradGuard noGrad;
        auto src = (*initial)->parameters();
        auto dst = out.q->parameters();
        for (size_t i = 0; i < src.size(); ++i)
            dst[i].copy_(src[i]);
    } else {
        out.q = Mlp(x.size(1), config.hidden, p.size(1));
        initialiseFrom(*out.q, generator);
    }
    out.q->to(x.device());
    const auto logP = p.to(torch::kFloat).clamp_min(1e-12).log();
    const auto pFloat = logP.exp();
    out.warmStartKl = std::numeric_limits<double>::quiet_NaN();
    if (!initial && config.warmStartSteps > 0) {
        // Distil p into q: mean KL(p || q) = cross-entropy(p, q) - H(p), whose gradient
        // w.r.t. q's logits is (q - p) / B.
        FlatParameters flat(*out.q);
        torch::optim::Adam adam({flat.tensor()}, torch::optim::AdamOptions(config.warmStartLearningRate));
        const double b = static_cast<double>(x.size(0));
        for (int step = 1; step <= config.warmStartSteps; ++step) {
            ctx.checkCancelled();
            auto trace = traceMlp(*out.q, x);
            auto dLogits = (torch::softmax(trace.logits, 1) - pFloat) / b;
            setMlpGradients(*out.q, trace, backpropagateMlp(*out.q, trace, dLogits));
            adam.step();
            if (ctx.progress && (step % std::max(1, config.warmStartSteps / 20) == 0 || step == config.warmStartSteps)) {
                Progress pr;
                pr.phase = "warm_start";
                pr.step = step;
                pr.total = config.warmStartSteps;
                ctx.report(pr);
            }
        }
        flat.release();
        torch::NoGradGuard noGrad;
        const auto logQ = torch::log_softmax(out.q->forward(x), 1);
        out.warmStartKl = (logQ.exp() * (logQ - logP)).sum(1).mean().item<double>();
    }

    const auto L = costTensor(costs, at::kFloat, x.device());
    const double M = costs.utilityConstant();
    const int64_t n = x.size(0);
    FlatParameters flat(*out.q);
    torch::optim::Adam adam({flat.tensor()}, torch::optim::AdamOptions(config.learningRate));
    out.curve.reserve(static_cast<size_t>(config.iterations));
    const long long every = std::max(1, config.iterations / 100);

    for (int step = 1; step <= config.iterations; ++step) {
        ctx.checkCancelled();
        at::Tensor xb = x, logPb = logP;
        if (config.batchSize > 0 && config.batchSize < n) {
            auto idx = torch::randperm(n, generator, torch::dtype(torch::kLong)).slice(0, 0, config.batchSize).to(x.device());
            xb = x.index_select(0, idx);
            logPb = logP.index_select(0, idx);
        }
        if (config.inputNoiseStd > 0)
            xb = xb + config.inputNoiseStd * standardNormalLike(xb, generator);
        if (config.cosineSchedule) {
            const double lr = 0.5 * config.learningRate * (1.0 + std::cos(M_PI * (step - 1) / config.iterations));
            for (auto& group : adam.param_groups())
                group.options().set_lr(lr);
        }
        // Hand-written backward (see correctionObjectiveWithGradient): the autograd engine's
        // fixed cost per call was most of a step on 500 points.
        auto trace = traceMlp(*out.q, xb);
        auto g = correctionObjectiveWithGradient(trace.logits, logPb, L, M);
        setMlpGradients(*out.q, trace, backpropagateMlp(*out.q, trace, g.gradient));
        adam.step();

        const auto& terms = g.terms;
        CorrectionStep s{step, terms.loss.item<double>(), terms.kl.item<double>(), terms.expectedCost.item<double>()};
        out.curve.push_back(s);
        if (observer)
            observer(s, *out.q);
        if (ctx.progress && (step % every == 0 || step == config.iterations)) {
            Progress pr;
            pr.phase = "correction";
            pr.step = step;
            pr.total = config.iterations;
            pr.training.loss = s.loss;
            pr.training.kl = s.kl;
            pr.training.expectedCost = s.expectedCost;
            ctx.report(pr);
        }
    }
    flat.release();
    out.collapsed = decisionsCollapsed(predictProbabilities(*out.q, x), p, L);
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return out;
}

} // namespace lcs
