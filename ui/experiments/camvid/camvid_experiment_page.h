#pragma once

#include <memory>

#include "ui/experiments/camvid/camvid_types.h"
#include "ui/job_runner.h"
#include "ui/experiments/panel_experiment_page.h"

namespace lcs {
class Experiment;
}

namespace lcs::ui {

class CamvidIouTable;
class CamvidResultsPage;
class CostEditor;

/// The CamVid segmentation experiment (the paper's Fig. 5): data folder and preset in
/// the Experiment dock; the overlay viewer, IoU bars, live curves and frames per second
/// in the centre; per-class IoU of S and q in the results dock. The worker keeps S, so
/// a cost edit re-trains only q and re-evaluates.
class CamvidExperimentPage : public PanelExperimentPage {
    Q_OBJECT
public:
    /// `costEditor` learns the 12 classes.
    CamvidExperimentPage(CostMatrixModel* costs, CostEditor* costEditor, QObject* parent = nullptr);
    ~CamvidExperimentPage() override;

    CamvidResultsPage* page() const { return m_page; }

    QString resultsTitle() const override;
    CostMatrix defaultCosts(const QString& experiment) const override;
    std::optional<std::vector<std::string>> presetClassNames() const override;

    bool canRecorrect() const override { return m_runner.hasCache(); }

    /// Export Model: the cached run's networks as a model folder of `lcstudio-cli camvid
    /// train`'s layout. Open Model: a model folder evaluated on the form's validation
    /// frames, shown like a run's evaluation.
    bool hasModels() const override { return true; }
    bool canSaveModel() const override { return !m_runner.isBusy() && m_runner.hasCache(); }
    void saveModel() override;
    void openModel() override;
    /// The two without their dialogs: into the folder `dir`; from a model folder or its
    /// camvid.json.
    void saveModelTo(const QString& dir);
    void openModelFrom(const QString& path);

    nlohmann::json demoSettings(const QString&) const override { return {{"preset", "demo"}}; }
    QStringList exportPlots(const QString& dir, int& written) const override;

protected:
    QList<QCustomPlot*> plots() const override;
    void startJob(JobKind job) override;

private:
    static const Experiment& experiment();
    void connectRunner();
    /// The window's matrix, or nothing after saying why it cannot decide CamVid.
    std::optional<CostMatrix> checkedCosts();

    CamvidResultsPage* m_page = nullptr;
    CamvidIouTable* m_table = nullptr;
    CostMatrix m_runCosts;  ///< the matrix the running job started with, to tell edits made meanwhile
    QString m_openedFolder; ///< the model folder the running (or last) kOpenModel job evaluates
};

} // namespace lcs::ui
