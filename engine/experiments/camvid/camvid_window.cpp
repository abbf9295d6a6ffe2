#include "engine/experiments/camvid/camvid_experiment.h"

#include <chrono>
#include <cmath>
#include <filesystem>
#include <limits>

#include <torch/torch.h>

#include "base/core/atomic_file.h"
#include "base/core/input_error.h"
#include "base/core/seeds.h"
#include "engine/calibration/correction.h"
#include "engine/core/stopwatch.h"
#include "engine/decision/metrics_accumulator.h"
#include "engine/experiments/camvid/camvid_networks.h"
#include "engine/models/segnet.h"

/// The window's CamVid job: everything held in memory, so that a cost edit retrains only q
/// and the validation frames stream through S and q again.
namespace lcs {

namespace {

/// Validation figures of `net` on frames held in memory, in batches of a few frames
/// (single pass, or the mean of `mcPasses` dropout passes when > 0).
EpochTestFigures epochFigures(ClassifierImpl& net, int mcPasses, const at::Tensor& images, const at::Tensor& labels,
                              const CostMatrix& costs, const c10::Device& device)
{
    MetricsAccumulator acc(costs, kCamvidVoid);
    const auto L = costTensor(costs);
    constexpr int64_t kBatch = 4;
    for (int64_t b = 0; b < images.size(0); b += kBatch) {
        const auto x = images.slice(0, b, std::min(b + kBatch, images.size(0))).to(device);
        const auto probs = (mcPasses > 0 ? mcPredictive(net, x, mcPasses) : singlePass(net, x)).to(at::kCPU, at::kFloat);
        const auto y = labels.slice(0, b, b + x.size(0));
        acc.add(probs, bayesDecisions(classRows(probs), L).reshape(y.sizes()), y);
    }
    const auto m = acc.result();
    EpochTestFigures f;
    f.cost = m.averageCost;
    f.accuracy = m.accuracy;
    f.nll = m.nll;
    f.meanIou = m.meanIoU;
    return f;
}

/// Bytes of a decision tensor (values 0..10), row-major.
std::vector<uint8_t> decisionBytes(const at::Tensor& d)
{
    const auto bytes = d.to(at::kByte).contiguous();
    return std::vector<uint8_t>(bytes.data_ptr<uint8_t>(), bytes.data_ptr<uint8_t>() + bytes.numel());
}

/// Bayes decisions of `net` on one frame under L, as the evaluation makes them (one
/// frame at a time, single pass), so that a preview and the evaluation agree bit for bit.
std::vector<uint8_t> frameDecisions(ClassifierImpl& net, const CamvidFrame& frame, const CamvidNormalisation& norm,
                                    const at::Tensor& L, const c10::Device& device)
{
    const auto x = camvidFrameTensors(frame, norm).first.unsqueeze(0).to(device);
    const auto p = singlePass(net, x).to(at::kCPU, at::kFloat);
    return decisionBytes(bayesDecisions(classRows(p), L));
}

/// The cached preview frames decided by `net` under `costs`: for "sghmc_s" `net` is the S
/// being trained (no q yet); for "ours" `net` is q and the cache's S gives the
/// uncorrected decisions.
CamvidPreview makePreview(const std::string& network, int epoch, bool recorrection, ClassifierImpl& net,
                          const CamvidWindowCache& cache, const CostMatrix& costs)
{
    CamvidPreview out;
    out.network = network;
    out.epoch = epoch;
    out.recorrection = recorrection;
    const auto L = costTensor(costs);
    const c10::Device device(cache.train.device);
    const bool isQ = network == "ours";
    for (size_t i = 0; i < cache.previewFrames.size(); ++i) {
        const auto& frame = cache.previewFrames[i];
        CamvidVisitedFrame v;
        v.index = static_cast<int64_t>(i);
        v.name = cache.previewNames[i];
        v.height = frame.height;
        v.width = frame.width;
        v.rgb = frame.rgb;
        v.truth = frame.labels;
        if (isQ) {
            v.uncorrected = frameDecisions(*cache.student, frame, cache.norm, L, device);
            v.corrected = frameDecisions(net, frame, cache.norm, L, device);
        } else {
            v.uncorrected = frameDecisions(net, frame, cache.norm, L, device);
        }
        out.frames.push_back(std::move(v));
    }
    return out;
}

/// Sends `net`'s validation figures after each epoch as Progress::test and, for S and q
/// when `preview` is set, the preview frames as `net` decides them.
EpochCallback reportEpochs(const std::string& model, int mcPasses, const CamvidWindowCache& cache,
                           const CostMatrix& costs, const JobContext& ctx, CamvidPreviewSink preview = {},
                           bool recorrection = false)
{
    if (model != "sghmc_s" && model != "ours")
        preview = nullptr;
    return [model, mcPasses, &cache, costs, ctx, preview, recorrection](int epoch, ClassifierImpl& net) {
        ctx.checkCancelled();
        Progress p;
        p.phase = model;
        p.detail = "epoch " + std::to_string(epoch) + " validation";
        auto figures = epochFigures(net, mcPasses, cache.epochImages, cache.epochLabels, costs,
                                    c10::Device(cache.train.device));
        figures.model = model;
        figures.epoch = epoch;
        p.test = figures;
        ctx.report(p);
        if (preview && !cache.previewFrames.empty())
            preview(makePreview(model, epoch, recorrection, net, cache, costs));
    };
}

constexpr int kEpochMcPasses = 5;  ///< MC-dropout passes for its per-epoch figures (30 would dominate the run)

/// The previewed frames as the evaluation reads them (RGB and labels at the networks'
/// size), so the live overlays match the final ones frame for frame.
void readPreviewFrames(const CamvidWindowConfig& config, CamvidWindowCache& cache)
{
    const auto& tc = config.train;
    auto pairs = findCamvidSplit(tc.data, config.evalSplit);
    const auto n = std::min<size_t>(pairs.size(), static_cast<size_t>(config.previewFrames));
    for (size_t i = 0; i < n; ++i) {
        cache.previewFrames.push_back(readCamvidFrame(pairs[i], tc.height, tc.width));
        cache.previewNames.push_back(std::filesystem::path(pairs[i].image).filename().string());
    }
}

/// What the cache records of the run besides its tensors: the networks' spec, the
/// decision costs, q's settings and where the evaluation reads its frames.
void describeRun(const CamvidWindowConfig& config, const CostMatrix& costs, CamvidWindowCache& cache)
{
    const auto& tc = config.train;
    cache.spec = tc.model;
    cache.spec.classes = kCamvidRealClasses;
    cache.spec.inputShape = {3, tc.height, tc.width};
    cache.costs = costs;
    cache.train = tc;
    cache.evalSplit = config.evalSplit;
    cache.maxEvalFrames = config.maxEvalFrames;
}

} // namespace

TaskPlan camvidWindowPlan(const CamvidWindowConfig& config, bool withFps)
{
    const auto& t = config.train;
    TaskPlan plan;
    auto add = [&](const char* phase, double weight) { plan.push_back({TaskIdentity{phase, std::nullopt, 0}, weight}); };
    add("load", 0.05 * t.sgd.epochs);
    if (config.trainMcDropout)
        add("mc_dropout", t.sgd.epochs);
    add("cw_sgd", t.sgd.epochs);
    add("sghmc_s", 2.1 * t.sghmc.epochs);
    add("correction", 1.6 * t.correction.epochs);
    add("eval", 0.5);
    if (withFps)
        add("fps", 1.5);
    return plan;
}

CamvidWindowRun trainCamvidWindow(const CamvidWindowConfig& config, const JobContext& ctx)
{
    const auto start = Clock::now();
    const auto& tc = config.train;
    const auto costs = camvidDecisionCosts(tc.costs);
    const c10::Device device(tc.device);
    ctx.report(Progress::at("load", tc.data, 0, 3));
    auto cache = std::make_shared<CamvidWindowCache>();
    cache->norm = camvidNormalisation(tc.data, tc.split, tc.height, tc.width, tc.maxFrames);
    const auto set = loadCamvidSplit(tc.data, tc.split, tc.height, tc.width, cache->norm, tc.maxFrames);
    ctx.report(Progress::at("load", tc.data, 2, 3));
    requireLabelledPixels(set, tc.data, tc.split);
    // Loading the validation frames now also refuses a missing split before any training.
    const auto held = loadCamvidSplit(tc.data, config.evalSplit, tc.height, tc.width, cache->norm,
                                      std::max<int64_t>(1, config.epochEvalFrames));
    if (config.preview && config.previewFrames > 0)
        readPreviewFrames(config, *cache);
    ctx.report(Progress::at("load", tc.data, 3, 3));
    describeRun(config, costs, *cache);
    cache->unlabelled = set.images;
    cache->epochImages = held.images;
    cache->epochLabels = held.labels;
    const TrainingSet train{set.images, set.labels};
    auto generator = makeGenerator(mixSeed(tc.seed, 0xca3, 2));
    CamvidWindowRun run;
    run.trainFrames = set.size();
    run.epochEvalFrames = held.size();
    if (config.trainMcDropout) {
        const auto t0 = Clock::now();
        cache->mcDropout = cache->spec.build(generator);
        cache->mcDropout->to(device);
        trainSgd(*cache->mcDropout, train, tc.sgd, generator, ctx, "mc_dropout",
                 reportEpochs("mc_dropout", kEpochMcPasses, *cache, costs, ctx));
        run.seconds.emplace_back("mc_dropout", secondsSince(t0));
    }
    auto t0 = Clock::now();
    auto cwConfig = tc.sgd;
    cwConfig.classWeights = cwSgdClassWeights(tc, train.y);
    auto cw = cache->spec.build(generator);
    cw->to(device);
    trainSgd(*cw, train, cwConfig, generator, ctx, "cw_sgd", reportEpochs("cw_sgd", 0, *cache, costs, ctx));
    run.seconds.emplace_back("cw_sgd", secondsSince(t0));

    t0 = Clock::now();
    auto sampler = tc.sghmc;
    sampler.distil = true;
    const auto chain = runSgldDistillation(cache->spec, *cw, train, train.x, train.x.slice(0, 0, 1), sampler,
                                           generator, ctx, "sghmc_s",
                                           reportEpochs("sghmc_s", 0, *cache, costs, ctx, config.preview));
    cache->student = chain.student;
    run.seconds.emplace_back("sghmc_s", secondsSince(t0));

    t0 = Clock::now();
    // q on S, trained on the frames without their labels.
    auto q = trainImageCorrection(cache->spec, *cache->student, cache->unlabelled, {cache->student.get(), {}}, costs,
                                  tc.correction, generator, ctx, "correction",
                                  reportEpochs("ours", 0, *cache, costs, ctx, config.preview));
    cache->q = q.q;
    cache->corrections = 1;
    cache->qCollapsed = q.collapsed;
    run.collapsed = q.collapsed;
    run.seconds.emplace_back("ours", secondsSince(t0));
    run.cache = std::move(cache);
    run.totalSeconds = secondsSince(start);
    return run;
}

std::vector<std::string> saveCamvidWindowModels(const CamvidWindowCache& cache, const std::string& dir)
{
    if (!cache.student || !cache.q)
        throw std::invalid_argument("saveCamvidWindowModels: the cache holds no S or q");
    if (std::error_code ec; std::filesystem::exists(dir + "/" + kCamvidManifestFile, ec))
        throw OutputError(dir + " already holds a CamVid model (" + kCamvidManifestFile +
                          "): save into a new folder, or remove that one first");
    StagedFolder staged(dir);  // every network and the manifest, or nothing
    CamvidModelFolderWriter folder(staged.path(), cache.spec, cache.norm, cache.train.seed, cache.costs);
    if (cache.mcDropout)
        folder.save("mc_dropout", *cache.mcDropout, "network", false);
    folder.save("sghmc_s", *cache.student, "student", false);
    folder.save("ours", *cache.q, "q", cache.qCollapsed);
    folder.finish();
    staged.commit();
    std::vector<std::string> written;
    for ([[maybe_unused]] const auto& [method, file] : folder.files()) {
        written.push_back(file);
        written.push_back(file + ".json");
    }
    written.push_back(kCamvidManifestFile);
    return written;
}

CamvidRecorrection recorrectCamvid(CamvidWindowCache& cache, const CostMatrix& costs, const JobContext& ctx,
                                   const CamvidPreviewSink& preview)
{
    if (!cache.student)
        throw std::invalid_argument("recorrectCamvid: the cache holds no student S");
    const auto start = Clock::now();
    const auto named = camvidDecisionCosts(costs);
    // A new stream per re-correction: the same edit twice trains the same q.
    auto generator = makeGenerator(mixSeed(cache.train.seed, 0xca3, 1000 + static_cast<uint64_t>(cache.corrections)));
    auto q = trainImageCorrection(cache.spec, *cache.student, cache.unlabelled, {cache.student.get(), {}}, named,
                                  cache.train.correction, generator, ctx, "correction",
                                  reportEpochs("ours", 0, cache, named, ctx, preview, /*recorrection=*/true));
    cache.q = q.q;
    cache.costs = named;
    cache.qCollapsed = q.collapsed;
    ++cache.corrections;
    return {secondsSince(start), q.collapsed};
}

CamvidComparison evaluateCamvidWindow(const CamvidWindowCache& cache, const CamvidFrameVisitor& visit,
                                      const JobContext& ctx)
{
    if (!cache.student || !cache.q)
        throw std::invalid_argument("evaluateCamvidWindow: the cache holds no S or q");
    const auto start = Clock::now();
    auto pairs = findCamvidSplit(cache.train.data, cache.evalSplit);
    if (cache.maxEvalFrames > 0 && static_cast<int64_t>(pairs.size()) > cache.maxEvalFrames)
        pairs.resize(static_cast<size_t>(cache.maxEvalFrames));
    const auto L = costTensor(cache.costs);
    const c10::Device device(cache.train.device);
    MetricsAccumulator before(cache.costs, kCamvidVoid), after(cache.costs, kCamvidVoid),
        optimum(cache.costs, kCamvidVoid);
    CamvidStudentAgainstQ studentAgainstQ(cache.costs, static_cast<int64_t>(pairs.size()), kCamvidVoid,
                                          cache.train.seed, camvidFavouredClasses());
    const auto optimumCosts = correctionOptimumCosts(L, cache.costs.utilityConstant());
    CamvidComparison out;
    for (size_t i = 0; i < pairs.size(); ++i) {
        ctx.checkCancelled();
        auto frame = readCamvidFrame(pairs[i], cache.train.height, cache.train.width);
        const auto [image, labels] = camvidFrameTensors(frame, cache.norm);
        const auto x = image.unsqueeze(0).to(device);
        const auto y = labels.unsqueeze(0);
        const auto pS = singlePass(*cache.student, x).to(at::kCPU, at::kFloat);
        const auto pQ = singlePass(*cache.q, x).to(at::kCPU, at::kFloat);
        const auto dS = bayesDecisions(classRows(pS), L).reshape(y.sizes());
        const auto dQ = bayesDecisions(classRows(pQ), L).reshape(y.sizes());
        studentAgainstQ.add(pS, dS, before.add(pS, dS, y), pQ, dQ, after.add(pQ, dQ, y), y);
        optimum.add(pS, bayesDecisions(classRows(pS), optimumCosts).reshape(y.sizes()), y);
        if (visit) {
            CamvidVisitedFrame v;
            v.index = static_cast<int64_t>(i);
            v.name = std::filesystem::path(pairs[i].image).filename().string();
            v.height = frame.height;
            v.width = frame.width;
            v.rgb = std::move(frame.rgb);
            v.truth = std::move(frame.labels);
            v.uncorrected = decisionBytes(dS);
            v.corrected = decisionBytes(dQ);
            visit(v);
        }
        ctx.report(Progress::at("eval", cache.evalSplit, static_cast<long long>(i + 1), static_cast<long long>(pairs.size())));
    }
    out.classNames = cache.costs.classNames();
    out.uncorrected = before.result();
    out.corrected = after.result();
    out.optimum = optimum.result();
    out.changes = studentAgainstQ.changes();
    if (auto evidence = studentAgainstQ.evidence())
        out.evidence = std::move(*evidence);
    out.keptRule = studentAgainstQ.keptRule();
    out.frames = static_cast<int64_t>(pairs.size());
    out.seconds = secondsSince(start);
    return out;
}

} // namespace lcs
