#include "experiments/synthetic_settings.h"

#include <algorithm>
#include <limits>
#include <thread>

namespace lcs {

namespace {

SettingSpec threadsSetting()
{
    auto s = withFormLabel(integerSetting("threads", "T", "(replicate, method) tasks run in parallel", nullptr, 1, 256),
                      "Worker threads");
    s.defaultText = "all cores";  // decided on the machine that runs it
    return s;
}

} // namespace

const std::vector<BoundSetting<SyntheticConfig>>& syntheticSettings()
{
    using C = SyntheticConfig;
    using J = nlohmann::json;
    static const std::vector<BoundSetting<C>> settings = [] {
        const C d;  // the defaults are the config's own
        auto methodIds = [](const C& c) {
            std::vector<std::string> ids;
            for (auto m : c.methods)
                ids.push_back(methodName(m));
            return ids;
        };
        std::vector<BoundSetting<C>> s;
        s.push_back({integerSetting("replicates", "N", "replicates", d.replicates, 1, 10000),
                     [](const C& c) { return J(c.replicates); },
                     [](C& c, const J& v) { c.replicates = v.get<int>(); }});
        s.push_back({methodsSetting("methods", "inference methods", methodIds(d), methodIdsFor(kSyntheticExperiment)),
                     [methodIds](const C& c) { return J(methodIds(c)); },
                     [](C& c, const J& v) {
                         c.methods.clear();
                         for (const auto& id : v)
                             c.methods.push_back(*parseMethod(id.get<std::string>()));
                     }});
        s.push_back({integerSetting("seed", "S", "base seed; replicate r is determined by (S, r)", d.seed, 0,
                                     std::numeric_limits<long long>::max()),
                     [](const C& c) { return J(c.seed); },
                     [](C& c, const J& v) { c.seed = v.get<uint64_t>(); }});
        s.push_back({threadsSetting(),
                     [](const C& c) { return J(c.threads); },
                     [](C& c, const J& v) { c.threads = v.get<int>(); }});
        s.push_back({integerSetting("correction_iterations", "N", "q training steps", d.correction.epochs, 1, 10000000),
                     [](const C& c) { return J(c.correction.epochs); },
                     [](C& c, const J& v) { c.correction.epochs = v.get<int>(); }});
        s.push_back({withFormLabel(numberSetting("correction_lr", "X", "peak Adam learning rate of q, cosine-annealed",
                                             d.correction.learningRate, 0, 10, true),
                              "q learning rate"),
                     [](const C& c) { return J(c.correction.learningRate); },
                     [](C& c, const J& v) { c.correction.learningRate = v.get<double>(); }});
        s.push_back({integerSetting("warm_start_steps", "N",
                                     "steps distilling the predictive into q before the correction (0 starts q "
                                     "from a random network)",
                                     d.correction.warmStartSteps, 0, 1000000),
                     [](const C& c) { return J(c.correction.warmStartSteps); },
                     [](C& c, const J& v) { c.correction.warmStartSteps = v.get<int>(); }});
        // The window draws decision regions: a grid by default there.
        auto grid = integerSetting("grid_resolution", "N",
                                   "decision-region grid points per side, for plots of the predictive and q (0: "
                                   "none; else 2 to 400)",
                                   d.gridResolution, 0, 400);
        grid.problem = [](const std::string& text) {
            return text == "1" ? std::string("is not 0 (no grid) or 2 to 400: a grid needs two points per side")
                               : std::string();
        };
        s.push_back({withWindowValue(withFormLabel(grid, "Region grid"), 80),
                     [](const C& c) { return J(c.gridResolution); },
                     [](C& c, const J& v) { c.gridResolution = v.get<int>(); }});
        s.push_back({withFormLabel(choiceSetting("bbvi_prior", "P",
                                    "BBVI's prior: N(0, 1/fan_in) on weights and N(0, 1) on biases, as the "
                                    "authors' code, or N(0, 1) on all, as the paper's text",
                                    BbviPrior::name(d.bbvi.prior.kind), {"fan_in", "isotropic"}),
                              "BBVI prior"),
                     [](const C& c) { return J(BbviPrior::name(c.bbvi.prior.kind)); },
                     [](C& c, const J& v) {
                         c.bbvi.prior.kind =
                             v.get<std::string>() == "isotropic" ? BbviPrior::Kind::Isotropic : BbviPrior::Kind::FanIn;
                     }});
        s.push_back({deviceSetting(d.device),
                     [](const C& c) { return J(c.device); },
                     [](C& c, const J& v) { c.device = v.get<std::string>(); }});
        return s;
    }();
    return settings;
}

SyntheticConfig syntheticConfigFrom(const nlohmann::json& settings, const CostMatrix& costs)
{
    SyntheticConfig config;
    config.threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    applySettings(syntheticSettings(), settings, config);
    costs.validateFor(2);
    config.costs = costs;
    return config;
}

int windowRegionGrid(int requested)
{
    if (requested >= 2)
        return requested;
    return windowValues(specsOf(syntheticSettings())).value("grid_resolution", 80);
}

std::vector<OutputSpec> syntheticResultsOutputs()
{
    return resultsOutputs("write per-replicate results as CSV (atomically)");
}

std::vector<OutputSpec> syntheticCommandOutputs()
{
    auto outputs = syntheticResultsOutputs();
    outputs.push_back({"save_models", "DIR", PathKind::Folder,
                       "save each q (and the MAP / last-sample networks) with a JSON sidecar; the folder is "
                       "created once the run starts"});
    return outputs;
}

} // namespace lcs
