// lcstudio-cli NAME: every experiment in the registry, the paper's included, its flags and
// --help derived from its declaration (settings, outputs, the help of --costs), run
// through lcs::runExperiment like `run SESSION`, a sweep's cells and the window's jobs.
#include <filesystem>
#include <cstdio>
#include <mutex>

#include "app/cli_commands.h"
#include "app/cli_flags.h"
#include "app/cli_support.h"
#include "base/core/atomic_file.h"
#include "base/core/number_format.h"
#include "base/decision/cost_matrix.h"
#include "engine/core/threads.h"
#include "engine/experiments/experiment.h"

namespace cli {

namespace {

/// A folder where a flag takes a file is named with its flag, before any reading: the
/// reader would only say "not a regular file", which does not say which flag is wrong.
/// So is "-", which no reader takes for standard input.
void requireNotFolder(const std::string& flag, const std::string& path)
{
    if (path == "-")
        throw UsageError(flag + " -: standard input is not read; give a file name");
    std::error_code error;
    if (std::filesystem::is_directory(path, error))
        throw UsageError(flag + " " + path + ": a folder; " + flag + " takes a file");
}

/// Whether the command takes --preset NAME for a named cost matrix: where no setting of
/// the experiment is called "preset" (the image and CamVid experiments' choose network
/// sizes; their matrices come by --costs).
bool takesCostPreset(const lcs::Experiment& experiment)
{
    return lcs::findSetting(experiment.settings(), "preset") == nullptr;
}

/// The files-and-output help: --costs (and --preset), the experiment's declared outputs,
/// --write-session, --quiet.
std::string filesHelp(const lcs::Experiment& experiment)
{
    std::string costs = lcs::helpEntry("  --costs FILE", experiment.costsHelp());
    if (takesCostPreset(experiment)) {
        costs += lcs::helpEntry("  --preset NAME", "a named preset instead of --costs (see \"lcstudio-cli presets\")");
        costs += lcs::helpEntry("  --referral R", "add a referral decision of cost R >= 0 to the matrix (--costs, "
                                                 "--preset or the experiment's own)");
    }
    return filesAndOutputHelp(costs + writeSessionHelp(), experiment.outputs());
}

} // namespace

std::string writeSessionHelp()
{
    return lcs::helpEntry("  --write-session FILE", "write these settings (and costs) as a session file, for "
                                                    "lcstudio-cli run or sweep plan, and exit without running");
}

bool writeSessionInstead(const lcs::Experiment& experiment, const std::map<std::string, std::string>& given,
                         const nlohmann::json& settings, const std::optional<lcs::CostMatrix>& costs,
                         const std::vector<lcs::CommandPath>& inputs)
{
    const auto it = given.find(kWriteSessionFlag.name);
    if (it == given.end())
        return false;
    const std::string& path = it->second;
    lcs::checkOutputPolicy({{kWriteSessionFlag.name, path, lcs::PathKind::File}}, inputs);
    lcs::SessionData session;
    session.experiment = experiment.name();
    session.settings = lcs::checkedSettings(experiment.settings(), settings, experiment.command());
    try {
        session.costs = experiment.acceptedCosts(costs ? *costs : experiment.defaultCosts(session.settings));
    } catch (const lcs::CostMatrixError& e) {
        throw UsageError("--costs: " + std::string(e.what()));
    }
    lcs::saveSessionFile(session, path);
    std::printf("wrote %s (%s session); run it with lcstudio-cli run %s, or sweep it with lcstudio-cli sweep plan\n",
                path.c_str(), experiment.name().c_str(), path.c_str());
    return true;
}

std::string experimentIntro(const lcs::Experiment& experiment)
{
    return "lcstudio-cli " + experiment.command() + " - " + experiment.title() + "\n\n" + experiment.description();
}

CommandDeclaration runDeclaration(const lcs::Experiment& experiment)
{
    return {experiment.command(), "", experiment.settings(), experiment.outputs(), true};
}

CommandDeclaration actionDeclaration(const lcs::Experiment& experiment, const lcs::ExperimentAction& action)
{
    return {experiment.name() + " " + action.name, action.name, action.settings, action.outputs, action.takesCosts};
}

namespace {

/// --referral R on the matrix given (or the experiment's): its referral column set to R,
/// the matrix checked again before any work.
void applyReferralFlag(const lcs::Experiment& experiment, ExperimentCommandLine& out, double referral,
                       const std::string& text)
{
    if (!out.costs) {
        out.costs = experiment.defaultCosts(out.settings);
        out.costsSource = "the experiment's matrix";
    }
    if (out.costs->hasReferral())
        std::fprintf(stderr, "lcstudio-cli: warning: %s: its referral column (%s) is replaced by --referral %s\n",
                     out.costsSource.c_str(), lcs::formatNumber(*out.costs->referralCost()).c_str(), text.c_str());
    out.costs->setReferral(referral);
    out.costsSource += " with --referral " + text;
    try {
        out.costs->validate();  // M against the new column, before any work
    } catch (const std::exception& e) {
        throw UsageError(out.costsSource + ": " + e.what());
    }
}

} // namespace

std::optional<ExperimentCommandLine> parseExperimentCommandLine(const lcs::Experiment& experiment, int argc,
                                                                char** argv, int first,
                                                                const CommandDeclaration& declared,
                                                                const std::string& help)
{
    const auto& specs = declared.settings;
    const auto& outputs = declared.outputs;
    const bool isRun = declared.action.empty();  // a run's settings can be a session
    auto own = outputFlagSpecs(outputs);
    if (declared.takesCosts)
        own.push_back({"--costs", true});
    if (declared.takesCosts && takesCostPreset(experiment)) {
        own.push_back({"--preset", true});
        own.push_back({"--referral", true});
    }
    own.push_back({"--quiet", false});
    if (isRun)
        own.push_back(kWriteSessionFlag);
    const auto parsed = parseFlags(argc, argv, first, declared.command, specs, own);
    if (parsed.help) {
        std::fputs(help.c_str(), stdout);
        return std::nullopt;
    }
    ExperimentCommandLine out;
    if (parsed.values.count("--costs") && parsed.values.count("--preset"))
        throw UsageError("give --costs or --preset, not both");
    if (parsed.values.count("--costs")) {
        out.costsPath = parsed.values.at("--costs");
        requireNotFolder("--costs", out.costsPath);
        out.costs = lcs::loadCostMatrix(out.costsPath);  // before any data: a bad file fails fast
        out.costsSource = "--costs: " + out.costsPath;
    } else if (parsed.values.count("--preset")) {
        try {
            out.costs = lcs::costPreset(parsed.values.at("--preset"));
        } catch (const lcs::CostMatrixError& e) {
            throw UsageError("--preset: " + std::string(e.what()));
        }
        out.costsSource = "--preset " + parsed.values.at("--preset");
    }
    std::optional<double> referral;
    if (const auto it = parsed.values.find("--referral"); it != parsed.values.end()) {
        referral = lcs::parseFiniteNumber(it->second);
        if (!referral || *referral < 0)
            throw UsageError("--referral: \"" + it->second.substr(0, 40) + "\" is not a number >= 0");
    }
    out.settings = lcs::checkedSettings(specs, parsed.settings, declared.command);
    if (referral)
        applyReferralFlag(experiment, out, *referral, parsed.values.at("--referral"));
    if (out.costs) {
        // The matrix must fit the experiment: said here, naming the file, before any work
        // (a class count that depends on the data is checked once the data is read). The
        // session keeps the matrix as the run takes it (selective drops a referral column).
        const auto given = *out.costs;
        try {
            out.costs = experiment.acceptedCosts(given);
        } catch (const std::exception& e) {
            throw UsageError(out.costsSource + ": " + e.what());
        }
        if (given.hasReferral() && !out.costs->hasReferral())
            std::fprintf(stderr,
                         "lcstudio-cli: warning: %s: its referral column (%s) is not used: %s decides under each of "
                         "its referral costs in turn\n",
                         out.costsSource.c_str(), lcs::formatNumber(*given.referralCost()).c_str(),
                         experiment.name().c_str());
    }
    if (parsed.settings.contains("device"))
        checkDeviceFlag(out.settings.at("device").get<std::string>());
    auto inputs = experiment.inputPaths(out.settings, specs);
    for (const auto& input : inputs)
        if (input.kind == lcs::PathKind::File)
            requireNotFolder(input.flag, input.path);
    inputs.push_back({"--costs", out.costsPath, lcs::PathKind::File});
    if (isRun && writeSessionInstead(experiment, parsed.values, out.settings, out.costs, inputs))
        return std::nullopt;
    out.outputs = CommandOutputs(outputs, parsed.values, inputs);
    out.quiet = parsed.switches.count("--quiet") > 0;
    return out;
}

int runExperimentCommand(const lcs::Experiment& experiment, int argc, char** argv, int first)
{
    const std::string help = experimentIntro(experiment) + "\nOptions (the experiment's settings):\n" +
                             lcs::settingsHelp(experiment.settings()) + "\n" + filesHelp(experiment);
    const auto line = parseExperimentCommandLine(experiment, argc, argv, first, runDeclaration(experiment), help);
    if (!line)
        return kExitOk;
    return executeExperiment(experiment, line->settings, line->costs, line->outputs, line->quiet);
}

namespace {

/// "lcstudio-cli camvid - ..." with the run and every action, one line each.
std::string groupHelp(const lcs::Experiment& experiment)
{
    std::string out = "lcstudio-cli " + experiment.name() + " - " + experiment.title() + "\n\nUsage:\n";
    out += lcs::helpEntry("  lcstudio-cli " + experiment.command() + " [options]",
                          "train, decide and score in memory (what the window runs)");
    for (const auto& action : lcs::commandLineActions(experiment))
        out += lcs::helpEntry("  lcstudio-cli " + experiment.name() + " " + action.name + " [options]", action.summary);
    return out + "\nRun \"lcstudio-cli " + experiment.name() + " ACTION --help\" for an action's options.\n";
}

int runActionCommand(const lcs::Experiment& experiment, const lcs::ExperimentAction& action, int argc, char** argv,
                     int first)
{
    std::string files;
    if (action.takesCosts)
        files = lcs::helpEntry("  --costs FILE", action.costsHelp.empty() ? experiment.costsHelp() : action.costsHelp);
    const std::string help = "lcstudio-cli " + experiment.name() + " " + action.name + " - " + action.summary +
                             "\n\n" + action.description + "\nOptions:\n" + lcs::settingsHelp(action.settings) +
                             "\n" + filesAndOutputHelp(files, action.outputs);
    const auto line =
        parseExperimentCommandLine(experiment, argc, argv, first, actionDeclaration(experiment, action), help);
    if (!line)
        return kExitOk;
    return executeExperiment(experiment, line->settings, line->costs, line->outputs, line->quiet, &action);
}

} // namespace

int runExperimentGroupCommand(const lcs::Experiment& experiment, int argc, char** argv)
{
    const std::string sub = argc > 2 ? argv[2] : "";
    if (sub.empty() || sub == "--help" || sub == "-h") {
        std::fputs(groupHelp(experiment).c_str(), sub.empty() ? stderr : stdout);
        return sub.empty() ? kExitUsage : kExitOk;
    }
    if (sub == "run")
        return runExperimentCommand(experiment, argc, argv, 3);
    if (const auto action = lcs::findAction(experiment, sub); action && action->onCommandLine)
        return runActionCommand(experiment, *action, argc, argv, 3);
    std::string names = "run";
    for (const auto& action : lcs::commandLineActions(experiment))
        names += ", " + action.name;
    throw UsageError(experiment.name() + ": unknown action \"" + sub.substr(0, 40) + "\" (" + names + ")");
}

int executeExperiment(const lcs::Experiment& experiment, const nlohmann::json& settings,
                      const std::optional<lcs::CostMatrix>& costs, const CommandOutputs& outputs, bool quiet,
                      const lcs::ExperimentAction* action)
{
    ProgressLines lines(quiet);
    std::mutex linesMutex;  // an experiment may report from several threads
    lcs::JobContext ctx{[&](const lcs::Progress& p) {
                            std::lock_guard<std::mutex> lock(linesMutex);
                            lines(p);
                        },
                        &g_cancel};
    ctx.plan = lines.planSink();
    ctx.note = [&](lcs::NoteKind kind, const std::string& line) {
        std::lock_guard<std::mutex> lock(linesMutex);
        if (kind == lcs::NoteKind::Warning)
            std::fprintf(stderr, "lcstudio-cli: warning: %s\n", line.c_str());
        else if (!quiet)
            std::fprintf(stderr, "%s\n", line.c_str());
    };
    // Every output of the run (its folders, its curves, the results files) is staged and
    // committed together, last: all of them, or none (a failed write or move, a signal).
    lcs::OutputSet together;
    lcs::OutputPaths paths;
    paths.together = &together;
    for (const auto& spec : action ? action->outputs : experiment.outputs())
        paths[spec.name] = outputs.path(spec.name);
    const auto run = action ? lcs::runExperimentAction(experiment, action->name, settings, costs, ctx, paths)
                            : lcs::runExperiment(experiment, settings, costs, ctx, paths);
    lines.finish();
    std::fputs(run.output.table.c_str(), stdout);
    std::fflush(stdout);
    for (const auto& [name, contents] :
         {std::pair{"json", lcs::resultsJson(run.output)}, {"csv", lcs::resultsCsv(run.output)},
          {"reliability", run.output.reliability}, {"cost_benefit", lcs::costBenefitCsv(run.output)}})
        if (const std::string path = outputs.path(name); !path.empty())
            together.stageFile(path, contents);
    g_cancel.throwIfCancelled();  // a signal during the run's last moments: nothing is committed
    together.commit();
    return kExitOk;
}

} // namespace cli
