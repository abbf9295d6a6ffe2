#pragma once

#include <limits>
#include <string>
#include <vector>

#include "base/decision/cost_matrix.h"
#include "engine/decision/correction_evidence.h"
#include "engine/decision/evidence.h"

/// What a front end draws of a synthetic, tabular or own-predictive run, as plain values:
/// the engine computes every decision, region and projection (PlaneViewBuilder) and a
/// window only draws them. Copied by value across threads; no tensor, no network.
namespace lcs {

/// The series name of a user's own predictive (the "correct" experiment's one task).
inline constexpr const char* kOwnPredictiveSeries = "own";

struct PlanePoint {
    double x = 0, y = 0;
    bool operator==(const PlanePoint& o) const { return x == o.x && y == o.y; }
};

/// Decisions over a regular grid, row-major, y outer.
struct RegionGrid {
    int resolution = 0;
    double xMin = 0, xMax = 0, yMin = 0, yMax = 0;
    int numDecisions = 0;  ///< the classes, plus 1 where the last decision is "refer"
    std::vector<int> decisions;
    bool isValid() const
    {
        return resolution > 0 && decisions.size() == static_cast<size_t>(resolution) * static_cast<size_t>(resolution);
    }
};

struct CurvePoint {
    int step = 0;
    double loss = 0, kl = 0, expectedCost = 0;
};

/// Everything needed to draw one (replicate, method): data, both decision rules on the
/// grid and on the test points, and the correction's curve so far.
struct TaskView {
    int replicate = 0;
    std::string method;
    int numClasses = 2;  ///< decisions beyond the classes are "refer"
    std::string xName = "x1", yName = "x2";  ///< the plane's axes (a table's columns, or principal components)
    std::vector<PlanePoint> train, calibration, test;
    std::vector<int> trainLabels, testLabels;
    std::vector<int> testDecisionsUncorrected, testDecisionsCorrected;
    RegionGrid uncorrected, corrected;
    std::vector<CurvePoint> curve;
    bool correctionDone = false;
    /// The test rows whose decision q changed (the first kShownChangedRows): the row of
    /// the test split, its features as the data gives them, P's and q's probabilities.
    struct ChangedRow {
        int row = 0;
        std::vector<double> features, before, after;
    };
    static constexpr int kShownChangedRows = 500;
    std::vector<std::string> featureNames;
    std::vector<ChangedRow> changedRows;
    int changedCount = 0;  ///< all changed rows, shown or not
    /// On the test rows, where they have labels: P's and q's reliability diagrams and ECE.
    std::vector<ReliabilityBin> reliabilityUncorrected, reliabilityCorrected;
    double eceUncorrected = std::numeric_limits<double>::quiet_NaN();
    double eceCorrected = std::numeric_limits<double>::quiet_NaN();
};

/// One finished (replicate, method): the numbers of the paper's Table 2.
struct ResultRow {
    int replicate = 0;
    std::string method;
    double uncorrectedCost = 0, correctedCost = 0;
    bool collapsed = false;  ///< q collapsed to one class: shown, but marked
    /// Held-out evidence, where the run had labels: the verdict sentence, and whether the
    /// interval says q is worse (shown in red, never hidden).
    std::string verdict;
    bool worse = false;
};

/// The held-out evidence of a user's own predictive, with the matrix it was scored under.
struct EvidenceShown {
    CorrectionEvidence evidence;
    CostMatrix costs;
};

} // namespace lcs
