#pragma once

#include <cmath>
#include <string>

#include <nlohmann/json.hpp>

#include "base/core/number_format.h"
#include "base/io/observations.h"
#include "engine/experiments/synthetic/synthetic_experiment.h"

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
/// method and rule): cost, accuracy, nll and ECE, and what `observed` adds; an undefined
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
    add("ece", m.ece);
    if (observed.referralRate)
        add("referral_rate", m.referralRate);
    if (!observed.iouClasses.empty()) {
        add("mean_iou", m.meanIoU);
        for (size_t c = 0; c < observed.iouClasses.size() && c < m.perClassIoU.size(); ++c)
            add("iou_" + observed.iouClasses[c], m.perClassIoU[c]);
    }
}

/// The reliability diagrams of a run as CSV, one row per (run, rule, bin):
/// [setting,]trial,method,rule,bin,lower,upper,count,confidence,accuracy. `keys` give each
/// diagram's setting, trial, method and rule (their metric is unused); empty bins have
/// empty confidence and accuracy cells.
inline std::string reliabilityCsv(const std::vector<std::pair<Observation, const DecisionMetrics*>>& diagrams)
{
    const std::string setting = diagrams.empty() ? std::string() : diagrams.front().first.setting;
    std::string out = (setting.empty() ? "" : setting + ",") + "trial,method,rule,bin,lower,upper,count,confidence,accuracy\n";
    for (const auto& [key, metrics] : diagrams) {
        const auto& bins = metrics->reliability;
        for (size_t b = 0; b < bins.size(); ++b) {
            if (!setting.empty())
                out += formatNumber(key.settingValue) + ",";
            out += std::to_string(key.trial) + "," + key.method + "," + key.rule + "," + std::to_string(b) + "," +
                   formatNumber(static_cast<double>(b) / static_cast<double>(bins.size())) + "," +
                   formatNumber(static_cast<double>(b + 1) / static_cast<double>(bins.size())) + "," +
                   std::to_string(bins[b].count) + "," + reportCell(bins[b].confidence) + "," +
                   reportCell(bins[b].accuracy) + "\n";
        }
    }
    return out;
}

} // namespace lcs
