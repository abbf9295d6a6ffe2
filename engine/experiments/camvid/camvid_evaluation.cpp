// CamVid evaluation of a model folder (IoU, accuracy, cost, overlays) and frames per
// second; training is in camvid_experiment.cpp.
#include "engine/experiments/camvid/camvid_experiment.h"

#include "engine/experiments/report_json.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "base/core/atomic_file.h"
#include "base/core/input_error.h"
#include "base/core/json_input.h"
#include "base/core/number_format.h"
#include "base/core/seeds.h"
#include "base/inference/method_catalog.h"
#include "engine/calibration/correction.h"
#include "engine/core/stopwatch.h"
#include "engine/core/threads.h"
#include "engine/decision/metrics_accumulator.h"
#include "engine/experiments/camvid/camvid_model_folder.h"
#include "engine/experiments/camvid/camvid_networks.h"
#include "engine/io/model_io.h"
#include "engine/models/segnet.h"

namespace lcs {
namespace {

/// An overlay's panels, left to right, and its legend: every class in its palette colour.
const std::vector<std::string> kOverlayTitles{"frame", "truth", "S (uncorrected)", "q (corrected)",
                                              "where S and q differ"};

std::vector<LegendEntry> camvidLegend()
{
    std::vector<LegendEntry> out;
    const auto& names = camvidClassNames();
    const auto& colours = camvidColours();
    for (size_t c = 0; c < names.size(); ++c)
        out.push_back({names[c], {colours[c][0], colours[c][1], colours[c][2]}});
    out.push_back({"S and q differ", {255, 255, 255}});
    return out;
}

/// One evaluated frame as plain data: the frame, its truth, S's and q's decisions.
CamvidVisitedFrame visitedFrame(int64_t index, const CamvidPair& pair, const CamvidFrame& frame,
                                const at::Tensor& uncorrected, const at::Tensor& corrected)
{
    CamvidVisitedFrame v;
    v.index = index;
    v.name = std::filesystem::path(pair.image).filename().string();
    v.height = frame.height;
    v.width = frame.width;
    v.rgb = frame.rgb;
    v.truth = frame.labels;
    for (auto [rule, decisions] : {std::pair{&v.uncorrected, &uncorrected}, std::pair{&v.corrected, &corrected}}) {
        const auto bytes = decisions->to(at::kByte).contiguous();
        rule->assign(bytes.data_ptr<uint8_t>(), bytes.data_ptr<uint8_t>() + bytes.numel());
    }
    return v;
}

/// frame | truth | uncorrected (S) | corrected (q) | where they differ (white), as a PNG
/// with titles and the class legend: DIR/NAME_overlay.png.
void writeOverlay(const std::string& dir, const CamvidPair& pair, const at::Tensor& image, const at::Tensor& labels,
                  const at::Tensor& before, const at::Tensor& after, const CamvidManifest& manifest)
{
    const auto differ = before.ne(after).to(at::kByte).mul(255).unsqueeze(-1).expand({-1, -1, 3});
    const auto strip = at::cat({camvidDisplayImage(image, manifest.norm), camvidColourise(labels),
                                camvidColourise(before), camvidColourise(after), differ},
                               1)
                           .contiguous();
    std::vector<uint8_t> rgb(strip.data_ptr<uint8_t>(), strip.data_ptr<uint8_t>() + strip.numel());
    const auto name = std::filesystem::path(pair.image).stem().string();
    writeFileAtomically(dir + "/" + name + "_overlay.png",
                        encodeTitledStripPng(rgb, manifest.height, manifest.width * 5, kOverlayTitles, camvidLegend()));
}

/// Every network the folder's manifest lists, loaded with its checks and moved to the device.
std::map<std::string, LoadedClassifier> loadFolderNetworks(const CamvidEvalConfig& config,
                                                           const CamvidManifest& manifest)
{
    std::map<std::string, LoadedClassifier> nets;
    for ([[maybe_unused]] const auto& [method, file] : manifest.files) {
        auto loaded = loadManifestNetwork(config.modelDir, manifest, method);
        loaded.model->to(c10::Device(config.device));
        nets.emplace(method, std::move(loaded));
    }
    return nets;
}

/// The 11-class matrix an evaluation decides under: the one given, else q's (its
/// sidecar's), else the paper's table without void.
CostMatrix evaluationCosts(const CamvidEvalConfig& config, const std::map<std::string, LoadedClassifier>& nets)
{
    if (config.costs)
        return camvidDecisionCosts(*config.costs);
    if (nets.count("ours") && !nets.at("ours").info.costs.empty())
        return nets.at("ours").info.costs;
    return camvidDecisionCosts(costPreset("camvid"));
}

/// (method, rule) of every network the folder holds, in the catalogue's order: q's
/// decisions are the corrected ones.
std::vector<std::pair<std::string, std::string>> evaluatedRules(const std::map<std::string, LoadedClassifier>& nets)
{
    std::vector<std::pair<std::string, std::string>> order;
    for (const auto& m : camvidMethods())
        if (nets.count(m))
            order.emplace_back(m, m == "ours" ? "corrected" : "uncorrected");
    return order;
}

/// The split's frames, the first config.maxFrames of them where that is set.
std::vector<CamvidPair> evaluatedPairs(const CamvidEvalConfig& config)
{
    auto pairs = findCamvidSplit(config.data, config.split);
    if (config.maxFrames > 0 && static_cast<int64_t>(pairs.size()) > config.maxFrames)
        pairs.resize(static_cast<size_t>(config.maxFrames));
    return pairs;
}

/// One network's predictive on a frame x [1, 3, H, W], as CPU floats: MC dropout's and
/// LC-MC-dropout's over `passes` dropout passes (which stop on a signal too: a 1000-pass
/// frame takes seconds), any other network's single pass.
at::Tensor framePredictive(const std::string& method, ClassifierImpl& net, const at::Tensor& x, int passes,
                           const JobContext& ctx)
{
    const bool dropout = method == "mc_dropout" || method == "lc_mc_dropout";
    return (dropout ? mcPredictive(net, x, passes, &ctx) : singlePass(net, x)).to(at::kCPU, at::kFloat);
}

/// The evaluation's run record; its seed is the one the networks were trained with. The
/// declared settings are the caller's (the eval action's, camvid_entry.cpp); here what
/// they resolved to.
RunRecord evaluationRecord(const CamvidEvalConfig& config, const CamvidManifest& manifest, const CostMatrix& costs,
                           uint64_t trainingSeed)
{
    RunRecord record;
    record.experiment = kCamvidExperiment;
    record.action = "eval";
    record.costs = costs;
    record.seed = trainingSeed;
    record.resolved = {{"data", config.data},
                       {"split", config.split},
                       {"model", config.modelDir},
                       {"height", manifest.height},
                       {"width", manifest.width},
                       {"max_frames", config.maxFrames},
                       {"mc_passes", config.mcPasses},
                       {"device", config.device}};
    return record;
}

} // namespace

CamvidEvalResult evaluateCamvid(const CamvidEvalConfig& config, const JobContext& ctx,
                                const std::function<void(const CamvidVisitedFrame&)>& visit)
{
    const auto start = Clock::now();
    checkIsDirectory(config.modelDir, "--model");
    const auto manifest = readCamvidManifest(config.modelDir);
    const auto nets = loadFolderNetworks(config, manifest);
    torch::manual_seed(config.seed);  // MC dropout's masks come from LibTorch's global generator
    const CostMatrix costs = evaluationCosts(config, nets);
    const auto pairs = evaluatedPairs(config);
    if (!config.overlayDir.empty())
        ensureOutputFolder(config.overlayDir, "--overlays");
    const auto L = costTensor(costs);
    const auto order = evaluatedRules(nets);
    std::map<std::string, MetricsAccumulator> accumulators;
    for (const auto& [m, rule] : order)
        accumulators.emplace(m, MetricsAccumulator(costs, kCamvidVoid));
    const auto device = c10::Device(config.device);
    CamvidEvalResult result;
    const uint64_t trainingSeed = nets.empty() ? 0 : nets.begin()->second.info.seed;
    std::optional<CamvidStudentAgainstQ> studentAgainstQ;
    if (nets.count("sghmc_s") && nets.count("ours"))
        studentAgainstQ.emplace(costs, static_cast<int64_t>(pairs.size()), kCamvidVoid, trainingSeed,
                                camvidFavouredClasses());
    // The correction objective's pointwise optimum decides like Bayes under S with the
    // costs 1 - exp(-L / M) (see correctionOptimumCosts): scored as a reference row, it
    // separates what the objective asks for from what the network q learned.
    std::optional<MetricsAccumulator> optimum;
    const auto optimumCosts = correctionOptimumCosts(L, costs.utilityConstant());
    if (nets.count("sghmc_s"))
        optimum.emplace(costs, kCamvidVoid);
    int64_t index = 0;
    for (const auto& pair : pairs) {
        ctx.checkCancelled();
        adaptThreadsToLoad();  // fewer intra-op threads while another process holds a core
        const auto frame = readCamvidFrame(pair, manifest.height, manifest.width);
        auto [image, labels] = camvidFrameTensors(frame, manifest.norm);
        const auto x = image.unsqueeze(0).to(device);
        const auto y = labels.unsqueeze(0);
        std::map<std::string, at::Tensor> decisions, probabilities;  // [1, H, W], [1, C, H, W]
        std::map<std::string, std::vector<int64_t>> frameConfusion;
        for (const auto& [m, rule] : order) {
            const auto cpu = framePredictive(m, *nets.at(m).model, x, config.mcPasses, ctx);
            const auto d = bayesDecisions(classRows(cpu), L).reshape({1, manifest.height, manifest.width});
            frameConfusion[m] = accumulators.at(m).add(cpu, d, y);
            decisions[m] = d;
            probabilities[m] = cpu;
            if (m == "sghmc_s" && optimum)
                optimum->add(cpu, bayesDecisions(classRows(cpu), optimumCosts).reshape(d.sizes()), y);
        }
        if (studentAgainstQ) {
            const auto &dS = decisions.at("sghmc_s"), &dQ = decisions.at("ours");
            studentAgainstQ->add(probabilities.at("sghmc_s"), dS, frameConfusion.at("sghmc_s"),
                                 probabilities.at("ours"), dQ, frameConfusion.at("ours"), y);
            if (visit)
                visit(visitedFrame(index, pair, frame, dS[0], dQ[0]));
            if (!config.overlayDir.empty()) {
                writeOverlay(config.overlayDir, pair, image, labels, dS[0], dQ[0], manifest);
                ++result.overlays;
            }
        }
        ++index;
        ctx.report(Progress::at("eval", config.split, index, static_cast<long long>(pairs.size())));
    }
    for (const auto& [m, rule] : order)
        result.rows.push_back({m, rule, accumulators.at(m).result()});
    if (optimum)
        result.rows.push_back({"sghmc_s", "correction_optimum", optimum->result()});
    if (studentAgainstQ) {
        result.studentToCorrected = studentAgainstQ->changes();
        result.evidence = studentAgainstQ->evidence();
        result.keptRule = studentAgainstQ->keptRule();
    }
    result.classNames = costs.classNames();
    result.frames = index;
    result.record = evaluationRecord(config, manifest, costs, trainingSeed);
    result.seconds = secondsSince(start);
    return result;
}

CamvidFpsResult camvidFramesPerSecond(const std::string& modelDir, const std::vector<int>& ensembles, int frames,
                                      const std::string& device, const JobContext& ctx)
{
    checkIsDirectory(modelDir, "--model");
    const auto manifest = readCamvidManifest(modelDir);
    auto pick = [&](std::initializer_list<const char*> names) -> std::string {
        for (const char* n : names)
            if (manifest.files.count(n))
                return std::string(n);
        return {};
    };
    const auto mcMethod = pick({"mc_dropout", "lc_mc_dropout"});
    const auto qMethod = pick({"ours", "sghmc_s", "cw_sgd"});
    if (mcMethod.empty() || qMethod.empty())
        throw InputError(modelDir + ": needs an MC-dropout network and q (train with mc_dropout and ours)");
    // Loaded and checked as eval loads them, so fps accepts what eval accepts.
    auto mc = loadManifestNetwork(modelDir, manifest, mcMethod);
    auto q = loadManifestNetwork(modelDir, manifest, qMethod);
    const c10::Device dev(device);
    mc.model->to(dev);
    q.model->to(dev);
    const auto costs = q.info.costs.empty() ? camvidDecisionCosts(costPreset("camvid")) : q.info.costs;
    return camvidFramesPerSecond(*mc.model, *q.model, costs, manifest.height, manifest.width, ensembles, frames,
                                 device, ctx);
}

CamvidFpsResult camvidFramesPerSecond(ClassifierImpl& ensembleNet, ClassifierImpl& q, const CostMatrix& costs,
                                      int height, int width, const std::vector<int>& ensembles, int frames,
                                      const std::string& device, const JobContext& ctx)
{
    const c10::Device dev(device);
    const auto L = costTensor(camvidDecisionCosts(costs), at::kFloat, dev);
    auto generator = makeGenerator(7);
    const auto x = at::randn({1, 3, height, width}, generator).to(dev);
    CamvidFpsResult out;
    out.height = height;
    out.width = width;
    auto time = [&](auto&& body) {
        body();  // warm-up
        ctx.checkCancelled();
        double seconds = 0;
        for (int i = 0; i < frames; ++i) {
            const auto t0 = Clock::now();
            body();
            seconds += secondsSince(t0);
            ctx.checkCancelled();  // between frames, outside the timing
        }
        return static_cast<double>(frames) / seconds;
    };
    torch::NoGradGuard noGrad;
    q.eval();  // a freshly trained q is still in training mode (batch statistics)
    // q against the same network's forward pass alone (what q's Bayes decision adds),
    // frame by frame in turn so that both see the same machine; at least 50 frames each.
    {
        q.forward(x);  // warm-up
        double qSeconds = 0, rawSeconds = 0;
        const int turns = std::max(frames, 50);
        for (int i = 0; i < turns; ++i) {
            ctx.checkCancelled();
            auto t0 = Clock::now();
            q.forward(x);
            rawSeconds += secondsSince(t0);
            t0 = Clock::now();
            bayesDecisionsFromLogits(q.forward(x), L);
            qSeconds += secondsSince(t0);
        }
        out.rawFps = turns / rawSeconds;
        out.qFps = turns / qSeconds;
    }
    for (int k : ensembles)
        out.points.push_back({k, time([&] { bayesDecisions(classRows(mcPredictive(ensembleNet, x, k, &ctx)), L); })});
    return out;
}

} // namespace lcs
