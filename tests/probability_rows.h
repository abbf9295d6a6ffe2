#pragma once

#include <utility>
#include <vector>

#include "engine/decision/evidence.h"

/// Rows of `classes` probabilities from one flat list, row after row: how the evidence's
/// tests write a predictive by hand.
inline lcs::ClassProbabilities rows(int classes, std::vector<double> values)
{
    lcs::ClassProbabilities p;
    p.classes = classes;
    p.rows = static_cast<int64_t>(values.size()) / classes;
    p.values = std::move(values);
    return p;
}
