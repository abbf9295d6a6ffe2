#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cli_support.h"
#include "core/atomic_file.h"
#include "experiments/corruption_experiment.h"
#include "experiments/image_experiment_support.h"
#include "experiments/image_run_choices.h"
#include "core/settings.h"
#include "decision/cost_matrix.h"
#include "image_data.h"

namespace lcs {
struct ModelSpec;
class Experiment;
}

/// The lcstudio-cli commands that live outside cli_main.cpp, and the option sets that
/// both their flags and `lcstudio-cli run SESSION` fill in.
namespace cli {

struct ImageRunOptions {
    lcs::ImageRunChoices choices;            ///< the experiment's declared settings (data included)
    std::optional<lcs::CostMatrix> costs;    ///< none = the preset's
    std::string costsSource;                 ///< where `costs` came from, for messages
    int threads = 0;                         ///< 0 = 1 intra-op thread
    CommandOutputs outputs;
    bool quiet = false;
};

/// Parses `corruption` / `selective` command lines: the experiment's declared settings
/// and the flags both commands share (data, subsets, threads, costs, outputs); prints the
/// derived help and returns false for --help.
bool parseImageRun(int argc, char** argv, const std::string& command,
                   const std::vector<lcs::BoundSetting<lcs::ImageRunChoices>>& settings, ImageRunOptions& o);

/// The image commands' outputs: the experiment's results files and --save-models.
std::vector<lcs::OutputSpec> imageCommandOutputs(const lcs::Experiment& experiment);

/// --save-models of the image commands: every trained network, as the run reports it,
/// written (lcs::ImageNetworkWriter) into a staging folder that commit() moves into place
/// (all of them or none).
class ImageNetworkSaver {
public:
    /// Nothing is saved when `dir` is "".
    ImageNetworkSaver(const std::string& dir, const std::string& experiment, const lcs::ImageDataset& data,
                      uint64_t seed);
    lcs::NetworkSink sink();
    void commit();

private:
    std::optional<lcs::StagedFolder> m_staged;
    lcs::ImageNetworkWriter m_writer;
};

int runSyntheticCommand(int argc, char** argv);
/// The tabular experiment's command: the registry's settings plus --save-models.
int runTabularCommand(int argc, char** argv);
int runCorruptionCommand(int argc, char** argv);
/// `lcstudio-cli bench distill`: figures against the machine's own peak.
int runBenchCommand(int argc, char** argv);
int runCorrectCommand(int argc, char** argv);
int runSelectiveCommand(int argc, char** argv);
int runCamvidCommand(int argc, char** argv);
/// `lcstudio-cli sweep plan|run|collect` (app/cli_sweep.cpp).
int runSweepCommand(int argc, char** argv);
int executeCorruption(const ImageRunOptions& options);
int executeSelective(const ImageRunOptions& options);

/// "lcstudio-cli NAME - title" and the experiment's description, for --help.
std::string experimentIntro(const lcs::Experiment& experiment);
/// A registered experiment's command line, parsed: its declared settings (checked),
/// --costs (read), --quiet and its outputs' flags (checked against its inputs).
struct ExperimentCommandLine {
    nlohmann::json settings;
    std::optional<lcs::CostMatrix> costs;
    std::string costsPath;
    CommandOutputs outputs;
    bool quiet = false;
};
/// Parses it with `outputs`' flags; prints `help` and gives nothing for --help.
std::optional<ExperimentCommandLine> parseExperimentCommandLine(const lcs::Experiment& experiment, int argc,
                                                                char** argv, int first,
                                                                const std::vector<lcs::OutputSpec>& outputs,
                                                                const std::string& help);
/// Runs a registered experiment from its declared settings plus --costs, --json, --csv
/// and --quiet.
int runExperimentCommand(const lcs::Experiment& experiment, int argc, char** argv, int first = 2);
/// Runs `experiment` with checked `settings` (checkedSettings), prints its table and
/// writes its results: what every way of running a declared experiment ends in.
int executeExperiment(const lcs::Experiment& experiment, const nlohmann::json& settings,
                      const std::optional<lcs::CostMatrix>& costs, const CommandOutputs& outputs, bool quiet);
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
