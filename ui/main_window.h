#pragma once

#include <memory>

#include <QElapsedTimer>
#include <QHash>
#include <QMainWindow>
#include <QTimer>

#include "camvid_job_runner.h"
#include "cost_matrix_model.h"
#include "image_job_runner.h"
#include "job_runner.h"
#include "session.h"

class QAction;
class QCheckBox;
class QComboBox;
class QDockWidget;
class QLabel;
class QLineEdit;
class QMenu;
class QPlainTextEdit;
class QProgressBar;
class QSpinBox;
class QStackedWidget;

namespace lcs::ui {

class CamvidExperimentPanel;
class CamvidIouTable;
class CamvidResultsPage;
class CostEditor;
class CurveView;
class ImageExperimentPanel;
class ImageResultsPage;
class ImageSummaryTable;
class RegionView;
class ResultsTable;
struct CamvidJobHooks;
struct ImageJobHooks;

/// LC Studio's main window: cost editing, experiment settings, background jobs, live
/// decision regions and curves, results, export and sessions.
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    /// `imageHooks` replace the image jobs' data loading and presets, `camvidHooks` the
    /// CamVid preset (tests).
    explicit MainWindow(QWidget* parent = nullptr, std::shared_ptr<const ImageJobHooks> imageHooks = {},
                        std::shared_ptr<const CamvidJobHooks> camvidHooks = {});
    ~MainWindow() override;

    CostMatrixModel* costModel() { return &m_costs; }
    JobRunner* runner() { return &m_runner; }
    ImageJobRunner* imageRunner() { return &m_imageRunner; }
    ImageExperimentPanel* imagePanel() const { return m_imagePanel; }
    ImageResultsPage* imagePage() const { return m_imagePage; }
    CamvidJobRunner* camvidRunner() { return &m_camvidRunner; }
    CamvidExperimentPanel* camvidPanel() const { return m_camvidPanel; }
    CamvidResultsPage* camvidPage() const { return m_camvidPage; }
    /// "synthetic", "corruption", "selective" or "camvid".
    QString experiment() const { return m_experiment; }
    void setExperiment(const QString& experiment);
    ExperimentSettings settings() const;
    void applySession(const Session& session);
    Session currentSession() const;
    /// Seconds the last correction-only job took (negative before any).
    double lastRecorrectionSeconds() const { return m_lastRecorrectionSeconds; }
    QString lastError() const { return m_lastError; }

    /// Screenshot mode: runs the whole pipeline of the current experiment, saves a PNG of
    /// the window and quits the application with 0, 1 with a message on stderr on
    /// failure, or 2 when an image experiment finds no data.
    void runDemoAndScreenshot(const QString& pngPath);

public Q_SLOTS:
    void runAll();
    void sampleOnly();
    void correctOnly();
    void cancelJob();
    /// Return false on failure, leaving the window as it was; lastError() says why.
    bool openSessionFile(const QString& path);
    bool saveSessionFile(const QString& path);

protected:
    void closeEvent(QCloseEvent* event) override;

private:
    void buildActions();
    void buildDocks();
    void startJob(JobRunner::Job job);
    void startImageJob(ImageJobRunner::Job job);
    void connectImageRunner();
    void startCamvidJob(CamvidJobRunner::Job job);
    void connectCamvidRunner();
    bool anyBusy() const;
    /// The experiment's cached state that a cost edit re-corrects exists.
    bool canRecorrect() const;
    void beginJobDisplay(const QString& name);
    void onStarted(JobRunner::Job job);
    void onProgress(const JobProgress& progress);
    void onTaskUpdated(const TaskView& view);
    void onJobEnded(JobRunner::Job job, const QString& status);
    void showSelectedTask();
    void updateActions();
    void log(const QString& line);
    void showError(const QString& title, const QString& text);
    void scheduleRecorrection();
    void addRecentFile(const QString& path);
    void rebuildRecentMenu();
    void openSession();
    void saveSession();
    void saveSessionAs();
    void exportPlots();
    void exportResults();
    void saveModel();
    void openModel();
    QString taskKey(int replicate, const QString& method) const;
    QStringList decisionNames() const;
    void setSessionPath(const QString& path);

    CostMatrixModel m_costs;
    JobRunner m_runner;
    ImageJobRunner m_imageRunner;
    CamvidJobRunner m_camvidRunner;

    CostEditor* m_costEditor = nullptr;
    RegionView* m_regions = nullptr;
    CurveView* m_curves = nullptr;
    ResultsTable* m_results = nullptr;
    QPlainTextEdit* m_log = nullptr;
    QProgressBar* m_progressBar = nullptr;
    QLabel* m_phaseLabel = nullptr;
    QLabel* m_timingLabel = nullptr;

    QSpinBox* m_replicates = nullptr;
    QHash<QString, QCheckBox*> m_methodBoxes;
    QLineEdit* m_seed = nullptr;
    QSpinBox* m_threads = nullptr;
    QSpinBox* m_iterations = nullptr;
    QSpinBox* m_gridResolution = nullptr;
    QComboBox* m_device = nullptr;
    QLabel* m_posteriorState = nullptr;

    QComboBox* m_experimentBox = nullptr;
    QStackedWidget* m_centralStack = nullptr;
    QStackedWidget* m_panelStack = nullptr;
    QStackedWidget* m_resultsStack = nullptr;
    QDockWidget* m_resultsDock = nullptr;
    ImageExperimentPanel* m_imagePanel = nullptr;
    ImageResultsPage* m_imagePage = nullptr;
    ImageSummaryTable* m_imageTable = nullptr;
    CamvidExperimentPanel* m_camvidPanel = nullptr;
    CamvidResultsPage* m_camvidPage = nullptr;
    CamvidIouTable* m_camvidTable = nullptr;
    CamvidJobRunner::Job m_currentCamvidJob = CamvidJobRunner::Job::Train;
    QString m_experiment = QStringLiteral("synthetic");
    QHash<QString, CostMatrix> m_costsByExperiment;  ///< each experiment keeps its own matrix
    bool m_applyingCosts = false;  ///< the window, not the user, is setting the matrix
    ImageJobRunner::Job m_currentImageJob = ImageJobRunner::Job::Run;
    QString m_lastResultsName = QStringLiteral("synthetic");

    QComboBox* m_viewMethod = nullptr;
    QSpinBox* m_viewReplicate = nullptr;
    QCheckBox* m_followTraining = nullptr;

    QAction* m_runAction = nullptr;
    QAction* m_sampleAction = nullptr;
    QAction* m_correctAction = nullptr;
    QAction* m_cancelAction = nullptr;
    QAction* m_saveModelAction = nullptr;
    QAction* m_exportResultsAction = nullptr;
    QMenu* m_recentMenu = nullptr;
    QMenu* m_viewMenu = nullptr;

    QHash<QString, TaskView> m_tasks;
    QString m_followedTask;
    QTimer m_recorrectTimer;
    bool m_recorrectPending = false;
    QElapsedTimer m_jobClock;
    JobRunner::Job m_currentJob = JobRunner::Job::RunAll;
    double m_lastRecorrectionSeconds = -1;
    QString m_lastResultsJson, m_lastResultsCsv;
    QString m_sessionPath;
    QString m_lastError;
    QString m_screenshotPath;
};

} // namespace lcs::ui
