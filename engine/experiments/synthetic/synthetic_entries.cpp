// The synthetic experiment and its twin on a user's table as registry entries: each
// declares its settings (bound to its config), its description and its default costs, and
// runs through runSyntheticConfig.
#include "engine/experiments/synthetic/synthetic_entries.h"

#include "engine/experiments/experiment.h"
#include "engine/experiments/synthetic/synthetic_experiment.h"
#include "engine/experiments/synthetic/synthetic_report.h"
#include "engine/experiments/synthetic/synthetic_settings.h"
#include "engine/experiments/synthetic/synthetic_state.h"

namespace lcs {
namespace {

// ---------------------------------------------------------------------------------------
// Synthetic 2-D (Table 2)

class SyntheticExperiment : public PosteriorExperiment {
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
    std::vector<OutputSpec> outputs() const override { return syntheticOutputs(); }
    std::string costsHelp() const override { return "cost matrix (.json or Weka .cost, 2 classes); default: the paper's"; }
    CostMatrix defaultCosts(const nlohmann::json&) const override { return costPreset("synthetic"); }
    CostMatrix acceptedCosts(const CostMatrix& costs) const override
    {
        costs.validateFor(2);
        return costs;
    }
    std::string checkInputs(const nlohmann::json& settings, const std::optional<CostMatrix>& costs) const override
    {
        checkedCurvePoints(configFor(settings, costs), {});
        return {};
    }
    SyntheticConfig configOf(const nlohmann::json& settings, const std::optional<CostMatrix>& costs) const override
    {
        return configFor(settings, costs);
    }
    const std::vector<BoundSetting<SyntheticConfig>>& bindings() const override { return syntheticSettings(); }

private:
    static SyntheticConfig configFor(const nlohmann::json& settings, const std::optional<CostMatrix>& costs)
    {
        return syntheticConfigFrom(settings, costs ? *costs : costPreset("synthetic"));
    }
};

// ---------------------------------------------------------------------------------------
// Your own data: the synthetic experiment's methods on a CSV table

class TabularExperiment : public PosteriorExperiment {
public:
    std::string name() const override { return kTabularExperiment; }
    std::string title() const override { return "your own data (a CSV or ARFF table)"; }
    std::string description() const override
    {
        return "The synthetic experiment's methods on a table of your own: a CSV with a header, feature\n"
               "columns and a label column (--label), or a Weka ARFF file (class: the last attribute\n"
               "unless --label names one). Each replicate splits the labelled rows into training and\n"
               "test sets (--test-fraction); rows with an empty label (ARFF: ?) are the unlabelled\n"
               "calibration set q is trained on (none: the training rows' inputs). Prints the test\n"
               "cost with and without q.\n";
    }
    std::vector<SettingSpec> settings() const override { return specsOf(tabularSettings()); }
    std::vector<OutputSpec> outputs() const override { return syntheticOutputs(); }
    std::string costsHelp() const override
    {
        return "cost matrix (.json or Weka .cost) over the table's classes (CSV: by value when all are integers, "
               "else by text; ARFF: as declared); default 0/1";
    }
    std::vector<std::string> methods() const override { return methodIdsFor(kSyntheticExperiment); }
    CostMatrix defaultCosts(const nlohmann::json& settings) const override
    {
        return tabularConfigFrom(settings, std::nullopt).costs;
    }
    /// The classes are the table's: checked when the table is read.
    CostMatrix acceptedCosts(const CostMatrix& costs) const override { return costs; }
    /// The table read and the matrix fitted to it, as run() reads and fits them.
    std::string checkInputs(const nlohmann::json& settings, const std::optional<CostMatrix>& costs) const override
    {
        const auto config = tabularConfigFrom(settings, costs);
        checkedCurvePoints(config, {});
        return "table " + config.table->source + ": " + describeTable(*config.table);
    }
    SyntheticConfig configOf(const nlohmann::json& settings, const std::optional<CostMatrix>& costs) const override
    {
        return tabularConfigFrom(settings, costs);
    }
    const std::vector<BoundSetting<SyntheticConfig>>& bindings() const override { return tabularSettings(); }
};

} // namespace

std::shared_ptr<const Experiment> makeSyntheticExperiment()
{
    return std::make_shared<SyntheticExperiment>();
}

std::shared_ptr<const Experiment> makeTabularExperiment()
{
    return std::make_shared<TabularExperiment>();
}

} // namespace lcs
