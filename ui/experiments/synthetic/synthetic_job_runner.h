#pragma once

#include "engine/experiments/experiment_names.h"
#include "ui/job_runner.h"
#include "ui/ui_types.h"

namespace lcs::ui {

class SyntheticWorker;

/// A job of the synthetic page: which experiment (the generated plane or a user's table,
/// both on SyntheticConfig) with its declared settings, checked.
struct SyntheticRequest {
    QString experiment;
    nlohmann::json settings;
};

/// The synthetic experiment's jobs on the one JobRunner: sampling, correction or both.
/// The posterior predictive of the last sampling run stays cached on the worker, so a
/// new cost matrix re-runs only the correction. Adds the page's views (decision regions
/// per task, result rows) and saving / loading q.
class SyntheticJobRunner : public JobRunner {
    Q_OBJECT
public:
    explicit SyntheticJobRunner(QObject* parent = nullptr);

    /// True once a sampling run has finished (a correction can run on its cache).
    bool hasPosterior() const { return hasCache(); }
    /// Settings the cached posterior was sampled with (name -> value, checked).
    const nlohmann::json& posteriorSettings() const { return m_posteriorSettings; }
    /// Number of (replicate, method) inference runs performed so far: a correction-only
    /// job must leave it unchanged.
    int inferenceRuns() const;

    /// False (and nothing done) while another job runs.
    /// `settings`: `experiment`'s declared settings, checked (checkedSettings).
    bool start(Job job, const nlohmann::json& settings, const CostMatrix& costs,
               const QString& experiment = QString::fromLatin1(kSyntheticExperiment));
    /// Saves q of (replicate, method) from the last correction (plus MAP / last sample)
    /// with JSON sidecars; answers with modelSaved. False while a job runs.
    bool saveModel(int replicate, const QString& method, const QString& path);
    /// Loads the q saved at `path` and decides with it over the plane `experiment`'s
    /// `settings` (checked) name, at their grid: the experiment's kEvaluateAction.
    /// Answers with modelLoaded. False while a job runs.
    bool loadModel(const QString& experiment, const nlohmann::json& settings, const QString& path,
                   const CostMatrix& costs);

Q_SIGNALS:
    void taskUpdated(const lcs::TaskView& view);
    void resultRow(const lcs::ResultRow& row);
    /// A user's predictive corrected with labels: the held-out evidence, under `costs`.
    void correctionEvidence(const lcs::CorrectionEvidence& evidence, const lcs::CostMatrix& costs);
    void modelSaved(const QString& paths, const QString& error);
    void modelLoaded(const lcs::TaskView& view, const QString& error);
    /// A sampling run finished with these settings (posteriorSettings()).
    void posteriorReady(const nlohmann::json& settings);

private:
    nlohmann::json m_posteriorSettings;
};

} // namespace lcs::ui

Q_DECLARE_METATYPE(lcs::ui::SyntheticRequest)
