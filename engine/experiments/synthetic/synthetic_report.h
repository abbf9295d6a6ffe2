#pragma once

#include <string>

#include "base/io/observations.h"
#include "engine/experiments/results_document.h"
#include "engine/experiments/synthetic/synthetic_experiment.h"

namespace lcs {

/// The paper's Table 2 as text: mean ± std without and with correction, average paired
/// difference and its std, one row per method.
std::string syntheticTable(const SyntheticResult& result);

/// The run's results: beside the run record and the long table, "replicates", "seconds",
/// "seed", "bbvi_prior" ("fan_in" | "isotropic") and "methods": {name: {"uncorrected":
/// {"mean","std"}, "corrected", "paired_diff", "replicates": [...], ...}}; the CSV one row
/// per (method, replicate) with both rules' figures; Table 2 as text; the reliability diagrams.
ExperimentOutput syntheticOutput(const SyntheticResult& result);

/// The results' long table: per replicate, both decision rules' figures, the paired
/// difference, the baselines (rules "temperature", "offsets"), seconds and collapse.
std::vector<Observation> syntheticObservations(const SyntheticResult& result);

/// Each replicate's reliability diagrams, uncorrected and corrected (reliabilityCsv).
std::string syntheticReliabilityCsv(const SyntheticResult& r);

} // namespace lcs
