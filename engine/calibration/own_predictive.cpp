#include "engine/calibration/own_predictive.h"

#include <chrono>
#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "base/core/input_error.h"
#include "base/core/number_format.h"
#include "base/core/seeds.h"
#include "base/io/table_csv.h"
#include "engine/decision/decisions.h"

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

namespace {

at::Tensor indexTensor(const std::vector<int64_t>& rows)
{
    return torch::tensor(rows, torch::kLong);
}

std::vector<int64_t> pick(const std::vector<int64_t>& values, const std::vector<int64_t>& rows)
{
    std::vector<int64_t> out;
    out.reserve(rows.size());
    for (auto r : rows)
        out.push_back(values[static_cast<size_t>(r)]);
    return out;
}

} // namespace

namespace {

/// X's rows by part: q trains on `fit`; with labels, `validation` chooses between q and
/// P and fits the baselines, `test` (without a separate test set) scores them.
struct RowSplit {
    std::vector<int64_t> fit, validation, test;
};

} // namespace

SplitCounts splitCounts(int64_t n, const OwnEvidenceInputs& evidence)
{
    const bool separateTest = evidence.test.features.defined();
    const double testShare = separateTest ? 0.0 : evidence.testShare;
    if (evidence.validationShare + testShare >= 1)
        throw InputError("--validation-share " + formatNumber(evidence.validationShare) + " and --test-share " +
                         formatNumber(testShare) + " add up to " + formatNumber(evidence.validationShare + testShare) +
                         "; together they must stay below 1, leaving rows for q to train on");
    SplitCounts c;
    c.test = static_cast<int64_t>(std::llround(testShare * static_cast<double>(n)));
    c.validation = static_cast<int64_t>(std::llround(evidence.validationShare * static_cast<double>(n)));
    c.fit = n - c.test - c.validation;
    if (c.validation < 1 || (!separateTest && c.test < 1) || c.fit < 2)
        throw InputError("labels: " + std::to_string(n) + " rows are too few to split into rows q trains on, " +
                         "validation rows and test rows (shares " + formatNumber(evidence.validationShare) + " and " +
                         formatNumber(testShare) + ")");
    return c;
}

namespace {

/// The split of X's rows, each row's role written into `rowRole`. Without labels every
/// row is fitted; with labels the rows are shuffled from a stream of their own (so the
/// split does not move q's initialisation) and cut by the evidence's shares.
RowSplit splitRows(int64_t n, const OwnEvidenceInputs& evidence, uint64_t seed, std::vector<std::string>& rowRole)
{
    RowSplit split;
    rowRole.assign(static_cast<size_t>(n), "fit");
    if (evidence.labels.empty()) {
        for (int64_t i = 0; i < n; ++i)
            split.fit.push_back(i);
        return split;
    }
    const auto counts = splitCounts(n, evidence);
    const int64_t nTest = counts.test, nValidation = counts.validation;
    auto splitGenerator = makeGenerator(mixSeed(seed, 13));
    const auto order = torch::randperm(n, splitGenerator, torch::TensorOptions().dtype(torch::kLong));
    const auto o = order.accessor<int64_t, 1>();
    for (int64_t i = 0; i < n; ++i) {
        auto& part = i < nTest ? split.test : i < nTest + nValidation ? split.validation : split.fit;
        part.push_back(o[i]);
        rowRole[static_cast<size_t>(o[i])] = i < nTest ? "test" : i < nTest + nValidation ? "validation" : "fit";
    }
    for (auto* part : {&split.fit, &split.validation, &split.test})
        std::sort(part->begin(), part->end());
    return split;
}

/// The predictive q trains on and corrects: P, or P calibrated by the run's q base.
at::Tensor qBaseOf(const OwnCorrectionResult& r, const at::Tensor& p)
{
    return r.qBase ? probabilitiesTensor(r.qBase->probabilities(toClassProbabilities(p))) : p;
}

/// The calibration q is trained on top of: the calibration of P (softmax-affine) with
/// the lowest cross-validated cost on the validation rows (P itself where none beats it),
/// fitted on all of them.
void chooseQBase(const OwnPredictive& own, const CostMatrix& costs, const OwnEvidenceInputs& evidence,
                 const RowSplit& split, uint64_t seed, OwnCorrectionResult& r)
{
    const auto validationP = toClassProbabilities(own.probabilities.index_select(0, indexTensor(split.validation)));
    const auto labels = pick(evidence.labels, split.validation);
    // The calibrations of the form softmax(scale * log p + shift), which the saved q
    // carries inside its forward (isotonic's steps and the constant decision do not fit it).
    std::vector<CalibrationKind> kinds;
    for (auto kind : calibrationsFor(validationP.classes))
        if (kind != CalibrationKind::Constant && kind != CalibrationKind::Isotonic)
            kinds.push_back(kind);
    const int folds = foldsFor(labels, costs, evidence.folds);
    r.qBaseChoice = chooseRuleByCrossValidation(validationP, {{"P", bayesDecisionsOf(validationP, costs)}}, labels,
                                                costs, kinds, folds, mixSeed(seed, kEvidenceStream, 0xba5e),
                                                selectionGuard(evidence.selection));
    for (auto kind : kinds)
        if (r.qBaseChoice.kept == calibrationName(kind))
            r.qBase = fitCalibration(kind, validationP, labels, costs);
}

/// Both rules' Bayes decisions on every row of X and what P expects each to cost.
void decideBothRules(const OwnPredictive& own, const CostMatrix& costs, OwnCorrectionResult& r)
{
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
    r.decisionsKept = r.decisionsAfter;
}

/// The held-out evidence: q against P (and the baselines fitted on the validation rows)
/// on the test rows, or on the separate test set; P's decisions are kept where the
/// evidence's choice says so.
void gatherEvidence(const OwnPredictive& own, const CostMatrix& costs, const OwnEvidenceInputs& evidence,
                    const RowSplit& split, uint64_t seed, OwnCorrectionResult& r)
{
    const bool separateTest = evidence.test.features.defined();
    if (separateTest && evidence.test.features.size(1) != own.features.size(1))
        throw InputError("the test features have " + std::to_string(evidence.test.features.size(1)) +
                         " columns, X has " + std::to_string(own.features.size(1)));
    if (separateTest && evidence.test.probabilities.size(1) != own.probabilities.size(1))
        throw InputError("the test predictive has " + std::to_string(evidence.test.probabilities.size(1)) +
                         " classes, P has " + std::to_string(own.probabilities.size(1)));
    const auto validationRows = indexTensor(split.validation);
    at::Tensor testP, testQ;
    std::vector<int64_t> testLabels;
    if (separateTest) {
        testP = evidence.test.probabilities;
        testQ = correctedProbabilities(*r.correction.q, evidence.test.features, qBaseOf(r, testP), r.correction.residual);
        testLabels = evidence.testLabels;
    } else {
        const auto testRows = indexTensor(split.test);
        testP = own.probabilities.index_select(0, testRows);
        testQ = r.qProbabilities.index_select(0, testRows);
        testLabels = pick(evidence.labels, split.test);
    }
    r.evidence = gatherCorrectionEvidence(
        toClassProbabilities(own.probabilities.index_select(0, validationRows)),
        toClassProbabilities(r.qProbabilities.index_select(0, validationRows)), pick(evidence.labels, split.validation),
        toClassProbabilities(testP), toClassProbabilities(testQ), testLabels, costs, evidence.selection,
        mixSeed(seed, kEvidenceStream), evidence.folds);
    r.evidence.setName = separateTest ? "test" : "held-out test";
    r.hasEvidence = true;
    const auto reliability = [&](const at::Tensor& probs, std::vector<ReliabilityBin>& bins, double& ece) {
        const auto p = probs.to(at::kDouble).contiguous();
        const int classes = static_cast<int>(p.size(1));
        ReliabilityCounter counter;
        for (size_t i = 0; i < testLabels.size(); ++i)
            counter.add(p.data_ptr<double>() + static_cast<int64_t>(i) * classes, classes, testLabels[i]);
        bins = counter.bins();
        ece = counter.ece();
    };
    reliability(testP, r.reliabilityBefore, r.eceBefore);
    reliability(testQ, r.reliabilityAfter, r.eceAfter);
    r.testFeatures = separateTest ? evidence.test.features : own.features.index_select(0, indexTensor(split.test));
    r.testProbsBefore = testP;
    r.testProbsAfter = testQ;
    r.testLabels = std::move(testLabels);
    if (r.evidence.kept == "P")
        r.decisionsKept = r.decisionsBefore;
    else if (const auto* calibration = r.evidence.calibration(r.evidence.kept))
        r.decisionsKept =
            torch::tensor(calibration->decisions(toClassProbabilities(own.probabilities), costs), torch::kLong);
}

} // namespace

OwnCorrectionResult correctOwnPredictive(const OwnPredictive& own, const CostMatrix& costs,
                                         const CorrectionConfig& config, uint64_t seed, const JobContext& ctx,
                                         const CorrectionObserver& observer, const OwnEvidenceInputs& evidence)
{
    costs.validateFor(static_cast<int>(own.probabilities.size(1)));
    const int64_t n = own.features.size(0);
    const bool labelled = !evidence.labels.empty();
    if (labelled && static_cast<int64_t>(evidence.labels.size()) != n)
        throw InputError("labels: " + std::to_string(evidence.labels.size()) + " for " + std::to_string(n) + " rows");
    if (evidence.qOnCalibrated && !labelled)
        throw InputError("q_base calibrated needs --labels: the calibration q trains on top of is fitted on labelled "
                         "validation rows");
    if (evidence.test.features.defined() && !labelled)
        throw InputError("a test set needs labels of X's rows too: they choose between q and P and fit the baselines");

    OwnCorrectionResult r;
    r.labels = evidence.labels;
    const auto split = splitRows(n, evidence, seed, r.rowRole);
    const auto fitRows = indexTensor(split.fit);
    const auto xFit = own.features.index_select(0, fitRows);
    CorrectionConfig qConfig = config;
    if (evidence.standardise) {
        r.scaling = fitInputStandardisation(xFit);
        qConfig.inputMean = r.scaling.mean;
        qConfig.inputStd = r.scaling.std;
    }
    if (labelled && evidence.qOnCalibrated)
        chooseQBase(own, costs, evidence, split, seed, r);
    const auto base = qBaseOf(r, own.probabilities);
    auto generator = correctionGenerator(seed);
    // q standardises its raw inputs itself (MlpImpl::standardise), so every caller of q,
    // the observer's region grid and the saved file included, gives it rows as they are.
    at::Tensor fitLabels;
    if (labelled && evidence.labelTerm != LabelTerm::None) {
        qConfig.labelTerm = evidence.labelTerm;
        qConfig.labelWeight = evidence.labelWeight;
        std::vector<int64_t> y;
        for (auto row : split.fit)
            y.push_back(evidence.labels[static_cast<size_t>(row)]);
        fitLabels = torch::tensor(y, torch::kLong);
    }
    r.correction =
        trainCorrection(xFit, base.index_select(0, fitRows), costs, qConfig, generator, ctx, observer, nullptr, fitLabels);
    r.qProbabilities = correctedProbabilities(*r.correction.q, own.features, base, r.correction.residual);
    decideBothRules(own, costs, r);
    if (labelled)
        gatherEvidence(own, costs, evidence, split, seed, r);
    return r;
}

nlohmann::json ownCorrectionSummary(const OwnCorrectionResult& r, const CostMatrix& costs)
{
    nlohmann::json curve = nlohmann::json::array();
    for (const auto& s : r.correction.curve)
        curve.push_back({{"step", s.step}, {"loss", s.loss}, {"kl", s.kl}, {"expected_cost", s.expectedCost}});
    const int64_t n = r.decisionsBefore.size(0);
    nlohmann::json j;
    j["command"] = "correct";
    j["rows"] = n;
    j["features"] = r.correction.q->inputs;
    j["classes"] = costs.numClasses();
    j["changed_decisions"] = r.changed;
    j["mean_expected_cost_before"] = r.expectedCostBefore.mean().item<double>();
    j["mean_expected_cost_after"] = r.expectedCostAfter.mean().item<double>();
    j["collapsed"] = r.correction.collapsed;
    j["standardised"] = !r.scaling.mean.empty();
    j["q_form"] = r.correction.residual ? "residual" : "standalone";
    if (r.qBaseChoice.folds > 0)
        j["q_base"] = {{"rule", r.qBase ? r.qBase->name() : std::string("P")},
                       {"calibration", r.qBase ? r.qBase->toJson() : nlohmann::json(nullptr)},
                       {"why", r.qBaseChoice.reason}};
    j["rows_q_trained_on"] = std::count(r.rowRole.begin(), r.rowRole.end(), "fit");
    if (r.correction.keptEpoch >= 0)
        j["held_out_unlabelled"] = {{"rows", r.correction.heldOutInputs},
                                    {"kept_epoch", r.correction.keptEpoch},
                                    {"objective", r.correction.heldOutObjective}};
    j["kept"] = r.hasEvidence ? r.evidence.kept : std::string("q");
    j["seconds"] = r.correction.seconds;
    j["curve"] = curve;
    return j;
}

std::string ownCorrectionCsv(const OwnCorrectionResult& r, const CostMatrix& costs)
{
    const bool labelled = !r.labels.empty();
    std::string s = "row,role,";
    if (labelled)
        s += "label,";
    s += "decision_before,decision_after,decision_kept,expected_cost_before,expected_cost_after";
    for (int c = 0; c < costs.numClasses(); ++c)
        s += "," + csvText("q_" + costs.decisionName(c));
    s += "\n";
    // Plain CPU views: one tensor op per row and column would dominate a large table.
    const auto q = r.qProbabilities.to(torch::kDouble).contiguous();
    const auto before = r.decisionsBefore.contiguous(), after = r.decisionsAfter.contiguous();
    const auto keptDecisions = r.decisionsKept.contiguous();
    const auto k = keptDecisions.accessor<int64_t, 1>();
    const auto costBefore = r.expectedCostBefore.contiguous(), costAfter = r.expectedCostAfter.contiguous();
    const auto b = before.accessor<int64_t, 1>(), a = after.accessor<int64_t, 1>();
    const auto cb = costBefore.accessor<double, 1>(), ca = costAfter.accessor<double, 1>();
    const auto qs = q.accessor<double, 2>();
    for (int64_t i = 0; i < b.size(0); ++i) {
        s += std::to_string(i + 1) + "," + r.rowRole[static_cast<size_t>(i)] + ",";
        if (labelled)
            s += csvText(costs.decisionName(static_cast<int>(r.labels[static_cast<size_t>(i)]))) + ",";
        s += csvText(costs.decisionName(static_cast<int>(b[i]))) + "," +
             csvText(costs.decisionName(static_cast<int>(a[i]))) + "," +
             csvText(costs.decisionName(static_cast<int>(k[i]))) + "," + formatNumber(cb[i]) + "," +
             formatNumber(ca[i]);
        for (int64_t c = 0; c < qs.size(1); ++c)
            s += "," + formatNumber(qs[i][c]);
        s += "\n";
    }
    // A separate labelled test set (--test-*): its rows follow, numbered from 1 again with
    // the role "test set", decided as X's rows are (the kept rule's decisions included).
    const bool separateTest = r.hasEvidence && r.testProbsBefore.defined() && !r.testLabels.empty() &&
                              std::find(r.rowRole.begin(), r.rowRole.end(), "test") == r.rowRole.end();
    const auto* kept = separateTest ? r.evidence.rule(r.evidence.kept) : nullptr;
    if (!kept)
        return s;
    const auto loss = costTensor(costs, torch::kDouble);
    const auto pBefore = r.testProbsBefore.to(torch::kDouble), pAfter = r.testProbsAfter.to(torch::kDouble);
    const auto tb = bayesDecisions(pBefore, loss).contiguous(), ta = bayesDecisions(pAfter, loss).contiguous();
    const auto expected = [&](const at::Tensor& decisions) {  // sum_y P(y) L[y, d], P before the correction
        return (pBefore * loss.index_select(1, decisions).t()).sum(1).contiguous();
    };
    const auto eb = expected(tb), ea = expected(ta);
    const auto tq = pAfter.contiguous();
    const auto tba = tb.accessor<int64_t, 1>(), taa = ta.accessor<int64_t, 1>();
    const auto eba = eb.accessor<double, 1>(), eaa = ea.accessor<double, 1>();
    const auto tqa = tq.accessor<double, 2>();
    for (int64_t i = 0; i < tba.size(0); ++i) {
        s += std::to_string(i + 1) + ",test set,";
        if (labelled)
            s += csvText(costs.decisionName(static_cast<int>(r.testLabels[static_cast<size_t>(i)]))) + ",";
        s += csvText(costs.decisionName(static_cast<int>(tba[i]))) + "," +
             csvText(costs.decisionName(static_cast<int>(taa[i]))) + "," +
             csvText(costs.decisionName(static_cast<int>(kept->decisions[static_cast<size_t>(i)]))) + "," +
             formatNumber(eba[i]) + "," + formatNumber(eaa[i]);
        for (int64_t c = 0; c < tqa.size(1); ++c)
            s += "," + formatNumber(tqa[i][c]);
        s += "\n";
    }
    return s;
}

} // namespace lcs
