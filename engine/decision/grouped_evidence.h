#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/decision/cost_matrix.h"
#include "engine/decision/confusion.h"
#include "engine/decision/evidence.h"

/// Held-out evidence where the points come in groups that are not independent: the
/// pixels of one frame share its lighting, its scene and its mistakes, so a bootstrap
/// over pixels would give intervals far too narrow. Each group's confusion counts are
/// kept under both rules, and the bootstrap draws whole groups (a cluster bootstrap), so
/// an interval says how much the figure moves from one set of frames to another.
/// Plain C++; checked against hand counts in tst_evidence.
namespace lcs {

/// One figure of the comparison: both rules' values on all groups, the candidate's
/// change with a 95% percentile interval over resampled groups, and the verdict read in
/// the figure's own direction (cost: lower is better; IoU: higher is better).
struct GroupedFigure {
    std::string name;                 ///< "cost", "IoU Car", "mIoU"
    bool higherIsBetter = false;
    double reference = 0, candidate = 0;
    PairedDifference difference;      ///< candidate - reference; rows = groups
    Verdict verdict = Verdict::NoClearDifference;
};

struct GroupedComparison {
    std::string reference, candidate;  ///< the rules' names, e.g. "S", "q"
    std::string unit = "frames";
    int64_t groups = 0;
    std::vector<GroupedFigure> figures;
    /// True when some figure's verdict is Worse.
    bool anyWorse() const;
};

class GroupedComparisonAccumulator {
public:
    explicit GroupedComparisonAccumulator(CostMatrix costs);
    /// One group's [C x D] confusion counts under each rule (the same points, the same labels).
    void add(std::vector<int64_t> referenceConfusion, std::vector<int64_t> candidateConfusion);
    int64_t groups() const { return static_cast<int64_t>(m_reference.size()); }
    /// Figures, in order: "cost", "IoU NAME" for each class index in `iouClasses` (named
    /// by the matrix's class names), "mIoU". A resample on which a figure is undefined
    /// for either rule (a class absent from every drawn frame) is left out of that
    /// figure's interval. Throws std::logic_error without groups.
    GroupedComparison compare(const std::string& reference, const std::string& candidate,
                              const std::vector<int>& iouClasses, uint64_t seed, int resamples = 2000) const;

private:
    CostMatrix m_costs;
    std::vector<std::vector<int64_t>> m_reference, m_candidate;
};

/// "q against S over 233 frames (95% intervals from resampled frames):" then one line per
/// figure: both values, the change with its interval, the verdict.
std::string groupedComparisonText(const GroupedComparison& c);

/// One sentence: which figures the candidate raised or lowered beyond the interval, or
/// that none moved clearly; ends by saying which rule to keep when any figure is worse.
std::string groupedVerdictSentence(const GroupedComparison& c);

} // namespace lcs
