#pragma once

#include <string>

#include "base/io/observations.h"
#include "engine/experiments/synthetic/synthetic_experiment.h"

namespace lcs {

/// The paper's Table 2 as text: mean ± std without and with correction, average paired
/// difference and its std, one row per method.
std::string syntheticTable(const SyntheticResult& result);

/// {"experiment": "synthetic", "replicates": N, "seconds": s, "seed": S, "bbvi_prior": "fan_in"|"isotropic",
///  "methods": {name: {"uncorrected": {"mean","std"}, "corrected": {...},
///                     "paired_diff": {...}, "replicates": [...]}}}
std::string syntheticJson(const SyntheticResult& result);

/// The results' long table: per replicate, both decision rules' figures, the paired
/// difference, the baselines (rules "temperature", "offsets"), seconds and collapse.
std::vector<Observation> syntheticObservations(const SyntheticResult& result);

/// One row per (method, replicate) with both decision rules' metrics: a view of the long table.
std::string syntheticCsv(const SyntheticResult& result);
/// Each replicate's reliability diagrams, uncorrected and corrected (reliabilityCsv).
std::string syntheticReliabilityCsv(const SyntheticResult& r);

} // namespace lcs
