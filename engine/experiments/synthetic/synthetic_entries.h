#pragma once

#include <memory>

namespace lcs {

class Experiment;

/// The synthetic 2-D experiment (the paper's Table 2) as a registry entry.
std::shared_ptr<const Experiment> makeSyntheticExperiment();
/// The synthetic experiment's methods on a user's table (CSV or ARFF) as a registry entry.
std::shared_ptr<const Experiment> makeTabularExperiment();

} // namespace lcs
