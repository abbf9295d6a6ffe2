#pragma once

#include <cmath>

#include <nlohmann/json.hpp>

#include "experiments/synthetic_experiment.h"

/// Number conventions shared by every experiment's JSON report.
namespace lcs {

/// JSON has no NaN: an undefined metric (accuracy with everything referred) is null.
inline nlohmann::json reportNumber(double v)
{
    return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}

inline nlohmann::json reportMeanStd(const MeanStd& m)
{
    return {{"mean", reportNumber(m.mean)}, {"std", reportNumber(m.std)}};
}

} // namespace lcs
