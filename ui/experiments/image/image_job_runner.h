#pragma once

#include <memory>

#include "image_types.h"
#include "job_runner.h"

namespace lcs::ui {

struct ImageJobHooks;
class ImageWorker;

/// The image experiments (label corruption, selective classification) on the one
/// JobRunner: engine progress becomes queued signals with plain data, throttled to about
/// 10 Hz. The worker keeps the last run's student S (the engine's CorrectionCache), so a
/// cost edit re-trains only q. Adds the page's views: data, curves, comparisons.
class ImageJobRunner : public JobRunner {
    Q_OBJECT
public:
    explicit ImageJobRunner(QObject* parent = nullptr, std::shared_ptr<const ImageJobHooks> hooks = {});

    /// kCorruptionExperiment or kSelectiveExperiment: the experiment whose S is cached.
    QString cacheExperiment() const { return m_cacheExperiment; }
    /// False (and nothing done) while another job runs.
    /// `settings`: `experiment`'s declared settings, checked (checkedSettings).
    bool start(Job job, const QString& experiment, const nlohmann::json& settings, const CostMatrix& costs);

Q_SIGNALS:
    /// The data set is loaded; `info.costs` is the matrix the run decides with.
    void dataReady(const lcs::ui::ImageDataInfo& info);
    void epochPoints(const QVector<lcs::ui::EpochPoint>& points);
    void trainingPoints(const QVector<lcs::ui::TrainingPoint>& points);
    void comparison(const lcs::ui::ComparisonView& view);
    void summary(const lcs::ui::SummaryView& view);
    void trainingTime(const lcs::ui::TrainingTimeView& view);
    void riskCoverage(const lcs::ui::RiskCoverageView& view);
    /// The experiment whose S is now cached (cacheExperiment()).
    void cacheExperimentChanged(const QString& experiment);

private:
    QString m_cacheExperiment;
};

} // namespace lcs::ui
