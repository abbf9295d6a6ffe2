#pragma once

#include <memory>

#include "ui/experiments/image/image_types.h"
#include "ui/job_runner.h"
#include "ui/experiments/panel_experiment_page.h"

namespace lcs::ui {

class CostEditor;
class ImageResultsPage;
class ImageSummaryTable;

/// The image experiments, label corruption (the paper's Fig. 4) and selective
/// classification (Fig. 3): one page serves both, since they share the runner (its
/// cached student S belongs to one of them), the settings panel and the views.
class ImageExperimentPage : public PanelExperimentPage {
    Q_OBJECT
public:
    /// `costEditor` learns the number of classes the data brings. Runs go through the
    /// registry's entries (where tests inject tiny data).
    ImageExperimentPage(CostMatrixModel* costs, CostEditor* costEditor, QObject* parent = nullptr);
    ~ImageExperimentPage() override;
    /// The page's job names and view adapter (tests build the same runner).
    static JobNames jobNames();
    static std::unique_ptr<ViewAdapter> viewAdapter();

    ImageResultsPage* page() const { return m_page; }

    QString resultsTitle() const override;
    void activate(const QString& experiment) override;
    CostMatrix defaultCosts(const QString& experiment) const override;

    bool canRecorrect() const override;

    /// Export Model: every network the last finished run of the shown experiment trained,
    /// as `--save-models` writes them. Open Model: an exported image classifier decides
    /// the test images of the data the form names; its figures become the results.
    bool hasModels() const override { return true; }
    bool canSaveModel() const override;
    void saveModel() override;
    void openModel() override;
    /// The two without their dialogs: into the folder `dir`, from the file `path`.
    void saveModelTo(const QString& dir);
    void openModelFrom(const QString& path);

    nlohmann::json demoSettings(const QString& experiment) const override;
    QStringList exportPlots(const QString& dir, int& written) const override;

protected:
    QList<QCustomPlot*> plots() const override;
    void startJob(JobKind job) override;

private:
    void connectRunner();
    void jobFinished(JobKind job, double seconds, const QString& json, const QString& csv);

    ImageResultsPage* m_page = nullptr;
    ImageSummaryTable* m_table = nullptr;
    CostMatrix m_runCosts;  ///< the matrix the running job's data set up, to tell edits made meanwhile
    QString m_openedModel;  ///< the model the running (or last) kOpenModel job decides with
};

} // namespace lcs::ui
