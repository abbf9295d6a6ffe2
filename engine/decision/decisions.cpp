#include "engine/decision/decisions.h"

#include "engine/decision/confusion.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include <ATen/ATen.h>

#include "base/core/input_error.h"

namespace lcs {

at::Tensor costTensor(const CostMatrix& costs, at::ScalarType dtype, at::Device device)
{
    costs.validate();
    auto t = at::tensor(costs.values(), at::TensorOptions().dtype(at::kDouble))
                 .reshape({costs.numClasses(), costs.numDecisions()});
    return t.to(device, dtype);
}

at::Tensor expectedCosts(const at::Tensor& probs, const at::Tensor& costs)
{
    TORCH_CHECK(probs.dim() == 2 && costs.dim() == 2 && probs.size(1) == costs.size(0),
                "expectedCosts: probs [N, C] and costs [C, D] do not match: ", probs.sizes(), " vs ",
                costs.sizes());
    return probs.matmul(costs.to(probs.scalar_type()));
}

at::Tensor bayesDecisions(const at::Tensor& probs, const at::Tensor& costs)
{
    // at::argmin does not promise which of several equal minima it returns, so ties are
    // broken explicitly: the first column whose risk equals the row minimum.
    const auto risk = expectedCosts(probs, costs);
    const auto best = std::get<0>(risk.min(1, /*keepdim=*/true));
    const auto isMin = risk <= best;
    const auto d = risk.size(1);
    const auto order = at::arange(d, 0, -1, probs.options().dtype(at::kLong));  // d, d-1, ..., 1
    return (isMin.to(at::kLong) * order).argmax(1);
}

namespace {

/// p[k, j] = x[k, j] - max_k x[k, j]: logits shifted so that their exponentials cannot
/// overflow. Each loop runs along contiguous pixels.
__attribute__((target_clones("avx512f", "avx2", "default"))) void
subtractPixelMaximum(const float* x, int64_t c, int64_t pixels, float* top, float* p)
{
    std::copy(x, x + pixels, top);
    for (int64_t k = 1; k < c; ++k) {
        const float* __restrict plane = x + k * pixels;
        float* __restrict highest = top;
        for (int64_t j = 0; j < pixels; ++j)
            highest[j] = plane[j] > highest[j] ? plane[j] : highest[j];
    }
    for (int64_t k = 0; k < c; ++k) {
        const float* __restrict plane = x + k * pixels;
        float* __restrict q = p + k * pixels;
        const float* __restrict highest = top;
        for (int64_t j = 0; j < pixels; ++j)
            q[j] = plane[j] - highest[j];
    }
}

/// Divides each pixel's column of p [C, pixels] by its sum.
__attribute__((target_clones("avx512f", "avx2", "default"))) void
normalisePixels(float* p, int64_t c, int64_t pixels, float* scale)
{
    std::fill(scale, scale + pixels, 0.0f);
    for (int64_t k = 0; k < c; ++k) {
        const float* __restrict q = p + k * pixels;
        float* __restrict total = scale;
        for (int64_t j = 0; j < pixels; ++j)
            total[j] += q[j];
    }
    for (int64_t j = 0; j < pixels; ++j)
        scale[j] = 1.0f / scale[j];
    for (int64_t k = 0; k < c; ++k) {
        float* __restrict q = p + k * pixels;
        const float* __restrict factor = scale;
        for (int64_t j = 0; j < pixels; ++j)
            q[j] *= factor[j];
    }
}

/// For every pixel j of probability planes p [C, pixels], the first decision of least
/// R(dec) = sum_y L[y, dec] p[y, j]: 121 multiply-adds a pixel for CamVid's 11 x 11 table,
/// the bulk of a frame's decision. Compiled also for AVX2 and AVX-512, picked at load time
/// (the build's baseline is SSE2).
__attribute__((target_clones("avx512f", "avx2", "default"))) void
leastRiskDecisions(const float* p, const float* cost, int64_t c, int64_t d, int64_t pixels, float* best, float* risk,
                   int32_t* chosen)
{
    // In blocks of pixels, so that the running sums stay in the first-level cache.
    constexpr int64_t kBlock = 256;
    for (int64_t start = 0; start < pixels; start += kBlock) {
        const int64_t len = std::min(kBlock, pixels - start);
        float* __restrict least = best + start;
        int32_t* __restrict argument = chosen + start;
        for (int64_t dec = 0; dec < d; ++dec) {
            float* __restrict sum = risk;
            std::fill(sum, sum + len, 0.0f);
            for (int64_t y = 0; y < c; ++y) {
                const float weight = cost[y * d + dec];
                const float* __restrict q = p + y * pixels + start;
                for (int64_t j = 0; j < len; ++j)
                    sum[j] += weight * q[j];
            }
            if (dec == 0) {
                std::copy(sum, sum + len, least);
                std::fill(argument, argument + len, 0);
                continue;
            }
            const auto decision = static_cast<int32_t>(dec);
            for (int64_t j = 0; j < len; ++j) {
                // A bit mask rather than a conditional store, so that the loop vectorises.
                const int32_t lower = -static_cast<int32_t>(sum[j] < least[j]);
                least[j] = sum[j] < least[j] ? sum[j] : least[j];
                argument[j] = (argument[j] & ~lower) | (decision & lower);
            }
        }
    }
}

} // namespace

at::Tensor bayesDecisionsFromLogits(const at::Tensor& logits, const at::Tensor& costs)
{
    TORCH_CHECK(logits.dim() >= 2 && costs.dim() == 2 && logits.size(1) == costs.size(0),
                "bayesDecisionsFromLogits: logits [N, C, ...] and costs [C, D] do not match: ", logits.sizes(),
                " vs ", costs.sizes());
    std::vector<int64_t> outShape{logits.size(0)};
    for (int64_t k = 2; k < logits.dim(); ++k)
        outShape.push_back(logits.size(k));
    if (!logits.is_cpu() || logits.scalar_type() != at::kFloat) {
        const auto rows = logits.dim() == 2 ? logits : logits.movedim(1, -1).reshape({-1, logits.size(1)});
        return bayesDecisions(at::softmax(rows, 1), costs).reshape(outShape);
    }
    const int64_t n = logits.size(0), c = logits.size(1), d = costs.size(1);
    const int64_t pixels = logits.numel() / std::max<int64_t>(1, n * c);
    const auto x = logits.contiguous().view({n, c, pixels});
    const auto table = costs.to(at::kCPU, at::kFloat).contiguous();  // [C, D]
    const float* cost = table.data_ptr<float>();
    auto out = at::empty({n, pixels}, at::kLong);
    auto probs = at::empty({c, pixels}, at::kFloat);
    const auto size = static_cast<size_t>(pixels);
    std::vector<float> top(size), scale(size), risk(256), best(size);
    std::vector<int32_t> chosen(size);
    // Every loop below runs along contiguous pixels without branches, so the compiler
    // vectorises it; the class and decision loops are outside.
    for (int64_t i = 0; i < n; ++i) {
        const float* xi = x[i].data_ptr<float>();
        float* p = probs.data_ptr<float>();
        subtractPixelMaximum(xi, c, pixels, top.data(), p);
        probs.exp_();
        normalisePixels(p, c, pixels, scale.data());
        leastRiskDecisions(p, cost, c, d, pixels, best.data(), risk.data(), chosen.data());
        std::copy(chosen.begin(), chosen.end(), out[i].data_ptr<int64_t>());
    }
    return out.view(outShape);
}

ClassProbabilities toClassProbabilities(const at::Tensor& probs)
{
    TORCH_CHECK(probs.dim() == 2, "toClassProbabilities: probabilities must be [N, C], got ", probs.sizes());
    const auto d = probs.detach().to(at::kCPU, at::kDouble).contiguous();
    ClassProbabilities out;
    out.rows = d.size(0);
    out.classes = static_cast<int>(d.size(1));
    out.values.assign(d.data_ptr<double>(), d.data_ptr<double>() + d.numel());
    return out;
}

at::Tensor probabilitiesTensor(const ClassProbabilities& p)
{
    return at::from_blob(const_cast<double*>(p.values.data()), {p.rows, p.classes}, at::kDouble).to(at::kFloat);
}

DecisionMetrics evaluateDecisions(const at::Tensor& probsIn, const at::Tensor& decisionsIn,
                                  const at::Tensor& labelsIn, const CostMatrix& costs,
                                  int64_t ignoreLabel)
{
    const int C = costs.numClasses();
    const int D = costs.numDecisions();
    auto probs = probsIn.detach().to(at::kCPU, at::kDouble).contiguous();
    auto decisions = decisionsIn.detach().to(at::kCPU, at::kLong).contiguous();
    auto labels = labelsIn.detach().to(at::kCPU, at::kLong).contiguous();
    TORCH_CHECK(probs.dim() == 2 && probs.size(1) == C, "evaluateDecisions: probs must be [N, ", C, "], got ",
                probs.sizes());
    TORCH_CHECK(decisions.numel() == probs.size(0) && labels.numel() == probs.size(0),
                "evaluateDecisions: probs, decisions and labels disagree on N");

    DecisionMetrics m;
    m.numClasses = C;
    m.numDecisions = D;
    m.confusion.assign(static_cast<size_t>(C) * D, 0);

    const auto* p = probs.data_ptr<double>();
    const auto* dec = decisions.data_ptr<int64_t>();
    const auto* lab = labels.data_ptr<int64_t>();
    const int64_t n = probs.size(0);
    double expectedCostSum = 0, nllSum = 0;
    int64_t decided = 0;
    ReliabilityCounter reliability;
    for (int64_t i = 0; i < n; ++i) {
        const int64_t y = lab[i];
        if (y == ignoreLabel)
            continue;
        const int64_t d = dec[i];
        if (y < 0 || y >= C)
            throw std::out_of_range("evaluateDecisions: label " + std::to_string(y) + " at point "
                                    + std::to_string(i) + " outside 0.." + std::to_string(C - 1));
        if (d < 0 || d >= D)
            throw std::out_of_range("evaluateDecisions: decision " + std::to_string(d) + " at point "
                                    + std::to_string(i) + " outside 0.." + std::to_string(D - 1));
        ++m.count;
        for (int c = 0; c < C; ++c)
            expectedCostSum += p[i * C + c] * costs.at(c, static_cast<int>(d));
        ++m.confusion[static_cast<size_t>(y * D + d)];
        reliability.add(p + i * C, C, y);
        if (costs.hasReferral() && d == C)
            continue;
        ++decided;
        nllSum -= std::log(std::max(p[i * C + y], 1e-12));
    }
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const auto f = confusionFigures(m.confusion, costs);
    m.averageCost = f.averageCost;
    m.expectedCost = m.count ? expectedCostSum / m.count : nan;
    m.accuracy = f.accuracy;
    m.nll = decided ? nllSum / decided : nan;
    m.referralRate = f.referralRate;
    m.perClassIoU = f.perClassIoU;
    m.meanIoU = f.meanIoU;
    m.reliability = reliability.bins();
    m.ece = reliability.ece();
    requireFiniteMetrics(m);
    return m;
}

void requireFiniteMetrics(const DecisionMetrics& m)
{
    const auto require = [](double v, const char* name) {
        if (!std::isfinite(v))
            throw ResultError(std::string("the ") + name + " is " + (std::isnan(v) ? "nan" : "infinite") +
                              ": the probabilities the decisions were made from are not finite");
    };
    if (m.count == 0)
        return;
    require(m.averageCost, "average decision cost");
    require(m.expectedCost, "expected decision cost");
    // Accuracy is a ratio of counts: finite exactly when some point was decided.
    if (std::isfinite(m.accuracy))
        require(m.nll, "negative log-likelihood");
}

} // namespace lcs
