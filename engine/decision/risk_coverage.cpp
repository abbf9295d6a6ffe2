#include "engine/decision/risk_coverage.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <ATen/ATen.h>

namespace lcs {

RiskCoverage riskCoverage(const at::Tensor& probsIn, const at::Tensor& labelsIn, int points)
{
    const auto probs = probsIn.to(at::kDouble).contiguous();
    const auto labels = labelsIn.to(at::kLong).contiguous();
    if (probs.dim() != 2 || labels.dim() != 1 || probs.size(0) != labels.size(0) || probs.size(0) == 0)
        throw std::invalid_argument("riskCoverage: probs [N, C] and labels [N] with N > 0 are needed");
    if (points < 2)
        throw std::invalid_argument("riskCoverage: at least 2 coverage levels");
    const auto [confidence, predicted] = probs.max(1);
    // Most confident first; a stable sort keeps input order among equal confidences.
    const auto order = at::argsort(-confidence, /*stable=*/true, /*dim=*/0, /*descending=*/false);
    const auto errors = (predicted != labels).index_select(0, order).to(at::kDouble);
    const auto cumulative = errors.cumsum(0);
    const int64_t n = errors.size(0);
    const auto k = at::arange(1, n + 1, at::kDouble);
    const auto risks = (cumulative / k).contiguous();
    const double* r = risks.data_ptr<double>();
    RiskCoverage out;
    out.aurc = risks.mean().item<double>();
    int64_t previous = 0;
    for (int i = 0; i < points; ++i) {
        const double c = static_cast<double>(i + 1) / points;
        const auto kept = std::clamp<int64_t>(static_cast<int64_t>(std::ceil(c * static_cast<double>(n) - 1e-9)), 1, n);
        if (kept == previous)
            continue;
        previous = kept;
        out.coverage.push_back(static_cast<double>(kept) / static_cast<double>(n));
        out.risk.push_back(r[kept - 1]);
    }
    return out;
}

} // namespace lcs
