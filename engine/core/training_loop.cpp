#include "engine/core/training_loop.h"

#include <algorithm>
#include <cmath>

#include <string>

#include <torch/torch.h>

#include "base/core/input_error.h"

namespace lcs {

double scheduledLearningRate(LrSchedule schedule, double maxLr, long long step, long long total)
{
    if (total <= 1 || schedule == LrSchedule::Constant)
        return maxLr;
    const auto cosineFrom = [](double start, double end, double fraction) {
        return end + (start - end) * 0.5 * (1.0 + std::cos(M_PI * fraction));
    };
    if (schedule == LrSchedule::Cosine)
        return cosineFrom(maxLr, 0.0, static_cast<double>(std::clamp(step, 0LL, total)) / static_cast<double>(total));
    const double t = static_cast<double>(std::min(step, total - 1)) / static_cast<double>(total - 1);
    // OneCycleLR defaults: pct_start 0.3, div_factor 25, final_div_factor 1e4.
    const double initial = maxLr / 25.0;
    const double final = initial / 1e4;
    constexpr double warm = 0.3;
    if (t <= warm)
        return cosineFrom(initial, maxLr, t / warm);
    return cosineFrom(maxLr, final, (t - warm) / (1.0 - warm));
}

void requireFiniteLoss(double loss, const char* what, long long step)
{
    if (std::isfinite(loss))
        return;
    throw ResultError(std::string(what) + " diverged at step " + std::to_string(step) + ": the loss is " +
                      (std::isnan(loss) ? "nan" : "infinite") +
                      "; lower its learning rate (or check the data for extreme values)");
}

torch::Device deviceOf(const torch::nn::Module& m)
{
    const auto params = m.parameters();
    return params.empty() ? torch::Device(torch::kCPU) : params.front().device();
}

void setLearningRate(torch::optim::Optimizer& optimizer, double lr)
{
    for (auto& group : optimizer.param_groups())
        group.options().set_lr(lr);
}

std::vector<at::Tensor> shuffledBatches(int64_t n, int64_t batchSize, at::Generator& generator)
{
    const auto order = at::randperm(n, generator, at::kLong);
    std::vector<at::Tensor> batches;
    for (int64_t start = 0; start < n; start += batchSize)
        batches.push_back(order.slice(0, start, std::min(start + batchSize, n)));
    return batches;
}

long long batchesPerEpoch(int64_t n, int64_t batchSize)
{
    return (n + batchSize - 1) / batchSize;
}

std::vector<at::Tensor> epochBatches(int64_t n, int64_t batchSize, at::Generator& generator)
{
    if (batchSize <= 0 || batchSize >= n)
        return {at::Tensor()};
    return shuffledBatches(n, batchSize, generator);
}

long long stepsPerEpoch(int64_t n, int64_t batchSize)
{
    return batchSize <= 0 || batchSize >= n ? 1 : batchesPerEpoch(n, batchSize);
}
at::Tensor classRows(const at::Tensor& t)
{
    return t.dim() > 2 ? t.movedim(1, -1).reshape({-1, t.size(1)}) : t;
}

} // namespace lcs
