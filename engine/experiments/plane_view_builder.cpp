#include "engine/experiments/plane_view_builder.h"

#include <stdexcept>

#include <torch/torch.h>

#include "engine/calibration/correction.h"
#include "engine/calibration/own_predictive.h"
#include "engine/decision/decisions.h"
#include "engine/experiments/own_predictive/own_predictive_experiment.h"
#include "engine/experiments/run_views.h"
#include "engine/experiments/synthetic/synthetic_experiment.h"
#include "engine/experiments/synthetic/synthetic_settings.h"
#include "engine/io/model_io.h"
#include "engine/models/principal_plane.h"

namespace lcs {

namespace {

std::vector<PlanePoint> points(const at::Tensor& x)
{
    auto c = x.contiguous().to(at::kDouble);
    const double* p = c.data_ptr<double>();
    std::vector<PlanePoint> out(static_cast<size_t>(c.size(0)));
    for (size_t i = 0; i < out.size(); ++i)
        out[i] = {p[2 * i], p[2 * i + 1]};
    return out;
}

std::vector<int> ints(const at::Tensor& t)
{
    auto c = t.contiguous().to(at::kLong);
    const int64_t* p = c.data_ptr<int64_t>();
    return std::vector<int>(p, p + c.numel());
}

RegionGrid regionGrid(const SyntheticConfig& config, const at::Tensor& probs, const at::Tensor& costs)
{
    RegionGrid g;
    g.resolution = config.gridResolution;
    g.xMin = g.yMin = config.data.boxMin;
    g.xMax = g.yMax = config.data.boxMax;
    g.numDecisions = static_cast<int>(costs.size(1));
    g.decisions = ints(bayesDecisions(probs, costs));
    return g;
}

CurvePoint curvePoint(const CorrectionStep& s)
{
    return {s.step, s.loss, s.kl, s.expectedCost};
}

TaskView baseView(const SyntheticConfig& config, const SyntheticPredictive& p, const at::Tensor& costs)
{
    TaskView v;
    v.replicate = p.replicate;
    v.method = methodName(p.method);
    v.numClasses = static_cast<int>(classCount(config));
    // Points are drawn on the plane only: a table of more features shows no regions.
    if (featureCount(config) == 2) {
        if (config.table) {
            v.xName = config.table->featureNames.at(0);
            v.yName = config.table->featureNames.at(1);
        }
        v.train = points(p.data.trainX);
        v.trainLabels = ints(p.data.trainY);
        v.calibration = points(p.data.calibrationX);
        v.test = points(p.data.testX);
        v.testLabels = ints(p.data.testY);
    } else if (config.table && p.data.trainX.size(0) >= 2 && featureCount(config) <= kMaxPlaneFeatures) {
        // A table of more features: its rows in the plane of their first two principal
        // components (fitted on the training rows), where no region can be drawn.
        const auto plane = fitPrincipalPlane(p.data.trainX);
        v.train = points(projectOntoPlane(plane, p.data.trainX));
        v.trainLabels = ints(p.data.trainY);
        v.calibration = points(projectOntoPlane(plane, p.data.calibrationX));
        v.test = points(projectOntoPlane(plane, p.data.testX));
        v.testLabels = ints(p.data.testY);
        v.xName = "PC1 (" + std::to_string(static_cast<int>(std::lround(100 * plane.explained[0])))
                  + "% of the standardised variance)";
        v.yName = "PC2 (" + std::to_string(static_cast<int>(std::lround(100 * plane.explained[1]))) + "%)";
    }
    v.testDecisionsUncorrected = ints(bayesDecisions(p.testProbs, costs));
    if (p.gridProbs.defined())
        v.uncorrected = regionGrid(config, p.gridProbs, costs);
    return v;
}

/// The test rows whose decision changed from P's to q's, with features and both
/// probability vectors (the first TaskView::kShownChangedRows of them).
void noteChangedRows(TaskView& v, const std::vector<std::string>& names, const at::Tensor& testX,
                     const at::Tensor& before, const at::Tensor& after)
{
    for (int64_t j = 0; j < testX.size(1); ++j)
        v.featureNames.push_back(j < static_cast<int64_t>(names.size()) ? names[size_t(j)]
                                                                         : "x" + std::to_string(j + 1));
    const auto x = testX.to(torch::kDouble).contiguous();
    const auto pb = before.to(torch::kDouble).contiguous(), pa = after.to(torch::kDouble).contiguous();
    const int64_t d = x.size(1), k = pb.size(1);
    const double *xs = x.data_ptr<double>(), *bs = pb.data_ptr<double>(), *as = pa.data_ptr<double>();
    const size_t rows = std::min(v.testDecisionsCorrected.size(), v.testDecisionsUncorrected.size());
    for (size_t i = 0; i < rows; ++i) {
        if (v.testDecisionsCorrected[i] == v.testDecisionsUncorrected[i])
            continue;
        ++v.changedCount;
        if (v.changedRows.size() >= TaskView::kShownChangedRows)
            continue;
        TaskView::ChangedRow row;
        row.row = static_cast<int>(i);
        row.features.assign(xs + i * d, xs + (i + 1) * d);
        row.before.assign(bs + i * k, bs + (i + 1) * k);
        row.after.assign(as + i * k, as + (i + 1) * k);
        v.changedRows.push_back(std::move(row));
    }
}

/// The user's X on the plane (2 features): its range, padded, square.
SyntheticConfig ownPlane(const OwnPredictive& own)
{
    SyntheticConfig plane;
    plane.gridResolution = windowRegionGrid(0);
    setPlaneAround(plane.data, own.features.min().item<double>(), own.features.max().item<double>());
    return plane;
}

/// The one task of a user's predictive: X's points coloured by P's decisions.
TaskView ownView(const OwnPredictive& own, const at::Tensor& L)
{
    TaskView view;
    view.method = kOwnPredictiveSeries;
    view.numClasses = static_cast<int>(own.probabilities.size(1));
    if (own.features.size(1) == 2)
        view.test = points(own.features);
    view.testDecisionsUncorrected = ints(bayesDecisions(own.probabilities, L));
    return view;
}

/// With labels, the view's test rows become the evidence's held-out rows, with their
/// truth, both rules' decisions, the changed rows and the reliability diagrams; X's
/// other rows stay on the plane as rows q used without their labels.
void showHeldOutRows(TaskView& view, const OwnPredictive& own, const OwnCorrectionResult& r, const at::Tensor& L)
{
    const bool twoFeatures = own.features.size(1) == 2;
    view.test.clear();
    view.calibration.clear();
    if (twoFeatures) {
        view.test = points(r.testFeatures);
        std::vector<int64_t> others;
        for (int64_t i = 0; i < own.features.size(0); ++i)
            if (i >= static_cast<int64_t>(r.rowRole.size()) || r.rowRole[size_t(i)] != "test")
                others.push_back(i);
        if (!others.empty())
            view.calibration = points(own.features.index_select(0, torch::tensor(others)));
    }
    view.testLabels.assign(r.testLabels.begin(), r.testLabels.end());
    view.testDecisionsUncorrected = ints(bayesDecisions(r.testProbsBefore, L));
    view.testDecisionsCorrected = ints(bayesDecisions(r.testProbsAfter, L));
    noteChangedRows(view, {}, r.testFeatures, r.testProbsBefore, r.testProbsAfter);
    view.reliabilityUncorrected = r.reliabilityBefore;
    view.reliabilityCorrected = r.reliabilityAfter;
    view.eceUncorrected = r.eceBefore;
    view.eceCorrected = r.eceAfter;
}

template <class Event>
void show(const RunViews* views, const Event& event)
{
    if (views)
        views->show(ViewEvent{&event});
}

} // namespace

PlaneViewBuilder::PlaneViewBuilder(const JobContext& ctx)
    : m_views(showsViews(ctx) ? ctx.views : nullptr)
{
}

PlaneViewBuilder::LiveTask& PlaneViewBuilder::liveTask(const SyntheticConfig& config, const SyntheticPredictive& p)
{
    std::lock_guard lock(m_mutex);
    auto [it, added] = m_live.try_emplace({p.replicate, static_cast<int>(p.method)});
    if (added)
        it->second.view = baseView(config, p, costTensor(config.costs));
    return it->second;
}

const at::Tensor& PlaneViewBuilder::grid(const SyntheticDataConfig& box, int resolution)
{
    std::lock_guard lock(m_mutex);
    if (!m_grid.defined())
        m_grid = syntheticGrid(box, resolution);
    return m_grid;
}

void PlaneViewBuilder::sampled(const SyntheticConfig& config, const SyntheticPredictive& p)
{
    if (active())
        show(m_views, baseView(config, p, costTensor(config.costs)));
}

void PlaneViewBuilder::correcting(const SyntheticConfig& config, const SyntheticPredictive& p,
                                  const CorrectionStep& step, MlpImpl& q)
{
    if (!active())
        return;
    // Each task's live view is touched by its own thread only; the map under the lock.
    auto& live = liveTask(config, p);
    live.view.curve.push_back(curvePoint(step));
    const auto now = std::chrono::steady_clock::now();
    if (now - live.last < kLiveRegionInterval)
        return;
    live.last = now;
    if (hasRegionGrid(config))
        live.view.corrected =
            regionGrid(config,
                       correctedProbabilities(q, grid(config.data, config.gridResolution), p.gridProbs,
                                              config.correction.residual),
                       costTensor(config.costs));
    show(m_views, live.view);
}

void PlaneViewBuilder::corrected(const SyntheticConfig& config, const SyntheticPredictive& p,
                                 const SyntheticCorrection& c, const ReplicateOutcome& outcome)
{
    if (!active())
        return;
    const auto L = costTensor(config.costs);
    TaskView v = baseView(config, p, L);
    if (c.gridProbs.defined())
        v.corrected = regionGrid(config, c.gridProbs, L);
    v.testDecisionsCorrected = ints(bayesDecisions(c.testProbs, L));
    for (const auto& s : c.curve)
        v.curve.push_back(curvePoint(s));
    v.correctionDone = true;
    noteChangedRows(v, config.table ? config.table->featureNames : std::vector<std::string>{}, p.data.testX,
                    p.testProbs, c.testProbs);
    v.reliabilityUncorrected = outcome.uncorrected.reliability;
    v.reliabilityCorrected = outcome.qAlone.reliability;  // q's own, as the Decisions tab's
    v.eceUncorrected = outcome.uncorrected.ece;
    v.eceCorrected = outcome.qAlone.ece;
    ResultRow row;
    row.replicate = p.replicate;
    row.method = v.method;
    row.uncorrectedCost = outcome.uncorrected.averageCost;
    row.correctedCost = outcome.corrected.averageCost;
    row.collapsed = c.collapsed;
    std::lock_guard lock(m_mutex);
    m_live.erase({p.replicate, static_cast<int>(p.method)});
    if (c.collapsed)
        show(m_views, ViewLog{"Warning: replicate " + std::to_string(p.replicate) + ", " + v.method
                     + ": q collapsed to one class everywhere (its corrected decisions are shown but should not be "
                       "trusted)"});
    show(m_views, v);
    show(m_views, row);
}

void PlaneViewBuilder::ownCorrecting(const OwnPredictive& own, const CostMatrix& costs, const CorrectionStep& step,
                                     MlpImpl& q, bool residual)
{
    if (!active())
        return;
    // One task on one thread: no lock needed for its view.
    if (!m_own) {
        m_own.emplace();
        m_own->view = ownView(own, costTensor(costs));
    }
    auto& live = *m_own;
    live.view.curve.push_back(curvePoint(step));
    const auto now = std::chrono::steady_clock::now();
    if (now - live.last < kLiveRegionInterval)
        return;
    live.last = now;
    // A residual q is P x exp(f(x)): off X's points there is no P, so no regions.
    if (own.features.size(1) == 2 && !residual) {
        const auto plane = ownPlane(own);
        live.view.corrected = regionGrid(plane, predictProbabilities(q, grid(plane.data, plane.gridResolution)),
                                         costTensor(costs));
    }
    show(m_views, live.view);
}

void PlaneViewBuilder::ownCorrected(const OwnPredictive& own, const OwnCorrectionResult& r, const CostMatrix& costs)
{
    if (!active())
        return;
    const auto L = costTensor(costs);
    TaskView view = ownView(own, L);
    for (const auto& step : r.correction.curve)
        view.curve.push_back(curvePoint(step));
    if (own.features.size(1) == 2 && !r.correction.residual) {
        const auto plane = ownPlane(own);
        view.corrected =
            regionGrid(plane, predictProbabilities(*r.correction.q.ptr(), grid(plane.data, plane.gridResolution)), L);
    }
    view.testDecisionsCorrected = ints(r.decisionsAfter);
    view.correctionDone = true;
    if (r.hasEvidence && r.testFeatures.defined())
        showHeldOutRows(view, own, r, L);
    show(m_views, view);
    ResultRow row;
    row.method = view.method;
    row.collapsed = r.correction.collapsed;
    if (r.hasEvidence) {
        // With labels the results show what the other experiments show: realised test costs.
        row.uncorrectedCost = r.evidence.rules[0].cost;
        row.correctedCost = r.evidence.rules[1].cost;
        row.verdict = verdictSentence(r.evidence.comparisons[0], r.evidence.setName);
        row.worse = r.evidence.comparisons[0].verdict == Verdict::Worse;
    } else {
        row.uncorrectedCost = r.expectedCostBefore.mean().item<double>();
        row.correctedCost = r.expectedCostAfter.mean().item<double>();
    }
    show(m_views, row);
    if (r.hasEvidence)
        show(m_views, EvidenceShown{r.evidence, costs});
}

TaskView savedModelRegions(const std::string& path, const CostMatrix& costs, const SyntheticConfig& plane)
{
    auto loaded = loadMlp(path);
    if (loaded.info.residualOnPredictive)
        throw std::runtime_error(path + " is a residual q: it corrects a predictive and needs P at every point, "
                                        "which a plane of points does not have");
    const SyntheticConfig& config = plane;
    const int gridResolution = plane.gridResolution;
    if (loaded.info.inputs != 2 || featureCount(config) != 2)
        throw std::runtime_error(path + ": the model takes " + std::to_string(loaded.info.inputs)
                                 + " inputs; decision regions are drawn for networks of 2 inputs on 2-D data"
                                   " (decide on other data with lcstudio-cli decide --model)");
    costs.validateFor(static_cast<int>(loaded.info.classes));
    TaskView v;
    v.replicate = loaded.info.replicate;
    v.numClasses = static_cast<int>(loaded.info.classes);
    v.method = loaded.info.method.empty() ? "loaded" : loaded.info.method;
    v.corrected = regionGrid(config, predictProbabilities(*loaded.model, syntheticGrid(config.data, gridResolution)),
                             costTensor(costs));
    v.correctionDone = true;
    return v;
}

} // namespace lcs
