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
#include "experiments/synthetic_settings.h"
#include "io/model_io.h"
#include "io/table_csv.h"

namespace cli {
namespace {

/// The synthetic experiment's correction settings, which this command shares: q is
/// trained here exactly as there.
std::vector<lcs::BoundSetting<lcs::SyntheticConfig>> correctionSettings()
{
    std::vector<lcs::BoundSetting<lcs::SyntheticConfig>> out;
    for (const auto& s : lcs::syntheticSettings())
        if (s.spec.name == "seed" || s.spec.name == "correction_iterations" || s.spec.name == "correction_lr" ||
            s.spec.name == "warm_start_steps")
            out.push_back(s);
    return out;
}

std::vector<lcs::OutputSpec> correctOutputs()
{
    return {{"out", "DIR", lcs::PathKind::Folder,
             "write results.json, decisions.csv, curve.csv and q.pt (TorchScript) with q.pt.json; all of them or "
             "none"}};
}

std::string correctHelp()
{
    return "lcstudio-cli correct - train the correction q on your own posterior predictive\n\n"
           "Usage: lcstudio-cli correct --features X --predictive P --costs C.json [--referral R] --out DIR\n\n"
           "X holds N unlabelled inputs (N x D); P their posterior predictive from any Bayesian model: N x K\n"
           "probabilities, or T x N x K probabilities of T posterior samples (averaged). Each is a .npy file\n"
           "(float32 or float64, little-endian) or a CSV table (an optional header line, one row per input);\n"
           "every row of P must sum to 1 within 0.001. q, an MLP on the features as they are (standardise\n"
           "them first if their scales differ widely), is trained as the synthetic experiment trains it.\n\n"
           "Options (the correction's settings, shared with lcstudio-cli synthetic):\n" +
           lcs::settingsHelp(lcs::specsOf(correctionSettings())) + "\n" +
           filesAndOutputHelp(lcs::helpEntry("  --features FILE", "the inputs X (.npy or .csv), N x D") +
                                  lcs::helpEntry("  --predictive FILE", "P (.npy or .csv): N x K, or T x N x K (.npy)") +
                                  lcs::helpEntry("  --costs FILE", "cost matrix with K classes (.json or .cost)") +
                                  lcs::helpEntry("  --preset NAME", "a named preset instead of --costs") +
                                  lcs::helpEntry("  --referral R", "add a referral decision of cost R"),
                              correctOutputs());
}

/// Caps: 64 M numbers per array (512 MB as float64).
constexpr size_t kMaxArrayValues = size_t{64} << 20;

} // namespace

int runCorrectCommand(int argc, char** argv)
{
    const auto settings = correctionSettings();
    auto own = outputFlagSpecs(correctOutputs());
    own.insert(own.end(), {{"--features", true}, {"--predictive", true}, {"--costs", true}, {"--preset", true},
                           {"--referral", true}, {"--quiet", false}});
    const auto parsed = parseFlags(argc, argv, 2, "correct", lcs::specsOf(settings), own);
    if (parsed.help) {
        std::fputs(correctHelp().c_str(), stdout);
        return kExitOk;
    }
    auto given = [&](const char* flag) {
        const auto it = parsed.values.find(flag);
        return it == parsed.values.end() ? std::string() : it->second;
    };
    const std::string featuresPath = given("--features"), predictivePath = given("--predictive"),
                      costsPath = given("--costs"), presetName = given("--preset");
    if (featuresPath.empty() || predictivePath.empty() || given("--out").empty())
        throw UsageError("correct: --features FILE, --predictive FILE and --out DIR are required");
    if (costsPath.empty() == presetName.empty())
        throw UsageError("correct: give --costs FILE or --preset NAME (one of them)");
    lcs::SyntheticConfig config;
    lcs::applySettings(settings, parsed.settings, config);
    lcs::CostMatrix costs = costsPath.empty() ? lcs::costPreset(presetName) : lcs::loadCostMatrix(costsPath);
    if (!given("--referral").empty()) {
        const auto r = lcs::parseFiniteNumber(given("--referral"));
        if (!r || *r < 0)
            throw UsageError("--referral: \"" + given("--referral").substr(0, 40) + "\" is not a number >= 0");
        costs.setReferral(*r);
    }
    const CommandOutputs outputs(correctOutputs(), parsed.values,
                                 {{"--features", featuresPath, lcs::PathKind::File},
                                  {"--predictive", predictivePath, lcs::PathKind::File},
                                  {"--costs", costsPath, lcs::PathKind::File}});
    const auto x = lcs::readNumericArray(featuresPath, "--features", 2, 2, kMaxArrayValues);
    const auto p = lcs::readNumericArray(predictivePath, "--predictive", 2, 3, kMaxArrayValues);
    const auto predictive = lcs::ownPredictive(x, p, "--features " + featuresPath, "--predictive " + predictivePath);
    if (costs.numClasses() != predictive.probabilities.size(1))
        throw UsageError((costsPath.empty() ? "--preset " + presetName : "--costs " + costsPath) + " has " +
                         std::to_string(costs.numClasses()) + " classes, the predictive " +
                         std::to_string(predictive.probabilities.size(1)));
    costs.validate();
    lcs::configureThreads(1);  // q is a small MLP: one thread is fastest (see lcs_bench_fastpath)
    const bool quiet = parsed.switches.count("--quiet") > 0;
    if (!quiet)
        std::fprintf(stderr, "correct: %lld inputs of %lld features, %lld classes%s\n",
                     static_cast<long long>(predictive.features.size(0)),
                     static_cast<long long>(predictive.features.size(1)),
                     static_cast<long long>(predictive.probabilities.size(1)),
                     predictive.samples > 1 ? (", the mean of " + std::to_string(predictive.samples) + " samples").c_str()
                                            : "");
    ProgressPrinter printer(quiet);
    lcs::JobContext ctx{[&](const lcs::Progress& pr) { printer(pr); }, &g_cancel};
    const auto result = lcs::correctOwnPredictive(predictive, costs, config.correction, config.seed, ctx);
    printer.finish();

    lcs::StagedFolder staged(outputs.path("out"));  // every file, or none
    lcs::writeFileAtomically(staged.path() + "/results.json", lcs::ownCorrectionJson(result, costs, config.seed));
    lcs::writeFileAtomically(staged.path() + "/decisions.csv", lcs::ownCorrectionCsv(result, costs));
    std::string curve = "step,loss,kl,expected_cost\n";
    for (const auto& s : result.correction.curve)
        curve += std::to_string(s.step) + "," + lcs::formatNumber(s.loss) + "," + lcs::formatNumber(s.kl) + "," +
                 lcs::formatNumber(s.expectedCost) + "\n";
    lcs::writeFileAtomically(staged.path() + "/curve.csv", curve);
    lcs::ModelInfo info;
    info.role = "q";
    info.experiment = "own_predictive";
    info.method = "ours";
    info.seed = config.seed;
    info.costs = costs;
    info.collapsed = result.correction.collapsed;
    lcs::saveModel(result.correction.q, info, staged.path() + "/q.pt");
    staged.commit();

    const int64_t n = result.decisionsBefore.size(0);
    std::printf("q changed %lld of %lld decisions; mean expected cost under P: %s before, %s after%s\n",
                static_cast<long long>(result.changed), static_cast<long long>(n),
                lcs::formatNumber(std::round(result.expectedCostBefore.mean().item<double>() * 1e4) / 1e4).c_str(),
                lcs::formatNumber(std::round(result.expectedCostAfter.mean().item<double>() * 1e4) / 1e4).c_str(),
                result.correction.collapsed ? " (warning: q collapsed to one class)" : "");
    std::printf("written to %s: results.json, decisions.csv, curve.csv, q.pt (+ q.pt.json)\n",
                outputs.path("out").c_str());
    return kExitOk;
}

} // namespace cli
