// The experiments LC Studio ships, one line each: each folder of engine/experiments/
// holds its experiments' entries and the factory named here.
#include "engine/experiments/camvid/camvid_entry.h"
#include "engine/experiments/experiment.h"
#include "engine/experiments/image/image_experiments.h"
#include "engine/experiments/own_predictive/own_predictive_experiment.h"
#include "engine/experiments/synthetic/synthetic_entries.h"

namespace lcs {

void addBuiltinExperiments(ExperimentRegistry& registry)
{
    registry.add(makeSyntheticExperiment());     // synthetic/
    registry.add(makeCorruptionExperiment());    // image/
    registry.add(makeSelectiveExperiment());     // image/
    registry.add(makeCamvidExperiment());        // camvid/
    registry.add(makeTabularExperiment());       // synthetic/
    registry.add(makeOwnPredictiveExperiment()); // own_predictive/
}

} // namespace lcs
