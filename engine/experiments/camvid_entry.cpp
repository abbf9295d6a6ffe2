// CamVid segmentation (paper Fig. 5) as a registry entry: the window's run (CW-SGD, SGHMC
// with the student S, q on S, all in memory), then S against q on the validation frames.
// `lcstudio-cli camvid run`, camvid session files and the window's form derive from it;
// the separate train / correct / eval / fps commands work on saved model folders.
#include <cstdio>

#include <torch/torch.h>

#include "core/input_error.h"
#include "core/threads.h"
#include "experiments/camvid_experiment.h"
#include "experiments/experiment.h"

namespace lcs {

namespace {

ExperimentOutput camvidOutput(const CamvidEvalResult& result, const std::string& heading)
{
    return {camvidEvalJson(result), camvidEvalCsv(result), heading + camvidEvalTable(result)};
}

/// S and the unlabelled frames of the last run: a cost edit re-trains only q.
class CamvidState : public RecorrectionState {
public:
    CamvidState(CamvidWindowConfig config, std::shared_ptr<CamvidWindowCache> cache, CostMatrix table)
        : m_config(std::move(config)), m_cache(std::move(cache)), m_table(std::move(table))
    {
    }
    std::string describe() const override
    {
        return "S and " + std::to_string(m_cache->unlabelled.size(0)) +
               " unlabelled frames cached: editing costs re-trains only q.";
    }
    CostMatrix costs() const override { return m_table; }
    ExperimentOutput recorrect(const CostMatrix& costs, const JobContext& ctx) override
    {
        ctx.declarePlan({{TaskIdentity{"correction", std::nullopt, 0}, 1.6 * m_config.train.correction.epochs},
                         {TaskIdentity{"eval", std::nullopt, 0}, 0.5}});
        const auto r = recorrectCamvid(*m_cache, costs, ctx);
        m_table = costs;
        const auto comparison = evaluateCamvidWindow(*m_cache, {}, ctx);
        auto result = camvidWindowResults(comparison, m_config, *m_cache);
        result.seconds = r.seconds + comparison.seconds;
        return camvidOutput(result, std::string("Re-correction: q re-trained from the cached S") +
                                        (r.collapsed ? " (q collapsed to one decision)" : "") + "\n");
    }

private:
    CamvidWindowConfig m_config;
    std::shared_ptr<CamvidWindowCache> m_cache;
    CostMatrix m_table;  ///< as the user gave it (12 x 12 with void, or 11 x 11)
};

class CamvidExperiment : public Experiment {
public:
    std::string name() const override { return kCamvidExperiment; }
    std::string command() const override { return "camvid run"; }
    std::string title() const override { return "CamVid segmentation (paper Fig. 5)"; }
    std::string description() const override
    {
        return "Trains in memory, as the window does: CW-SGD (the chain's start), SGHMC with a student\n"
               "S distilled online, and q on S (optionally an MC-dropout network too); then decides\n"
               "every validation pixel with S and with q under the cost table and prints per-class\n"
               "IoU, mIoU and decision cost of both, and the pixels where they differ.\n";
    }
    std::vector<SettingSpec> settings() const override { return specsOf(camvidWindowSettings()); }
    CostMatrix defaultCosts(const nlohmann::json&) const override { return costPreset("camvid"); }
    CostMatrix acceptedCosts(const CostMatrix& costs) const override
    {
        camvidDecisionCosts(costs);  // 12 x 12 (void last) or 11 x 11, no referral
        return costs;
    }
    /// SegNet's convolutions gain from every core.
    int intraOpThreads(const nlohmann::json&, int cores) const override { return cores; }
    ExperimentRun run(const nlohmann::json& settings, const std::optional<CostMatrix>& costs, const JobContext& ctx,
                      const OutputPaths&) const override
    {
        keepFrameBuffers();  // frames' activations stay in the heap between frames
        CamvidWindowChoices choices;
        applySettings(camvidWindowSettings(), settings, choices);
        if (choices.data.empty())
            throw InputError("camvid: the data setting is required (a folder laid out like CamVid)");
        auto config = camvidWindowConfigFor(choices);
        const CostMatrix table = costs ? *costs : costPreset("camvid");
        config.train.costs = camvidDecisionCosts(table);
        ctx.declarePlan(camvidWindowPlan(config, false));
        // SegNet's dropout draws from LibTorch's global generator, not the job's: seeded
        // so that the same settings give the same run (the window seeds it the same way).
        torch::manual_seed(choices.seed);
        const auto run = trainCamvidWindow(config, ctx);
        const auto comparison = evaluateCamvidWindow(*run.cache, {}, ctx);
        auto result = camvidWindowResults(comparison, config, *run.cache);
        result.seconds = run.totalSeconds + comparison.seconds;
        char line[200];
        std::snprintf(line, sizeof line, "CamVid: %s preset, %lld training frames at %dx%d, seed %llu\n",
                      choices.preset.c_str(), static_cast<long long>(run.trainFrames), config.train.width,
                      config.train.height, static_cast<unsigned long long>(choices.seed));
        std::string heading = line;
        for (const auto& [network, seconds] : run.seconds) {
            std::snprintf(line, sizeof line, "  %-12s %7.1f s\n", network.c_str(), seconds);
            heading += line;
        }
        if (run.collapsed)
            heading += "warning: q collapsed to one decision on the unlabelled frames\n";
        ExperimentRun out;
        out.output = camvidOutput(result, heading);
        out.cache = std::make_shared<CamvidState>(config, run.cache, table);
        return out;
    }
};

} // namespace

std::shared_ptr<const Experiment> makeCamvidExperiment()
{
    return std::make_shared<CamvidExperiment>();
}

} // namespace lcs
