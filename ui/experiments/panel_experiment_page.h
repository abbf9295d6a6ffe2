#pragma once

#include <optional>

#include <nlohmann/json.hpp>

#include "ui/experiment_panel.h"
#include "ui/experiments/experiment_page.h"

namespace lcs::ui {

/// A page whose Experiment dock is an ExperimentPanel: one settings form per experiment
/// it serves, derived from the registry's declarations. What every such page does the
/// same way lives here: the experiments it lists, the docks' widgets, the panel's
/// buttons, sessions (the panel's values and the matrix), and the checks before a job.
class PanelExperimentPage : public ExperimentPage {
    Q_OBJECT
public:
    /// `experiments`: the registry entries served, the first one shown.
    PanelExperimentPage(const QList<const Experiment*>& experiments, const ExperimentPanelOptions& options,
                        CostMatrixModel* costs, CostEditor* costEditor, QObject* parent = nullptr);

    ExperimentPanel* panel() const { return m_panel; }

    QList<ExperimentEntry> experiments() const override;
    QWidget* settingsWidget() const override { return m_panel; }
    QWidget* centralWidget() const override { return m_central; }
    QWidget* resultsWidget() const override { return m_results; }
    void activate(const QString& experiment) override;
    void updateControls(bool anyBusy) override;
    void writeSession(Session& session) const override;
    void readSession(const Session& session) override;

protected:
    /// The page's views, created by the subclass (owned by the window's docks once placed).
    void setViews(QWidget* central, QWidget* results);
    /// The current experiment's settings for a job, checked; for a full run (`run`) the
    /// panel's checks too and the data remembered (not in a demo: a demo lets the worker
    /// refuse bad data, so that it exits 2 naming the path). Nothing when refused: the
    /// page has said why (errorRaised).
    std::optional<nlohmann::json> settingsForJob(bool run);

private:
    QList<const Experiment*> m_served;
    ExperimentPanel* m_panel = nullptr;
    QWidget* m_central = nullptr;
    QWidget* m_results = nullptr;
    bool m_previewNext = false;  ///< the next run() is the Preview button's
};

} // namespace lcs::ui
