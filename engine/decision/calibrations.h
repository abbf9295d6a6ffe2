#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/decision/cost_matrix.h"
#include "engine/decision/evidence.h"

/// The recalibrations a practitioner reaches for before a learned correction, each fitted
/// on labelled rows and applied to the predictive P: temperature scaling and vector
/// scaling (Guo et al. 2017), cost-tuned class offsets, Platt scaling and isotonic
/// regression for two classes (scikit-learn's CalibratedClassifierCV "sigmoid" and
/// "isotonic"), and the cheapest constant decision. One type for all of them, so a run
/// fits, cross-validates, scores, saves and applies each by the same calls. Plain C++;
/// every fit is checked against hand-computed or closed-form values in tst_rule_choice.
namespace lcs {

enum class CalibrationKind { Temperature, Offsets, Vector, Platt, Isotonic, Constant };

/// "temperature", "offsets", "vector", "platt", "isotonic", "constant": the rule's name in
/// every table, file and setting.
const char* calibrationName(CalibrationKind kind);
/// The calibrations that apply to `classes` classes, simplest first: temperature, offsets,
/// then Platt and isotonic (two classes) or vector scaling (three or more), then constant.
std::vector<CalibrationKind> calibrationsFor(int classes);

/// Platt scaling: p(second class) = sigmoid(a s + b) with s = log p1 - log p0, (a, b)
/// maximising the likelihood of Platt's smoothed targets (N+ + 1) / (N+ + 2) and
/// 1 / (N- + 2) by Newton's method. On the log-odds, not on p1 as scikit-learn feeds a
/// probability: a = 1, b = 0 is then the identity, and a alone is temperature scaling.
struct PlattScaling {
    double a = 1, b = 0;
};

/// Isotonic regression of "the label is the second class" on p1 by pool-adjacent-
/// violators (equal p1 pooled first); between knots linear, outside them clipped.
struct IsotonicMap {
    std::vector<double> x, y;  ///< knots, x increasing
    double operator()(double p1) const;
};

/// Vector scaling: softmax(w * log p + b) per class, (w, b) minimising the mean NLL plus
/// 1e-4 / 2 (|w - 1|^2 + |b|^2) (convex; Newton's method with a backtracking line search).
struct VectorScaling {
    std::vector<double> scale, shift;
};

struct FittedCalibration {
    CalibrationKind kind = CalibrationKind::Temperature;
    double temperature = 1;
    std::vector<double> offsets;
    PlattScaling platt;
    IsotonicMap isotonic;
    VectorScaling vector;
    int64_t constantDecision = -1;
    /// The constant rule's labelled rows' class shares: their Bayes decision is the
    /// cheapest constant one, so a saved constant rule is these probabilities.
    std::vector<double> classShares;

    std::string name() const { return calibrationName(kind); }
    /// Whether the rule yields probabilities (all but the constant decision).
    bool hasProbabilities() const { return kind != CalibrationKind::Constant; }
    /// The recalibrated probabilities of P's rows (throws for the constant decision).
    ClassProbabilities probabilities(const ClassProbabilities& p) const;
    /// The rule's decisions on P's rows: Bayes decisions under the recalibrated
    /// probabilities, or the constant decision on every row.
    std::vector<int64_t> decisions(const ClassProbabilities& p, const CostMatrix& costs) const;
    /// Every fitted parameter, under the rule's name.
    nlohmann::json toJson() const;
    /// Temperature, offsets, Platt and vector scaling are all softmax(scale * log p +
    /// shift) with one scale and shift per class (Platt: scale a, shift (0, b)); true and
    /// those filled for them, false for isotonic and the constant decision.
    bool softmaxAffine(int classes, std::vector<double>& scale, std::vector<double>& shift) const;
};

/// Fits `kind` on P's rows with labels. Throws std::invalid_argument naming what is short:
/// no rows, labels out of range, a two-class rule on other than two classes, or labels of
/// only one class (nothing to calibrate against).
FittedCalibration fitCalibration(CalibrationKind kind, const ClassProbabilities& p, const std::vector<int64_t>& labels,
                                 const CostMatrix& costs);

/// argmin_d mean_i L[y_i, d] over the labelled rows (the lowest index on a tie).
int64_t cheapestConstantDecision(const std::vector<int64_t>& labels, const CostMatrix& costs);

PlattScaling fitPlatt(const ClassProbabilities& p, const std::vector<int64_t>& labels);
IsotonicMap fitIsotonic(const ClassProbabilities& p, const std::vector<int64_t>& labels);
VectorScaling fitVectorScaling(const ClassProbabilities& p, const std::vector<int64_t>& labels);

} // namespace lcs
