#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <QHash>
#include <QList>
#include <QObject>
#include <QSize>
#include <QString>
#include <QStringList>
#include <QTimer>

#include "base/decision/cost_matrix.h"
#include "ui/session.h"
#include "ui/ui_types.h"

class QCustomPlot;
class QPainter;
class QWidget;

namespace lcs {
class Experiment;
}

namespace lcs::ui {

class CostEditor;
class CostMatrixModel;

/// One experiment a page serves: the id sessions and the command line use, and the
/// title the experiment chooser shows.
struct ExperimentEntry {
    QString id;
    QString title;

    /// The entry of a registered experiment: its name, and its title as a menu item.
    static ExperimentEntry of(const Experiment& experiment);
};

/// Everything experiment-specific behind the main window: the settings panel (for the
/// Experiment dock), the central view, the results widget (for the results dock), the
/// job runner and its connections, re-correction after a cost edit, the session part,
/// the last results, plot export, model files and the screenshot demo. The window
/// only shows what pages report through the generic signals below.
///
/// A page may serve several experiments (the image experiments share one runner and
/// one set of views); the window tells it which one is current through activate().
/// The cost matrix model is the window's, shared by every page: only the active page
/// reacts to its edits.
class ExperimentPage : public QObject {
    Q_OBJECT
public:
    /// `costs` and `costEditor` are the window's, shared by every page.
    ExperimentPage(CostMatrixModel* costs, CostEditor* costEditor, QObject* parent = nullptr);
    ~ExperimentPage() override;

    /// The experiments this page serves, in the chooser's order.
    virtual QList<ExperimentEntry> experiments() const = 0;
    bool serves(const QString& experiment) const;

    /// The widgets the window places; created with the page, owned by the window's
    /// stacks once placed.
    virtual QWidget* settingsWidget() const = 0;
    virtual QWidget* centralWidget() const = 0;
    virtual QWidget* resultsWidget() const = 0;
    /// The results dock's title while this page is shown.
    virtual QString resultsTitle() const = 0;
    /// A line for the log when the page is first shown (empty: none).
    virtual QString welcomeText() const { return {}; }

    /// The window switched to `experiment` (one of experiments()): the cost editor shows
    /// the matrix `experiment` had when last shown (else defaultCosts()), without undo
    /// history from elsewhere, and the page reacts to cost edits from now on.
    virtual void activate(const QString& experiment);
    /// Another experiment is shown: the page keeps the matrix of the one it showed and
    /// drops a scheduled re-correction.
    void deactivate();
    bool isActive() const { return m_active; }
    /// The current experiment while active, else the last one shown (or the first).
    QString experiment() const;
    /// The matrix `experiment` starts from before the user edits it.
    virtual CostMatrix defaultCosts(const QString& experiment) const = 0;
    /// The class names the cost presets take for this page; nullopt keeps the model's.
    virtual std::optional<std::vector<std::string>> presetClassNames() const { return std::nullopt; }
    /// Sets the shared matrix without it counting as the user's edit (no re-correction).
    void setCostsQuietly(const CostMatrix& costs);

    virtual bool isBusy() const = 0;
    /// The experiment's full run (Run, F5). The window calls these only when no page is busy.
    virtual void run() = 0;
    /// Sampling without correction; only where canSample().
    virtual bool canSample() const { return false; }
    virtual void sample() {}
    /// The cached state that a cost edit re-corrects exists for the current experiment.
    virtual bool canRecorrect() const = 0;
    virtual void recorrect() = 0;
    /// Cancels the running job and drops a pending re-correction.
    void cancel();
    /// Enables the page's own buttons; `anyBusy` counts every page's jobs.
    virtual void updateControls(bool anyBusy) { Q_UNUSED(anyBusy); }

    /// A File menu entry that opens the user's own files into one of this page's
    /// experiments: the window switches to `experiment`, then calls `ask` (dialogs over
    /// the widget given).
    struct OpenAction {
        QString title;
        QString experiment;
        std::function<void(QWidget*)> ask;
    };
    virtual QList<OpenAction> openActions() { return {}; }

    /// Model files (File > Export Model / Open Model), where the experiment has them.
    virtual bool hasModels() const { return false; }
    virtual bool canSaveModel() const { return false; }
    virtual void saveModel() {}
    /// File > Export Model without its dialog (the screenshot mode's --export-model): the
    /// shown model saved to `path`, answered by modelSaved. False where the page has no
    /// model to save this way (nothing is then saved or answered).
    virtual bool exportModelTo(const QString& path)
    {
        Q_UNUSED(path);
        return false;
    }
    virtual void openModel() {}

    /// Writes the current experiment's settings as its form holds them (unchecked: a
    /// required setting may still be missing) into `session`; the window has set
    /// `session.experiment` and the costs. Throws InputError naming a value the form
    /// cannot parse.
    virtual void writeSession(Session& session) const = 0;
    /// Applies a session of one of this page's experiments (the page is active),
    /// its cost matrix included.
    virtual void readSession(const Session& session) = 0;

    /// The last finished run's results in the CLI's formats (CSV may be empty).
    QString resultsJson() const { return m_resultsJson; }
    QString resultsCsv() const { return m_resultsCsv; }
    /// The base name results export suggests.
    QString resultsName() const { return m_resultsName; }
    /// Writes every plot of the page as PNG, SVG and PDF into `dir`; returns the
    /// errors and adds the number of files written to `written`.
    virtual QStringList exportPlots(const QString& dir, int& written) const;
    /// File > Export Plots: asks for a folder (dialogs over `dialogParent`), writes
    /// every plot there and reports through logLine / errorRaised.
    void exportPlotsAsked(QWidget* dialogParent);
    /// exportPlots into `dir`, all files or none; "" or the problem.
    QString exportPlotsStaged(const QString& dir) const;
    /// File > Export Results: asks for a JSON or CSV file and writes the last results.
    void exportResultsAsked(QWidget* dialogParent);
    /// Writes the last results to `path` (CSV for a .csv name, else JSON), atomically;
    /// the error message, or empty.
    QString exportResults(const QString& path) const;
    /// Seconds the last correction-only job took (negative before any).
    double lastRecorrectionSeconds() const { return m_lastRecorrectionSeconds; }

    /// Settings (name -> value) that make `experiment`'s run finish in about a minute
    /// here, for the screenshot demo; the form's others stay.
    virtual nlohmann::json demoSettings(const QString& experiment) const
    {
        Q_UNUSED(experiment);
        return nlohmann::json::object();
    }
    /// Screenshot demo: runs the experiment's pipeline quietly (no dialogs, the data
    /// not remembered); demoDone or demoFailed follows.
    void startDemo();
    bool demoMode() const { return m_demo; }

    /// Takes the matrix costsNeedReset offered (the data's 0/1 matrix). False when none
    /// is on offer.
    bool acceptOfferedCosts();
    /// The plots exportPlots() writes; pages with painted views override exportPlots.
    virtual QList<QCustomPlot*> plots() const { return {}; }

Q_SIGNALS:
    void jobStarted(const QString& name);
    void progress(const lcs::ui::JobProgress& progress);
    void logLine(const QString& line);
    void errorRaised(const QString& title, const QString& text);
    /// The status bar's timing text (how long the last job took).
    void timingChanged(const QString& text);
    /// `status` for the status bar; `complete` fills the progress bar.
    void jobEnded(const QString& status, bool complete);
    /// Busy, cache or results changed: the window's actions need updating.
    void stateChanged();
    void demoDone();
    /// exportModelTo finished: the files written, or the error (nothing written).
    void modelSaved(const QString& paths, const QString& error);
    /// A short note for the status bar (the matrix followed the data's classes).
    void statusNote(const QString& text);
    /// The user's matrix does not fit the data's classes: `text` says both; the window
    /// offers acceptOfferedCosts (then Run) or keeping the matrix.
    void costsNeedReset(const QString& text);
    /// `message` for stderr (without the program's prefix); `exitCode` 2 for missing data.
    void demoFailed(int exitCode, const QString& message);

protected:
    CostMatrixModel* costs() const { return m_costs; }
    CostEditor* costEditor() const { return m_costEditor; }
    /// What the exported plots show, first in their file names: the experiment, and where
    /// the page shows one task, its method and replicate ("tabular_kfac_laplace_r9").
    virtual QString plotFileContext() const { return experiment(); }
    /// Cancels the runner's job (cancel() has dropped the pending re-correction).
    virtual void cancelJob() = 0;
    /// A job is re-correcting: a newer edit cancels it rather than waiting for it.
    virtual bool recorrecting() const = 0;
    void setResults(const QString& json, const QString& csv, const QString& name);
    void setLastRecorrectionSeconds(double seconds) { m_lastRecorrectionSeconds = seconds; }
    /// True once: an edit came while a job ran and still needs its re-correction.
    bool takePendingRecorrection();
    void setRecorrectionPending() { m_recorrectPending = true; }
    /// The demo's ends: the main run finished, failed or was cancelled.
    void reportDemoFailure(const QString& what, const QString& hint, const QString& message, bool dataUnavailable);
    void reportDemoCancelled();
    /// The shown matrix is valid (for `classes` classes when > 0); else errorRaised says
    /// why and false.
    bool costsUsable(int classes = 0);
    /// The matrix `experiment` decides under by default for the form's `values`: from the
    /// values as they are, else from the declared defaults, else (an experiment that
    /// cannot say without data) the matrix shown.
    CostMatrix declaredDefaultCosts(const Experiment& experiment, const nlohmann::json& values) const;
    /// When data decides the classes (a table's label column), on opening it and before a
    /// run: a matrix nobody chose over other classes is replaced by the data's 0/1 one,
    /// and the status bar says so; a matrix the user edited, imported or a session brought
    /// is kept, and costsNeedReset offers the reset. False where the run must wait for
    /// that answer (the matrix does not fit). `settings` checked.
    bool adoptDataClasses(const Experiment& experiment, const nlohmann::json& settings);
    /// Exports one painted view (its paint function and size) in the three formats.
    static void exportPaintedView(const std::function<void(QPainter&)>& paint, const QSize& size,
                                  const QString& name, const QString& dir, int& written, QStringList& errors);

private:
    void onCostsChanged();
    void onRecorrectTimer();

    CostMatrixModel* m_costs = nullptr;
    CostEditor* m_costEditor = nullptr;
    QString m_experiment;
    QHash<QString, CostMatrix> m_costsByExperiment;  ///< each experiment keeps its own matrix
    bool m_active = false;
    bool m_quietCosts = false;
    /// The matrix was set by the user (an edit, an import, a preset) or by a session, not
    /// by the page: such a matrix is never replaced to fit the data, only refused.
    bool m_costsChosen = false;
    std::optional<CostMatrix> m_offeredCosts;  ///< the data's matrix costsNeedReset offered
    QHash<QString, bool> m_chosenByExperiment;
    bool m_recorrectPending = false;
    bool m_demo = false;
    QTimer m_recorrectTimer;
    double m_lastRecorrectionSeconds = -1;
    QString m_resultsJson, m_resultsCsv, m_resultsName;
};

} // namespace lcs::ui
