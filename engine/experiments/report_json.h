#pragma once

#include <cmath>
#include <string>

#include <nlohmann/json.hpp>

#include "core/number_format.h"
#include "experiments/synthetic_experiment.h"
#include "io/observations.h"

/// Number conventions shared by every experiment's JSON and CSV results. A metric that is
/// NaN here is undefined for want of points (accuracy and NLL with every input referred,
/// the IoU of a class neither present nor decided): a computed metric that is not finite
/// has already stopped the run (requireFiniteMetrics, requireFiniteLoss).
namespace lcs {

/// JSON has no NaN: an undefined metric is null.
inline nlohmann::json reportNumber(double v)
{
    return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}

/// A CSV cell: the shortest text that reads back as exactly `v`; an undefined metric is
/// an empty cell (what spreadsheets and pandas read as missing), never "nan".
inline std::string reportCell(double v)
{
    return std::isfinite(v) ? formatNumber(v) : std::string();
}

inline nlohmann::json reportMeanStd(const MeanStd& m)
{
    return {{"mean", reportNumber(m.mean)}, {"std", reportNumber(m.std)}};
}

/// Which figures of a decision rule's metrics go into the results' long table.
struct ObservedMetrics {
    bool referralRate = false;              ///< decisions include "refer"
    std::vector<std::string> iouClasses;    ///< segmentation: mean_iou and iou_<class> for these classes
};

/// One decision rule's figures as rows of the long table (`key` gives setting, trial,
/// method and rule): cost, accuracy and nll, and what `observed` adds; an undefined
/// (NaN) figure has no row.
inline void appendObservations(std::vector<Observation>& out, const Observation& key, const DecisionMetrics& m,
                               const ObservedMetrics& observed = {})
{
    auto add = [&](std::string metric, double value) {
        if (!std::isfinite(value))
            return;
        Observation o = key;
        o.metric = std::move(metric);
        o.value = value;
        out.push_back(std::move(o));
    };
    add("cost", m.averageCost);
    add("accuracy", m.accuracy);
    add("nll", m.nll);
    if (observed.referralRate)
        add("referral_rate", m.referralRate);
    if (!observed.iouClasses.empty()) {
        add("mean_iou", m.meanIoU);
        for (size_t c = 0; c < observed.iouClasses.size() && c < m.perClassIoU.size(); ++c)
            add("iou_" + observed.iouClasses[c], m.perClassIoU[c]);
    }
}

} // namespace lcs
