#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "app/cli_support.h"
#include "base/core/atomic_file.h"
#include "base/core/settings.h"
#include "base/decision/cost_matrix.h"

namespace lcs {
struct ModelSpec;
struct SessionData;
class Experiment;
struct ExperimentAction;
}

/// The lcstudio-cli commands that live outside cli_main.cpp, and the option sets that
/// both their flags and `lcstudio-cli run SESSION` fill in.
namespace cli {

/// `lcstudio-cli bench distill|tabular`: figures against the machine's own peak.
int runBenchCommand(int argc, char** argv);
/// `lcstudio-cli bench tabular` (app/cli_bench_tabular.cpp).
int benchTabular(int argc, char** argv);
int benchCamvid(int argc, char** argv);
/// lcstudio-cli decide (cli_decide.cpp).
int runDecideCommand(int argc, char** argv);
/// `lcstudio-cli sweep plan|run|collect` (app/cli_sweep.cpp).
int runSweepCommand(int argc, char** argv);

/// A session checked as `run` takes it (`check SESSION`, and `sweep plan` for every
/// cell before anything is written): one line on what it reads, or InputError naming
/// `path` and what its run would refuse.
std::string checkedSession(const lcs::SessionData& s, const std::string& path);

/// "lcstudio-cli NAME - title" and the experiment's description, for --help.
std::string experimentIntro(const lcs::Experiment& experiment);
/// A registered experiment's command line, parsed: its declared settings (checked),
/// --costs (read), --quiet and its outputs' flags (checked against its inputs).
struct ExperimentCommandLine {
    nlohmann::json settings;
    std::optional<lcs::CostMatrix> costs;   ///< accepted by the experiment (acceptedCosts)
    std::string costsPath;
    std::string costsSource;                ///< "--costs: FILE" or "--preset NAME", for messages
    CommandOutputs outputs;
    bool quiet = false;
};
/// What a command line of an experiment takes: its run's declaration, or an action's.
struct CommandDeclaration {
    std::string command;                     ///< "synthetic", "camvid eval": for messages
    std::string action;                      ///< empty: the run (which may be written as a session)
    std::vector<lcs::SettingSpec> settings;
    std::vector<lcs::OutputSpec> outputs;
    bool takesCosts = true;                  ///< --costs (and --preset / --referral where no setting is "preset")
};
CommandDeclaration runDeclaration(const lcs::Experiment& experiment);
/// Parses it as `declared` says; prints `help` and gives nothing for --help (or after
/// --write-session).
std::optional<ExperimentCommandLine> parseExperimentCommandLine(const lcs::Experiment& experiment, int argc,
                                                                char** argv, int first,
                                                                const CommandDeclaration& declared,
                                                                const std::string& help);
/// Runs a registered experiment from its declared settings plus --costs (or --preset),
/// its declared outputs, --write-session and --quiet.
int runExperimentCommand(const lcs::Experiment& experiment, int argc, char** argv, int first = 2);
/// `lcstudio-cli NAME run|ACTION ...` for an experiment with actions (camvid): the run, or
/// one action from its declaration (ExperimentAction), through lcs::runExperimentAction.
int runExperimentGroupCommand(const lcs::Experiment& experiment, int argc, char** argv);
/// Runs `experiment` with checked `settings` (checkedSettings) through lcs::runExperiment
/// (which configures the threads), its notes and progress on stderr, prints its table
/// and writes its results: what every command that runs an experiment ends in.
int executeExperiment(const lcs::Experiment& experiment, const nlohmann::json& settings,
                      const std::optional<lcs::CostMatrix>& costs, const CommandOutputs& outputs, bool quiet,
                      const lcs::ExperimentAction* action = nullptr);
/// The whole command line (argv[1] is the command); returns the exit status. Every
/// error is caught and reported on stderr.
int runCli(int argc, char** argv);

/// The flag every experiment command takes to write its settings as a session instead of
/// running, and its help entry.
inline const FlagSpec kWriteSessionFlag{"--write-session", true};
std::string writeSessionHelp();
/// --write-session FILE, when `given` has it: `settings` (as parsed: checked here with
/// checkedSettings) and `costs` (none: the experiment's default for these settings)
/// written as a session file, checked by the output policy against `inputs`. Returns
/// whether it wrote one (the command then exits without running).
bool writeSessionInstead(const lcs::Experiment& experiment, const std::map<std::string, std::string>& given,
                         const nlohmann::json& settings, const std::optional<lcs::CostMatrix>& costs,
                         const std::vector<lcs::CommandPath>& inputs);

/// Refuses a --device value this build cannot use (UsageError naming the value).
void checkDeviceFlag(const std::string& value);

} // namespace cli
