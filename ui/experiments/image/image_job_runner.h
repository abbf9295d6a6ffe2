#pragma once

#include <memory>

#include "ui/experiments/image/image_types.h"
#include "ui/job_runner.h"

namespace lcs::ui {

class ImageWorker;

/// The image experiments (label corruption, selective classification) on the one
/// JobRunner, a view adapter over the one run path: every job runs the registry's entry
/// (runExperiment; a re-correction on the state its run left), and the run's typed views
/// (data, comparisons, the finished result) and progress become queued signals with
/// plain data, throttled to about 10 Hz. The worker keeps the last run's state to
/// re-correct, so a cost edit re-trains only q, and the model files the run saved, so
/// that they can be exported.
class ImageJobRunner : public JobRunner {
    Q_OBJECT
public:
    explicit ImageJobRunner(QObject* parent = nullptr);

    /// kCorruptionExperiment or kSelectiveExperiment: the experiment whose S is cached.
    QString cacheExperiment() const { return m_cacheExperiment; }
    /// False (and nothing done) while another job runs.
    /// `settings`: `experiment`'s declared settings, checked (checkedSettings).
    bool start(Job job, const QString& experiment, const nlohmann::json& settings, const CostMatrix& costs);

    /// The model files ("<stem>.pt", each with its sidecar "<stem>.pt.json") of the
    /// networks the last finished run trained, and that run's experiment; empty when no
    /// run finished since the last one started (failed, cancelled) or none trained any.
    QStringList networkFiles() const { return m_networkFiles; }
    QString networksExperiment() const { return m_networksExperiment; }
    bool hasNetworks() const { return !m_networkFiles.isEmpty(); }
    /// Copies those files into `dir` (all of them or none) on the job thread; answers
    /// with networksSaved. False (nothing done) while a job runs or with no networks.
    bool saveNetworks(const QString& dir);
    /// Decides the test images of the data `request` names (loaded as a run loads it)
    /// with the image classifier at `path`, under `costs` or, where they do not fit, its
    /// sidecar's: a kOpenModel job whose results are the figures. False while a job runs.
    bool openModel(const QString& path, const ImageRunRequest& request, const CostMatrix& costs);

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
    /// The networks a finished run left (networkFiles()); empty lists when a run starts.
    void networksChanged(const QString& experiment, const QStringList& files);
    /// saveNetworks ended: the files written into `dir`, or the error (nothing written).
    void networksSaved(const QString& dir, const QStringList& files, const QString& error);

private:
    QString m_cacheExperiment;
    QString m_networksExperiment;
    QStringList m_networkFiles;
};

} // namespace lcs::ui
