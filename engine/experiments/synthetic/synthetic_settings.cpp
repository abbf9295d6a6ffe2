#include "engine/experiments/synthetic/synthetic_settings.h"

#include "engine/experiments/correction_settings.h"

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

SettingSpec costBenefitPointsSetting()
{
    auto s = integerSetting("cost_benefit_points", "N",
                            "after the run, the cost-benefit curve: the test cost and referral rate of P, q "
                            "(re-trained at each point on the cached posterior) and the baselines at N more referral "
                            "costs (a matrix with referral) or error-cost ratios (two classes); 0: none "
                            "(--cost-benefit FILE alone takes 9); else 2 to 50",
                            0, 0, 50);
    s.problem = [](const std::string& text) {
        return text == "1" ? std::string("is not 0 (no curve) or 2 to 50: a curve needs two points") : std::string();
    };
    return s;
}

/// The window draws decision regions: a grid by default there.
SettingSpec gridSetting(int defaultResolution)
{
    auto s = integerSetting("grid_resolution", "N",
                            "decision-region grid points per side, for plots of the predictive and q (0: none; else 2 "
                            "to 400)",
                            defaultResolution, 0, 400);
    s.problem = [](const std::string& text) {
        return text == "1" ? std::string("is not 0 (no grid) or 2 to 400: a grid needs two points per side")
                           : std::string();
    };
    return withWindowValue(withFormLabel(s, "Region grid"), 80);
}

SettingSpec validationPointsSetting(int defaultPoints)
{
    return integerSetting("validation_points", "N",
                          "labelled validation points drawn as the test set is, 9 negative to 1 positive (not in "
                          "the paper): where q's cost there is above the uncorrected decisions', the replicate keeps "
                          "those (0: none)",
                          defaultPoints, 0, 1000000);
}

SettingSpec bbviPriorSetting(BbviPrior::Kind kind)
{
    return withFormLabel(choiceSetting("bbvi_prior", "P",
                                       "BBVI's prior: N(0, 1/fan_in) on weights and N(0, 1) on biases, as the authors' "
                                       "code, or N(0, 1) on all, as the paper's text",
                                       BbviPrior::name(kind), {"fan_in", "isotropic"}),
                         "BBVI prior");
}

} // namespace

// A declaration table, one entry per setting in the order the form and --help list them
// (the longer specs are built above).
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
        s.push_back({withLogScale(integerSetting("correction_iterations", "N", "q training steps", d.correction.epochs, 1,
                                                 10000000)),
                     [](const C& c) { return J(c.correction.epochs); },
                     [](C& c, const J& v) { c.correction.epochs = v.get<int>(); }});
        s.push_back({withLogScale(withFormLabel(numberSetting("correction_lr", "X",
                                                              "peak Adam learning rate of q, cosine-annealed",
                                                              d.correction.learningRate, 0, 10, true),
                                                "q learning rate")),
                     [](const C& c) { return J(c.correction.learningRate); },
                     [](C& c, const J& v) { c.correction.learningRate = v.get<double>(); }});
        s.push_back({integerSetting("warm_start_steps", "N",
                                     "steps distilling the predictive into q before the correction (0 starts q "
                                     "from a random network)",
                                     d.correction.warmStartSteps, 0, 1000000),
                     [](const C& c) { return J(c.correction.warmStartSteps); },
                     [](C& c, const J& v) { c.correction.warmStartSteps = v.get<int>(); }});
        s.push_back({costBenefitPointsSetting(),
                     [](const C& c) { return J(c.costBenefitPoints); },
                     [](C& c, const J& v) { c.costBenefitPoints = v.get<int>(); }});
        s.push_back({selectionSettingSpec(d.selection),
                     [](const C& c) { return J(selectionName(c.selection)); },
                     [](C& c, const J& v) { c.selection = selectionFromName(v.get<std::string>()); }});
        s.push_back({foldsSettingSpec(), [](const C& c) { return J(c.folds); },
                     [](C& c, const J& v) { c.folds = v.get<int>(); }});
        s.push_back({validationPointsSetting(d.data.validationNegative + d.data.validationPositive),
                     [](const C& c) { return J(c.data.validationNegative + c.data.validationPositive); },
                     [](C& c, const J& v) {
                         const int n = v.get<int>();
                         c.data.validationPositive = n / 10;
                         c.data.validationNegative = n - n / 10;
                     }});
        s.push_back({qFormSettingSpec(d.correction.residual),
                     [](const C& c) { return J(qFormName(c.correction.residual)); },
                     [](C& c, const J& v) { c.correction.residual = qFormIsResidual(v.get<std::string>()); }});
        s.push_back({gridSetting(d.gridResolution),
                     [](const C& c) { return J(c.gridResolution); },
                     [](C& c, const J& v) { c.gridResolution = v.get<int>(); }});
        s.push_back({bbviPriorSetting(d.bbvi.prior.kind),
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

const std::vector<BoundSetting<SyntheticConfig>>& tabularSettings()
{
    using C = SyntheticConfig;
    using J = nlohmann::json;
    static const std::vector<BoundSetting<C>> settings = [] {
        const C d;
        std::vector<BoundSetting<C>> s;
        auto data = textSetting(kDataSetting, "FILE",
                                "a CSV table (a header line, feature columns of numbers or text, a label column) or "
                                "a Weka ARFF file (numeric and nominal attributes); rows with an empty label (ARFF: "
                                "?) are the unlabelled calibration set, and without any q trains on the training "
                                "rows' inputs",
                                nullptr);
        data.required = true;
        data.browse = SettingBrowse::File;
        s.push_back({data, [](const C& c) { return J(c.tablePath); },
                     [](C& c, const J& v) { c.tablePath = v.get<std::string>(); }});
        s.push_back({textSetting("label", "NAME",
                                 "the label column (empty: a CSV table's column \"label\", an ARFF file's last "
                                 "attribute, as in Weka)",
                                 ""),
                     [](const C& c) { return J(c.labelColumn); },
                     [](C& c, const J& v) { c.labelColumn = v.get<std::string>(); }});
        s.push_back({choiceSetting("missing", "HOW",
                                   "a missing cell (empty, ?, NA, N/A, NaN, null): impute (a number by the training "
                                   "rows' mean, with a 0/1 \"missing\" feature beside it; a category as its own "
                                   "level), drop (the row is left out), refuse (stop at the first)",
                                   missingValuesName(d.missingValues), {"impute", "drop", "refuse"}),
                     [](const C& c) { return J(missingValuesName(c.missingValues)); },
                     [](C& c, const J& v) {
                         const auto name = v.get<std::string>();
                         c.missingValues = name == "drop"     ? MissingValues::Drop
                                           : name == "refuse" ? MissingValues::Refuse
                                                              : MissingValues::Impute;
                     }});
        s.push_back({numberSetting("test_fraction", "X", "share of the labelled rows each replicate tests on",
                                   d.testFraction, 0, 0.9, true),
                     [](const C& c) { return J(c.testFraction); },
                     [](C& c, const J& v) { c.testFraction = v.get<double>(); }});
        s.push_back({numberSetting("validation_fraction", "X",
                                   "share of the labelled rows each replicate holds out to choose between q and the "
                                   "uncorrected decisions (0: none)",
                                   d.validationFraction, 0, 0.8, false),
                     [](const C& c) { return J(c.validationFraction); },
                     [](C& c, const J& v) { c.validationFraction = v.get<double>(); }});
        s.push_back({switchSetting("no_standardise", "the networks take the columns as they are (by default each "
                                                     "standardises them with the training rows' mean and std)"),
                     [](const C& c) { return J(!c.standardise); },
                     [](C& c, const J& v) { c.standardise = !v.get<bool>(); }});
        s.push_back({withLogScale(integerSetting("width", "N", "hidden units per layer of every network",
                                                 d.hidden.front(), 1, 4096)),
                     [](const C& c) { return J(c.hidden.front()); },
                     [](C& c, const J& v) { std::fill(c.hidden.begin(), c.hidden.end(), v.get<int64_t>()); }});
        s.push_back({integerSetting("depth", "N", "hidden layers of every network", 1, 1, 8),
                     [](const C& c) { return J(c.hidden.size()); },
                     [](C& c, const J& v) { c.hidden.resize(v.get<size_t>(), c.hidden.front()); }});
        for (const auto& setting : syntheticSettings())
            if (setting.spec.name != "validation_points")  // a table's come from validation_fraction
                s.push_back(setting);
        return s;
    }();
    return settings;
}

SyntheticConfig tabularConfigFrom(const nlohmann::json& settings, const std::optional<CostMatrix>& costs)
{
    SyntheticConfig config;
    config.threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    applySettings(tabularSettings(), settings, config);
    config.table = std::make_shared<TabularData>(readTable(config.tablePath, config.labelColumn, kMaxTableValues,
                                                                config.missingValues));
    config.experiment = kTabularExperiment;
    config.recordSettings = settingValues(tabularSettings(), config);
    const auto& t = *config.table;
    if (t.featureNames.size() == 2) {
        double lo = 1e300, hi = -1e300;
        for (const auto* a : {&t.labelled, &t.unlabelled})
            for (double v : a->values) {
                lo = std::min(lo, v);
                hi = std::max(hi, v);
            }
        setPlaneAround(config.data, lo, hi);
    }
    const int classes = static_cast<int>(t.classNames.size());
    config.costs = costs ? *costs : CostMatrix::zeroOne(classes, t.classNames);
    if (config.costs.numClasses() != classes)
        throw CostMatrixError("cost matrix has " + std::to_string(config.costs.numClasses()) + " classes but " +
                              t.source + " has " + std::to_string(classes) + " in " + (isArffPath(t.source) ? "attribute" : "column") + " \"" + t.labelName + "\"");
    requireClassNames(config.costs, t.classNames, t.source);
    config.costs.validate();
    return config;
}

void setPlaneAround(SyntheticDataConfig& box, double lo, double hi)
{
    const double pad = std::max(1e-6, (hi - lo) * 0.1);
    box.boxMin = lo - pad;
    box.boxMax = hi + pad;
}

int windowRegionGrid(int requested)
{
    if (requested >= 2)
        return requested;
    return windowValues(specsOf(syntheticSettings())).value("grid_resolution", 80);
}

std::vector<OutputSpec> syntheticOutputs()
{
    auto outputs = resultsOutputs("write per-replicate results as CSV (atomically)");
    outputs.push_back({"save_models", "DIR", PathKind::Folder,
                       "save each q, the rule the run kept (METHOD_rR_kept_rule.pt: q, or P or a calibration of "
                       "P taking the predictive) and the MAP / last-sample networks, each with a JSON sidecar; "
                       "the folder is created once the run starts"});
    outputs.push_back(costBenefitOutput());
    outputs.push_back(reliabilityOutput("each replicate's reliability diagrams (uncorrected and corrected"));
    return outputs;
}

} // namespace lcs
