#pragma once

#include <string>
#include <vector>

#include "engine/experiments/image/corruption_experiment.h"
#include "engine/experiments/image/selective_experiment.h"
#include "engine/experiments/run_views.h"
#include "ui/experiments/image/image_types.h"
#include "ui/job_runner.h"

/// Engine results (plain data) -> the Qt types the image views draw. Never included by
/// a moc'd header.
namespace lcs::ui {

/// The engine's pixels as an image that owns them: Grayscale8 for one channel, RGB888 for
/// three; a null image for none.
QImage imageOf(const Pixels& pixels);

/// The engine's comparison as a view: confusion counts, metrics, and each changed
/// decision with its test image (`images`, parallel to comparison.changed, where given).
/// Class names from `classNames`; decision names from `costs` (C classes, plus "refer"
/// with a referral column).
ComparisonView comparisonView(const DecisionComparison& comparison, const std::vector<std::string>& classNames,
                              const CostMatrix& costs, const std::vector<Pixels>& images = {});

SummaryView summaryView(const CorruptionResult& result);
SummaryView summaryView(const SelectiveResult& result);
TrainingTimeView trainingTimeView(const SelectiveResult& result);
/// The first trial's curves at the largest referral cost (where the methods differ most).
RiskCoverageView riskCoverageView(const SelectiveResult& result);

/// Splits an engine progress detail ("rate 0.5, trial 1, sgld + S, epoch 3",
/// "sgld_s, rate 0.5, trial 1", "trial 1, ours, r 0.1, epoch 1") into the run (the
/// "rate ..." and "trial ..." parts) and the series (the rest, without "epoch N").
void splitProgressDetail(const std::string& detail, QString& run, QString& series);

/// The image page's side of the job runner: the run's views (data loaded, q against the
/// rule it corrects, the finished result) and its progress (epoch and training curves)
/// as the values the image views draw, converted on the job's thread; curve points go out
/// in batches. A re-correction's curve is named after the cached run it re-trains.
class ImageViewAdapter : public ViewAdapter {
public:
    void begin(JobKind job, const JobRequest& request) override;
    void show(const ViewEvent& event, const ViewSink& sink) override;
    void collect(const Progress& report) override;
    void planned(const TaskPlan& plan) override;
    void flush(const ViewSink& sink) override;

private:
    JobKind m_job = JobKind::Run;
    bool m_selective = false;
    QString m_run, m_series;  ///< set for every point of a re-correction (its progress names neither)
    QVector<EpochPoint> m_epochs;
    QVector<TrainingPoint> m_training;
};

} // namespace lcs::ui
