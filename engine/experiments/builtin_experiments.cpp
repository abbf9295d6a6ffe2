// The paper's experiments as registry entries: each declares its settings (bound to its
// config), its description and its default costs, and runs through the same engine
// functions as before. The registry's front ends (the CLI's command per experiment, the
// window's job runner) need nothing else from them.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>

#include "core/input_error.h"
#include "core/number_format.h"
#include "experiments/corruption_experiment.h"
#include "experiments/experiment.h"
#include "experiments/image_run_settings.h"
#include "experiments/report_json.h"
#include "image_data.h"
#include "experiments/selective_experiment.h"
#include "experiments/synthetic_experiment.h"
#include "experiments/synthetic_report.h"
#include "experiments/synthetic_settings.h"

namespace lcs {

namespace {

double secondsSince(std::chrono::steady_clock::time_point t)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// ---------------------------------------------------------------------------------------
// Synthetic 2-D (Table 2)

/// The cached posterior predictives of every (replicate, method): a cost edit re-trains
/// only the corrections.
class SyntheticState : public RecorrectionState {
public:
    SyntheticState(SyntheticConfig config, std::vector<SyntheticPredictive> predictives)
        : m_config(std::move(config)), m_predictives(std::move(predictives))
    {
    }
    std::string describe() const override
    {
        return "Posterior predictives of " + std::to_string(m_config.replicates) + " replicate(s) x " +
               std::to_string(m_config.methods.size()) + " method(s) cached: editing costs re-trains only q.";
    }
    CostMatrix costs() const override { return m_config.costs; }
    ExperimentOutput recorrect(const CostMatrix& costs, const JobContext& ctx) override
    {
        return correct(costs, ctx, std::chrono::steady_clock::now());
    }
    /// The corrections under `costs` and the table; its seconds count from `start`.
    ExperimentOutput correct(const CostMatrix& costs, const JobContext& ctx,
                             std::chrono::steady_clock::time_point start)
    {
        costs.validateFor(static_cast<int>(classCount(m_config)));
        m_config.costs = costs;
        TaskPlan plan;
        for (const auto& t : syntheticPlan(m_config))
            if (t.task.stage == kCorrectionStage)
                plan.push_back(t);
        ctx.declarePlan(plan, PlanProgress::Order::Parallel);
        const auto corrections = correctAll(m_config, m_predictives, costs, ctx);
        std::vector<ReplicateOutcome> outcomes;
        for (size_t i = 0; i < corrections.size(); ++i)
            outcomes.push_back(evaluateSynthetic(m_predictives[i], corrections[i], costs, m_config.selection, m_config.seed));
        const auto result = tabulate(m_config, outcomes, secondsSince(start));
        return {syntheticJson(result), syntheticCsv(result), syntheticTable(result)};
    }

private:
    SyntheticConfig m_config;
    std::vector<SyntheticPredictive> m_predictives;
};

class SyntheticExperiment : public Experiment {
public:
    std::string name() const override { return kSyntheticExperiment; }
    std::string title() const override { return "synthetic 2-D (paper Table 2)"; }
    std::string description() const override
    {
        return "For each replicate and inference method: sample the posterior, decide on the test set\n"
               "without correction, train the correction q on the 500 unlabelled calibration points,\n"
               "decide again with q. Prints Table 2 (mean ± std over replicates, paired difference).\n";
    }
    std::vector<SettingSpec> settings() const override { return specsOf(syntheticSettings()); }
    std::vector<OutputSpec> outputs() const override { return syntheticResultsOutputs(); }
    CostMatrix defaultCosts(const nlohmann::json&) const override { return costPreset("synthetic"); }
    CostMatrix acceptedCosts(const CostMatrix& costs) const override
    {
        costs.validateFor(2);
        return costs;
    }
    ExperimentRun run(const nlohmann::json& settings, const std::optional<CostMatrix>& costs,
                      const JobContext& ctx) const override
    {
        return runSyntheticConfig(syntheticConfigFrom(settings, costs ? *costs : costPreset("synthetic")), ctx);
    }

    /// Sampling and correction in turn (the window's way), with the same streams as
    /// runSynthetic, so the table is the same.
    static ExperimentRun runSyntheticConfig(const SyntheticConfig& config, const JobContext& ctx)
    {
        const auto start = std::chrono::steady_clock::now();
        ctx.declarePlan(syntheticPlan(config), PlanProgress::Order::Parallel);
        auto state = std::make_shared<SyntheticState>(config, sampleAll(config, ctx));
        ExperimentRun out;
        // The correction's plan would replace the run's: keep reporting into the run's.
        JobContext correcting = ctx;
        correcting.plan = nullptr;
        out.output = state->correct(config.costs, correcting, start);
        out.cache = std::move(state);
        return out;
    }
};

// ---------------------------------------------------------------------------------------
// Your own data: the synthetic experiment's methods on a CSV table

class TabularExperiment : public Experiment {
public:
    std::string name() const override { return kTabularExperiment; }
    std::string title() const override { return "your own data (a CSV table)"; }
    std::string description() const override
    {
        return "The synthetic experiment's methods on a table of your own: a CSV with a header, numeric\n"
               "feature columns and a label column (--label). Each replicate splits the labelled rows\n"
               "into training and test sets (--test-fraction); rows with an empty label are the\n"
               "unlabelled calibration set q is trained on. Prints the test cost with and without q.\n";
    }
    std::vector<SettingSpec> settings() const override { return specsOf(tabularSettings()); }
    std::vector<OutputSpec> outputs() const override { return syntheticResultsOutputs(); }
    std::vector<std::string> methods() const override { return methodIdsFor(kSyntheticExperiment); }
    CostMatrix defaultCosts(const nlohmann::json& settings) const override
    {
        return tabularConfigFrom(settings, std::nullopt).costs;
    }
    /// The classes are the table's: checked when the table is read.
    CostMatrix acceptedCosts(const CostMatrix& costs) const override { return costs; }
    ExperimentRun run(const nlohmann::json& settings, const std::optional<CostMatrix>& costs,
                      const JobContext& ctx) const override
    {
        return SyntheticExperiment::runSyntheticConfig(tabularConfigFrom(settings, costs), ctx);
    }
};

// ---------------------------------------------------------------------------------------
// The image experiments: label corruption (Fig. 4) and selective classification (Fig. 3)

/// A re-correction's results: both decision rules on the cached run's test set.
ExperimentOutput recorrectionOutput(const RunRecord& record, const Recorrection& r)
{
    auto metrics = [](const DecisionMetrics& m) {
        return nlohmann::json{{"cost", reportNumber(m.averageCost)},
                              {"accuracy", reportNumber(m.accuracy)},
                              {"referral_rate", reportNumber(m.referralRate)}};
    };
    const auto& c = r.comparison;
    nlohmann::json j;
    j["run"] = runRecordJson(record);
    j["recorrection"] = {{"setting", reportNumber(c.rate)},     {"trial", c.trial},
                         {"uncorrected", metrics(c.uncorrected)}, {"corrected", metrics(c.corrected)},
                         {"changed_decisions", c.changedCount},  {"collapsed", r.collapsed},
                         {"seconds", reportNumber(r.seconds)}};
    std::string csv = "setting,trial,rule,cost,accuracy,referral_rate\n";
    for (const auto& [rule, m] : {std::pair{"uncorrected", &c.uncorrected}, std::pair{"corrected", &c.corrected}})
        csv += formatNumber(c.rate) + "," + std::to_string(c.trial) + "," + rule + "," + reportCell(m->averageCost) +
               "," + reportCell(m->accuracy) + "," + reportCell(m->referralRate) + "\n";
    const std::string table = "Re-correction: test cost " + formatNumber(c.uncorrected.averageCost) + " (S) -> " +
                              formatNumber(c.corrected.averageCost) + " (q), " + std::to_string(c.changedCount) +
                              " decision(s) changed" + (r.collapsed ? " (q collapsed to one class)" : "") + "\n";
    return {j.dump(2) + "\n", csv, table};
}

/// The last run's student S: a cost edit re-trains only q.
class ImageState : public RecorrectionState {
public:
    ImageState(std::shared_ptr<const CorrectionCache> cache, CostMatrix costs, RunRecord record,
               std::vector<std::string> classNames)
        : m_cache(std::move(cache)), m_costs(std::move(costs)), m_record(std::move(record)),
          m_classNames(std::move(classNames))
    {
    }
    std::string describe() const override
    {
        return "Student S of " + formatNumber(m_cache->rate) + ", trial " + std::to_string(m_cache->trial + 1) +
               " cached: editing costs re-trains only q.";
    }
    CostMatrix costs() const override { return m_costs; }
    ExperimentOutput recorrect(const CostMatrix& costs, const JobContext& ctx) override
    {
        CostMatrix named = costs;
        if (named.numClasses() == static_cast<int>(m_classNames.size()))
            named.setClassNames(m_classNames);
        ctx.declarePlan({{TaskIdentity{"ours", m_cache->rate, m_cache->trial}, 1.0}});
        const auto r = lcs::recorrect(*m_cache, named, ctx);
        m_costs = named;
        m_record.costs = named;
        return recorrectionOutput(m_record, r);
    }

private:
    std::shared_ptr<const CorrectionCache> m_cache;
    CostMatrix m_costs;
    RunRecord m_record;
    std::vector<std::string> m_classNames;
};

/// The user's matrix for an image data set: as many classes as the data.
void checkImageCosts(const std::string& experiment, const CostMatrix& costs, const ImageDataset& data)
{
    if (costs.numClasses() != data.classes())
        throw InputError(experiment + ": the cost matrix has " + std::to_string(costs.numClasses()) +
                         " classes but " + data.name + " has " + std::to_string(data.classes()));
}

ImageRunChoices imageChoices(const std::string& experiment, const std::vector<BoundSetting<ImageRunChoices>>& bound,
                             const nlohmann::json& settings)
{
    ImageRunChoices choices;
    applySettings(bound, settings, choices);
    if (choices.data.empty())
        throw InputError(experiment + ": the data setting is required (a folder, fashion-mnist, mnist or cifar10)");
    return choices;
}

/// What the two image experiments do differently; ImageExperimentEntry does the rest.
template <class Config, class Result>
struct ImageExperimentParts {
    std::string name, title, description;
    const std::vector<BoundSetting<ImageRunChoices>>& (*settings)();
    Config (*configFor)(const ImageRunChoices&, const ImageDataset&);
    CostMatrix Config::*costs;  ///< the matrix a user's costs replace
    TaskPlan (*plan)(const Config&);
    Result (*run)(const ImageDataset&, const Config&, const JobContext&);
    std::string (*json)(const Result&);
    std::string (*csv)(const Result&);
    std::string (*table)(const Result&);
    /// The matrix the cached run's q was trained for.
    CostMatrix (*cachedCosts)(const Config&, double cachedValue);
    /// Whether a referral column in a user's matrix is dropped (the referral costs are a
    /// swept setting) or refused (the experiment decides classes only).
    bool sweepsReferral;
};

template <class Config, class Result>
class ImageExperimentEntry : public Experiment {
public:
    explicit ImageExperimentEntry(ImageExperimentParts<Config, Result> parts) : m_parts(std::move(parts)) {}
    std::string name() const override { return m_parts.name; }
    std::string title() const override { return m_parts.title; }
    std::string description() const override { return m_parts.description; }
    std::vector<SettingSpec> settings() const override { return specsOf(m_parts.settings()); }
    std::vector<OutputSpec> outputs() const override
    {
        return resultsOutputs("write one row per (setting, trial, method) as CSV (atomically)");
    }
    std::string inputFolder(const std::string& value) const override
    {
        try {
            return imageDataFolder(value);
        } catch (const InputError&) {
            return value;  // no such folder: reading the data will say so
        }
    }
    CostMatrix defaultCosts(const nlohmann::json& settings) const override
    {
        const auto choices = imageChoices(name(), m_parts.settings(), settings);
        return m_parts.configFor(choices, loadChosenData(choices)).*m_parts.costs;
    }
    CostMatrix acceptedCosts(const CostMatrix& costs) const override
    {
        if (!costs.hasReferral())
            return costs;
        if (!m_parts.sweepsReferral)
            throw InputError(name() + ": the cost matrix has a referral column; " + name() +
                             " decides classes only");
        CostMatrix base = costs;
        base.setReferral(std::nullopt);  // the referral costs are the swept setting
        return base;
    }
    ExperimentRun run(const nlohmann::json& settings, const std::optional<CostMatrix>& costs,
                      const JobContext& ctx) const override
    {
        const auto choices = imageChoices(name(), m_parts.settings(), settings);
        const auto data = loadChosenData(choices);
        auto config = m_parts.configFor(choices, data);
        if (costs) {
            const auto accepted = acceptedCosts(*costs);
            checkImageCosts(name(), accepted, data);
            config.*m_parts.costs = accepted;
        }
        ctx.declarePlan(m_parts.plan(config));
        auto result = m_parts.run(data, config, ctx);
        const auto preview = notePreview(choices, result.seconds, data.train.size(), data.test.size(), result.record);
        ExperimentRun out;
        out.output = {m_parts.json(result), m_parts.csv(result), m_parts.table(result) + preview};
        if (result.cache)
            out.cache = std::make_shared<ImageState>(result.cache, m_parts.cachedCosts(config, result.cache->rate),
                                                     result.record, data.classNames);
        return out;
    }

private:
    ImageExperimentParts<Config, Result> m_parts;
};

ImageExperimentParts<CorruptionConfig, CorruptionResult> corruptionParts()
{
    return {kCorruptionExperiment,
            "label corruption (paper Fig. 4)",
            "For each corruption rate and trial: replace that fraction of training labels by uniform\n"
            "random ones (seeded), then train and compare on the clean test set\n"
            "  sgld_s   SGLD from a MAP network with a student S distilled online (decisions from S)\n"
            "  sgld     the same chain's Monte Carlo predictive (no S)\n"
            "  lc_sgld  loss-calibrated SGLD (utility-scaled posterior)\n"
            "  cw_sgd   SGD with class weights 1.4 on the classes the cost matrix favours\n"
            "  ours     the correction q, warm-started from S and trained on D' against S\n"
            "Prints decision cost, accuracy and NLL per method and rate, mean ± std over trials.\n",
            &corruptionSettings,
            &corruptionConfigFor,
            &CorruptionConfig::costs,
            &corruptionPlan,
            &runCorruptionExperiment,
            &corruptionJson,
            &corruptionCsv,
            &corruptionTable,
            [](const CorruptionConfig& c, double) { return c.costs; },
            /*sweepsReferral=*/false};
}

ImageExperimentParts<SelectiveConfig, SelectiveResult> selectiveParts()
{
    return {kSelectiveExperiment,
            "selective classification (paper Fig. 3)",
            "Every image is rotated by an angle uniform in [-30, 30] degrees; the decisions are the\n"
            "classes plus \"refer\" at cost r. For each referral cost r:\n"
            "  sghmc      Bayes decisions under SGHMC's Monte Carlo predictive\n"
            "  lc_sghmc   loss-calibrated SGHMC (a new chain for every r)\n"
            "  ours       the correction q on the student S (S distilled once, q per r)\n"
            "  ours_no_s  the correction q on the stored Monte Carlo predictive (no S)\n"
            "Prints decision cost, accuracy on non-referred points and referral rate per method and\n"
            "r, mean ± std over trials, and the training time vs the number of cost functions.\n",
            &selectiveSettings,
            &selectiveConfigFor,
            &SelectiveConfig::baseCosts,
            &selectivePlan,
            &runSelectiveExperiment,
            &selectiveJson,
            &selectiveCsv,
            &selectiveTable,
            [](const SelectiveConfig& c, double r) { return selectiveCosts(c.baseCosts, r); },
            /*sweepsReferral=*/true};
}

} // namespace

std::shared_ptr<const Experiment> makeCamvidExperiment();  // camvid_entry.cpp
std::shared_ptr<const Experiment> makeOwnPredictiveExperiment();  // own_predictive_experiment.cpp

void addBuiltinExperiments(ExperimentRegistry& registry)
{
    registry.add(std::make_shared<SyntheticExperiment>());
    registry.add(std::make_shared<ImageExperimentEntry<CorruptionConfig, CorruptionResult>>(corruptionParts()));
    registry.add(std::make_shared<ImageExperimentEntry<SelectiveConfig, SelectiveResult>>(selectiveParts()));
    registry.add(makeCamvidExperiment());
    registry.add(std::make_shared<TabularExperiment>());
    registry.add(makeOwnPredictiveExperiment());
}

} // namespace lcs
