#include "calibration/own_predictive.h"

#include <chrono>
#include <cmath>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "core/input_error.h"
#include "core/number_format.h"
#include "core/seeds.h"
#include "core/version.h"
#include "decision/decisions.h"

namespace lcs {

OwnPredictive ownPredictive(const NumericArray& features, const NumericArray& predictive,
                            const std::string& featuresName, const std::string& predictiveName)
{
    if (features.shape.size() != 2)
        throw InputError(featuresName + ": features must be a 2-D array N x D, got " +
                         std::to_string(features.shape.size()) + " dimensions");
    const bool samples = predictive.shape.size() == 3;
    if (predictive.shape.size() != 2 && !samples)
        throw InputError(predictiveName + ": the predictive must be N x K probabilities or T x N x K samples");
    const int64_t n = features.dim(0), d = features.dim(1);
    const int64_t t = samples ? predictive.dim(0) : 1;
    const int64_t rows = predictive.dim(samples ? 1 : 0), k = predictive.dim(samples ? 2 : 1);
    if (n < 1 || d < 1)
        throw InputError(featuresName + ": no features (shape " + std::to_string(n) + " x " + std::to_string(d) + ")");
    if (t < 1)
        throw InputError(predictiveName + ": no samples");
    if (rows != n)
        throw InputError(predictiveName + ": has " + std::to_string(rows) + " rows, " + featuresName + " has " +
                         std::to_string(n) + "; each row of features needs its predictive");
    if (k < 2)
        throw InputError(predictiveName + ": " + std::to_string(k) + " class(es); at least 2 are needed");
    for (double v : features.values)
        if (std::abs(v) > 1e30)
            throw InputError(featuresName + ": value " + formatNumber(v) + " is beyond what q computes in float32");
    for (int64_t s = 0; s < t; ++s)
        for (int64_t i = 0; i < n; ++i) {
            const double* row = predictive.values.data() + (s * n + i) * k;
            double sum = 0;
            for (int64_t c = 0; c < k; ++c) {
                if (row[c] < 0)
                    throw InputError(predictiveName + ": row " + std::to_string(i + 1) +
                                     (samples ? " of sample " + std::to_string(s + 1) : std::string()) + ", class " +
                                     std::to_string(c + 1) + ": " + formatNumber(row[c]) + " is not a probability");
                sum += row[c];
            }
            if (std::abs(sum - 1.0) > kRowSumTolerance)
                throw InputError(predictiveName + ": row " + std::to_string(i + 1) +
                                 (samples ? " of sample " + std::to_string(s + 1) : std::string()) + " sums to " +
                                 formatNumber(sum) + ", not 1 (within " + formatNumber(kRowSumTolerance) +
                                 "); give probabilities, not logits or scores");
        }
    OwnPredictive out;
    out.samples = t;
    out.features = torch::tensor(features.values, torch::kDouble).reshape({n, d}).to(torch::kFloat);
    auto p = torch::tensor(predictive.values, torch::kDouble).reshape({t, n, k});
    // The average of the samples' probabilities: the Monte Carlo posterior predictive.
    out.probabilities = p.mean(0).to(torch::kFloat);
    return out;
}

at::Generator correctionGenerator(uint64_t seed)
{
    return makeGenerator(mixSeed(seed, 7));
}

OwnCorrectionResult correctOwnPredictive(const OwnPredictive& own, const CostMatrix& costs,
                                         const CorrectionConfig& config, uint64_t seed, const JobContext& ctx,
                                         const CorrectionObserver& observer)
{
    costs.validateFor(static_cast<int>(own.probabilities.size(1)));
    auto generator = correctionGenerator(seed);
    OwnCorrectionResult r;
    r.correction = trainCorrection(own.features, own.probabilities, costs, config, generator, ctx, observer);
    r.qProbabilities = predictProbabilities(*r.correction.q, own.features);
    const auto L = costTensor(costs);
    r.decisionsBefore = bayesDecisions(own.probabilities, L);
    r.decisionsAfter = bayesDecisions(r.qProbabilities, L);
    // In double, with the costs as given (not their float32 rounding).
    const auto expected = torch::matmul(own.probabilities.to(torch::kDouble), costTensor(costs, at::kDouble));
    r.expectedCostBefore = expected.gather(1, r.decisionsBefore.unsqueeze(1)).squeeze(1);
    r.expectedCostAfter = expected.gather(1, r.decisionsAfter.unsqueeze(1)).squeeze(1);
    r.changed = (r.decisionsBefore != r.decisionsAfter).sum().item<int64_t>();
    for (const auto* t : {&r.expectedCostBefore, &r.expectedCostAfter})
        if (!torch::isfinite(*t).all().item<bool>())
            throw ResultError("an expected cost is not finite: the predictive or q is broken");
    return r;
}

std::string ownCorrectionJson(const OwnCorrectionResult& r, const CostMatrix& costs, uint64_t seed)
{
    nlohmann::json curve = nlohmann::json::array();
    for (const auto& s : r.correction.curve)
        curve.push_back({{"step", s.step}, {"loss", s.loss}, {"kl", s.kl}, {"expected_cost", s.expectedCost}});
    const int64_t n = r.decisionsBefore.size(0);
    nlohmann::json j;
    j["program"] = std::string(programName()) + " " + programVersion();
    j["command"] = "correct";
    j["rows"] = n;
    j["features"] = r.correction.q->inputs;
    j["classes"] = costs.numClasses();
    j["seed"] = seed;
    j["cost_matrix"] = nlohmann::json::parse(costMatrixToJson(costs));
    j["changed_decisions"] = r.changed;
    j["mean_expected_cost_before"] = r.expectedCostBefore.mean().item<double>();
    j["mean_expected_cost_after"] = r.expectedCostAfter.mean().item<double>();
    j["collapsed"] = r.correction.collapsed;
    j["seconds"] = r.correction.seconds;
    j["curve"] = curve;
    return j.dump(2) + "\n";
}

std::string ownCorrectionCsv(const OwnCorrectionResult& r, const CostMatrix& costs)
{
    std::string s = "row,decision_before,decision_after,expected_cost_before,expected_cost_after";
    for (int c = 0; c < costs.numClasses(); ++c)
        s += ",q_" + costs.decisionName(c);
    s += "\n";
    // Plain CPU views: one tensor op per row and column would dominate a large table.
    const auto q = r.qProbabilities.to(torch::kDouble).contiguous();
    const auto before = r.decisionsBefore.contiguous(), after = r.decisionsAfter.contiguous();
    const auto costBefore = r.expectedCostBefore.contiguous(), costAfter = r.expectedCostAfter.contiguous();
    const auto b = before.accessor<int64_t, 1>(), a = after.accessor<int64_t, 1>();
    const auto cb = costBefore.accessor<double, 1>(), ca = costAfter.accessor<double, 1>();
    const auto qs = q.accessor<double, 2>();
    for (int64_t i = 0; i < b.size(0); ++i) {
        s += std::to_string(i + 1) + "," + costs.decisionName(static_cast<int>(b[i])) + "," +
             costs.decisionName(static_cast<int>(a[i])) + "," + formatNumber(cb[i]) + "," + formatNumber(ca[i]);
        for (int64_t c = 0; c < qs.size(1); ++c)
            s += "," + formatNumber(qs[i][c]);
        s += "\n";
    }
    return s;
}

} // namespace lcs
