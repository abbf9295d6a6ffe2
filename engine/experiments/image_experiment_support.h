#pragma once

#include <string>
#include <vector>

#include <ATen/core/Tensor.h>

#include "calibration/image_training.h"
#include "core/job.h"
#include "decision/cost_matrix.h"
#include "decision/decisions.h"
#include "experiments/synthetic_experiment.h"
#include "inference/method_catalog.h"

/// What the label-corruption and selective-classification experiments share: method
/// selection, Bayes decisions scored against labels, progress contexts that name the
/// run, live test curves, and the aggregation of per-trial rows into mean ± std.
namespace lcs {

bool wantsMethod(const std::vector<ImageMethod>& methods, ImageMethod method);

/// Metrics of the Bayes decisions of `probs` [N, C] under `costs` against `labels` [N].
DecisionMetrics bayesMetrics(const at::Tensor& probs, const at::Tensor& labels, const CostMatrix& costs);

/// A context whose reports carry "PREFIX, WHAT[, the inner detail]" as their detail and
/// keep everything else, so the window and the CLI can tell runs and series apart.
JobContext prefixedContext(const JobContext& ctx, const std::string& prefix, const std::string& what);

/// The first `maxImages` test images and labels: what live curves are measured on.
struct TestProbe {
    at::Tensor images, labels;
    static TestProbe firstOf(const at::Tensor& images, const at::Tensor& labels, int64_t maxImages = 2000);
};

/// An epoch callback that reports the decision cost (under `costs`), accuracy and NLL of
/// the network after each of its epochs as Progress::test, phase kEpochMetricsPhase,
/// detail "MODEL, RUN".
EpochCallback testCurve(const JobContext& ctx, const TestProbe& probe, const CostMatrix& costs,
                        const std::string& model, const std::string& run);

/// The per-trial figures of one (setting, method) cell, in row order.
struct CellSeries {
    std::vector<double> cost, accuracy, referralRate, nll;
    int collapsed = 0;
    bool empty() const { return cost.empty(); }
};

/// Gathers the rows for which `inCell(row)` holds; Row has `metrics` and `collapsed`.
template <class Row, class Predicate>
CellSeries gatherCell(const std::vector<Row>& rows, Predicate inCell)
{
    CellSeries s;
    for (const auto& row : rows)
        if (inCell(row)) {
            s.cost.push_back(row.metrics.averageCost);
            s.accuracy.push_back(row.metrics.accuracy);
            s.referralRate.push_back(row.metrics.referralRate);
            s.nll.push_back(row.metrics.nll);
            s.collapsed += row.collapsed ? 1 : 0;
        }
    return s;
}

/// "0.1234 ± 0.0056", the tables' cell format.
std::string meanStdText(const MeanStd& m);

/// A setting (rate or referral cost) as a short label, "%.3g".
std::string settingText(double value);

} // namespace lcs
