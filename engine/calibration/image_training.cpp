#include "engine/calibration/image_training.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <deque>
#include <optional>

#include <torch/torch.h>

#include "engine/core/stopwatch.h"
#include "engine/core/threads.h"
#include "engine/decision/decisions.h"
#include "engine/fastpath/mlp_distillation.h"
#include "engine/inference/chain.h"

namespace lcs {

void augmentBatch(at::Tensor& x, at::Tensor& y, const ImageAugmentation& augmentation, at::Generator& generator)
{
    TORCH_CHECK(x.dim() == 4, "augmentBatch: images must be [N, C, H, W]");
    const bool maps = y.defined() && y.dim() == 3;
    const auto n = x.size(0);
    if (augmentation.flips) {
        // One uniform per image, drawn first: the stream flips-only runs always drew.
        const auto flip = at::empty({n}, at::kFloat).uniform_(0, 1, generator).lt(0.5).nonzero().flatten();
        if (flip.numel() > 0) {
            x = x.clone();
            x.index_put_({flip}, x.index_select(0, flip).flip({-1}));
            if (maps) {
                y = y.clone();
                y.index_put_({flip}, y.index_select(0, flip).flip({-1}));
            }
        }
    }
    if (augmentation.cropScale < 1.0) {
        const auto h = x.size(2), w = x.size(3);
        // Per image: the share s and where the crop's top-left corner lies in its range.
        const auto u = at::empty({n, 3}, at::kDouble).uniform_(0, 1, generator);
        const auto draws = u.accessor<double, 2>();
        std::vector<at::Tensor> images, labels;
        for (int64_t i = 0; i < n; ++i) {
            const double s = augmentation.cropScale + (1.0 - augmentation.cropScale) * draws[i][0];
            const auto ch = std::clamp<int64_t>(std::llround(s * static_cast<double>(h)), 1, h);
            const auto cw = std::clamp<int64_t>(std::llround(s * static_cast<double>(w)), 1, w);
            const auto top = std::min<int64_t>(static_cast<int64_t>(draws[i][1] * static_cast<double>(h - ch + 1)), h - ch);
            const auto left = std::min<int64_t>(static_cast<int64_t>(draws[i][2] * static_cast<double>(w - cw + 1)), w - cw);
            const auto crop = x.slice(0, i, i + 1).slice(2, top, top + ch).slice(3, left, left + cw);
            images.push_back(torch::nn::functional::interpolate(
                crop, torch::nn::functional::InterpolateFuncOptions()
                          .size(std::vector<int64_t>{h, w})
                          .mode(torch::kBilinear)
                          .align_corners(false)));
            if (maps) {
                const auto mapCrop = y.slice(0, i, i + 1).slice(1, top, top + ch).slice(2, left, left + cw);
                labels.push_back(torch::nn::functional::interpolate(
                                     mapCrop.unsqueeze(1).to(at::kFloat),
                                     torch::nn::functional::InterpolateFuncOptions()
                                         .size(std::vector<int64_t>{h, w})
                                         .mode(torch::kNearest))
                                     .squeeze(1)
                                     .to(y.scalar_type()));
            }
        }
        x = at::cat(images, 0);
        if (maps)
            y = at::cat(labels, 0);
    }
    if (augmentation.jitter > 0.0) {
        const double j = augmentation.jitter;
        const auto gain = at::empty({n, 1, 1, 1}, x.options()).uniform_(1 - j, 1 + j, generator);
        const auto offset = at::empty({n, 1, 1, 1}, x.options()).uniform_(-j, j, generator);
        x = x * gain + offset;
    }
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
    ReportPacer pacer(total);
    model.train();
    for (int epoch = 0; epoch < config.epochs; ++epoch) {
        double lossSum = 0;
        for (const auto& index : shuffledBatches(n, config.batchSize, generator)) {
            ctx.checkCancelled();
            adaptThreadsToLoad();  // fewer intra-op threads while another process holds a core
            setLearningRate(optimizer, scheduledLearningRate(config.schedule, config.learningRate, step, total));
            auto x = data.x.index_select(0, index);
            auto y = data.y.index_select(0, index);
            if (config.augmentation.active())
                augmentBatch(x, y, config.augmentation, generator);
            x = x.to(device);
            y = y.to(device);
            optimizer.zero_grad();
            auto loss = weightedCrossEntropy(model.forward(x), y, weights, config.ignoreLabel);
            loss.backward();
            optimizer.step();
            const double lossValue = loss.item<double>();
            requireFiniteLoss(lossValue, phase.c_str(), step + 1);
            lossSum += lossValue;
            ++step;
            if (ctx.progress && pacer.due(step)) {
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

namespace {

/// Any Classifier as the chain's network: mean cross-entropy (void pixels left out),
/// plus the loss-calibrated sampler's utility potential when costs are given, through
/// autograd.
class AutogradChainNetwork final : public ChainNetwork {
public:
    AutogradChainNetwork(ClassifierImpl& model, const CostMatrix* lossCalibration, int64_t ignoreLabel)
        : m_model(model), m_ignoreLabel(ignoreLabel)
    {
        if (lossCalibration) {
            m_costs = costTensor(*lossCalibration, at::kFloat, deviceOf(model));
            m_utilityConstant = lossCalibration->utilityConstant();
        }
    }
    std::vector<at::Tensor> parameters() override { return m_model.parameters(); }
    double potentialAndGradient(const at::Tensor& x, const at::Tensor& y) override
    {
        for (auto& p : m_model.parameters())
            if (p.grad().defined())
                p.mutable_grad().zero_();  // backward adds to them
        const auto logits = m_model.forward(x);
        auto loss = weightedCrossEntropy(logits, y, {}, m_ignoreLabel);
        if (m_costs.defined())
            loss = loss + utilityPotential(logits, m_costs, m_utilityConstant);
        loss.backward();
        return loss.item<double>();
    }
    at::Tensor probabilities(const at::Tensor& x) override { return predictClassProbabilities(m_model, x); }

private:
    ClassifierImpl& m_model;
    int64_t m_ignoreLabel;
    at::Tensor m_costs;
    double m_utilityConstant = 1;
};

} // namespace

namespace {

/// The MLP inside a classifier, when the fast path can train it (else empty).
Mlp fastPathMlp(ClassifierImpl& model)
{
    auto* flat = dynamic_cast<FlatMlpImpl*>(&model);
    return flat && deviceOf(model).is_cpu() ? flat->mlp : Mlp(nullptr);
}

/// The student's step where the fast path cannot take it: one SGD step on a noisy
/// (augmented) minibatch of D' against the teacher's current sample, through autograd.
class AutogradStudentStep {
public:
    AutogradStudentStep(ClassifierImpl& teacher, ClassifierImpl& student, const at::Tensor& calibration,
                        const SgldDistillationConfig& config, at::Generator& generator)
        : m_teacher(teacher), m_student(student), m_calibration(calibration), m_config(config),
          m_generator(generator), m_device(deviceOf(teacher)),
          m_optimizer(student.parameters(), torch::optim::SGDOptions(config.student.learningRate)
                                                .momentum(config.student.momentum)
                                                .weight_decay(config.student.weightDecay))
    {
    }
    /// A step on `rows` inputs of D' at `learningRate`; returns the student's loss.
    double operator()(int64_t rows, double learningRate)
    {
        const auto pick = at::randint(m_calibration.size(0), {rows}, m_generator, at::kLong);
        auto xPrime = m_calibration.index_select(0, pick);
        if (m_config.student.augmentation.active()) {
            at::Tensor noLabels;
            augmentBatch(xPrime, noLabels, m_config.student.augmentation, m_generator);
        }
        if (m_config.calibrationNoiseStd > 0)
            xPrime = xPrime +
                     at::empty(xPrime.sizes(), xPrime.options()).normal_(0, m_config.calibrationNoiseStd, m_generator);
        xPrime = xPrime.to(m_device);
        at::Tensor target;
        {
            torch::NoGradGuard noGrad;
            target = torch::softmax(m_teacher.forward(xPrime), 1);
        }
        setLearningRate(m_optimizer, learningRate);
        m_optimizer.zero_grad();
        auto studentLoss = -(target * torch::log_softmax(m_student.forward(xPrime), 1)).sum(1).mean();
        studentLoss.backward();
        m_optimizer.step();
        return studentLoss.item<double>();
    }

private:
    ClassifierImpl& m_teacher;
    ClassifierImpl& m_student;
    const at::Tensor& m_calibration;
    const SgldDistillationConfig& m_config;
    at::Generator& m_generator;
    c10::Device m_device;
    torch::optim::SGD m_optimizer;
};

} // namespace

SgldDistillationResult runSgldDistillation(const ModelSpec& spec, const ClassifierImpl& initial,
                                           const TrainingSet& data, const at::Tensor& calibrationInputs,
                                           const at::Tensor& evalInputs, const SgldDistillationConfig& config,
                                           at::Generator& generator, const JobContext& ctx, const std::string& phase,
                                           const EpochCallback& onEpoch)
{
    const auto start = Clock::now();
    SgldDistillationResult out;
    out.teacher = cloneClassifier(spec, initial);
    auto& teacher = *out.teacher;
    const auto device = deviceOf(teacher);
    if (config.distil) {
        out.student = config.studentFromInitial ? cloneClassifier(spec, initial) : spec.build(generator);
        out.student->to(device);
        out.student->train();
    }
    const auto calibration = calibrationInputs.defined() ? calibrationInputs : data.x;
    ChainConfig chain{config.learningRate, config.momentum, config.priorPrecision, config.temperature,
                      config.batchSize};
    chain.steps = stepsPerEpoch(data.x.size(0), config.batchSize) * config.epochs;
    chain.burnIn = config.burnInSteps;
    chain.thinning = config.thinning;
    chain.keepLast = config.keepSamples;
    const auto studentRate = [&](long long step, long long total) {
        // The schedule's step is 0-based: the sampler step just taken is step - 1.
        return scheduledLearningRate(config.student.schedule, config.student.learningRate, step - 1, total);
    };

    Mlp teacherMlp = config.lossCalibration || config.ignoreLabel >= 0 ? Mlp(nullptr) : fastPathMlp(teacher);
    Mlp studentMlp = config.distil && out.student ? fastPathMlp(*out.student) : Mlp(nullptr);
    const bool fast = teacherMlp && (!config.distil || studentMlp) && calibration.scalar_type() == at::kFloat;

    ChainHooks hooks;
    std::unique_ptr<MlpStudentSteps> fastStudent;
    std::unique_ptr<AutogradStudentStep> autogradStudent;
    // With two cores or more the teacher and the student take one each (the student a
    // step behind); LibTorch's own threads would only contend with them. Decided on the
    // ceiling, not the load: the two wait for each other on a condition variable, without
    // spinning, so beside a busy process the pair still beats one core alone.
    const bool overlap = fast && config.distil && configuredThreads() >= 2;
    std::optional<ScopedIntraOpThreads> teacherCore;
    if (overlap)
        teacherCore.emplace(1);
    if (config.distil && fast) {
        fastStudent = std::make_unique<MlpStudentSteps>(
            *teacherMlp, *studentMlp, calibration, config.calibrationNoiseStd,
            StudentSgd{config.student.momentum, config.student.weightDecay},
            config.batchSize > 0 ? config.batchSize : data.x.size(0), drawSeed(generator), overlap,
            config.temperature > 0);
        hooks.afterStep = [&](const at::Tensor& index, long long step, long long total) {
            const int64_t rows = index.defined() ? index.size(0) : data.x.size(0);
            return fastStudent->submit(rows, studentRate(step, total));
        };
        // The sampler's noise is drawn on the student's core, two steps ahead.
        hooks.standardNoise = [&](long long step, int64_t count) { return fastStudent->teacherNoiseFor(step, count); };
        // The minibatches' rows, copied out on the student's core three steps ahead.
        fastStudent->gatherAhead(data.x);
        hooks.epochBatches = [&](long long firstStep, const std::vector<at::Tensor>& batches) {
            fastStudent->announceBatches(firstStep, batches);
        };
        hooks.minibatchRows = [&](long long step, const at::Tensor& index) {
            return fastStudent->minibatchRows(step, index);
        };
    } else if (config.distil) {
        autogradStudent = std::make_unique<AutogradStudentStep>(teacher, *out.student, calibration, config, generator);
        hooks.afterStep = [&](const at::Tensor& index, long long step, long long total) {
            const int64_t rows = index.defined() ? index.size(0) : data.x.size(0);
            return (*autogradStudent)(rows, studentRate(step, total));
        };
    }
    hooks.onEpoch = [&](int epoch) {
        if (fastStudent)
            fastStudent->drain();  // the epoch's last student step
        if (onEpoch) {
            auto& shown = config.distil ? *out.student : teacher;
            onEpoch(epoch, shown);
            shown.train();
        }
    };
    teacher.train();
    ChainRun run;
    {
        AutogradChainNetwork autograd(teacher, config.lossCalibration, config.ignoreLabel);
        const auto mlp = fast ? mlpChainNetwork(teacherMlp)
                              : std::unique_ptr<ChainNetwork>();
        ChainNetwork& network = fast ? *mlp : static_cast<ChainNetwork&>(autograd);
        run = runChain(network, data, evalInputs, chain, generator, ctx, phase, hooks);
        if (fastStudent)
            fastStudent->drain();
        fastStudent.reset();  // the student's parameters own their storage again
    }
    for (const auto& e : run.epochs)
        out.curve.push_back({phase, e.epoch, e.nll, config.distil ? e.extra : 0.0});
    out.evalPredictive = run.predictive;
    out.samplesKept = run.samplesKept;
    out.seconds = secondsSince(start);
    out.secondsPerEpoch = out.seconds / std::max(1, config.epochs);
    return out;
}

namespace {

/// Any Classifier as q: the objective through autograd, on class rows (per-pixel
/// networks give one row per pixel).
class AutogradCorrectionNetwork final : public CorrectionNetwork {
public:
    explicit AutogradCorrectionNetwork(ClassifierImpl& q) : m_q(q) {}

    std::vector<at::Tensor> parameters() override { return m_q.parameters(); }
    CorrectionTerms objectiveAndGradient(const at::Tensor& x, const at::Tensor& p, const at::Tensor& costs,
                                         double utilityConstant, const at::Tensor& decisions,
                                         const LabelBatch& labels) override
    {
        TORCH_CHECK(!labels.active(), "correction: a label term needs the MLP fast path");
        auto terms = correctionObjective(classRows(m_q.forward(x)), classRows(p), costs, utilityConstant, decisions);
        terms.loss.backward();
        return terms;
    }
    void setTraining(bool on) override { m_q.train(on); }
    at::Tensor probabilities(const at::Tensor& x, const at::Tensor&) override
    {
        return predictClassProbabilities(m_q, x);
    }

private:
    ClassifierImpl& m_q;
};

} // namespace

ImageCorrectionResult trainImageCorrection(const ModelSpec& spec, const ClassifierImpl& warmStart,
                                           const at::Tensor& calibrationInputs, const PredictiveSource& source,
                                           const CostMatrix& costs, const CorrectionConfig& config,
                                           at::Generator& generator, const JobContext& ctx, const std::string& phase,
                                           const EpochCallback& onEpoch)
{
    ImageCorrectionResult out;
    out.q = cloneClassifier(spec, warmStart);
    AutogradCorrectionNetwork network(*out.q);
    const auto epochDone = [&](int epoch) {
        if (onEpoch)
            onEpoch(epoch, *out.q);
    };
    static_cast<CorrectionRun&>(out) =
        runCorrection(network, calibrationInputs, source, costs, config, generator, ctx, phase, {}, epochDone);
    return out;
}

} // namespace lcs
