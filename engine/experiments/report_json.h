#pragma once

#include <cmath>
#include <string>

#include <nlohmann/json.hpp>

#include "core/number_format.h"
#include "experiments/synthetic_experiment.h"

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

} // namespace lcs
