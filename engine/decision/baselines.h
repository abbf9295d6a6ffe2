#pragma once

#include <vector>

#include "base/decision/cost_matrix.h"
#include "engine/decision/evidence.h"

/// The two recalibrations a reviewer asks for before a learned correction, both fitted on
/// labelled validation rows and applied to the predictive's log-probabilities:
/// temperature scaling (Guo et al. 2017) and cost-tuned per-class offsets (the multiclass
/// form of tuning a decision threshold on validation cost). Plain C++, tested by hand.
namespace lcs {

/// Bayes decisions argmin_d sum_y p(y) L[y, d] per row; ties go to the lowest index.
std::vector<int64_t> bayesDecisionsOf(const ClassProbabilities& p, const CostMatrix& costs);

/// Replaces the `classes` scores at `row` by their softmax (the largest taken out first):
/// every calibration's last step, one place.
void softmaxInPlace(double* row, int classes);

/// softmax(logP / temperature + offsets) per row; offsets empty or one per class.
ClassProbabilities adjustedProbabilities(const ClassProbabilities& logP, double temperature,
                                         const std::vector<double>& offsets = {});

/// Elementwise log, with probabilities clamped at 1e-12 so a zero stays finite.
ClassProbabilities logOf(const ClassProbabilities& p);

/// Mean negative log-likelihood of the labels under softmax(logP / T).
double temperatureNll(const ClassProbabilities& logP, const std::vector<int64_t>& labels, double temperature);

/// The T in [0.05, 20] minimising temperatureNll (golden-section search on log T; the
/// NLL is convex in 1/T, so unimodal in log T).
double fitTemperature(const ClassProbabilities& logP, const std::vector<int64_t>& labels);

/// Per-class offsets b (b[0] = 0: only differences change a softmax) minimising the mean
/// realised cost of the Bayes decisions under softmax(logP + b) on the labelled rows:
/// coordinate descent over classes 1..C-1, each over a grid of -6 to 6 in steps of 0.25,
/// three sweeps; a move is taken only when it lowers the cost, so equal-cost plateaus
/// keep the smaller offset.
std::vector<double> fitClassOffsets(const ClassProbabilities& logP, const std::vector<int64_t>& labels,
                                    const CostMatrix& costs);

} // namespace lcs
