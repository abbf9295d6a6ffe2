#pragma once

#include <QHash>
#include <QWidget>

#include <nlohmann/json.hpp>

#include "engine/experiments/experiment.h"

class QLabel;
class QPushButton;
class QStackedWidget;

namespace lcs::ui {

class SettingsForm;

/// What a panel is built from beside its experiments.
struct ExperimentPanelOptions {
    QString name;               ///< object names' prefix: "<name>Run", "<name>Cancel" (tests find them)
    QString dataKey;            ///< QSettings key remembering the data setting (empty: none)
    QString dataFallback;       ///< the data before anything is remembered
    QString note;               ///< a paragraph under the form (empty: none)
};

/// The Experiment dock of a page: one settings form per experiment, derived from its
/// declaration (switching experiments keeps each one's values); the data setting is
/// remembered in QSettings; Run / Re-correct / Cancel and a state line.
class ExperimentPanel : public QWidget {
    Q_OBJECT
public:
    /// `experiments`: the registry entries the panel offers, the first one shown.
    ExperimentPanel(const QList<const Experiment*>& experiments, const ExperimentPanelOptions& options,
                    QWidget* parent = nullptr);

    /// Which experiment's form is shown (one of those given).
    void setExperiment(const QString& experiment);
    QString experiment() const { return m_experiment; }
    SettingsForm* form(const QString& experiment) const { return m_forms.value(experiment); }

    /// The current experiment's settings, checked (name -> value). Throws InputError
    /// naming the setting that cannot run.
    nlohmann::json settings() const;
    /// The current experiment's form as given (name -> value; settings left to their
    /// defaults are absent). Throws InputError naming a value it cannot parse.
    nlohmann::json values() const;
    /// Shows `settings` in the current experiment's form.
    void applySettings(const nlohmann::json& settings);
    /// Empty when the settings can run; else what is wrong, naming the setting. With
    /// `checkFolders`, a folder setting given as a path must be a folder.
    QString validate(bool checkFolders = true) const;
    /// Remembers the data field in QSettings (called when a run starts).
    void rememberData() const;

    void setBusy(bool busy, bool canRecorrect);
    void setState(const QString& text);

    /// The remembered data, else the options' fallback.
    QString rememberedData() const;

Q_SIGNALS:
    void runRequested();
    /// Preview: the run on kQuickPreviewFraction of the data (experiments with a preview).
    void previewRequested();
    void recorrectRequested();
    void cancelRequested();

private:
    ExperimentPanelOptions m_options;
    QString m_experiment;
    QHash<QString, const Experiment*> m_experiments;
    QHash<QString, SettingsForm*> m_forms;
    QStackedWidget* m_stack = nullptr;
    QPushButton *m_run = nullptr, *m_preview = nullptr, *m_recorrect = nullptr, *m_cancel = nullptr;
    QLabel* m_state = nullptr;
};

} // namespace lcs::ui
