// The image experiments, label corruption (Fig. 4) and selective classification (Fig. 3),
// as registry entries: what the two do differently (ImageExperimentParts), and the one
// entry that runs either (ImageExperimentEntry) and keeps its last student for a cost edit.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>

#include "base/core/atomic_file.h"
#include "base/core/input_error.h"
#include "base/core/number_format.h"
#include "datasets/image_data.h"
#include "engine/experiments/experiment.h"
#include "engine/experiments/image/corruption_experiment.h"
#include "engine/experiments/image/image_experiment_support.h"
#include "engine/experiments/image/image_experiments.h"
#include "engine/experiments/image/image_run_settings.h"
#include "engine/experiments/image/selective_experiment.h"
#include "engine/experiments/report_json.h"
#include "engine/experiments/run_views.h"
#include "engine/experiments/saved_model_request.h"
#include "engine/io/model_io.h"

namespace lcs {
namespace {

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
    ExperimentOutput out;
    out.record = record;
    out.fields["recorrection"] = {{"setting", reportNumber(c.rate)},     {"trial", c.trial},
                         {"uncorrected", metrics(c.uncorrected)}, {"corrected", metrics(c.corrected)},
                         {"changed_decisions", c.changedCount},  {"collapsed", r.collapsed},
                         {"seconds", reportNumber(r.seconds)}};
    // The long table, and the CSV as its view.
    // Labelled as the run's own table labels q's rows, so the two can be matched.
    // Selective classification decides with a referral column; corruption has none, and
    // no referral rate.
    const bool referral = record.experiment == kSelectiveExperiment;
    const std::string setting = referral ? "referral_cost" : "rate";
    std::vector<Observation> observations;
    for (const auto& [rule, m] : {std::pair{"uncorrected", &c.uncorrected}, std::pair{"corrected", &c.corrected}}) {
        Observation key;
        key.setting = setting;
        key.settingValue = c.rate;
        key.trial = c.trial;
        key.method = imageMethodName(ImageMethod::Ours);
        key.rule = rule;
        appendObservations(observations, key, *m, ObservedMetrics{referral, {}});
    }
    WideLayout layout;
    layout.setting = setting;
    layout.rule = "rule";
    layout.columns = {{"cost", "", "cost"}, {"accuracy", "", "accuracy"}};
    if (referral)
        layout.columns.push_back({"referral_rate", "", "referral_rate"});
    out.observations = std::move(observations);
    out.csvLayout = std::move(layout);
    out.table = "Re-correction: test cost " + formatNumber(c.uncorrected.averageCost) + " (S) -> " +
                              formatNumber(c.corrected.averageCost) + " (q), " + std::to_string(c.changedCount) +
                              " decision(s) changed" + (r.collapsed ? " (q collapsed to one class)" : "") + "\n";
    return out;
}

/// How an image experiment names its swept setting and its rules, for a cached run.
struct ImageRuleNames {
    const char* settingName;         ///< the networks' setting in file names: "rate", "r"
    std::string liveUncorrected;     ///< the rule q is compared with during a run: "sgld_s", "sghmc"
    std::string cachedUncorrected;   ///< the rule a re-corrected q is compared with: the student S
};

/// The last run's student S: a cost edit re-trains only q. Where the run saved its
/// networks, a re-corrected q replaces the run's q file there, so that the saved set is
/// always the networks behind the decisions last shown (the window's Export Model).
class ImageState : public RecorrectionState {
public:
    ImageState(std::string experiment, ImageRuleNames names, std::shared_ptr<const CorrectionCache> cache,
               CostMatrix costs, RunRecord record, const ImageDataset& data, std::string savedFolder, uint64_t seed)
        : m_experiment(std::move(experiment)), m_names(std::move(names)), m_cache(std::move(cache)),
          m_costs(std::move(costs)), m_record(std::move(record)), m_classNames(data.classNames),
          m_mean(data.channelMean), m_std(data.channelStd), m_savedFolder(std::move(savedFolder))
    {
        if (!m_savedFolder.empty())
            m_writer.emplace(m_experiment, data, seed);
    }
    std::string describe() const override
    {
        return "Student S of " + std::string(m_names.settingName) + " " + formatNumber(m_cache->rate) + ", trial " +
               std::to_string(m_cache->trial) +
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
        if (m_writer && r.q) {
            TrainedNetwork n;
            n.network = "ours";
            n.settingName = m_names.settingName;
            n.setting = m_cache->rate;
            n.trial = m_cache->trial;
            n.model = r.q.get();
            n.spec = &m_cache->spec;
            n.costs = &named;
            n.collapsed = r.collapsed;
            m_writer->write(n, m_savedFolder);
        }
        showView(ctx, ComparisonShown{m_experiment, r.comparison, changedImages(r.comparison, m_cache->testImages, m_mean, m_std),
                                 m_classNames, m_names.cachedUncorrected, /*recorrected=*/true, r.seconds,
                                 r.collapsed});
        m_costs = named;
        m_record.costs = named;
        return recorrectionOutput(m_record, r);
    }

private:
    std::string m_experiment;
    ImageRuleNames m_names;
    std::shared_ptr<const CorrectionCache> m_cache;
    CostMatrix m_costs;
    RunRecord m_record;
    std::vector<std::string> m_classNames;
    std::vector<double> m_mean, m_std;
    std::string m_savedFolder;
    std::optional<ImageNetworkWriter> m_writer;
};

double sweptValue(const CorruptionSummary& s) { return s.rate; }
double sweptValue(const SelectiveSummary& s) { return s.referralCost; }

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
    const std::vector<BoundSetting<ImageRunChoices>>& (*settings)() = nullptr;
    Config (*configFor)(const ImageRunChoices&, const ImageDataset&) = nullptr;
    CostMatrix Config::*costs = nullptr;  ///< the matrix a user's costs replace
    TaskPlan (*plan)(const Config&) = nullptr;
    Result (*run)(const ImageDataset&, const Config&, const JobContext&) = nullptr;
    /// The results document (its table, reliability diagrams and all).
    ExperimentOutput (*output)(const Result&) = nullptr;
    /// The matrix the run's q for a swept value was trained for (the cached one's, the
    /// live comparisons').
    CostMatrix (*costsAt)(const Config&, double sweptValue) = nullptr;
    /// Whether a referral column in a user's matrix is dropped (the referral costs are a
    /// swept setting) or refused (the experiment decides classes only).
    bool sweepsReferral = false;
    /// What the run sweeps, for the line it tells before the work: "3 rate(s) x 1 trial(s)".
    std::string (*sweepSummary)(const Config&) = nullptr;
    /// The line after the table for a (method, value) where q collapsed in some trials.
    std::string (*collapseLine)(const std::string& methodLabel, double value, int trials) = nullptr;
    ImageRuleNames rules;
    /// The provider's last word on the config.
    std::function<void(Config&)> ImageExperimentProviders::*tune;
    /// Outputs of this experiment alone (selective: the risk-coverage curves) and their
    /// writer; none by default.
    std::vector<OutputSpec> ownOutputs = {};
    void (*writeOwnOutputs)(const Result&, const OutputPaths&) = nullptr;
};

template <class Config, class Result>
class ImageExperimentEntry : public ImageExperiment {
public:
    ImageExperimentEntry(ImageExperimentParts<Config, Result> parts, ImageExperimentProviders providers)
        : m_parts(std::move(parts)), m_providers(std::move(providers))
    {
    }
    std::string name() const override { return m_parts.name; }
    std::string title() const override { return m_parts.title; }
    std::string description() const override { return m_parts.description; }
    std::vector<SettingSpec> settings() const override { return specsOf(m_parts.settings()); }
    std::vector<OutputSpec> outputs() const override
    {
        auto outputs = resultsOutputs("write one row per (setting, trial, method) as CSV (atomically)");
        outputs.push_back({"save_models", "DIR", PathKind::Folder,
                           "save every network the run trains (MAP, S, q, CW-SGD) as TorchScript with a JSON "
                           "sidecar, NETWORK_SETTING_trialT.pt; all of them once the run ends, or none"});
        outputs.push_back(
            reliabilityOutput("every run's reliability diagrams (each method's predictive on the test images"));
        outputs.insert(outputs.end(), m_parts.ownOutputs.begin(), m_parts.ownOutputs.end());
        return outputs;
    }
    std::string costsHelp() const override
    {
        return "cost matrix (.json or .cost) with as many classes as the data; default: the paper's (mnist preset "
               "for 1-channel data, cifar10 for colour)";
    }
    /// The physical cores unless the threads setting says otherwise. Two threads used to
    /// run several times slower here: OpenBLAS's own pool spun against LibTorch's; with
    /// BLAS single-threaded (configureThreads) the MLP's epoch takes the same time on one
    /// or two (bench distill), and ResNet-18 gains from every core.
    int intraOpThreads(const nlohmann::json& settings, int cores) const override
    {
        const auto asked = settings.find("threads");
        return asked != settings.end() && asked->is_number_integer() ? asked->get<int>() : cores;
    }
    std::string inputFolder(const std::string& value) const override
    {
        try {
            return imageDataFolder(value);
        } catch (const InputError&) {
            return value;  // no such folder: reading the data will say so
        }
    }
    ImageDataset loadData(const nlohmann::json& settings) const override
    {
        return loadChoices(imageChoices(name(), m_parts.settings(), settings));
    }
    CostMatrix defaultCosts(const nlohmann::json& settings) const override
    {
        const auto choices = imageChoices(name(), m_parts.settings(), settings);
        return m_parts.configFor(choices, loadChoices(choices)).*m_parts.costs;
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
    /// The data read and the matrix fitted to it, by run()'s own first step.
    std::string checkInputs(const nlohmann::json& settings, const std::optional<CostMatrix>& costs) const override
    {
        const auto p = prepare(settings, costs, JobContext{});
        return p.data.name + ": " + std::to_string(p.data.train.size()) + " training and " +
               std::to_string(p.data.test.size()) + " test images, " + std::to_string(p.data.classes()) + " classes";
    }
    ExperimentRun run(const nlohmann::json& settings, const std::optional<CostMatrix>& costs, const JobContext& ctx,
                      const OutputPaths& outputs) const override;

private:
    /// What a run reads and decides under, read and checked before any work.
    struct Prepared {
        ImageRunChoices choices;
        ImageDataset data;
        Config config;
    };
    Prepared prepare(const nlohmann::json& settings, const std::optional<CostMatrix>& costs,
                     const JobContext& ctx) const
    {
        auto choices = imageChoices(name(), m_parts.settings(), settings);
        auto data = loadChoices(choices);
        auto config = configFor(choices, data, costs, ctx);
        return {std::move(choices), std::move(data), std::move(config)};
    }

    /// The data of `choices`; any failure to read them is a DataError naming them.
    ImageDataset loadChoices(const ImageRunChoices& choices) const
    {
        try {
            return m_providers.loadData ? m_providers.loadData(choices) : loadChosenData(choices);
        } catch (const DataError&) {
            throw;
        } catch (const std::exception& e) {
            throw DataError(e.what());
        }
    }
    Config configFor(const ImageRunChoices& choices, const ImageDataset& data,
                     const std::optional<CostMatrix>& costs, const JobContext& ctx) const;

    ImageExperimentParts<Config, Result> m_parts;
    ImageExperimentProviders m_providers;
};

template <class Config, class Result>
Config ImageExperimentEntry<Config, Result>::configFor(const ImageRunChoices& choices, const ImageDataset& data,
                                                       const std::optional<CostMatrix>& costs,
                                                       const JobContext& ctx) const
{
    auto config = m_parts.configFor(choices, data);
    if (costs) {
        if (costs->hasReferral() && m_parts.sweepsReferral)
            ctx.tell(NoteKind::Warning, "the cost matrix's referral column (" + formatNumber(*costs->referralCost()) +
                                            ") is not used: " + name() +
                                            " decides under each of its referral costs in turn");
        const auto accepted = acceptedCosts(*costs);
        checkImageCosts(name(), accepted, data);
        config.*m_parts.costs = accepted;
    }
    if (const auto& tune = m_providers.*m_parts.tune)
        tune(config);
    return config;
}

template <class Config, class Result>
ExperimentRun ImageExperimentEntry<Config, Result>::run(const nlohmann::json& settings,
                                                        const std::optional<CostMatrix>& costs, const JobContext& ctx,
                                                        const OutputPaths& outputs) const
{
    auto prepared = prepare(settings, costs, ctx);
    const auto& choices = prepared.choices;
    const auto& data = prepared.data;
    auto& config = prepared.config;
    const std::string experiment = name();
    ctx.tell(NoteKind::Info, data.name + ": " + std::to_string(data.train.size()) + " training, " +
                                 std::to_string(data.test.size()) + " test images; " + config.model.describe() + "; " +
                                 m_parts.sweepSummary(config));
    if (showsViews(ctx)) {
        CostMatrix named = config.*m_parts.costs;
        if (named.numClasses() == data.classes())
            named.setClassNames(data.classNames);
        showView(ctx, ImageRunStarted{experiment, data.name, data.classNames, data.inputShape,
                                 static_cast<int64_t>(data.train.size()), static_cast<int64_t>(data.test.size()),
                                 config.model.describe(), named});
    }
    // Every network the run trains, saved into a staging folder that is moved into
    // place once the run has finished: all of them, or none.
    OutputFolder staged(outputs, "save_models");
    const std::string savedFolder = staged.target();
    const ImageNetworkWriter writer(experiment, data, config.seed);
    if (staged.asked())
        config.onNetwork = [&](const TrainedNetwork& n) { writer.write(n, staged.path()); };
    // Heat maps and the gallery fill in as each run's q is trained, not at the end.
    if (showsViews(ctx))
        config.onComparison = [&](const DecisionComparison& c, const at::Tensor& testImages) {
            showView(ctx, ComparisonShown{experiment, c, changedImages(c, testImages, data.channelMean, data.channelStd),
                                     data.classNames, m_parts.rules.liveUncorrected});
        };
    ctx.declarePlan(m_parts.plan(config));
    auto result = m_parts.run(data, config, ctx);
    staged.commit();
    const auto preview = notePreview(choices, result.seconds, data.train.size(), data.test.size(), result.record);
    std::string warnings;
    for (const auto& summary : result.summary)
        if (summary.collapsed > 0)
            warnings += m_parts.collapseLine(imageMethodLabel(summary.method), sweptValue(summary), summary.collapsed);
    if (m_parts.writeOwnOutputs)
        m_parts.writeOwnOutputs(result, outputs);
    showView(ctx, result);
    ExperimentRun out;
    out.output = m_parts.output(result);
    out.output.table += preview + warnings;
    if (result.cache)
        out.cache = std::make_shared<ImageState>(experiment, m_parts.rules, result.cache,
                                                 m_parts.costsAt(config, result.cache->rate), result.record, data,
                                                 savedFolder, config.seed);
    return out;
}

ImageExperimentParts<CorruptionConfig, CorruptionResult> corruptionParts()
{
    ImageExperimentParts<CorruptionConfig, CorruptionResult> p;
    p.name = kCorruptionExperiment;
    p.title = "label corruption (paper Fig. 4)";
    p.description =
        "For each corruption rate and trial: replace that fraction of training labels by uniform\n"
        "random ones (seeded), then train and compare on the clean test set\n"
        "  sgld_s   SGLD from a MAP network with a student S distilled online (decisions from S)\n"
        "  sgld     the same chain's Monte Carlo predictive (no S)\n"
        "  lc_sgld  loss-calibrated SGLD (utility-scaled posterior)\n"
        "  cw_sgd   SGD with class weights 1.4 on the classes the cost matrix favours\n"
        "  ours     the correction q, warm-started from S and trained on D' against S\n"
        "Prints decision cost, accuracy and NLL per method and rate, mean ± std over trials.\n";
    p.settings = &corruptionSettings;
    p.configFor = &corruptionConfigFor;
    p.costs = &CorruptionConfig::costs;
    p.plan = &corruptionPlan;
    p.run = &runCorruptionExperiment;
    p.output = &corruptionOutput;
    p.costsAt = [](const CorruptionConfig& c, double) { return c.costs; };
    p.sweepsReferral = false;
    p.sweepSummary = [](const CorruptionConfig& c) {
        return std::to_string(c.rates.size()) + " rate(s) x " + std::to_string(c.trials) + " trial(s)";
    };
    p.collapseLine = [](const std::string& method, double rate, int trials) {
        return "warning: " + method + " at rate " + formatNumber(rate) + ": q collapsed to one class in " +
               std::to_string(trials) + " trial(s)\n";
    };
    p.rules = {"rate", "sgld_s", "sgld_s"};
    p.tune = &ImageExperimentProviders::tuneCorruption;
    return p;
}

ImageExperimentParts<SelectiveConfig, SelectiveResult> selectiveParts()
{
    ImageExperimentParts<SelectiveConfig, SelectiveResult> p;
    p.name = kSelectiveExperiment;
    p.title = "selective classification (paper Fig. 3)";
    p.description =
        "Every image is rotated by an angle uniform in [-30, 30] degrees; the decisions are the\n"
        "classes plus \"refer\" at cost r. For each referral cost r:\n"
        "  sghmc      Bayes decisions under SGHMC's Monte Carlo predictive\n"
        "  lc_sghmc   loss-calibrated SGHMC (a new chain for every r)\n"
        "  ours       the correction q on the student S (S distilled once, q per r)\n"
        "  ours_no_s  the correction q on the stored Monte Carlo predictive (no S)\n"
        "Prints decision cost, accuracy on non-referred points and referral rate per method and\n"
        "r, mean ± std over trials, and the training time vs the number of cost functions.\n";
    p.settings = &selectiveSettings;
    p.configFor = &selectiveConfigFor;
    p.costs = &SelectiveConfig::baseCosts;
    p.plan = &selectivePlan;
    p.run = &runSelectiveExperiment;
    p.output = &selectiveOutput;
    p.costsAt = [](const SelectiveConfig& c, double r) { return selectiveCosts(c.baseCosts, r); };
    p.sweepsReferral = true;
    p.sweepSummary = [](const SelectiveConfig& c) {
        return std::to_string(c.referralCosts.size()) + " referral cost(s) x " + std::to_string(c.trials) +
               " trial(s)";
    };
    p.collapseLine = [](const std::string& method, double r, int trials) {
        return "warning: " + method + " at r = " + formatNumber(r) + ": q collapsed to one class in " +
               std::to_string(trials) + " trial(s)\n";
    };
    p.rules = {"r", "sghmc", "sghmc_s"};
    p.tune = &ImageExperimentProviders::tuneSelective;
    p.ownOutputs = {{"risk_coverage", "FILE", PathKind::File,
                     "write every run's risk-coverage curve as CSV (referral cost, trial, method, AURC, coverage, "
                     "risk; atomically)"}};
    p.writeOwnOutputs = [](const SelectiveResult& result, const OutputPaths& outputs) {
        writeOutputFile(outputs, "risk_coverage", riskCoverageCsv(result));
    };
    return p;
}

} // namespace

ImageModelEvaluation ImageExperiment::evaluateModel(const std::string& path, const nlohmann::json& settings,
                                                   const CostMatrix& costs, const JobContext& ctx) const
{
    const ImageDataset data = loadData(settings);
    ctx.checkCancelled();
    return evaluateImageModel(path, data, costs, ctx);
}

std::vector<ExperimentAction> ImageExperiment::actions() const
{
    auto specs = settings();
    specs.push_back(savedModelSetting("an exported classifier (.pt with its JSON sidecar)"));
    return {{kEvaluateAction, "a saved classifier decides the test images",
             "Decides the test images the settings name with a saved classifier, under the cost matrix or, "
             "where it has another number of classes, the classifier's own.",
             specs, {}, true, {}, /*onCommandLine=*/false}};
}

ExperimentRun ImageExperiment::act(const std::string& action, const nlohmann::json& settings,
                                   const std::optional<CostMatrix>& costs, const JobContext& ctx,
                                   const OutputPaths& outputs) const
{
    if (action != kEvaluateAction)
        return Experiment::act(action, settings, costs, ctx, outputs);
    const auto [path, dataSettings] = savedModelRequest(settings);
    const CostMatrix asked = costs ? *costs : defaultCosts(dataSettings);
    ctx.declarePlan({{TaskIdentity{"evaluate", std::nullopt, 0}, 1.0}});
    const auto e = evaluateModel(path, dataSettings, asked, ctx);
    const std::string matrix = e.sidecarCosts ? "its sidecar's cost matrix (the one given has " +
                                                    std::to_string(asked.numClasses()) + " classes)"
                                              : "the cost matrix given";
    // The selective experiment rotates its test images per trial; these are as loaded.
    const std::string images =
        name() == kSelectiveExperiment ? "test images (as loaded, not rotated)" : "test images";
    ExperimentOutput output = imageModelEvaluationOutput(e);
    output.table = path + " (" + (e.info.method.empty() ? "?" : e.info.method) + ", " + e.info.architecture +
                   ") on the " + std::to_string(e.metrics.count) + " " + images + " of " + e.dataset + " under " +
                   matrix + ": " + imageModelEvaluationText(e) + "\n";
    return {output, nullptr};
}

std::shared_ptr<const Experiment> makeCorruptionExperiment(ImageExperimentProviders providers)
{
    return std::make_shared<ImageExperimentEntry<CorruptionConfig, CorruptionResult>>(corruptionParts(),
                                                                                       std::move(providers));
}

std::shared_ptr<const Experiment> makeSelectiveExperiment(ImageExperimentProviders providers)
{
    return std::make_shared<ImageExperimentEntry<SelectiveConfig, SelectiveResult>>(selectiveParts(),
                                                                                     std::move(providers));
}

} // namespace lcs
