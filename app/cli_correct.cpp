// lcstudio-cli correct: the correction on a predictive made anywhere.
#include <cstdio>
#include <thread>

#include "calibration/own_predictive.h"
#include "cli_commands.h"
#include "cli_flags.h"
#include "cli_support.h"
#include "core/atomic_file.h"
#include "core/number_format.h"
#include "core/threads.h"
#include "experiments/experiment.h"
#include "experiments/own_predictive_experiment.h"
#include "io/model_io.h"
#include "io/table_csv.h"

namespace cli {
namespace {

std::vector<lcs::OutputSpec> correctOutputs()
{
    return {{"out", "DIR", lcs::PathKind::Folder,
             "write results.json, decisions.csv, curve.csv and q.pt (TorchScript) with q.pt.json; all of them or "
             "none"}};
}

std::string correctHelp()
{
    const auto& experiment = lcs::ExperimentRegistry::global().get(lcs::kOwnPredictiveExperiment);
    return "lcstudio-cli correct - train the correction q on your own posterior predictive\n\n"
           "Usage: lcstudio-cli correct --features X --predictive P --costs C.json [--referral R] --out DIR\n\n" +
           experiment.description() +
           "Every row of P must sum to 1 within 0.001. q standardises X itself (the statistics are stored in q.pt).\n"
           "By default q is a residual on P (q = P x exp(f(x)), f starting at 0), so it needs P wherever it decides:\n"
           "q.pt's forward takes (x, p). --q-form standalone trains the paper's q, a network of x alone.\n"
           "With --labels the run splits X's rows into rows q trains on, validation rows (temperature and class\n"
           "offsets are fitted there, and P's decisions replace q's if q costs more there) and test rows, and prints\n"
           "the held-out evidence: cost, accuracy, referral rate, ECE and confusion of P, q and the baselines,\n"
           "the paired change against P with a bootstrap 95% interval, and a verdict.\n\n"
           "Options (the experiment's settings; the correction's are shared with lcstudio-cli synthetic):\n" +
           lcs::settingsHelp(experiment.settings()) + "\n" +
           filesAndOutputHelp(lcs::helpEntry("  --costs FILE", "cost matrix with K classes (.json or .cost)") +
                                  lcs::helpEntry("  --preset NAME", "a named preset instead of --costs") +
                                  lcs::helpEntry("  --referral R", "add a referral decision of cost R"),
                              correctOutputs());
}

} // namespace

int runCorrectCommand(int argc, char** argv)
{
    const auto& experiment = lcs::ExperimentRegistry::global().get(lcs::kOwnPredictiveExperiment);
    const auto specs = experiment.settings();
    auto own = outputFlagSpecs(correctOutputs());
    own.insert(own.end(), {{"--costs", true}, {"--preset", true}, {"--referral", true}, {"--quiet", false}});
    const auto parsed = parseFlags(argc, argv, 2, "correct", specs, own);
    if (parsed.help) {
        std::fputs(correctHelp().c_str(), stdout);
        return kExitOk;
    }
    auto given = [&](const char* flag) {
        const auto it = parsed.values.find(flag);
        return it == parsed.values.end() ? std::string() : it->second;
    };
    const std::string costsPath = given("--costs"), presetName = given("--preset");
    if (!parsed.settings.contains(lcs::kFeaturesSetting) || !parsed.settings.contains(lcs::kPredictiveSetting) ||
        given("--out").empty())
        throw UsageError("correct: --features FILE, --predictive FILE and --out DIR are required");
    if (costsPath.empty() == presetName.empty())
        throw UsageError("correct: give --costs FILE or --preset NAME (one of them)");
    const auto settings = lcs::checkedSettings(specs, parsed.settings, experiment.name());
    lcs::OwnPredictiveChoices choices;
    lcs::applySettings(lcs::ownPredictiveSettings(), settings, choices);
    lcs::CostMatrix costs = costsPath.empty() ? lcs::costPreset(presetName) : lcs::loadCostMatrix(costsPath);
    if (!given("--referral").empty()) {
        const auto r = lcs::parseFiniteNumber(given("--referral"));
        if (!r || *r < 0)
            throw UsageError("--referral: \"" + given("--referral").substr(0, 40) + "\" is not a number >= 0");
        costs.setReferral(*r);
    }
    auto inputs = experiment.inputPaths(settings);
    inputs.push_back({"--costs", costsPath, lcs::PathKind::File});
    const CommandOutputs outputs(correctOutputs(), parsed.values, inputs);
    const auto predictive = lcs::loadOwnPredictive(choices);
    if (costs.numClasses() != predictive.probabilities.size(1))
        throw UsageError((costsPath.empty() ? "--preset " + presetName : "--costs " + costsPath) + " has " +
                         std::to_string(costs.numClasses()) + " classes, the predictive " +
                         std::to_string(predictive.probabilities.size(1)));
    costs.validate();
    lcs::configureThreads(1);  // q is a small MLP: one thread is fastest (see lcs_bench_fastpath)
    const bool quiet = parsed.switches.count("--quiet") > 0;
    ProgressPrinter printer(quiet);
    lcs::JobContext ctx{[&](const lcs::Progress& pr) { printer(pr); }, &g_cancel};
    ctx.plan = printer.planSink();
    const auto& correction = choices.correction;
    const auto evidence = lcs::loadEvidenceInputs(choices, predictive, costs);
    const auto result =
        lcs::correctOwnPredictive(predictive, costs, correction.correction, correction.seed, ctx, {}, evidence);
    printer.finish();

    lcs::StagedFolder staged(outputs.path("out"));  // every file, or none
    lcs::writeFileAtomically(staged.path() + "/results.json", lcs::ownPredictiveResultsJson(result, costs, choices));
    lcs::writeFileAtomically(staged.path() + "/decisions.csv", lcs::ownCorrectionCsv(result, costs));
    std::string curve = "step,loss,kl,expected_cost\n";
    for (const auto& s : result.correction.curve)
        curve += std::to_string(s.step) + "," + lcs::formatNumber(s.loss) + "," + lcs::formatNumber(s.kl) + "," +
                 lcs::formatNumber(s.expectedCost) + "\n";
    lcs::writeFileAtomically(staged.path() + "/curve.csv", curve);
    lcs::saveModel(result.correction.q, lcs::ownQInfo(result, costs, correction.seed), staged.path() + "/q.pt");
    staged.commit();

    std::fputs(lcs::ownPredictiveTable(result, costs, predictive.samples).c_str(), stdout);
    std::printf("written to %s: results.json, decisions.csv, curve.csv, q.pt (+ q.pt.json)\n",
                outputs.path("out").c_str());
    return kExitOk;
}

} // namespace cli
