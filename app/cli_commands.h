#pragma once

#include <string>

/// The lcstudio-cli commands that live outside cli_main.cpp.
namespace cli {

int runCorruptionCommand(int argc, char** argv);
int runSelectiveCommand(int argc, char** argv);

/// Refuses a --device value this build cannot use (UsageError naming the value).
void checkDeviceFlag(const std::string& value);

} // namespace cli
