#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "calibration/own_predictive.h"
#include "core/settings.h"
#include "decision/cost_matrix.h"
#include "experiments/synthetic_experiment.h"

/// The correction on a predictive made anywhere, as a registered experiment ("correct"):
/// its settings (the two files and the correction's settings, shared with the synthetic
/// experiment), the files read with their caps, and the one results format that
/// `lcstudio-cli correct`, `lcstudio-cli run SESSION` and the window write.
namespace lcs {

inline constexpr const char* kOwnPredictiveExperiment = "correct";
inline constexpr const char* kFeaturesSetting = "features";
inline constexpr const char* kPredictiveSetting = "predictive";

struct OwnPredictiveChoices {
    std::string featuresPath;   ///< X: N x D (.npy or .csv)
    std::string predictivePath; ///< P: N x K, or T x N x K (.npy or .csv)
    /// The correction's settings (seed, iterations, learning rate, warm start) as the
    /// synthetic experiment declares and applies them: q trains here exactly as there.
    SyntheticConfig correction;
    /// Evidence (all optional): labels of X's rows, a separate labelled test set, the
    /// shares of X's rows held out when labelled, and whether the run chooses between q
    /// and P on the validation rows ("validation") or keeps q ("none").
    std::string labelsPath, testFeaturesPath, testPredictivePath, testLabelsPath;
    double validationShare = 0.25;
    double testShare = 0.25;
    std::string select = "validation";
    bool noStandardise = false;
};

/// The labels and test set the choices name, read and checked against X, P and `costs`
/// (their classes and names); empty without labels. Throws InputError naming the flag,
/// the file, the row and the value.
OwnEvidenceInputs loadEvidenceInputs(const OwnPredictiveChoices& choices, const OwnPredictive& own,
                                     const CostMatrix& costs);

/// The experiment's settings, declared once: the command's flags, sessions and the
/// window's form derive from them.
const std::vector<BoundSetting<OwnPredictiveChoices>>& ownPredictiveSettings();

/// Reads and checks X and P (readNumericArray's caps, ownPredictive's checks); messages
/// name the files as the settings do ("--features X.npy").
OwnPredictive loadOwnPredictive(const OwnPredictiveChoices& choices);

/// The results: the "run" record (experiment, costs, settings, seed) followed by
/// ownCorrectionJson's summary, per-row decisions and curve.
std::string ownPredictiveResultsJson(const OwnCorrectionResult& result, const CostMatrix& costs,
                                     const OwnPredictiveChoices& choices);
/// The text table a run prints: changed decisions and the mean expected cost under P.
/// With labels, the held-out evidence follows (correctionEvidenceText).
std::string ownPredictiveTable(const OwnCorrectionResult& result, const CostMatrix& costs, int64_t samples);

} // namespace lcs
