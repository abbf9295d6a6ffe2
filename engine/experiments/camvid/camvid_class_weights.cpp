#include <algorithm>
#include <cmath>
#include <vector>

#include <ATen/ATen.h>

#include "datasets/camvid_data.h"
#include "datasets/camvid_reader.h"
#include "engine/experiments/camvid/camvid_experiment.h"

namespace lcs {

std::vector<double> medianFrequencyWeights(const at::Tensor& labels, int64_t classes, int64_t ignoreLabel)
{
    const auto y = labels.reshape({-1}).to(at::kLong);
    const auto kept = y.index_select(0, y.ne(ignoreLabel).nonzero().flatten());
    TORCH_CHECK(kept.numel() == 0 || (kept.min().item<int64_t>() >= 0 && kept.max().item<int64_t>() < classes),
                "class balance: a label outside 0..", classes - 1);
    const auto counts = at::bincount(kept, {}, classes).to(at::kDouble);
    std::vector<double> share;
    const double total = std::max(1.0, counts.sum().item<double>());
    for (int64_t k = 0; k < classes; ++k)
        share.push_back(counts[k].item<double>() / total);
    std::vector<double> present;
    for (double f : share)
        if (f > 0)
            present.push_back(f);
    std::vector<double> weights(static_cast<size_t>(classes), 1.0);
    if (present.empty())
        return weights;
    // The median of an even count: the mean of the middle two.
    std::sort(present.begin(), present.end());
    const size_t n = present.size();
    const double median = n % 2 == 1 ? present[n / 2] : 0.5 * (present[n / 2 - 1] + present[n / 2]);
    for (size_t k = 0; k < weights.size(); ++k)
        if (share[k] > 0)
            weights[k] = median / share[k];
    return weights;
}

std::vector<double> cwSgdClassWeights(const CamvidTrainConfig& config, const at::Tensor& trainLabels)
{
    std::vector<double> weights(static_cast<size_t>(kCamvidRealClasses), 1.0);
    if (config.classBalancePower != 0) {
        weights = medianFrequencyWeights(trainLabels, kCamvidRealClasses, kCamvidVoid);
        for (auto& w : weights)
            w = std::pow(w, config.classBalancePower);
    }
    for (int k : camvidFavouredClasses())
        weights[static_cast<size_t>(k)] *= config.cwWeight;
    return weights;
}

} // namespace lcs
