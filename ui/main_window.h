#pragma once

#include <memory>
#include <utility>

#include <QList>
#include <QMainWindow>

#include "ui/cost_matrix_model.h"
#include "ui/experiments/experiment_page.h"
#include "ui/experiments/screenshot_demo.h"
#include "ui/session.h"

class QAction;
class QDockWidget;
class QMenu;
class QPlainTextEdit;
class QStackedWidget;

namespace lcs::ui {

class CostEditor;
class ExperimentChooser;
class SweepView;

/// LC Studio's main window: menus, the cost matrix, Experiment, results and log docks,
/// the status bar, the experiment chooser and the current experiment's page. Everything
/// experiment-specific lives in the pages (ExperimentPage); the window shows what they
/// report.
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    /// Tests inject their data into the experiment registry (ExperimentRegistry::replace).
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    CostMatrixModel* costModel() { return &m_costs; }
    const QList<ExperimentPage*>& pages() const { return m_pages; }
    /// The page shown now.
    ExperimentPage* currentPage() const { return m_page; }
    /// The current experiment's id, as sessions and the command line name it.
    QString experiment() const { return m_experiment; }
    /// Every experiment id the pages serve, in the chooser's order.
    QStringList experiments() const;
    void setExperiment(const QString& experiment);
    void applySession(const Session& session);
    Session currentSession() const;
    /// Seconds the current page's last correction-only job took (negative before any).
    double lastRecorrectionSeconds() const { return m_page->lastRecorrectionSeconds(); }
    QString lastError() const { return m_lastError; }
    /// The sweep window (File > Open Sweep), or null before a sweep was opened.
    SweepView* sweepView() const { return m_sweepView; }

    /// Screenshot mode: runs the whole pipeline of the current experiment, saves a PNG of
    /// the window and quits the application with 0, 1 with a message on stderr on
    /// failure, or 2 when the experiment finds no data.
    /// `edits` (true class, decision, value) are made in the cost editor's model after the
    /// run, and with `modelPath` the shown model is then saved (screenshot_demo.h).
    void runDemoAndScreenshot(const QString& pngPath, const QString& plotsDir = QString(),
                              const QString& tab = QString(), const QList<ScreenshotSteps::CostEdit>& edits = {},
                              const QString& modelPath = QString());

public Q_SLOTS:
    void runAll();
    void sampleOnly();
    void correctOnly();
    void cancelJob();
    /// Return false on failure, leaving the window as it was; lastError() says why.
    bool openSessionFile(const QString& path);
    bool saveSessionFile(const QString& path);
    /// Shows the sweep folder `dir` (lcstudio-cli sweep plan) in the sweep window: its
    /// cells' states and figure. Returns false (lastError() says why) when it is not one.
    bool openSweepFolder(const QString& dir);

protected:
    void closeEvent(QCloseEvent* event) override;
    void showEvent(QShowEvent* event) override;
    /// A spin box or combo box without focus passes the mouse wheel on to the form it
    /// sits in (which scrolls) instead of changing its value under the pointer.
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void buildActions();
    void buildFileMenu();
    /// The Edit menu; returns its Undo and Redo (the toolbar shows them too).
    std::pair<QAction*, QAction*> buildEditMenu();
    void buildDocks();
    void connectPage(ExperimentPage* page);
    bool anyBusy() const;
    void updateActions();
    void log(const QString& line);
    /// The page's matrix does not fit its data: a dialog offers the reset (then Run).
    void offerCostsReset(const QString& text);
    void showError(const QString& title, const QString& text);
    void addRecentFile(const QString& path);
    void rebuildRecentMenu();
    void saveSessionAs();
    /// `path` is now the session's file: title, recent files, `logLine` in the log.
    void sessionFileUsed(const QString& path, const QString& logLine);

    CostMatrixModel m_costs;
    CostEditor* m_costEditor = nullptr;
    QList<ExperimentPage*> m_pages;
    ExperimentPage* m_page = nullptr;
    QString m_experiment;

    ExperimentChooser* m_chooser = nullptr;
    QStackedWidget* m_centralStack = nullptr;
    QStackedWidget* m_resultsStack = nullptr;
    // Cost matrix over experiment on the left, results over log on the right.
    QDockWidget *m_costDock = nullptr, *m_experimentDock = nullptr;
    QDockWidget *m_resultsDock = nullptr, *m_logDock = nullptr;
    QPlainTextEdit* m_log = nullptr;

    QAction* m_runAction = nullptr;
    QAction* m_sampleAction = nullptr;
    QAction* m_correctAction = nullptr;
    QAction* m_cancelAction = nullptr;
    QAction* m_saveModelAction = nullptr;
    QAction* m_openModelAction = nullptr;
    QList<QAction*> m_openActions;  ///< the pages' File > Open entries (data, predictive)
    QAction* m_exportResultsAction = nullptr;
    QMenu* m_recentMenu = nullptr;

    SweepView* m_sweepView = nullptr;  ///< a window of its own, made on the first Open Sweep
    QString m_sessionPath;
    QString m_lastError;
    bool m_docksFitted = false;
};

} // namespace lcs::ui
