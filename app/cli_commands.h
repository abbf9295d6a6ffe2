#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cli_support.h"
#include "experiments/image_run_choices.h"
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
    std::vector<double> sweep;               ///< corruption rates or referral costs; empty = preset's
    std::vector<std::string> methods;        ///< empty = the experiment's defaults
    int trials = 1;
    std::string preset = "cpu";
    std::optional<lcs::CostMatrix> costs;    ///< none = the preset's
    std::string costsSource;                 ///< where `costs` came from, for messages
    lcs::ImageDataLimits limits;
    int epochs = 0;                          ///< 0 = the preset's
    int mapEpochs = 0;                       ///< epochs of the MAP start; 0 = the preset's
    int width = 0;                           ///< ResNet-18 width multiplier; 0 = the preset's
    int copies = 0;                          ///< selective: rotated copies in D'; 0 = preset's
    uint64_t seed = 0;
    int threads = 0;                         ///< 0 = 1 for the MLP, all cores for ResNet-18
    std::string device = "cpu";
    ResultsOutputs outputs;
    bool quiet = false;
};

/// The flags corruption and selective share, for their Args specs.
std::vector<FlagSpec> imageRunFlags();
/// Applies one of the shared flags to `o`; false when `flag` is not one of them.
bool applyImageRunFlag(const std::string& flag, const std::string& value, ImageRunOptions& o);
/// The options the experiment itself takes, for corruptionConfigFor / selectiveConfigFor;
/// `experiment` names the catalogue's method list that --methods is checked against.
lcs::ImageRunChoices imageRunChoices(const ImageRunOptions& o, const std::string& experiment);

int runCorruptionCommand(int argc, char** argv);
int runSelectiveCommand(int argc, char** argv);
int runCamvidCommand(int argc, char** argv);
int executeCorruption(const ImageRunOptions& options);
int executeSelective(const ImageRunOptions& options);

/// Refuses a --device value this build cannot use (UsageError naming the value).
void checkDeviceFlag(const std::string& value);

} // namespace cli
