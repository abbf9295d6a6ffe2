#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cli_support.h"
#include "experiments/image_run_choices.h"
#include "core/settings.h"
#include "decision/cost_matrix.h"
#include "image_data.h"

namespace lcs {
struct ModelSpec;
}

/// The lcstudio-cli commands that live outside cli_main.cpp, and the option sets that
/// both their flags and `lcstudio-cli run SESSION` fill in.
namespace cli {

struct ImageRunOptions {
    std::string data;
    lcs::ImageRunChoices choices;            ///< the experiment's declared settings
    std::optional<lcs::CostMatrix> costs;    ///< none = the preset's
    std::string costsSource;                 ///< where `costs` came from, for messages
    lcs::ImageDataLimits limits;
    int threads = 0;                         ///< 0 = 1 intra-op thread
    ResultsOutputs outputs;
    bool quiet = false;
};

/// Parses `corruption` / `selective` command lines: the experiment's declared settings
/// and the flags both commands share (data, subsets, threads, costs, outputs); prints the
/// derived help and returns false for --help.
bool parseImageRun(int argc, char** argv, const std::string& command,
                   const std::vector<lcs::BoundSetting<lcs::ImageRunChoices>>& settings, const char* intro,
                   ImageRunOptions& o);

int runCorruptionCommand(int argc, char** argv);
int runSelectiveCommand(int argc, char** argv);
int runCamvidCommand(int argc, char** argv);
int executeCorruption(const ImageRunOptions& options);
int executeSelective(const ImageRunOptions& options);

/// Refuses a --device value this build cannot use (UsageError naming the value).
void checkDeviceFlag(const std::string& value);

} // namespace cli
