#include "engine/calibration/correction.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include <torch/torch.h>

#include "engine/core/threads.h"
#include "engine/decision/decisions.h"
#include "engine/fastpath/flat_parameters.h"
#include "engine/fastpath/mlp_backward.h"

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
                                                   const at::Tensor& costs, double utilityConstant,
                                                   const at::Tensor& givenDecisions)
{
    TORCH_CHECK(utilityConstant > 0, "correction: M must be positive, got ", utilityConstant);
    torch::NoGradGuard noGrad;
    auto logQ = torch::log_softmax(qLogits, 1);
    auto q = logQ.exp();
    auto decisions = givenDecisions.defined() ? givenDecisions.to(qLogits.device(), at::kLong) : bayesDecisions(q, costs);
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

const char* labelTermName(LabelTerm term)
{
    switch (term) {
    case LabelTerm::None: return "none";
    case LabelTerm::LogLoss: return "log_loss";
    case LabelTerm::SoftCost: return "soft_cost";
    }
    return "none";
}

namespace {
constexpr LabelTerm kLabelTerms[] = {LabelTerm::None, LabelTerm::LogLoss, LabelTerm::SoftCost};
} // namespace

const std::vector<std::string>& labelTermNames()
{
    static const std::vector<std::string> names = [] {
        std::vector<std::string> out;
        for (auto term : kLabelTerms)
            out.push_back(labelTermName(term));
        return out;
    }();
    return names;
}

LabelTerm labelTermFromName(const std::string& name)
{
    for (auto term : kLabelTerms)
        if (name == labelTermName(term))
            return term;
    throw std::invalid_argument("label term \"" + name.substr(0, 40) + "\" is not none, log_loss or soft_cost");
}

LabelTermGradient labelTermWithGradient(const at::Tensor& logits, const at::Tensor& labels, const at::Tensor& costs,
                                        LabelTerm term, double weight)
{
    torch::NoGradGuard noGrad;
    LabelTermGradient out;
    out.gradient = torch::zeros_like(logits);
    const auto labelled = labels.ge(0).nonzero().reshape({-1}).to(logits.device());
    const int64_t n = labelled.size(0);
    if (term == LabelTerm::None || n == 0 || weight <= 0)
        return out;
    const auto z = logits.index_select(0, labelled);
    const auto y = labels.to(logits.device()).index_select(0, labelled).to(at::kLong);
    const auto q = torch::softmax(z, 1);
    const auto L = costs.to(z.options());
    at::Tensor g;
    if (term == LabelTerm::LogLoss) {
        out.loss = -torch::log_softmax(z, 1).gather(1, y.unsqueeze(1)).mean().item<double>();
        g = q - torch::one_hot(y, z.size(1)).to(z.options());
    } else {
        const double tau = 0.1 * L.max().item<double>();
        const auto R = q.matmul(L);                             // [n, D] expected cost of each decision
        const auto pi = torch::softmax(-R / tau, 1);            // soft decision
        const auto c = L.index_select(0, y);                    // [n, D] realised cost of each decision
        const auto piC = (pi * c).sum(1, /*keepdim=*/true);
        out.loss = piC.mean().item<double>();
        const auto dR = -pi * (c - piC) / tau;
        const auto dq = dR.matmul(L.t());                       // [n, C]
        g = q * (dq - (q * dq).sum(1, /*keepdim=*/true));
    }
    out.loss *= weight;
    out.gradient.index_copy_(0, labelled, g * (weight / static_cast<double>(n)));
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

CorrectionConfig sgdCorrectionConfig(int epochs, int batchSize, double learningRate, LrSchedule schedule,
                                     double inputNoiseStd)
{
    // Positional: epochs, batchSize, learningRate, schedule, optimiser, momentum,
    // weightDecay, inputNoiseStd are CorrectionConfig's first eight fields.
    return CorrectionConfig{epochs, batchSize, learningRate, schedule, Optimiser::SgdMomentum, 0.9, 0.0,
                            inputNoiseStd};
}

at::Tensor predictProbabilities(MlpImpl& model, const at::Tensor& x)
{
    torch::NoGradGuard noGrad;
    const auto device = model.parameters().front().device();
    return torch::softmax(model.forward(x.to(device)), 1).cpu();
}

at::Tensor correctedProbabilities(MlpImpl& q, const at::Tensor& x, const at::Tensor& p, bool residual)
{
    if (!residual)
        return predictProbabilities(q, x);
    torch::NoGradGuard noGrad;
    const auto device = q.parameters().front().device();
    const auto logP = p.to(device, torch::kFloat).clamp_min(1e-12).log();
    return torch::softmax(q.forward(x.to(device)) + logP, 1).cpu();
}

namespace {

std::unique_ptr<torch::optim::Optimizer> correctionOptimizer(const std::vector<at::Tensor>& params,
                                                             const CorrectionConfig& config)
{
    if (config.optimiser == Optimiser::Adam)
        return std::make_unique<torch::optim::Adam>(
            params, torch::optim::AdamOptions(config.learningRate).weight_decay(config.weightDecay));
    return std::make_unique<torch::optim::SGD>(
        params, torch::optim::SGDOptions(config.learningRate).momentum(config.momentum).weight_decay(config.weightDecay));
}

/// The held-out rows and the rows q trains on (both sorted), drawn only when a held-out
/// share is asked for, so that a run without one draws exactly what it always did; else
/// both undefined (q trains on every row).
std::pair<at::Tensor, at::Tensor> heldOutSplit(const at::Tensor& x, const CorrectionConfig& config,
                                               at::Generator& generator)
{
    TORCH_CHECK(config.heldOutShare >= 0 && config.heldOutShare < 1,
                "correction: the held-out share must be in [0, 1), got ", config.heldOutShare);
    if (config.heldOutShare <= 0)
        return {};
    TORCH_CHECK(x.size(0) >= 2, "correction: a held-out share needs at least 2 calibration inputs");
    const auto order = at::randperm(x.size(0), generator, at::kLong);
    const auto held = std::clamp<int64_t>(std::llround(config.heldOutShare * static_cast<double>(x.size(0))), 1,
                                          x.size(0) - 1);
    return {std::get<0>(order.slice(0, held).sort()), std::get<0>(order.slice(0, 0, held).sort())};
}

/// The predictive q is trained against, at a batch of inputs (rows `index` of the
/// calibration set, or all of it where `index` is undefined).
struct PredictiveAt {
    const PredictiveSource& source;
    c10::Device device;
    at::Tensor operator()(const at::Tensor& inputs, const at::Tensor& index) const
    {
        if (source.student) {
            torch::NoGradGuard noGrad;
            return torch::softmax(source.student->forward(inputs), 1);
        }
        if (source.teacherAt) {
            torch::NoGradGuard noGrad;
            return source.teacherAt(inputs.to(device)).to(device, at::kFloat);
        }
        return (index.defined() ? source.stored.index_select(0, index) : source.stored).to(device, at::kFloat);
    }
};

/// What every step of one correction run shares.
struct CorrectionProblem {
    CorrectionNetwork& q;
    const at::Tensor& x;
    const PredictiveSource& source;
    const CorrectionConfig& config;
    PredictiveAt predictive;
    at::Tensor L;
    double M;
    at::Tensor optimumCosts;
};

/// The objective on the held-out rows, q as it decides (inference mode), in chunks of a
/// training batch: no gradient, no noise.
double heldOutObjective(const CorrectionProblem& c, const at::Tensor& heldOutRows)
{
    torch::NoGradGuard noGrad;
    const int64_t rows = heldOutRows.size(0);
    const int64_t chunk = c.config.batchSize > 0 ? c.config.batchSize : rows;
    double sum = 0;
    for (int64_t b = 0; b < rows; b += chunk) {
        const auto index = heldOutRows.slice(0, b, std::min(b + chunk, rows));
        const auto xb = c.x.index_select(0, index.to(c.x.device())).to(c.predictive.device);
        // At the rows themselves a stored predictive is the truth; a student teacher
        // only stands in for it between them.
        const auto p = classRows(c.source.stored.defined() && !c.source.student
                                     ? c.source.stored.index_select(0, index).to(c.predictive.device, at::kFloat)
                                     : c.predictive(xb, index));
        const auto qLogits = classRows(c.q.probabilities(xb, p)).to(c.predictive.device).clamp_min(1e-30).log();
        const auto decisions = c.config.jointDecision ? bayesDecisions(p, c.optimumCosts) : at::Tensor();
        const auto terms = correctionObjective(qLogits, p, c.L, c.M, decisions);
        double loss = terms.loss.item<double>();
        // The objective q is kept by is the one it trains on: the label term included
        // (its mean over the chunk's labelled rows, weighted as the chunk's rows).
        if (c.source.labels.defined() && c.config.labelTerm != LabelTerm::None)
            loss += labelTermWithGradient(qLogits, c.source.labels.index_select(0, index.to(c.source.labels.device())),
                                          c.L, c.config.labelTerm, c.config.labelWeight)
                        .loss;
        sum += loss * static_cast<double>(index.size(0));
    }
    return sum / static_cast<double>(rows);
}

/// One optimiser step on the batch `index`: the inputs (with noise, where asked for, in
/// the units q sees), the predictive, the decisions for the joint step, the scheduled
/// learning rate.
CorrectionStep correctionStep(const CorrectionProblem& c, torch::optim::Optimizer& optimizer, const at::Tensor& index,
                              long long step, long long total, at::Generator& generator)
{
    const auto& config = c.config;
    auto xb = index.defined() ? c.x.index_select(0, index.to(c.x.device())) : c.x;
    if (config.inputNoiseStd > 0) {
        auto noise = config.inputNoiseStd * standardNormalLike(xb, generator);
        // A q that standardises its inputs gets noise in the units it sees.
        if (!config.inputStd.empty() && xb.dim() == 2)
            noise = noise * torch::tensor(config.inputStd, torch::kDouble).to(noise.options());
        xb = xb + noise;
    }
    xb = xb.to(c.predictive.device);
    const auto p = c.predictive(xb, index);
    at::Tensor decisions;
    if (config.jointDecision)
        decisions = bayesDecisions(classRows(p), c.optimumCosts);
    setLearningRate(optimizer, scheduledLearningRate(config.schedule, config.learningRate, step, total));
    optimizer.zero_grad();
    LabelBatch labels;
    if (c.source.labels.defined() && config.labelTerm != LabelTerm::None) {
        labels.labels = index.defined() ? c.source.labels.index_select(0, index.to(c.source.labels.device()))
                                        : c.source.labels;
        labels.term = config.labelTerm;
        labels.weight = config.labelWeight;
    }
    const auto terms = c.q.objectiveAndGradient(xb, p, c.L, c.M, decisions, labels);
    optimizer.step();
    return {static_cast<int>(step + 1), terms.loss.item<double>(), terms.kl.item<double>(),
            terms.expectedCost.item<double>()};
}

/// Whether q decides one thing on (up to) 2,000 calibration inputs.
bool correctionCollapsed(const CorrectionProblem& c, int64_t n, const CostMatrix& costs)
{
    const auto probe = c.x.slice(0, 0, std::min<int64_t>(n, 2000));
    at::Tensor pProbe;
    if (c.source.student)
        pProbe = predictClassProbabilities(*c.source.student, probe);
    else
        pProbe = c.source.stored.slice(0, 0, probe.size(0)).to(torch::kCPU, torch::kFloat);
    return decisionsCollapsed(classRows(c.q.probabilities(probe, pProbe)), classRows(pProbe), costTensor(costs));
}

/// A copy of q's parameters (its best held-out epoch so far), put back at the end.
class KeptParameters {
public:
    explicit KeptParameters(std::vector<at::Tensor> params) : m_params(std::move(params)) {}
    void keep()
    {
        torch::NoGradGuard noGrad;
        m_kept.clear();
        for (const auto& t : m_params)
            m_kept.push_back(t.detach().clone());
    }
    void restore()
    {
        torch::NoGradGuard noGrad;
        for (size_t i = 0; i < m_params.size(); ++i)
            m_params[i].copy_(m_kept[i]);
    }

private:
    std::vector<at::Tensor> m_params, m_kept;
};

/// A step of q's training as a progress report (step of total, with its loss terms).
void reportCorrectionStep(const JobContext& ctx, const std::string& phase, const std::string& detail,
                          const CorrectionStep& s, long long step, long long total)
{
    auto pr = Progress::at(phase, detail, step, total);
    pr.training.loss = s.loss;
    pr.training.kl = s.kl;
    pr.training.expectedCost = s.expectedCost;
    ctx.report(pr);
}

} // namespace

CorrectionRun runCorrection(CorrectionNetwork& q, const at::Tensor& x, const PredictiveSource& source,
                            const CostMatrix& costs, const CorrectionConfig& config, at::Generator& generator,
                            const JobContext& ctx, const std::string& phase, const CorrectionStepCallback& onStep,
                            const CorrectionEpochCallback& onEpoch)
{
    TORCH_CHECK(source.student || source.teacherAt || source.stored.defined(), "correction: no predictive to correct");
    TORCH_CHECK(!source.stored.defined() || source.stored.size(0) == x.size(0), "correction: ", x.size(0),
                " calibration inputs but ", source.stored.defined() ? source.stored.size(0) : 0, " predictive rows");
    TORCH_CHECK(config.epochs >= 0 && config.learningRate >= 0, "correction: epochs and learning rate must be >= 0");
    const auto start = std::chrono::steady_clock::now();
    const auto params = q.parameters();
    TORCH_CHECK(!params.empty(), "correction: q has no parameters");
    const auto device = params.front().device();
    const auto L = costTensor(costs, at::kFloat, device);
    const double M = costs.utilityConstant();
    const CorrectionProblem problem{q, x, source, config, PredictiveAt{source, device}, L, M,
                                    correctionOptimumCosts(L, M)};
    if (source.student)
        source.student->eval();
    const auto optimizer = correctionOptimizer(params, config);
    const auto [trainRows, heldOutRows] = heldOutSplit(x, config, generator);
    const int64_t n = trainRows.defined() ? trainRows.size(0) : x.size(0);
    const long long perEpoch = stepsPerEpoch(n, config.batchSize);
    const long long total = perEpoch * config.epochs;
    ReportPacer pacer(total);
    KeptParameters kept(params);  // q's parameters at its best held-out epoch

    CorrectionRun out;
    out.curve.reserve(static_cast<size_t>(total));
    if (heldOutRows.defined()) {
        out.heldOutInputs = heldOutRows.size(0);
        out.heldOutObjective.push_back(heldOutObjective(problem, heldOutRows));
        out.keptEpoch = 0;
        kept.keep();
    }
    long long step = 0;
    q.setTraining(!config.inferenceMode);
    for (int epoch = 1; epoch <= config.epochs; ++epoch) {
        // A run on the whole set without noise uses the generator only to build q.
        auto batches = epochBatches(n, config.batchSize, generator);
        if (trainRows.defined())
            for (auto& index : batches)
                index = index.defined() ? trainRows.index_select(0, index) : trainRows;
        CorrectionStep sums{epoch, 0, 0, 0};
        for (const auto& index : batches) {
            ctx.checkCancelled();
            adaptThreadsToLoad();  // fewer intra-op threads while another process holds a core
            const CorrectionStep s = correctionStep(problem, *optimizer, index, step, total, generator);
            ++step;
            requireFiniteLoss(s.loss, phase.c_str(), step);
            out.curve.push_back(s);
            sums.loss += s.loss;
            sums.kl += s.kl;
            sums.expectedCost += s.expectedCost;
            if (onStep)
                onStep(s);
            if (ctx.progress && pacer.due(step))
                reportCorrectionStep(ctx, phase, perEpoch > 1 ? "epoch " + std::to_string(epoch) : std::string(), s,
                                     step, total);
        }
        const double k = static_cast<double>(batches.size());
        out.epochCurve.push_back({epoch, sums.loss / k, sums.kl / k, sums.expectedCost / k});
        if (heldOutRows.defined()) {
            out.heldOutObjective.push_back(heldOutObjective(problem, heldOutRows));
            if (out.heldOutObjective.back() < out.heldOutObjective[static_cast<size_t>(out.keptEpoch)]) {
                out.keptEpoch = epoch;
                kept.keep();
            }
            q.setTraining(!config.inferenceMode);
        }
        if (onEpoch) {
            onEpoch(epoch);
            q.setTraining(!config.inferenceMode);
        }
    }
    if (heldOutRows.defined() && out.keptEpoch < config.epochs)
        kept.restore();
    out.collapsed = correctionCollapsed(problem, n, costs);
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return out;
}

namespace {

/// The fast path for an Mlp q (see fastpath/mlp_backward.h, and bench/bench_fastpath.cpp
/// for what it saves): its parameters as one flat tensor, the objective's gradient by
/// hand.
class MlpCorrectionNetwork final : public CorrectionNetwork {
public:
    MlpCorrectionNetwork(Mlp q, bool residual) : m_q(std::move(q)), m_flat(*m_q), m_residual(residual) {}

    std::vector<at::Tensor> parameters() override { return {m_flat.tensor()}; }
    CorrectionTerms objectiveAndGradient(const at::Tensor& x, const at::Tensor& p, const at::Tensor& costs,
                                         double utilityConstant, const at::Tensor& decisions,
                                         const LabelBatch& labels) override
    {
        auto trace = traceMlp(*m_q, x);
        // The whole set in order hands over the same p every step: its log is taken once.
        if (!m_p.defined() || !m_p.is_same(p)) {
            m_p = p;
            m_logP = p.to(torch::kFloat).clamp_min(1e-12).log();
        }
        // A residual q's logits are log p + f(x): the gradient w.r.t. f's outputs is the
        // gradient w.r.t. the logits.
        const auto logits = m_residual ? trace.logits + m_logP : trace.logits;
        auto g = correctionObjectiveWithGradient(logits, m_logP, costs, utilityConstant, decisions);
        if (labels.active()) {
            const auto term = labelTermWithGradient(logits, labels.labels, costs, labels.term, labels.weight);
            g.gradient = g.gradient + term.gradient;
            g.terms.loss = g.terms.loss + term.loss;
        }
        setMlpGradients(*m_q, trace, backpropagateMlp(*m_q, trace, g.gradient));
        return g.terms;
    }
    void setTraining(bool on) override { m_q->train(on); }
    at::Tensor probabilities(const at::Tensor& x, const at::Tensor& p) override
    {
        return correctedProbabilities(*m_q, x, p, m_residual);
    }

private:
    Mlp m_q;
    FlatParameters m_flat;
    bool m_residual = false;
    at::Tensor m_p, m_logP;
};

} // namespace

namespace {

/// Distils p into `net` for `steps` Adam steps on the whole of x: mean KL(p || net) =
/// cross-entropy(p, net) - H(p), whose gradient w.r.t. the net's logits is (net - p) / B.
/// Returns KL(net || p) at the end, the direction the correction's objective measures.
double distilPredictive(MlpImpl& net, const at::Tensor& x, const at::Tensor& logP, int steps, double learningRate,
                        const JobContext& ctx, const char* phase)
{
    const auto pFloat = logP.exp();
    FlatParameters flat(net);
    torch::optim::Adam adam({flat.tensor()}, torch::optim::AdamOptions(learningRate));
    const double b = static_cast<double>(x.size(0));
    for (int step = 1; step <= steps; ++step) {
        ctx.checkCancelled();
        auto trace = traceMlp(net, x);
        auto dLogits = (torch::softmax(trace.logits, 1) - pFloat) / b;
        setMlpGradients(net, trace, backpropagateMlp(net, trace, dLogits));
        adam.step();
        if (ctx.progress && (step % std::max(1, steps / 20) == 0 || step == steps))
            ctx.report(Progress::at(phase, {}, step, steps));
    }
    flat.release();
    torch::NoGradGuard noGrad;
    const auto logQ = torch::log_softmax(net.forward(x), 1);
    return (logQ.exp() * (logQ - logP)).sum(1).mean().item<double>();
}

} // namespace

CorrectionOutput trainCorrection(const at::Tensor& x, const at::Tensor& p, const CostMatrix& costs,
                                 const CorrectionConfig& config, at::Generator& generator, const JobContext& ctx,
                                 const CorrectionObserver& observer, const Mlp* initial, const at::Tensor& labels)
{
    costs.validateFor(static_cast<int>(p.size(1)));
    TORCH_CHECK(!labels.defined() || labels.size(0) == x.size(0), "correction: ", labels.size(0), " labels for ",
                x.size(0), " calibration inputs");
    TORCH_CHECK(x.size(0) == p.size(0), "correction: ", x.size(0), " calibration inputs but ", p.size(0),
                " predictive rows");
    const auto start = std::chrono::steady_clock::now();

    CorrectionOutput out;
    if (initial) {
        out.q = Mlp(x.size(1), (*initial)->hidden, p.size(1));
        torch::NoGradGuard noGrad;
        auto src = (*initial)->parameters();
        auto dst = out.q->parameters();
        for (size_t i = 0; i < src.size(); ++i)
            dst[i].copy_(src[i]);
        out.q->inputMean = (*initial)->inputMean;
        out.q->inputStd = (*initial)->inputStd;
    } else {
        out.q = Mlp(x.size(1), config.hidden, p.size(1));
        initialiseFrom(*out.q, generator);
        out.q->setInputStandardisation(config.inputMean, config.inputStd);
        if (config.residual) {
            // f starts at 0, so q starts as p everywhere.
            torch::NoGradGuard noGrad;
            auto last = out.q->linearLayers().back();
            last->weight.zero_();
            last->bias.zero_();
        }
    }
    out.residual = config.residual;
    out.q->to(x.device());
    const auto logP = p.to(torch::kFloat).clamp_min(1e-12).log();
    out.warmStartKl = std::numeric_limits<double>::quiet_NaN();
    if (!initial && !config.residual && config.warmStartSteps > 0)
        out.warmStartKl = distilPredictive(*out.q, x, logP, config.warmStartSteps, config.warmStartLearningRate, ctx,
                                           "warm_start");

    // A teacher between the rows: S distilled from p, asked wherever q trains.
    PredictiveSource source{nullptr, p, {}};
    source.labels = labels.defined() ? labels.to(at::kLong) : at::Tensor();
    Mlp student{nullptr};
    if (config.studentTeacherSteps > 0) {
        student = Mlp(x.size(1), config.hidden, p.size(1));
        initialiseFrom(*student, generator);
        student->setInputStandardisation(config.inputMean, config.inputStd);
        student->to(x.device());
        out.studentKl = distilPredictive(*student, x, logP, config.studentTeacherSteps, config.warmStartLearningRate,
                                         ctx, "student");
        student->eval();
        source.teacherAt = [net = student.ptr()](const at::Tensor& inputs) { return torch::softmax(net->forward(inputs), 1); };
    }

    CorrectionRun run;
    {
        MlpCorrectionNetwork network(out.q, config.residual);
        const auto onStep = [&](const CorrectionStep& s) {
            if (observer)
                observer(s, *out.q);
        };
        run = runCorrection(network, x, source, costs, config, generator, ctx, "correction", onStep);
    }
    out.curve = std::move(run.curve);
    out.collapsed = run.collapsed;
    out.heldOutObjective = std::move(run.heldOutObjective);
    out.keptEpoch = run.keptEpoch;
    out.heldOutInputs = run.heldOutInputs;
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return out;
}

} // namespace lcs
