#pragma once

#include <string>
#include <vector>

#include <ATen/core/Tensor.h>

#include "engine/experiments/image/corruption_experiment.h"
#include "engine/experiments/image/selective_experiment.h"
#include "ui/experiments/image/image_types.h"

/// Engine results -> the plain data the image views draw. Runs on the job's thread (it
/// reads tensors); never included by a moc'd header.
namespace lcs::ui {

/// One standardised image [C, H, W] (C = 1 or 3) back to 8-bit pixels:
/// round(255 * clamp(x * std[c] + mean[c], 0, 1)); Grayscale8 for one channel, RGB888
/// for three. The image owns its pixels. Missing statistics count as mean 0, std 1.
QImage imageFromStandardized(const at::Tensor& chw, const std::vector<double>& mean, const std::vector<double>& std);

/// The engine's comparison as a view: confusion counts, metrics, and each changed
/// decision with its test image (row `index` of `testImages`, un-standardised) when
/// `testImages` is defined. Class names from `classNames`; decision names from `costs`
/// (C classes, plus "refer" with a referral column).
ComparisonView comparisonView(const DecisionComparison& comparison, const std::vector<std::string>& classNames,
                              const CostMatrix& costs, const at::Tensor& testImages,
                              const std::vector<double>& mean, const std::vector<double>& std);

SummaryView summaryView(const CorruptionResult& result);
SummaryView summaryView(const SelectiveResult& result);
TrainingTimeView trainingTimeView(const SelectiveResult& result);
/// The first trial's curves at the largest referral cost (where the methods differ most).
RiskCoverageView riskCoverageView(const SelectiveResult& result);

/// Splits an engine progress detail ("rate 0.5, trial 1, sgld + S, epoch 3",
/// "sgld_s, rate 0.5, trial 1", "trial 1, ours, r 0.1, epoch 1") into the run (the
/// "rate ..." and "trial ..." parts) and the series (the rest, without "epoch N").
void splitProgressDetail(const std::string& detail, QString& run, QString& series);

} // namespace lcs::ui
