#include "experiments/own_predictive_experiment.h"

#include <chrono>
#include <cmath>
#include <cstdio>

#include "core/input_error.h"
#include "core/number_format.h"
#include "experiments/experiment.h"
#include "experiments/run_record.h"
#include "experiments/synthetic_settings.h"
#include "io/table_csv.h"

namespace lcs {

namespace {

/// Caps: 64 M numbers per array (512 MB as float64).
constexpr size_t kMaxArrayValues = size_t{64} << 20;

/// The predictive's 0/1 matrix: K classes, no names (P does not name its classes).
CostMatrix predictiveDefaultCosts(const OwnPredictiveChoices& choices)
{
    if (choices.predictivePath.empty())
        throw InputError("setting \"predictive\" is required");
    const auto p = readNumericArray(choices.predictivePath, "--predictive", 2, 3, kMaxArrayValues);
    return CostMatrix::zeroOne(static_cast<int>(p.shape.back()));
}

/// What a run leaves: the predictive, so that a cost edit re-trains only q.
class OwnPredictiveState : public RecorrectionState {
public:
    OwnPredictiveState(OwnPredictiveChoices choices, OwnPredictive own, CostMatrix costs)
        : m_choices(std::move(choices)), m_own(std::move(own)), m_costs(std::move(costs))
    {
    }
    std::string describe() const override
    {
        return "Your predictive (" + std::to_string(m_own.features.size(0)) + " rows) cached: editing costs "
               "re-trains only q.";
    }
    CostMatrix costs() const override { return m_costs; }
    ExperimentOutput recorrect(const CostMatrix& costs, const JobContext& ctx) override
    {
        m_costs = costs;
        return correct(ctx);
    }
    ExperimentOutput correct(const JobContext& ctx) const
    {
        if (m_costs.numClasses() != m_own.probabilities.size(1))
            throw CostMatrixError("cost matrix has " + std::to_string(m_costs.numClasses()) + " classes, " +
                                  m_choices.predictivePath + " " + std::to_string(m_own.probabilities.size(1)));
        const auto r = correctOwnPredictive(m_own, m_costs, m_choices.correction.correction,
                                            m_choices.correction.seed, ctx);
        return {ownPredictiveResultsJson(r, m_costs, m_choices), ownCorrectionCsv(r, m_costs),
                ownPredictiveTable(r, m_own.samples)};
    }

private:
    OwnPredictiveChoices m_choices;
    OwnPredictive m_own;
    CostMatrix m_costs;
};

class OwnPredictiveExperiment : public Experiment {
public:
    std::string name() const override { return kOwnPredictiveExperiment; }
    std::string title() const override { return "your own predictive (correct any BNN's P)"; }
    std::string description() const override
    {
        return "Trains the correction q post hoc on a posterior predictive made anywhere: X holds N\n"
               "unlabelled inputs (N x D), P their predictive from any Bayesian model (N x K probabilities,\n"
               "or T x N x K of T posterior samples, averaged), each as .npy (float32/float64,\n"
               "little-endian) or CSV. q, an MLP on the features as they are, trains exactly as in the\n"
               "synthetic experiment. Prints how many decisions q changed and the mean expected cost\n"
               "under P before and after.\n";
    }
    std::vector<SettingSpec> settings() const override { return specsOf(ownPredictiveSettings()); }
    CostMatrix defaultCosts(const nlohmann::json& settings) const override
    {
        return predictiveDefaultCosts(choicesFrom(settings));
    }
    /// The classes are P's: checked when P is read.
    CostMatrix acceptedCosts(const CostMatrix& costs) const override { return costs; }
    ExperimentRun run(const nlohmann::json& settings, const std::optional<CostMatrix>& costs,
                      const JobContext& ctx) const override
    {
        auto choices = choicesFrom(settings);
        auto own = loadOwnPredictive(choices);
        const CostMatrix matrix = costs ? *costs : CostMatrix::zeroOne(static_cast<int>(own.probabilities.size(1)));
        auto state = std::make_shared<OwnPredictiveState>(std::move(choices), std::move(own), matrix);
        ExperimentRun out;
        out.output = state->correct(ctx);
        out.cache = std::move(state);
        return out;
    }

private:
    static OwnPredictiveChoices choicesFrom(const nlohmann::json& settings)
    {
        OwnPredictiveChoices c;
        applySettings(ownPredictiveSettings(), settings, c);
        return c;
    }
};

} // namespace

const std::vector<BoundSetting<OwnPredictiveChoices>>& ownPredictiveSettings()
{
    using C = OwnPredictiveChoices;
    using J = nlohmann::json;
    static const std::vector<BoundSetting<C>> settings = [] {
        std::vector<BoundSetting<C>> s;
        auto file = [](const char* name, const char* help) {
            auto spec = textSetting(name, "FILE", help, nullptr);
            spec.required = true;
            spec.browse = SettingBrowse::File;
            return spec;
        };
        s.push_back({file(kFeaturesSetting, "the inputs X (.npy or .csv), N x D"),
                     [](const C& c) { return J(c.featuresPath); },
                     [](C& c, const J& v) { c.featuresPath = v.get<std::string>(); }});
        s.push_back({file(kPredictiveSetting, "P (.npy or .csv): N x K, or T x N x K (.npy)"),
                     [](const C& c) { return J(c.predictivePath); },
                     [](C& c, const J& v) { c.predictivePath = v.get<std::string>(); }});
        // The synthetic experiment's correction settings, bound through its own config.
        for (const auto& shared : syntheticSettings()) {
            const auto& n = shared.spec.name;
            if (n != "seed" && n != "correction_iterations" && n != "correction_lr" && n != "warm_start_steps")
                continue;
            s.push_back({shared.spec, [get = shared.get](const C& c) { return get(c.correction); },
                         [set = shared.set](C& c, const J& v) { set(c.correction, v); }});
        }
        return s;
    }();
    return settings;
}

OwnPredictive loadOwnPredictive(const OwnPredictiveChoices& choices)
{
    const auto x = readNumericArray(choices.featuresPath, "--features", 2, 2, kMaxArrayValues);
    const auto p = readNumericArray(choices.predictivePath, "--predictive", 2, 3, kMaxArrayValues);
    return ownPredictive(x, p, "--features " + choices.featuresPath, "--predictive " + choices.predictivePath);
}

std::string ownPredictiveResultsJson(const OwnCorrectionResult& result, const CostMatrix& costs,
                                     const OwnPredictiveChoices& choices)
{
    RunRecord record;
    record.experiment = kOwnPredictiveExperiment;
    record.costs = costs;
    record.settings = settingValues(ownPredictiveSettings(), choices);
    record.seed = choices.correction.seed;
    nlohmann::ordered_json out;
    out["run"] = runRecordJson(record);
    // Named: a temporary's items() would outlive it in the range-for. The run record
    // already holds the program, the costs and the seed.
    const auto summary = nlohmann::json::parse(ownCorrectionJson(result, costs, choices.correction.seed));
    for (const auto& [key, value] : summary.items())
        if (key != "program" && key != "cost_matrix" && key != "seed")
            out[key] = value;
    return out.dump(2) + "\n";
}

std::string ownPredictiveTable(const OwnCorrectionResult& result, int64_t samples)
{
    const int64_t n = result.decisionsBefore.size(0);
    char line[512];
    std::snprintf(line, sizeof line,
                  "Your predictive: %lld rows of %lld features, %lld classes%s\n"
                  "q changed %lld of %lld decisions; mean expected cost under P: %.4f before, %.4f after%s\n",
                  static_cast<long long>(n), static_cast<long long>(result.correction.q->inputs),
                  static_cast<long long>(result.qProbabilities.size(1)),
                  samples > 1 ? (" (the mean of " + std::to_string(samples) + " samples)").c_str() : "",
                  static_cast<long long>(result.changed), static_cast<long long>(n),
                  result.expectedCostBefore.mean().item<double>(), result.expectedCostAfter.mean().item<double>(),
                  result.correction.collapsed ? " (warning: q collapsed to one class)" : "");
    return line;
}

std::shared_ptr<const Experiment> makeOwnPredictiveExperiment()
{
    return std::make_shared<OwnPredictiveExperiment>();
}

} // namespace lcs
