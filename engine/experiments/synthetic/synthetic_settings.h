#pragma once

#include <vector>

#include "base/core/outputs.h"
#include "base/core/settings.h"
#include "engine/experiments/synthetic/synthetic_experiment.h"

/// The synthetic experiment's settings, declared once: `lcstudio-cli synthetic` derives its
/// flags, their parsing and its help from this list, and the results file records the
/// values of the same list.
namespace lcs {

const std::vector<BoundSetting<SyntheticConfig>>& syntheticSettings();

/// The synthetic and tabular experiments' outputs: the results files (a CSV row per
/// replicate and method) and the folder of the trained networks (each q, and the MAP /
/// last-sample networks).
std::vector<OutputSpec> syntheticOutputs();

/// The config a run of `settings` (name -> value, checked) under `costs` uses, the
/// window's and the command line's alike: tasks in parallel on every core unless the
/// settings say otherwise. Throws CostMatrixError for a matrix that is not 2 x 2.
SyntheticConfig syntheticConfigFrom(const nlohmann::json& settings, const CostMatrix& costs);

/// The tabular experiment's settings: the table, its label column, the test share and
/// the MLP's width and depth, then the synthetic experiment's (the same methods and
/// correction, run on the table).
const std::vector<BoundSetting<SyntheticConfig>>& tabularSettings();

/// The config of a tabular run: the table read (InputError naming the file, line and
/// column), its features and classes, the region box over its range when it has 2
/// features, and `costs` (none: 0/1 costs over the table's classes) checked against it.
SyntheticConfig tabularConfigFrom(const nlohmann::json& settings, const std::optional<CostMatrix>& costs);

/// Sets `box` to the square plane over values from `lo` to `hi`, padded by a tenth of
/// the range on each side: where a table's (or a user's X's) decision regions are drawn.
void setPlaneAround(SyntheticDataConfig& box, double lo, double hi);

/// The region grid a window draws with: `requested`, or the setting's window value (80)
/// where a session asks for none (the command line's 0).
int windowRegionGrid(int requested);

} // namespace lcs
