#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <ATen/core/Tensor.h>

#include "base/decision/cost_matrix.h"
#include "engine/decision/calibrations.h"
#include "engine/decision/decisions.h"
#include "engine/decision/grouped_evidence.h"
#include "engine/decision/metrics_accumulator.h"
#include "engine/decision/rule_choice.h"

/// The decisions a CamVid evaluation keeps, chosen as every experiment chooses them: among
/// S's Bayes decisions, q's and the calibrations of S a practitioner would try first
/// (temperature, class offsets, vector scaling, the cheapest constant decision), by
/// guarded cross-validation on labelled frames the rule is then not scored on. The split's
/// first half of frames (in the split's order, so whole stretches of video) lends a sample
/// of its labelled pixels to the choice, the folds keep each frame whole, and the second
/// half scores every rule and the kept one against S with intervals over its frames.
namespace lcs {

/// Labelled pixels each choice frame lends the choice, drawn without replacement: tens
/// of frames then give the 22 parameters of vector scaling over 11 classes ten thousand
/// rows and more, while the fits and folds stay a fraction of a second.
inline constexpr int64_t kCamvidChoicePixelsPerFrame = 500;

/// Fewest frames for a choice: two to choose on (the folds need two groups), the rest to
/// score.
inline constexpr int64_t kCamvidChoiceFewestFrames = 4;

/// One rule's figures on the scored frames.
struct CamvidScoredRule {
    std::string rule;  ///< "S", "q", "temperature", ...
    DecisionMetrics metrics;
};

struct CamvidKeptRule {
    int64_t choiceFrames = 0, scoredFrames = 0;
    int64_t choicePixels = 0;                   ///< labelled pixels the choice saw
    RuleChoice choice;                          ///< among S, q and the calibrations, kept = choice.kept
    std::vector<FittedCalibration> calibrations;  ///< each fitted on every choice pixel
    std::vector<CamvidScoredRule> scored;       ///< S, q, each calibration, on the scored frames
    GroupedComparison evidence;                 ///< the kept rule against S over the scored frames

    const CamvidScoredRule* rule(const std::string& name) const;
    const std::string& kept() const { return choice.kept; }
};

/// Frames are handed over in the split's order; the first `frames` / 2 are the choice
/// frames, the rest are scored once the choice is made (at the first scored frame).
class CamvidRuleChooser {
public:
    /// `seed` fixes the pixel sample, the folds and the evidence's resamples; the evidence
    /// compares the IoU of `iouClasses` one by one (CamVid: camvidFavouredClasses()).
    CamvidRuleChooser(const CostMatrix& costs, int64_t frames, int64_t ignoreLabel, uint64_t seed,
                      std::vector<int> iouClasses);

    /// Whether a split of `frames` frames is long enough to choose on and score.
    static bool applies(int64_t frames) { return frames >= kCamvidChoiceFewestFrames; }

    /// The next frame: S's and q's probabilities [1, C, H, W] or [N, C] (CPU float), their
    /// Bayes decisions and the labels ([1, H, W] or [N]).
    void add(const at::Tensor& pS, const at::Tensor& dS, const at::Tensor& pQ, const at::Tensor& dQ,
             const at::Tensor& labels);

    /// After the last frame: the choice and every rule's figures on the scored frames,
    /// or nullopt where the choice frames held no labelled pixel (nothing to choose on).
    /// Throws std::logic_error before the split's frames were all handed over.
    std::optional<CamvidKeptRule> result() const;

private:
    void choose();
    at::Tensor ruleProbabilities(size_t calibration, const ClassProbabilities& s, const at::Tensor& pS) const;

    CostMatrix m_costs;
    int64_t m_frames, m_choiceFrames, m_ignore;
    uint64_t m_seed;
    std::vector<int> m_iouClasses;
    int64_t m_seen = 0;
    bool m_chosen = false;
    bool m_nothingToChooseOn = false;  ///< the choice frames held no labelled pixel
    // The choice frames' sampled pixels.
    std::vector<double> m_probabilities;
    std::vector<int64_t> m_labels, m_group, m_decisionsS, m_decisionsQ;
    CamvidKeptRule m_result;
    std::vector<MetricsAccumulator> m_scored;  ///< S, q, each calibration
    std::optional<GroupedComparisonAccumulator> m_evidence;
};

/// Everything an evaluation gathers frame by frame where it has both S and q, in one
/// place for `camvid eval` and the window's evaluation: where q's decisions depart from
/// S's, q against S with whole frames resampled, and the kept rule (4 frames or more).
class CamvidStudentAgainstQ {
public:
    /// `frames` in the split, `seed` the networks' (the intervals and the choice are the
    /// same on every rerun), `iouClasses` the classes the evidence compares one by one.
    CamvidStudentAgainstQ(const CostMatrix& costs, int64_t frames, int64_t ignoreLabel, uint64_t seed,
                          std::vector<int> iouClasses);

    /// One frame: S's and q's probabilities [1, C, H, W] (CPU float), their Bayes
    /// decisions [1, H, W], their confusion counts on the frame (MetricsAccumulator::add's)
    /// and the labels [1, H, W].
    void add(const at::Tensor& pS, const at::Tensor& dS, std::vector<int64_t> confusionS, const at::Tensor& pQ,
             const at::Tensor& dQ, std::vector<int64_t> confusionQ, const at::Tensor& labels);

    DecisionChanges changes() const { return m_changes.result(); }
    /// q against S over the frames added (none: nullopt).
    std::optional<GroupedComparison> evidence() const;
    /// After the split's last frame: the kept rule, or nullopt under 4 frames.
    std::optional<CamvidKeptRule> keptRule() const;

private:
    uint64_t m_seed;
    std::vector<int> m_iouClasses;
    DecisionChangeAccumulator m_changes;
    GroupedComparisonAccumulator m_frames;
    std::optional<CamvidRuleChooser> m_chooser;
};

/// Two lines: "decisions kept: temperature, chosen among S, q, ... on the split's first 50
/// frames (...): <how>" and "on the other 51 frames (not used to choose), decision cost:
/// S ...; q ...; temperature ... (kept); ...".
std::string camvidKeptRuleSummary(const CamvidKeptRule& k);

} // namespace lcs
