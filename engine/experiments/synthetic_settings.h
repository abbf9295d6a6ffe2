#pragma once

#include <vector>

#include "core/outputs.h"
#include "core/settings.h"
#include "experiments/synthetic_experiment.h"

/// The synthetic experiment's settings, declared once: `lcstudio-cli synthetic` derives its
/// flags, their parsing and its help from this list, and the results file records the
/// values of the same list.
namespace lcs {

const std::vector<BoundSetting<SyntheticConfig>>& syntheticSettings();

/// The synthetic experiment's results files (a CSV row per replicate and method).
std::vector<OutputSpec> syntheticResultsOutputs();
/// The synthetic command's outputs: those, and its own folder of the trained networks
/// (each q, and the MAP / last-sample networks).
std::vector<OutputSpec> syntheticCommandOutputs();

/// The config a run of `settings` (name -> value, checked) under `costs` uses, the
/// window's and the command line's alike: tasks in parallel on every core unless the
/// settings say otherwise. Throws CostMatrixError for a matrix that is not 2 x 2.
SyntheticConfig syntheticConfigFrom(const nlohmann::json& settings, const CostMatrix& costs);

/// The region grid a window draws with: `requested`, or the setting's window value (80)
/// where a session asks for none (the command line's 0).
int windowRegionGrid(int requested);

} // namespace lcs
