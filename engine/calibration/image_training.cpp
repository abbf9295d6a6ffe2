#include "calibration/image_training.h"

#include <chrono>
#include <cmath>
#include <deque>

#include <torch/torch.h>

#include "decision/decisions.h"
#include "core/stopwatch.h"
#include "inference/sghmc.h"

namespace lcs {
namespace {

torch::Device deviceOf(const torch::nn::Module& m)
{
    const auto params = m.parameters();
    return params.empty() ? torch::Device(torch::kCPU) : params.front().device();
}

void setLearningRate(torch::optim::Optimizer& optimizer, double lr)
{
    for (auto& group : optimizer.param_groups())
        group.options().set_lr(lr);
}

/// Batches of a random permutation of 0..n-1 (the last one may be smaller).
std::vector<at::Tensor> shuffledBatches(int64_t n, int64_t batchSize, at::Generator& generator)
{
    const auto order = at::randperm(n, generator, at::kLong);
    std::vector<at::Tensor> batches;
    for (int64_t start = 0; start < n; start += batchSize)
        batches.push_back(order.slice(0, start, std::min(start + batchSize, n)));
    return batches;
}

/// Left-right flips of each (image, label map) pair with probability 1/2; labels of a
/// classifier ([N]) are left alone.
void flipPairs(at::Tensor& x, at::Tensor& y, at::Generator& generator)
{
    const auto flip = at::empty({x.size(0)}, at::kFloat).uniform_(0, 1, generator).lt(0.5).nonzero().flatten();
    if (flip.numel() == 0)
        return;
    x = x.clone();
    x.index_put_({flip}, x.index_select(0, flip).flip({-1}));
    if (y.dim() > 1) {
        y = y.clone();
        y.index_put_({flip}, y.index_select(0, flip).flip({-1}));
    }
}

long long batchesPerEpoch(int64_t n, int64_t batchSize)
{
    return (n + batchSize - 1) / batchSize;
}

} // namespace

double scheduledLearningRate(LrSchedule schedule, double maxLr, long long step, long long total)
{
    if (total <= 1 || schedule == LrSchedule::Constant)
        return maxLr;
    const double t = static_cast<double>(std::min(step, total - 1)) / static_cast<double>(total - 1);
    const auto cosineFrom = [](double start, double end, double fraction) {
        return end + (start - end) * 0.5 * (1.0 + std::cos(M_PI * fraction));
    };
    if (schedule == LrSchedule::Cosine)
        return cosineFrom(maxLr, 0.0, t);
    // OneCycleLR defaults: pct_start 0.3, div_factor 25, final_div_factor 1e4.
    const double initial = maxLr / 25.0;
    const double final = initial / 1e4;
    constexpr double warm = 0.3;
    if (t <= warm)
        return cosineFrom(initial, maxLr, t / warm);
    return cosineFrom(maxLr, final, (t - warm) / (1.0 - warm));
}

at::Tensor classRows(const at::Tensor& t)
{
    return t.dim() > 2 ? t.movedim(1, -1).reshape({-1, t.size(1)}) : t;
}

at::Tensor weightedCrossEntropy(const at::Tensor& logitsIn, const at::Tensor& labelsIn, const at::Tensor& classWeights,
                                int64_t ignoreLabel)
{
    auto logits = classRows(logitsIn);
    auto labels = labelsIn.reshape({-1});
    if (ignoreLabel >= 0) {
        const auto keep = labels.ne(ignoreLabel).nonzero().flatten();
        logits = logits.index_select(0, keep);
        labels = labels.index_select(0, keep);
    }
    const auto nll = -torch::log_softmax(logits, 1).gather(1, labels.unsqueeze(1)).squeeze(1);
    if (!classWeights.defined())
        return nll.mean();
    const auto w = classWeights.to(logits.options()).index_select(0, labels);
    return (w * nll).sum() / w.sum();
}

at::Tensor utilityPotential(const at::Tensor& logitsIn, const at::Tensor& costs, double utilityConstant)
{
    const auto logits = classRows(logitsIn);
    const auto L = costs.to(logits.options());
    const auto p = torch::softmax(logits, 1);
    at::Tensor decisions;
    {
        torch::NoGradGuard noGrad;
        decisions = bayesDecisions(p.detach(), L);
    }
    const auto utilities = (utilityConstant - L).t().index_select(0, decisions);  // [B, C]: u(y, h*_b)
    return -(p * utilities).sum(1).clamp_min(1e-12).log().mean();
}

std::vector<int64_t> importantClasses(const CostMatrix& costs)
{
    const int c = costs.numClasses();
    std::vector<double> columnMean(static_cast<size_t>(c), 0.0);
    double highest = 0;
    for (int d = 0; d < c; ++d) {
        for (int y = 0; y < c; ++y)
            if (y != d)
                columnMean[static_cast<size_t>(d)] += costs.at(y, d) / std::max(1, c - 1);
        highest = std::max(highest, columnMean[static_cast<size_t>(d)]);
    }
    std::vector<int64_t> important;
    for (int d = 0; d < c; ++d)
        if (columnMean[static_cast<size_t>(d)] < highest - 1e-12)
            important.push_back(d);
    return important;
}

void trainSgd(ClassifierImpl& model, const TrainingSet& data, const SgdConfig& config, at::Generator& generator,
              const JobContext& ctx, const std::string& phase, const EpochCallback& onEpoch)
{
    const auto device = deviceOf(model);
    torch::optim::SGD optimizer(model.parameters(), torch::optim::SGDOptions(config.learningRate)
                                                        .momentum(config.momentum)
                                                        .weight_decay(config.weightDecay));
    at::Tensor weights;
    if (!config.classWeights.empty())
        weights = torch::tensor(config.classWeights, torch::kFloat).to(device);
    const auto n = data.x.size(0);
    const long long perEpoch = batchesPerEpoch(n, config.batchSize);
    const long long total = perEpoch * config.epochs;
    long long step = 0;
    model.train();
    for (int epoch = 0; epoch < config.epochs; ++epoch) {
        double lossSum = 0;
        for (const auto& index : shuffledBatches(n, config.batchSize, generator)) {
            ctx.checkCancelled();
            setLearningRate(optimizer, scheduledLearningRate(config.schedule, config.learningRate, step, total));
            auto x = data.x.index_select(0, index);
            auto y = data.y.index_select(0, index);
            if (config.flips)
                flipPairs(x, y, generator);
            x = x.to(device);
            y = y.to(device);
            optimizer.zero_grad();
            auto loss = weightedCrossEntropy(model.forward(x), y, weights, config.ignoreLabel);
            loss.backward();
            optimizer.step();
            lossSum += loss.item<double>();
            ++step;
            if (step % 50 == 0 || step == total)
            {
                auto p = Progress::at(phase, "epoch " + std::to_string(epoch + 1), step, total);
                p.training.loss = lossSum / static_cast<double>((step - 1) % perEpoch + 1);
                ctx.report(p);
            }
        }
        if (onEpoch) {
            onEpoch(epoch + 1, model);
            model.train();
        }
    }
}

SgldDistillationResult runSgldDistillation(const ModelSpec& spec, const ClassifierImpl& initial,
                                           const TrainingSet& data, const at::Tensor& calibrationInputs,
                                           const InputPerturbation& perturb, const at::Tensor& evalInputs,
                                           const SgldDistillationConfig& config, at::Generator& generator,
                                           const JobContext& ctx, const std::string& phase,
                                           const EpochCallback& onEpoch)
{
    const auto start = Clock::now();
    SgldDistillationResult out;
    out.teacher = cloneClassifier(spec, initial);
    auto& teacher = *out.teacher;
    const auto device = deviceOf(teacher);
    const auto n = data.x.size(0);
    Sghmc sampler(teacher.parameters(), SghmcOptions(config.learningRate)
                                            .momentum(config.momentum)
                                            .prior_precision(config.priorPrecision)
                                            .num_data(static_cast<double>(n))
                                            .temperature(config.temperature),
                  generator);
    std::unique_ptr<torch::optim::SGD> studentOptimizer;
    if (config.distil) {
        out.student = config.studentFromInitial ? cloneClassifier(spec, initial) : spec.build(generator);
        out.student->to(device);
        out.student->train();
        studentOptimizer = std::make_unique<torch::optim::SGD>(
            out.student->parameters(), torch::optim::SGDOptions(config.student.learningRate)
                                           .momentum(config.student.momentum)
                                           .weight_decay(config.student.weightDecay));
    }
    at::Tensor lcCosts;
    double lcM = 1;
    if (config.lossCalibration) {
        lcCosts = costTensor(*config.lossCalibration, at::kFloat, device);
        lcM = config.lossCalibration->utilityConstant();
    }
    const auto calibration = calibrationInputs.defined() ? calibrationInputs : data.x;
    const long long perEpoch = batchesPerEpoch(n, config.batchSize);
    const long long total = perEpoch * config.epochs;
    std::deque<at::Tensor> kept;
    long long step = 0;
    teacher.train();
    for (int epoch = 0; epoch < config.epochs; ++epoch) {
        double lossSum = 0, studentSum = 0;
        long long inEpoch = 0;
        for (const auto& index : shuffledBatches(n, config.batchSize, generator)) {
            ctx.checkCancelled();
            // Teacher: one sampler step on a minibatch of D.
            const auto x = data.x.index_select(0, index).to(device);
            const auto y = data.y.index_select(0, index).to(device);
            sampler.zero_grad();
            const auto logits = teacher.forward(x);
            auto loss = weightedCrossEntropy(logits, y, {}, config.ignoreLabel);
            if (lcCosts.defined())
                loss = loss + utilityPotential(logits, lcCosts, lcM);
            loss.backward();
            sampler.step();
            lossSum += loss.item<double>();
            // Student: one step on a perturbed minibatch of D' against the current sample.
            if (config.distil) {
                const auto pick = at::randint(calibration.size(0), {index.size(0)}, generator, at::kLong);
                auto xPrime = calibration.index_select(0, pick);
                if (perturb)
                    xPrime = perturb(xPrime, generator);
                xPrime = xPrime.to(device);
                at::Tensor target;
                {
                    torch::NoGradGuard noGrad;
                    target = torch::softmax(teacher.forward(xPrime), 1);
                }
                setLearningRate(*studentOptimizer, scheduledLearningRate(config.student.schedule,
                                                                         config.student.learningRate, step, total));
                studentOptimizer->zero_grad();
                auto studentLoss = -(target * torch::log_softmax(out.student->forward(xPrime), 1)).sum(1).mean();
                studentLoss.backward();
                studentOptimizer->step();
                studentSum += studentLoss.item<double>();
            }
            ++step;
            ++inEpoch;
            if (step > config.burnInSteps && (step - config.burnInSteps) % config.thinning == 0) {
                kept.push_back(predictClassProbabilities(teacher, evalInputs));
                if (static_cast<int>(kept.size()) > config.keepSamples)
                    kept.pop_front();
            }
            if (step % 50 == 0 || step == total)
            {
                auto p = Progress::at(phase, "epoch " + std::to_string(epoch + 1), step, total);
                p.training.nll = lossSum / static_cast<double>(inEpoch);
                if (config.distil)
                    p.training.studentLoss = studentSum / static_cast<double>(inEpoch);
                p.training.keptSamples = static_cast<int>(kept.size());
                ctx.report(p);
            }
        }
        out.curve.push_back({phase, epoch + 1, lossSum / static_cast<double>(inEpoch),
                             studentSum / static_cast<double>(inEpoch)});
        if (onEpoch) {
            auto& shown = config.distil ? *out.student : teacher;
            onEpoch(epoch + 1, shown);
            shown.train();
        }
    }
    if (kept.empty())
        kept.push_back(predictClassProbabilities(teacher, evalInputs));  // too short a chain: the last state
    PredictiveAverage average;
    for (const auto& probs : kept)
        average.add(probs);
    out.evalPredictive = average.mean();
    out.samplesKept = average.count();
    out.seconds = secondsSince(start);
    out.secondsPerEpoch = out.seconds / std::max(1, config.epochs);
    return out;
}

ImageCorrectionResult trainImageCorrection(const ModelSpec& spec, const ClassifierImpl& warmStart,
                                           const at::Tensor& calibrationInputs, const PredictiveSource& source,
                                           const CostMatrix& costs, const ImageCorrectionConfig& config,
                                           at::Generator& generator, const JobContext& ctx, const std::string& phase,
                                           const EpochCallback& onEpoch)
{
    TORCH_CHECK(source.student || source.stored.defined(), "trainImageCorrection: no predictive to correct");
    TORCH_CHECK(!source.stored.defined() || source.stored.size(0) == calibrationInputs.size(0),
                "trainImageCorrection: stored predictive and calibration inputs differ in length");
    const auto start = Clock::now();
    ImageCorrectionResult out;
    out.q = cloneClassifier(spec, warmStart);
    auto& q = *out.q;
    const auto device = deviceOf(q);
    const auto L = costTensor(costs, at::kFloat, device);
    const double M = costs.utilityConstant();
    const auto optimumCosts = correctionOptimumCosts(L, M);
    if (source.student)
        source.student->eval();
    torch::optim::SGD optimizer(q.parameters(), torch::optim::SGDOptions(config.learningRate)
                                                    .momentum(config.momentum)
                                                    .weight_decay(config.weightDecay));
    const auto n = calibrationInputs.size(0);
    const long long perEpoch = batchesPerEpoch(n, config.batchSize);
    const long long total = perEpoch * config.epochs;
    long long step = 0;
    const auto setMode = [&] {
        if (config.inferenceMode)
            q.eval();
        else
            q.train();
    };
    setMode();
    for (int epoch = 0; epoch < config.epochs; ++epoch) {
        CorrectionStep sums;
        long long inEpoch = 0;
        for (const auto& index : shuffledBatches(n, config.batchSize, generator)) {
            ctx.checkCancelled();
            auto x = calibrationInputs.index_select(0, index);
            if (config.inputNoiseStd > 0)
                x = x + at::empty(x.sizes(), at::kFloat).normal_(0.0, config.inputNoiseStd, generator);
            x = x.to(device);
            at::Tensor p;
            if (source.student) {
                torch::NoGradGuard noGrad;
                p = torch::softmax(source.student->forward(x), 1);
            } else {
                p = source.stored.index_select(0, index).to(device);
            }
            setLearningRate(optimizer, scheduledLearningRate(config.schedule, config.learningRate, step, total));
            optimizer.zero_grad();
            const auto pRows = classRows(p);
            at::Tensor decisions;
            if (config.jointDecision)
                decisions = bayesDecisions(pRows, optimumCosts);
            const auto terms = correctionObjective(classRows(q.forward(x)), pRows, L, M, decisions);
            terms.loss.backward();
            optimizer.step();
            sums.loss += terms.loss.item<double>();
            sums.kl += terms.kl.item<double>();
            sums.expectedCost += terms.expectedCost.item<double>();
            ++step;
            ++inEpoch;
            if (step % 50 == 0 || step == total)
            {
                auto p = Progress::at(phase, "epoch " + std::to_string(epoch + 1), step, total);
                p.training.loss = sums.loss / static_cast<double>(inEpoch);
                p.training.kl = sums.kl / static_cast<double>(inEpoch);
                p.training.expectedCost = sums.expectedCost / static_cast<double>(inEpoch);
                ctx.report(p);
            }
        }
        const double k = static_cast<double>(std::max<long long>(1, inEpoch));
        out.curve.push_back({epoch + 1, sums.loss / k, sums.kl / k, sums.expectedCost / k});
        if (onEpoch) {
            onEpoch(epoch + 1, q);
            setMode();
        }
    }
    // Collapse check on (up to) 2,000 calibration inputs.
    const auto probe = calibrationInputs.slice(0, 0, std::min<int64_t>(n, 2000));
    const auto qProbs = predictClassProbabilities(q, probe);
    const auto pProbs = source.student ? predictClassProbabilities(*source.student, probe)
                                       : source.stored.slice(0, 0, probe.size(0)).to(torch::kCPU, torch::kFloat);
    out.collapsed = decisionsCollapsed(classRows(qProbs), classRows(pProbs), costTensor(costs));
    out.seconds = secondsSince(start);
    return out;
}

} // namespace lcs
