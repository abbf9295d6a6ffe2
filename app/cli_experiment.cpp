// lcstudio-cli NAME: any experiment in the registry, its flags and --help derived from
// its declaration. The paper's experiments have commands of their own with a few more
// flags (saved models, intra-op threads); every other registered experiment runs here.
#include <cstdio>
#include <mutex>

#include "cli_commands.h"
#include "cli_flags.h"
#include "cli_support.h"
#include "core/threads.h"
#include "decision/cost_matrix.h"
#include "experiments/experiment.h"

namespace cli {

namespace {

const char* kExperimentFiles = R"(Options (files and output):
  --costs FILE        cost matrix (.json or Weka .cost); default: the experiment's
  --json FILE         write results as JSON (atomically)
  --csv FILE          write results as CSV (atomically)
  --quiet             no progress on stderr
  -h, --help          this text
)";

} // namespace

std::string experimentIntro(const lcs::Experiment& experiment)
{
    return "lcstudio-cli " + experiment.name() + " - " + experiment.title() + "\n\n" + experiment.description();
}

int runExperimentCommand(const lcs::Experiment& experiment, int argc, char** argv)
{
    const auto specs = experiment.settings();
    const auto parsed = parseFlags(argc, argv, 2, experiment.name(), specs,
                                   {{"--costs", true}, {"--json", true}, {"--csv", true}, {"--quiet", false}});
    if (parsed.help) {
        std::printf("%s\nOptions (the experiment's settings):\n%s\n%s", experimentIntro(experiment).c_str(),
                    lcs::settingsHelp(specs).c_str(), kExperimentFiles);
        return kExitOk;
    }
    std::optional<lcs::CostMatrix> costs;
    std::string costsPath;
    ResultsOutputs outputs;
    for (const auto& [flag, value] : parsed.values) {
        if (flag == "--costs") {
            costs = lcs::loadCostMatrix(value);
            costsPath = value;
        } else {
            outputs.take(flag, value);
        }
    }
    const auto settings = lcs::checkedSettings(specs, parsed.settings, experiment.name());
    if (costs) {
        // The matrix must fit the experiment's classes and decisions: said here, naming
        // the file, before any work.
        const auto expected = experiment.defaultCosts(settings);
        if (costs->numClasses() != expected.numClasses() || costs->hasReferral() != expected.hasReferral())
            throw UsageError("--costs: " + costsPath + " has " + std::to_string(costs->numClasses()) + " classes" +
                             (costs->hasReferral() ? " and a referral column" : "") + "; " + experiment.name() +
                             " decides among " + std::to_string(expected.numClasses()) + " classes" +
                             (expected.hasReferral() ? " and referral" : " without referral"));
    }
    // As every command: one intra-op thread and a single-threaded BLAS; an experiment
    // that wants more runs its tasks in parallel (the synthetic one does).
    lcs::configureThreads(1);
    ProgressLines lines(parsed.switches.count("--quiet") > 0);
    std::mutex linesMutex;  // an experiment may report from several threads
    lcs::JobContext ctx{[&](const lcs::Progress& p) {
                            std::lock_guard<std::mutex> lock(linesMutex);
                            lines(p);
                        },
                        &g_cancel};
    const auto run = experiment.run(settings, costs, ctx);
    lines.finish();
    std::fputs(run.output.table.c_str(), stdout);
    outputs.write(run.output.json, run.output.csv);
    return kExitOk;
}

} // namespace cli
