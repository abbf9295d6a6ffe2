#include "main_window.h"

#include <cstdio>

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QCloseEvent>
#include <QComboBox>
#include <QDockWidget>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QKeySequence>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSaveFile>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QSplitter>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTime>
#include <QToolBar>
#include <QUndoStack>
#include <QVBoxLayout>

#include "qcustomplot_compat.h"

#include "core/atomic_file.h"
#include "inference/method_catalog.h"

#include "camvid_job_hooks.h"
#include "camvid_page.h"
#include "camvid_panel.h"
#include "camvid_views.h"
#include "cost_editor.h"
#include "curve_view.h"
#include "file_dialogs.h"
#include "image_job_hooks.h"
#include "image_page.h"
#include "image_panel.h"
#include "image_views.h"
#include "plot_export.h"
#include "region_view.h"
#include "results_table.h"

namespace lcs::ui {

namespace {

/// The engine's catalogue, as the strings the window stores and shows.
QStringList methodNames()
{
    QStringList out;
    for (auto m : allMethods())
        out << QString::fromStdString(methodName(m));
    return out;
}
constexpr int kMaxRecent = 8;

QString writeText(const QString& path, const QString& text)
{
    try {
        writeFileAtomically(path.toStdString(), text.toStdString());
        return {};
    } catch (const std::exception& e) {
        return QString::fromStdString(e.what());
    }
}

} // namespace

MainWindow::MainWindow(QWidget* parent, std::shared_ptr<const ImageJobHooks> imageHooks,
                       std::shared_ptr<const CamvidJobHooks> camvidHooks)
    : QMainWindow(parent), m_imageRunner(nullptr, std::move(imageHooks)), m_camvidRunner(nullptr, std::move(camvidHooks))
{
    setObjectName("LCStudioMainWindow");
    setWindowTitle(tr("LC Studio"));
    setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowTabbedDocks);

    // Central area: view selector, decision regions over curves.
    auto* central = new QWidget(this);
    auto* centralLayout = new QVBoxLayout(central);
    auto* selector = new QHBoxLayout;
    m_viewMethod = new QComboBox(central);
    for (auto m : allMethods())
        m_viewMethod->addItem(QString::fromStdString(methodLabel(m)), QString::fromStdString(methodName(m)));
    m_viewReplicate = new QSpinBox(central);
    m_viewReplicate->setRange(1, 1000);
    m_viewReplicate->setPrefix(tr("replicate "));
    m_followTraining = new QCheckBox(tr("follow the task being trained"), central);
    m_followTraining->setChecked(true);
    selector->addWidget(new QLabel(tr("Show:"), central));
    selector->addWidget(m_viewMethod);
    selector->addWidget(m_viewReplicate);
    selector->addWidget(m_followTraining);
    selector->addStretch(1);
    centralLayout->addLayout(selector);
    auto* splitter = new QSplitter(Qt::Vertical, central);
    m_regions = new RegionView(splitter);
    m_curves = new CurveView(splitter);
    splitter->addWidget(m_regions);
    splitter->addWidget(m_curves);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 1);
    centralLayout->addWidget(splitter, 1);
    // Page 0: the synthetic experiment's views; page 1: the image experiments'; page 2: CamVid's.
    m_centralStack = new QStackedWidget(this);
    m_centralStack->addWidget(central);
    m_imagePage = new ImageResultsPage(m_centralStack);
    m_centralStack->addWidget(m_imagePage);
    m_camvidPage = new CamvidResultsPage(m_centralStack);
    m_centralStack->addWidget(m_camvidPage);
    setCentralWidget(m_centralStack);
    connect(m_viewMethod, &QComboBox::currentIndexChanged, this, &MainWindow::showSelectedTask);
    connect(m_viewReplicate, &QSpinBox::valueChanged, this, &MainWindow::showSelectedTask);

    buildDocks();
    buildActions();

    m_progressBar = new QProgressBar(this);
    m_progressBar->setRange(0, 1000);
    m_progressBar->setMaximumWidth(260);
    m_progressBar->setTextVisible(true);
    m_phaseLabel = new QLabel(tr("Ready"), this);
    m_timingLabel = new QLabel(this);
    statusBar()->addWidget(m_phaseLabel, 1);
    statusBar()->addPermanentWidget(m_timingLabel);
    statusBar()->addPermanentWidget(m_progressBar);

    connect(&m_runner, &JobRunner::started, this, &MainWindow::onStarted);
    connect(&m_runner, &JobRunner::progress, this, &MainWindow::onProgress);
    connect(&m_runner, &JobRunner::taskUpdated, this, &MainWindow::onTaskUpdated);
    connect(&m_runner, &JobRunner::resultRow, m_results, &ResultsTable::addRow);
    connect(&m_runner, &JobRunner::logMessage, this, &MainWindow::log);
    connect(&m_runner, &JobRunner::finished, this,
            [this](JobRunner::Job job, double seconds, const QString& json, const QString& csv) {
                if (!json.isEmpty()) {
                    m_lastResultsJson = json;
                    m_lastResultsCsv = csv;
                }
                if (job == JobRunner::Job::Correct) {
                    m_lastRecorrectionSeconds = seconds;
                    m_timingLabel->setText(tr("re-correction on the cached posterior: %1 s").arg(seconds, 0, 'f', 2));
                } else {
                    m_timingLabel->setText(tr("%1: %2 s").arg(JobRunner::jobName(job)).arg(seconds, 0, 'f', 1));
                }
                onJobEnded(job, tr("%1 finished in %2 s").arg(JobRunner::jobName(job)).arg(seconds, 0, 'f', 2));
            });
    connect(&m_runner, &JobRunner::cancelled, this,
            [this](JobRunner::Job job) { onJobEnded(job, tr("%1 cancelled").arg(JobRunner::jobName(job))); });
    connect(&m_runner, &JobRunner::failed, this, [this](JobRunner::Job job, const QString& message) {
        onJobEnded(job, tr("%1 failed").arg(JobRunner::jobName(job)));
        if (m_screenshotPath.isEmpty())
            showError(tr("Job failed"), message);
    });
    connect(&m_runner, &JobRunner::modelSaved, this, [this](const QString& paths, const QString& error) {
        if (!error.isEmpty())
            showError(tr("Save model"), error);
        else
            log(tr("Saved %1").arg(paths));
    });
    connect(&m_runner, &JobRunner::modelLoaded, this, [this](const TaskView& view, const QString& error) {
        if (!error.isEmpty()) {
            showError(tr("Open model"), error);
            return;
        }
        m_followTraining->setChecked(false);
        m_regions->setTask(view, decisionNames());
        log(tr("Loaded model (%1, replicate %2): decisions under the current cost matrix shown as \"corrected\"")
                .arg(view.method).arg(view.replicate + 1));
    });

    // A new cost matrix after a run re-runs only the correction, on the cached
    // posterior. The short delay folds a burst of edits into one job.
    m_recorrectTimer.setSingleShot(true);
    m_recorrectTimer.setInterval(300);
    connect(&m_recorrectTimer, &QTimer::timeout, this, [this] {
        if (m_experiment == QLatin1String("camvid")) {
            if (!m_camvidRunner.hasCache())
                return;
            if (m_camvidRunner.isBusy()) {
                m_recorrectPending = true;
                if (m_currentCamvidJob == CamvidJobRunner::Job::Recorrect)
                    m_camvidRunner.cancel();
                return;
            }
            startCamvidJob(CamvidJobRunner::Job::Recorrect);
            return;
        }
        if (m_experiment != QLatin1String("synthetic")) {
            if (!m_imageRunner.hasCache() || m_imageRunner.cacheExperiment() != m_experiment)
                return;
            if (m_imageRunner.isBusy()) {
                m_recorrectPending = true;
                if (m_currentImageJob == ImageJobRunner::Job::Recorrect)
                    m_imageRunner.cancel();
                return;
            }
            startImageJob(ImageJobRunner::Job::Recorrect);
            return;
        }
        if (!m_runner.hasPosterior())
            return;
        if (m_runner.isBusy()) {
            m_recorrectPending = true;
            if (m_currentJob == JobRunner::Job::Correct)
                m_runner.cancel();
            return;
        }
        startJob(JobRunner::Job::Correct);
    });
    connect(&m_costs, &CostMatrixModel::matrixChanged, this, &MainWindow::scheduleRecorrection);
    connect(&m_costs, &CostMatrixModel::matrixChanged, this, &MainWindow::showSelectedTask);

    connectImageRunner();
    connectCamvidRunner();
    m_costsByExperiment.insert(QStringLiteral("synthetic"), m_costs.matrix());

    QSettings stored;
    restoreGeometry(stored.value("window/geometry").toByteArray());
    if (!restoreState(stored.value("window/state").toByteArray()))
        resize(1500, 950);
    rebuildRecentMenu();
    m_results->reset(settings().methods, settings().replicates);
    updateActions();
    log(tr("Ready: the synthetic experiment (two Gaussians, 90/10 imbalance, 500 unlabelled calibration points). "
           "Press F5 to sample and correct."));
}

MainWindow::~MainWindow() = default;

void MainWindow::buildDocks()
{
    // Costs.
    m_costEditor = new CostEditor(&m_costs, this);
    auto* costDock = new QDockWidget(tr("Cost matrix"), this);
    costDock->setObjectName("costDock");
    costDock->setWidget(m_costEditor);
    addDockWidget(Qt::LeftDockWidgetArea, costDock);
    connect(m_costEditor, &CostEditor::fileUsed, this, &MainWindow::addRecentFile);

    // Experiment.
    auto* panel = new QWidget(this);
    auto* form = new QFormLayout(panel);
    auto* methods = new QWidget(panel);
    auto* methodLayout = new QVBoxLayout(methods);
    methodLayout->setContentsMargins(0, 0, 0, 0);
    for (auto m : allMethods()) {
        auto* box = new QCheckBox(QString::fromStdString(methodLabel(m)), methods);
        const auto paper = paperMethods();
        box->setChecked(std::find(paper.begin(), paper.end(), m) != paper.end());
        m_methodBoxes.insert(QString::fromStdString(methodName(m)), box);
        methodLayout->addWidget(box);
    }
    m_replicates = new QSpinBox(panel);
    m_replicates->setRange(1, 1000);
    m_replicates->setValue(10);
    m_seed = new QLineEdit("0", panel);
    m_seed->setValidator(new QRegularExpressionValidator(QRegularExpression("[0-9]{1,19}"), m_seed));
    m_threads = new QSpinBox(panel);
    m_threads->setRange(1, 64);
    m_threads->setValue(std::max(1, QThread::idealThreadCount()));
    m_iterations = new QSpinBox(panel);
    m_iterations->setRange(1, 1000000);
    m_iterations->setValue(500);
    m_gridResolution = new QSpinBox(panel);
    m_gridResolution->setRange(10, 400);
    m_gridResolution->setValue(80);
    m_device = new QComboBox(panel);
    m_device->addItem(tr("CPU"), "cpu");
    m_device->addItem(tr("CUDA"), "cuda");
    if (!JobRunner::cudaAvailable()) {
        // Listed but disabled, so the user sees why it is not offered.
        qobject_cast<QStandardItemModel*>(m_device->model())->item(1)->setEnabled(false);
        m_device->setItemData(1, tr("This LibTorch build has no CUDA support or no GPU is visible"), Qt::ToolTipRole);
    }
    m_posteriorState = new QLabel(tr("no posterior sampled yet"), panel);
    m_posteriorState->setWordWrap(true);
    form->addRow(tr("Inference"), methods);
    form->addRow(tr("Replicates"), m_replicates);
    form->addRow(tr("Seed"), m_seed);
    form->addRow(tr("Worker threads"), m_threads);
    form->addRow(tr("Correction steps"), m_iterations);
    form->addRow(tr("Region grid"), m_gridResolution);
    form->addRow(tr("Device"), m_device);
    auto* buttons = new QHBoxLayout;
    auto* run = new QPushButton(tr("Run"), panel);
    auto* sample = new QPushButton(tr("Sample"), panel);
    auto* correct = new QPushButton(tr("Correct"), panel);
    auto* cancel = new QPushButton(tr("Cancel"), panel);
    run->setObjectName("runButton");
    cancel->setObjectName("cancelButton");
    connect(run, &QPushButton::clicked, this, &MainWindow::runAll);
    connect(sample, &QPushButton::clicked, this, &MainWindow::sampleOnly);
    connect(correct, &QPushButton::clicked, this, &MainWindow::correctOnly);
    connect(cancel, &QPushButton::clicked, this, &MainWindow::cancelJob);
    for (auto* b : {run, sample, correct, cancel})
        buttons->addWidget(b);
    form->addRow(buttons);
    form->addRow(m_posteriorState);
    // One dock for every experiment: the choice on top, its settings below.
    auto* experimentWidget = new QWidget(this);
    auto* experimentLayout = new QVBoxLayout(experimentWidget);
    auto* chooser = new QFormLayout;
    m_experimentBox = new QComboBox(experimentWidget);
    m_experimentBox->setObjectName("experimentSelector");
    m_experimentBox->addItem(tr("Synthetic 2-D (paper Table 2)"), "synthetic");
    m_experimentBox->addItem(tr("Label corruption (paper Fig. 4)"), "corruption");
    m_experimentBox->addItem(tr("Selective classification (paper Fig. 3)"), "selective");
    m_experimentBox->addItem(tr("CamVid segmentation (paper Fig. 5)"), "camvid");
    chooser->addRow(tr("Experiment"), m_experimentBox);
    experimentLayout->addLayout(chooser);
    m_panelStack = new QStackedWidget(experimentWidget);
    m_panelStack->addWidget(panel);
    m_imagePanel = new ImageExperimentPanel(m_panelStack);
    m_panelStack->addWidget(m_imagePanel);
    m_camvidPanel = new CamvidExperimentPanel(m_panelStack);
    m_panelStack->addWidget(m_camvidPanel);
    // Scrolls rather than squeezes when the dock is short.
    auto* panelScroll = new QScrollArea(experimentWidget);
    panelScroll->setWidgetResizable(true);
    panelScroll->setFrameShape(QFrame::NoFrame);
    panelScroll->setWidget(m_panelStack);
    panelScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    panelScroll->setMinimumWidth(m_panelStack->minimumSizeHint().width() + 16);
    experimentLayout->addWidget(panelScroll, 1);
    connect(m_experimentBox, &QComboBox::activated, this,
            [this](int index) { setExperiment(m_experimentBox->itemData(index).toString()); });
    connect(m_imagePanel, &ImageExperimentPanel::runRequested, this, &MainWindow::runAll);
    connect(m_imagePanel, &ImageExperimentPanel::recorrectRequested, this, &MainWindow::correctOnly);
    connect(m_imagePanel, &ImageExperimentPanel::cancelRequested, this, &MainWindow::cancelJob);
    connect(m_camvidPanel, &CamvidExperimentPanel::runRequested, this, &MainWindow::runAll);
    connect(m_camvidPanel, &CamvidExperimentPanel::recorrectRequested, this, &MainWindow::correctOnly);
    connect(m_camvidPanel, &CamvidExperimentPanel::cancelRequested, this, &MainWindow::cancelJob);
    auto* experimentDock = new QDockWidget(tr("Experiment"), this);
    experimentDock->setObjectName("experimentDock");
    experimentDock->setWidget(experimentWidget);
    addDockWidget(Qt::LeftDockWidgetArea, experimentDock);
    // The cached posterior is tied to what was sampled (data, methods, seed, device,
    // grid); correction steps and threads can change without re-sampling.
    auto markStale = [this] {
        if (!m_runner.hasPosterior())
            return;
        auto sampled = m_runner.posteriorSettings();
        const auto now = settings();
        sampled.correctionIterations = now.correctionIterations;
        sampled.threads = now.threads;
        if (sampled != now)
            m_posteriorState->setText(tr("Settings changed: Run or Sample to re-sample the posterior."));
    };
    connect(m_replicates, &QSpinBox::valueChanged, this, markStale);
    connect(m_gridResolution, &QSpinBox::valueChanged, this, markStale);
    connect(m_seed, &QLineEdit::textChanged, this, markStale);
    connect(m_device, &QComboBox::currentIndexChanged, this, markStale);
    for (auto* box : m_methodBoxes)
        connect(box, &QCheckBox::toggled, this, markStale);

    // Results and log.
    m_results = new ResultsTable(this);
    m_imageTable = new ImageSummaryTable(this);
    m_resultsStack = new QStackedWidget(this);
    m_resultsStack->addWidget(m_results);
    m_resultsStack->addWidget(m_imageTable);
    m_camvidTable = new CamvidIouTable(this);
    m_resultsStack->addWidget(m_camvidTable);
    auto* resultsDock = new QDockWidget(tr("Results (paper Table 2)"), this);
    m_resultsDock = resultsDock;
    resultsDock->setObjectName("resultsDock");
    resultsDock->setWidget(m_resultsStack);
    addDockWidget(Qt::RightDockWidgetArea, resultsDock);
    m_log = new QPlainTextEdit(this);
    m_log->setObjectName("log");
    m_log->setReadOnly(true);
    m_log->setMaximumBlockCount(5000);
    m_log->setLineWrapMode(QPlainTextEdit::NoWrap);  // keeps the printed table aligned
    m_log->setFont(QFont("monospace", 9));
    auto* logDock = new QDockWidget(tr("Log"), this);
    logDock->setObjectName("logDock");
    logDock->setWidget(m_log);
    addDockWidget(Qt::RightDockWidgetArea, logDock);
    // Initial proportions; a saved window state replaces them.
    QTimer::singleShot(0, this, [this, resultsDock, costDock, logDock] {
        if (QSettings().contains("window/state"))
            return;
        resizeDocks({resultsDock, costDock}, {470, 360}, Qt::Horizontal);
        resizeDocks({resultsDock, logDock}, {220, 600}, Qt::Vertical);
    });
}

void MainWindow::buildActions()
{
    auto* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&Open Session..."), QKeySequence::Open, this, &MainWindow::openSession);
    file->addAction(tr("&Save Session"), QKeySequence::Save, this, &MainWindow::saveSession);
    file->addAction(tr("Save Session &As..."), QKeySequence::SaveAs, this, &MainWindow::saveSessionAs);
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    file->addSeparator();
    file->addAction(tr("&Import Cost Matrix..."), QKeySequence(tr("Ctrl+I")), m_costEditor, &CostEditor::importMatrix);
    file->addAction(tr("&Export Cost Matrix..."), QKeySequence(tr("Ctrl+E")), m_costEditor, &CostEditor::exportMatrix);
    file->addSeparator();
    file->addAction(tr("Export &Plots..."), QKeySequence(tr("Ctrl+Shift+P")), this, &MainWindow::exportPlots);
    m_exportResultsAction = file->addAction(tr("Export &Results..."), QKeySequence(tr("Ctrl+Shift+R")), this,
                                            &MainWindow::exportResults);
    m_saveModelAction = file->addAction(tr("Save &Model..."), QKeySequence(tr("Ctrl+Shift+S")), this, &MainWindow::saveModel);
    file->addAction(tr("Open Mo&del..."), QKeySequence(tr("Ctrl+Shift+O")), this, &MainWindow::openModel);
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

    auto* edit = menuBar()->addMenu(tr("&Edit"));
    auto* undo = m_costs.undoStack()->createUndoAction(this, tr("&Undo"));
    undo->setShortcut(QKeySequence::Undo);
    auto* redo = m_costs.undoStack()->createRedoAction(this, tr("&Redo"));
    redo->setShortcuts({QKeySequence(tr("Ctrl+Shift+Z")), QKeySequence::Redo});
    edit->addAction(undo);
    edit->addAction(redo);
    edit->addSeparator();
    auto* presets = edit->addMenu(tr("Cost &Presets"));
    for (const auto& name : costPresetNames()) {
        const QString n = QString::fromStdString(name);
        presets->addAction(n, this, [this, n] { m_costs.loadPreset(n); });
    }
    edit->addAction(tr("Reset Costs to &0/1"), &m_costs, &CostMatrixModel::resetToZeroOne);

    auto* run = menuBar()->addMenu(tr("&Run"));
    m_runAction = run->addAction(tr("&Run (Sample + Correct)"), QKeySequence(Qt::Key_F5), this, &MainWindow::runAll);
    m_sampleAction = run->addAction(tr("&Sample Posterior Only"), QKeySequence(Qt::SHIFT | Qt::Key_F5), this,
                                    &MainWindow::sampleOnly);
    m_correctAction = run->addAction(tr("&Correct Only (cached posterior)"), QKeySequence(Qt::Key_F6), this,
                                     &MainWindow::correctOnly);
    m_cancelAction = run->addAction(tr("C&ancel"), QKeySequence(Qt::Key_Escape), this, &MainWindow::cancelJob);

    m_viewMenu = menuBar()->addMenu(tr("&View"));
    for (auto* dock : findChildren<QDockWidget*>())
        m_viewMenu->addAction(dock->toggleViewAction());

    auto* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About LC Studio"), this, [this] {
        QMessageBox::about(this, tr("About LC Studio"),
                           tr("<b>LC Studio %1</b><p>Post-hoc loss calibration for Bayesian neural networks "
                              "(Vadera, Ghosh, Ng, Marlin, UAI 2021).</p><p>Edit the cost matrix, sample the "
                              "posterior, and compare corrected against uncorrected decisions.</p>")
                               .arg(QApplication::applicationVersion()));
    });

    auto* toolbar = addToolBar(tr("Run"));
    toolbar->setObjectName("runToolbar");
    toolbar->addAction(m_runAction);
    toolbar->addAction(m_sampleAction);
    toolbar->addAction(m_correctAction);
    toolbar->addAction(m_cancelAction);
    toolbar->addSeparator();
    toolbar->addAction(undo);
    toolbar->addAction(redo);
}

ExperimentSettings MainWindow::settings() const
{
    ExperimentSettings s;
    s.replicates = m_replicates->value();
    s.methods.clear();
    for (const QString& m : methodNames())
        if (m_methodBoxes.value(m)->isChecked())
            s.methods << m;
    s.seed = m_seed->text().toULongLong();
    s.threads = m_threads->value();
    s.correctionIterations = m_iterations->value();
    s.gridResolution = m_gridResolution->value();
    s.device = m_device->currentData().toString();
    return s;
}

Session MainWindow::currentSession() const
{
    Session s;
    s.experiment = m_experiment;
    s.settings = settings();
    s.image = m_imagePanel->settings();
    s.image.experiment = m_experiment == QLatin1String("synthetic") ? m_imagePanel->experiment() : m_experiment;
    s.camvid = m_camvidPanel->settings();
    s.costs = m_costs.matrix();
    if (m_experiment == QLatin1String("selective"))
        s.costs.setReferral(std::nullopt);  // the referral costs are swept; the base matrix is what a run needs
    return s;
}

void MainWindow::applySession(const Session& session)
{
    setExperiment(session.experiment);
    if (session.experiment != QLatin1String("synthetic")) {
        if (session.experiment == QLatin1String("camvid"))
            m_camvidPanel->applySettings(session.camvid);
        else
            m_imagePanel->applySettings(session.image);
        m_applyingCosts = true;  // a new setting, not an edit of the cached run's costs
        m_costs.undoStack()->clear();
        m_costs.setMatrixDirect(session.costs);
        m_applyingCosts = false;
        m_costEditor->setExpectedClasses(session.costs.numClasses());
        return;
    }
    m_replicates->setValue(session.settings.replicates);
    for (const QString& m : methodNames())
        m_methodBoxes.value(m)->setChecked(session.settings.methods.contains(m));
    m_seed->setText(QString::number(session.settings.seed));
    m_threads->setValue(session.settings.threads);
    m_iterations->setValue(session.settings.correctionIterations);
    m_gridResolution->setValue(session.settings.gridResolution);
    const int device = m_device->findData(session.settings.device.startsWith("cuda") ? "cuda" : "cpu");
    m_device->setCurrentIndex(device < 0 ? 0 : device);
    m_costs.undoStack()->clear();
    m_costs.setMatrixDirect(session.costs);
}

QString MainWindow::taskKey(int replicate, const QString& method) const
{
    return method + "/" + QString::number(replicate);
}

QStringList MainWindow::decisionNames() const
{
    QStringList names;
    for (int d = 0; d < m_costs.matrix().numDecisions(); ++d)
        names << QString::fromStdString(m_costs.matrix().decisionName(d));
    return names;
}

void MainWindow::showError(const QString& title, const QString& text)
{
    log(title + ": " + text);
    // Window-modal but not blocking: a job's signals keep flowing, and tests never hang
    // on a dialog nobody will close.
    auto* box = new QMessageBox(QMessageBox::Warning, title, text, QMessageBox::Ok, this);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

void MainWindow::log(const QString& line)
{
    m_log->appendPlainText(QTime::currentTime().toString("HH:mm:ss  ") + line);
    m_log->horizontalScrollBar()->setValue(0);  // appending scrolls to the long line's end
}

void MainWindow::runAll()
{
    if (m_experiment == QLatin1String("camvid"))
        startCamvidJob(CamvidJobRunner::Job::Train);
    else if (m_experiment == QLatin1String("synthetic"))
        startJob(JobRunner::Job::RunAll);
    else
        startImageJob(ImageJobRunner::Job::Run);
}

void MainWindow::sampleOnly()
{
    if (m_experiment == QLatin1String("synthetic"))
        startJob(JobRunner::Job::Sample);
}

void MainWindow::correctOnly()
{
    if (m_experiment == QLatin1String("camvid"))
        startCamvidJob(CamvidJobRunner::Job::Recorrect);
    else if (m_experiment == QLatin1String("synthetic"))
        startJob(JobRunner::Job::Correct);
    else
        startImageJob(ImageJobRunner::Job::Recorrect);
}

void MainWindow::cancelJob()
{
    m_recorrectPending = false;
    m_runner.cancel();
    m_imageRunner.cancel();
    m_camvidRunner.cancel();
}

namespace {

/// The matrix an image experiment starts from before its data has been loaded (the
/// run replaces the class names with the data's).
CostMatrix defaultImageCosts(const QString& experiment, const QString& data)
{
    if (experiment == QLatin1String("selective"))
        return costPreset("selective");
    return costPreset(data.contains(QLatin1String("cifar"), Qt::CaseInsensitive) ? "cifar10" : "mnist");
}

} // namespace

void MainWindow::setExperiment(const QString& experiment)
{
    const auto syncBox = [this] {
        const QSignalBlocker block(m_experimentBox);
        m_experimentBox->setCurrentIndex(m_experimentBox->findData(m_experiment));
    };
    if (experiment == m_experiment || m_experimentBox->findData(experiment) < 0) {
        syncBox();
        return;
    }
    if (anyBusy()) {
        log(tr("A job is running: cancel it or let it finish before switching experiments."));
        syncBox();
        return;
    }
    m_recorrectTimer.stop();
    m_recorrectPending = false;
    m_costsByExperiment.insert(m_experiment, m_costs.matrix());
    m_experiment = experiment;
    syncBox();
    const bool camvid = experiment == QLatin1String("camvid");
    const bool image = experiment != QLatin1String("synthetic") && !camvid;
    const int page = camvid ? 2 : (image ? 1 : 0);
    m_centralStack->setCurrentIndex(page);
    m_panelStack->setCurrentIndex(page);
    m_resultsStack->setCurrentIndex(page);
    m_resultsDock->setWindowTitle(camvid ? tr("Results (validation IoU, S vs q)")
                                         : image ? tr("Results (mean ± std over trials)") : tr("Results (paper Table 2)"));
    if (image) {
        m_imagePanel->setExperiment(experiment);
        // The page shows one experiment's run: another experiment starts empty.
        if (m_imageRunner.cacheExperiment() != experiment) {
            m_imagePage->startRun(experiment);
            m_imageTable->clearRows();
        }
    }
    // Each experiment keeps its own cost matrix; undo history does not cross over.
    // CamVid starts from the paper's 12 x 12 table (void last; its row and column are
    // dropped for decisions).
    const CostMatrix next = m_costsByExperiment.value(
        experiment, camvid ? costPreset("camvid")
                           : image ? defaultImageCosts(experiment, m_imagePanel->settings().data) : costPreset("synthetic"));
    m_applyingCosts = true;
    m_costs.undoStack()->clear();
    m_costs.setMatrixDirect(next);
    m_applyingCosts = false;
    m_costEditor->setExpectedClasses(next.numClasses());
    if (camvid) {
        std::vector<std::string> names;
        for (const auto& n : camvidClassNameList())
            names.push_back(n.toStdString());
        m_costs.setPresetClassNames(names);
    } else if (!image) {
        m_costs.setPresetClassNames({});
    }
    updateActions();
    log(tr("Experiment: %1").arg(m_experimentBox->currentText()));
}

void MainWindow::startImageJob(ImageJobRunner::Job job)
{
    if (anyBusy())
        return;
    try {
        m_costs.matrix().validate();
    } catch (const CostMatrixError& e) {
        showError(tr("Invalid cost matrix"), QString::fromStdString(e.what()));
        return;
    }
    if (job == ImageJobRunner::Job::Run) {
        const QString error = m_imagePanel->validate();
        if (!error.isEmpty()) {
            showError(tr("Cannot run"), error);
            return;
        }
        if (m_screenshotPath.isEmpty())  // a demo's data is not the user's choice
            m_imagePanel->rememberData();
        m_imagePage->startRun(m_experiment);
        m_imageTable->clearRows();
    } else {
        if (!m_imageRunner.hasCache() || m_imageRunner.cacheExperiment() != m_experiment) {
            log(tr("No cached student S for this experiment: run it (with \"ours\") first."));
            return;
        }
        m_imagePage->startRecorrection();
    }
    ImageExperimentSettings s = m_imagePanel->settings();
    s.experiment = m_experiment;
    m_imageRunner.start(job, s, m_costs.matrix());
}

void MainWindow::connectImageRunner()
{
    auto& r = m_imageRunner;
    connect(&r, &ImageJobRunner::started, this, [this](ImageJobRunner::Job job) {
        m_currentImageJob = job;
        beginJobDisplay(ImageJobRunner::jobName(job));
    });
    connect(&r, &ImageJobRunner::progress, this, &MainWindow::onProgress);
    connect(&r, &ImageJobRunner::logMessage, this, &MainWindow::log);
    connect(&r, &ImageJobRunner::epochPoints, m_imagePage, &ImageResultsPage::addEpochPoints);
    connect(&r, &ImageJobRunner::trainingPoints, m_imagePage, &ImageResultsPage::addTrainingPoints);
    connect(&r, &ImageJobRunner::comparison, m_imagePage, &ImageResultsPage::addComparison);
    connect(&r, &ImageJobRunner::summary, m_imagePage, &ImageResultsPage::setSummary);
    connect(&r, &ImageJobRunner::summary, m_imageTable, &ImageSummaryTable::setSummary);
    connect(&r, &ImageJobRunner::trainingTime, m_imagePage, &ImageResultsPage::setTrainingTime);
    // The data decides the class names (and, for a mismatching matrix, the preset).
    auto runCosts = std::make_shared<CostMatrix>();
    connect(&r, &ImageJobRunner::dataReady, this, [this, runCosts](const ImageDataInfo& info) {
        std::vector<std::string> names;
        for (const auto& n : info.classNames)
            names.push_back(n.toStdString());
        m_costs.setPresetClassNames(names);
        m_costEditor->setExpectedClasses(static_cast<int>(names.size()));
        CostMatrix shown = info.costs;
        if (m_costs.matrix().hasReferral() && info.experiment == QLatin1String("selective"))
            shown.setReferral(m_costs.matrix().referralCost());  // keep the user's referral column in view
        m_applyingCosts = true;
        m_costs.setMatrixDirect(shown);
        m_applyingCosts = false;
        *runCosts = m_costs.matrix();
        log(tr("Data %1: %2 training, %3 test images of %4, %5 classes; model %6")
                .arg(info.name).arg(info.trainCount).arg(info.testCount).arg(info.inputShape)
                .arg(info.classNames.size()).arg(info.model));
    });
    connect(&r, &ImageJobRunner::cacheReady, this, [this, runCosts](const QString& description, const CostMatrix& costs) {
        m_imagePanel->setState(description);
        if (m_costs.matrix() == *runCosts) {
            // Show the matrix q was trained for, so that the next edit starts from it.
            m_applyingCosts = true;
            m_costs.setMatrixDirect(costs);
            m_applyingCosts = false;
        } else {
            // Edited while the run trained: re-correct for the edit once the run is done.
            m_recorrectPending = true;
        }
        updateActions();
    });
    auto ended = [this](const QString& status) {
        m_phaseLabel->setText(status);
        m_progressBar->setValue(m_progressBar->maximum());
        updateActions();
        if (m_recorrectPending && m_imageRunner.hasCache() && m_imageRunner.cacheExperiment() == m_experiment) {
            m_recorrectPending = false;
            startImageJob(ImageJobRunner::Job::Recorrect);
        }
    };
    connect(&r, &ImageJobRunner::finished, this,
            [this, ended](ImageJobRunner::Job job, double seconds, const QString& json, const QString& csv) {
                if (!json.isEmpty()) {
                    m_lastResultsJson = json;
                    m_lastResultsCsv = csv;
                    m_lastResultsName = m_experiment;
                }
                if (job == ImageJobRunner::Job::Recorrect) {
                    m_lastRecorrectionSeconds = seconds;
                    m_timingLabel->setText(tr("re-correction on the cached S: %1 s").arg(seconds, 0, 'f', 2));
                } else {
                    m_timingLabel->setText(tr("%1: %2 s").arg(ImageJobRunner::jobName(job)).arg(seconds, 0, 'f', 1));
                }
                ended(tr("%1 finished in %2 s").arg(ImageJobRunner::jobName(job)).arg(seconds, 0, 'f', 2));
            });
    connect(&r, &ImageJobRunner::cancelled, this,
            [ended](ImageJobRunner::Job job) { ended(tr("%1 cancelled").arg(ImageJobRunner::jobName(job))); });
    connect(&r, &ImageJobRunner::failed, this, [this, ended](ImageJobRunner::Job job, const QString& message, bool) {
        ended(tr("%1 failed").arg(ImageJobRunner::jobName(job)));
        if (m_screenshotPath.isEmpty())
            showError(tr("Job failed"), message);
    });
}

void MainWindow::startCamvidJob(CamvidJobRunner::Job job)
{
    if (anyBusy())
        return;
    CostMatrix costs = m_costs.matrix();
    try {
        costs.validate();
        camvidDecisionCosts(costs);  // 12 classes with void last, or 11; no referral column
    } catch (const std::exception& e) {
        showError(tr("Invalid cost matrix"), QString::fromStdString(e.what()));
        return;
    }
    if (job == CamvidJobRunner::Job::Train) {
        // A demo lets the worker refuse bad data, so that it exits 2 with the path named.
        const QString error = m_screenshotPath.isEmpty() ? m_camvidPanel->validate() : QString();
        if (!error.isEmpty()) {
            showError(tr("Cannot run"), error);
            return;
        }
        if (m_screenshotPath.isEmpty())  // a demo's data is not the user's choice
            m_camvidPanel->rememberData();
        // The views clear when the worker has checked the data (trainingStarted): a bad
        // folder leaves the last run on screen.
    } else {
        if (!m_camvidRunner.hasCache()) {
            log(tr("No cached S for CamVid: run it first."));
            return;
        }
        m_camvidPage->startRecorrection();
    }
    m_camvidRunner.start(job, m_camvidPanel->settings(), costs);
}

void MainWindow::connectCamvidRunner()
{
    auto& r = m_camvidRunner;
    connect(&r, &CamvidJobRunner::started, this, [this](CamvidJobRunner::Job job) {
        m_currentCamvidJob = job;
        beginJobDisplay(CamvidJobRunner::jobName(job));
    });
    connect(&r, &CamvidJobRunner::trainingStarted, this, [this] {
        m_camvidPage->startRun();
        m_camvidTable->clearRows();
        m_camvidPanel->setState(tr("Training..."));
        updateActions();
    });
    connect(&r, &CamvidJobRunner::progress, this, &MainWindow::onProgress);
    connect(&r, &CamvidJobRunner::logMessage, this, &MainWindow::log);
    connect(&r, &CamvidJobRunner::epochPoints, m_camvidPage, &CamvidResultsPage::addEpochPoints);
    connect(&r, &CamvidJobRunner::evaluationStarted, m_camvidPage, &CamvidResultsPage::startEvaluation);
    connect(&r, &CamvidJobRunner::frames, m_camvidPage, &CamvidResultsPage::addFrames);
    connect(&r, &CamvidJobRunner::preview, m_camvidPage, &CamvidResultsPage::setPreview);
    connect(&r, &CamvidJobRunner::comparison, m_camvidPage, &CamvidResultsPage::setComparison);
    connect(&r, &CamvidJobRunner::comparison, m_camvidTable, &CamvidIouTable::setComparison);
    connect(&r, &CamvidJobRunner::framesPerSecond, m_camvidPage, &CamvidResultsPage::setFps);
    auto runCosts = std::make_shared<CostMatrix>();
    connect(&r, &CamvidJobRunner::started, this, [this, runCosts](CamvidJobRunner::Job) { *runCosts = m_costs.matrix(); });
    connect(&r, &CamvidJobRunner::cacheReady, this, [this, runCosts](const QString& description, const CostMatrix&) {
        m_camvidPanel->setState(description);
        // Edited while the run trained: re-correct for the edit once the run is done.
        if (m_experiment == QLatin1String("camvid") && !(m_costs.matrix() == *runCosts))
            m_recorrectPending = true;
        updateActions();
    });
    auto ended = [this](const QString& status) {
        m_phaseLabel->setText(status);
        m_progressBar->setValue(m_progressBar->maximum());
        updateActions();
        if (m_recorrectPending && m_experiment == QLatin1String("camvid") && m_camvidRunner.hasCache()) {
            m_recorrectPending = false;
            startCamvidJob(CamvidJobRunner::Job::Recorrect);
        }
    };
    connect(&r, &CamvidJobRunner::finished, this,
            [this, ended](CamvidJobRunner::Job job, double seconds, const QString& json, const QString& csv) {
                if (!json.isEmpty()) {
                    m_lastResultsJson = json;
                    m_lastResultsCsv = csv;
                    m_lastResultsName = QStringLiteral("camvid");
                }
                if (job == CamvidJobRunner::Job::Recorrect) {
                    m_lastRecorrectionSeconds = seconds;
                    m_timingLabel->setText(tr("re-correction on the cached S: %1 s (q, then the validation frames)")
                                               .arg(seconds, 0, 'f', 2));
                } else {
                    m_timingLabel->setText(tr("%1: %2 s").arg(CamvidJobRunner::jobName(job)).arg(seconds, 0, 'f', 1));
                }
                ended(tr("%1 finished in %2 s").arg(CamvidJobRunner::jobName(job)).arg(seconds, 0, 'f', 2));
            });
    connect(&r, &CamvidJobRunner::cancelled, this, [this, ended](CamvidJobRunner::Job job) {
        if (job == CamvidJobRunner::Job::Train && !m_camvidRunner.hasCache())
            m_camvidPanel->setState(tr("Training cancelled: nothing cached."));
        ended(tr("%1 cancelled").arg(CamvidJobRunner::jobName(job)));
    });
    connect(&r, &CamvidJobRunner::failed, this, [this, ended](CamvidJobRunner::Job job, const QString& message, bool) {
        ended(tr("%1 failed").arg(CamvidJobRunner::jobName(job)));
        if (m_screenshotPath.isEmpty())
            showError(tr("Job failed"), message);
    });
}

void MainWindow::beginJobDisplay(const QString& name)
{
    m_jobClock.start();
    m_progressBar->setValue(0);
    m_phaseLabel->setText(tr("%1...").arg(name));
    log(tr("%1 started").arg(name));
    updateActions();
}

void MainWindow::startJob(JobRunner::Job job)
{
    const auto s = settings();
    if (s.methods.isEmpty()) {
        showError(tr("Nothing to run"), tr("Select at least one inference method."));
        return;
    }
    if (job == JobRunner::Job::Correct && !m_runner.hasPosterior()) {
        log(tr("No posterior yet: Run or Sample first."));
        return;
    }
    try {
        m_costs.matrix().validateFor(2);
    } catch (const CostMatrixError& e) {
        showError(tr("Invalid cost matrix"), QString::fromStdString(e.what()));
        return;
    }
    if (job != JobRunner::Job::Correct) {
        m_tasks.clear();
        m_regions->clear();
        m_curves->clear();
    }
    const auto& sampled = job == JobRunner::Job::Correct ? m_runner.posteriorSettings() : s;
    m_results->reset(sampled.methods, sampled.replicates);
    m_runner.start(job, s, m_costs.matrix());
}

void MainWindow::onStarted(JobRunner::Job job)
{
    m_currentJob = job;
    m_followedTask.clear();
    beginJobDisplay(JobRunner::jobName(job));
}

void MainWindow::onProgress(const JobProgress& p)
{
    m_progressBar->setValue(static_cast<int>(p.fraction * 1000));
    QString eta;
    const double elapsed = m_jobClock.elapsed() / 1000.0;
    if (p.fraction > 0.02)
        eta = tr(" · ETA %1 s").arg(elapsed * (1 - p.fraction) / p.fraction, 0, 'f', 0);
    QStringList figures;
    for (const auto& [name, value] : p.figures)
        figures << QString("%1 %2").arg(name).arg(value, 0, 'g', 3);
    m_phaseLabel->setText(tr("%1 · %2 · step %3/%4%5%6")
                              .arg(p.phase, p.detail)
                              .arg(p.step)
                              .arg(p.total)
                              .arg(figures.isEmpty() ? QString() : " · " + figures.join(", "))
                              .arg(eta));
}

void MainWindow::onTaskUpdated(const TaskView& view)
{
    const QString key = taskKey(view.replicate, view.method);
    m_tasks.insert(key, view);
    // Follow one task until its correction is done, rather than hopping between the
    // tasks that train in parallel (each hop would redraw everything).
    const auto followed = m_tasks.constFind(m_followedTask);
    const bool followedDone = followed == m_tasks.constEnd() || followed->correctionDone
                              || m_currentJob == JobRunner::Job::Sample;
    if (m_followTraining->isChecked() && m_runner.isBusy() && key != m_followedTask && followedDone
        && !view.correctionDone) {
        m_followedTask = key;
        const QSignalBlocker b1(m_viewMethod), b2(m_viewReplicate);
        m_viewMethod->setCurrentIndex(m_viewMethod->findData(view.method));
        m_viewReplicate->setValue(view.replicate + 1);
    }
    if (taskKey(m_viewReplicate->value() - 1, m_viewMethod->currentData().toString())
        == taskKey(view.replicate, view.method))
        showSelectedTask();
}

void MainWindow::showSelectedTask()
{
    const auto it = m_tasks.constFind(taskKey(m_viewReplicate->value() - 1, m_viewMethod->currentData().toString()));
    if (it == m_tasks.constEnd())
        return;
    m_regions->setTask(*it, decisionNames());
    m_curves->setCurve(it->curve, tr("Correction: %1, replicate %2").arg(m_viewMethod->currentText()).arg(it->replicate + 1));
}

void MainWindow::onJobEnded(JobRunner::Job job, const QString& status)
{
    m_phaseLabel->setText(status);
    if (job != JobRunner::Job::Correct || m_runner.hasPosterior())
        m_progressBar->setValue(m_progressBar->maximum());
    if (m_runner.hasPosterior()) {
        const auto& ps = m_runner.posteriorSettings();
        m_posteriorState->setText(tr("Cached posterior: %1 replicate(s) x %2 method(s), seed %3. "
                                     "Editing costs re-runs only the correction.")
                                      .arg(ps.replicates).arg(ps.methods.size()).arg(ps.seed));
    }
    updateActions();
    showSelectedTask();
    if (m_recorrectPending && m_runner.hasPosterior()) {
        m_recorrectPending = false;
        startJob(JobRunner::Job::Correct);
    }
}

void MainWindow::updateActions()
{
    const bool busy = anyBusy();
    const bool image = m_experiment != QLatin1String("synthetic");
    const bool imageCache = m_imageRunner.hasCache() && m_imageRunner.cacheExperiment() == m_experiment;
    m_camvidPanel->setBusy(busy, m_camvidRunner.hasCache());
    m_runAction->setEnabled(!busy);
    m_sampleAction->setEnabled(!busy && !image);
    m_correctAction->setEnabled(!busy && canRecorrect());
    m_cancelAction->setEnabled(busy);
    m_saveModelAction->setEnabled(!busy && !image && m_runner.hasPosterior());
    m_exportResultsAction->setEnabled(!m_lastResultsJson.isEmpty());
    m_imagePanel->setBusy(busy, imageCache);
    m_experimentBox->setEnabled(!busy);
}

void MainWindow::scheduleRecorrection()
{
    if (m_applyingCosts)
        return;  // the window set the matrix (experiment switch, a run's data), not the user
    if (canRecorrect())
        m_recorrectTimer.start();
}

void MainWindow::addRecentFile(const QString& path)
{
    QSettings settings;
    QStringList recent = settings.value("recentFiles").toStringList();
    recent.removeAll(path);
    recent.prepend(path);
    while (recent.size() > kMaxRecent)
        recent.removeLast();
    settings.setValue("recentFiles", recent);
    rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu()
{
    m_recentMenu->clear();
    const QStringList recent = QSettings().value("recentFiles").toStringList();
    for (const QString& path : recent) {
        m_recentMenu->addAction(QFileInfo(path).fileName(), this, [this, path] {
            if (path.endsWith(".lcsession", Qt::CaseInsensitive)) {
                if (!openSessionFile(path))
                    showError(tr("Open session"), m_lastError);
            }
            else if (m_costs.importFile(path, m_costEditor->expectedClasses()))
                log(tr("Imported %1").arg(path));
        })->setToolTip(path);
    }
    m_recentMenu->setEnabled(!recent.isEmpty());
}

void MainWindow::setSessionPath(const QString& path)
{
    m_sessionPath = path;
    setWindowTitle(path.isEmpty() ? tr("LC Studio") : tr("LC Studio - %1").arg(QFileInfo(path).fileName()));
}

bool MainWindow::anyBusy() const
{
    return m_runner.isBusy() || m_imageRunner.isBusy() || m_camvidRunner.isBusy();
}

bool MainWindow::canRecorrect() const
{
    if (m_experiment == QLatin1String("synthetic"))
        return m_runner.hasPosterior();
    if (m_experiment == QLatin1String("camvid"))
        return m_camvidRunner.hasCache();
    return m_imageRunner.hasCache() && m_imageRunner.cacheExperiment() == m_experiment;
}

bool MainWindow::openSessionFile(const QString& path)
{
    if (anyBusy()) {
        m_lastError = tr("A job is running: cancel it or let it finish before opening a session.");
        return false;
    }
    Session s;
    const QString error = loadSession(path, s);
    if (!error.isEmpty()) {
        m_lastError = error;
        log(error);
        return false;
    }
    applySession(s);
    setSessionPath(path);
    addRecentFile(path);
    log(tr("Opened session %1").arg(path));
    return true;
}

bool MainWindow::saveSessionFile(const QString& path)
{
    if (m_experiment == QLatin1String("camvid") && m_camvidPanel->settings().data.trimmed().isEmpty()) {
        m_lastError = tr("Set the CamVid data folder before saving: a CamVid session names its data.");
        log(m_lastError);
        return false;
    }
    const QString error = lcs::ui::saveSession(currentSession(), path);
    if (!error.isEmpty()) {
        m_lastError = error;
        log(error);
        return false;
    }
    setSessionPath(path);
    addRecentFile(path);
    log(tr("Saved session %1").arg(path));
    return true;
}

void MainWindow::openSession()
{
    const QString path = askOpenPath(this, tr("Open session"), "sessionDir", tr("LC Studio sessions (*.lcsession *.json)"));
    if (path.isEmpty())
        return;
    if (!openSessionFile(path))
        showError(tr("Open session"), m_lastError);
}

void MainWindow::saveSession()
{
    if (m_sessionPath.isEmpty())
        saveSessionAs();
    else if (!saveSessionFile(m_sessionPath))
        showError(tr("Save session"), m_lastError);
}

void MainWindow::saveSessionAs()
{
    const QString path = askSavePath(this, tr("Save session"), "sessionDir", m_experiment + ".lcsession",
                                     tr("LC Studio sessions (*.lcsession)"));
    if (path.isEmpty())
        return;
    if (!saveSessionFile(path))
        showError(tr("Save session"), m_lastError);
}

void MainWindow::exportPlots()
{
    const QString dir = askFolder(this, tr("Export all plots to"), "exportDir");
    if (dir.isEmpty())
        return;
    QStringList errors;
    int written = 0;
    QList<QCustomPlot*> plots = m_regions->plots();
    plots << m_curves->plot();
    if (m_experiment == QLatin1String("camvid")) {
        plots = m_camvidPage->plots();
        auto* viewer = m_camvidPage->viewer();
        for (const char* format : {"png", "svg", "pdf"}) {
            const QString error = exportPainting([viewer](QPainter& p) { viewer->paintPanels(p); },
                                                 viewer->panelsSize(), dir + "/" + viewer->objectName() + "." + format,
                                                 viewer->objectName());
            if (error.isEmpty())
                ++written;
            else
                errors << error;
        }
    } else if (m_experiment != QLatin1String("synthetic")) {
        plots = m_imagePage->plots();
        auto* gallery = m_imagePage->gallery();
        const QSize size(gallery->width(), gallery->heightForWidth(gallery->width()));
        for (const char* format : {"png", "svg", "pdf"}) {
            const QString error =
                exportPainting([gallery](QPainter& p) { gallery->paintGallery(p, gallery->width()); }, size,
                               dir + "/" + gallery->objectName() + "." + format, gallery->objectName());
            if (error.isEmpty())
                ++written;
            else
                errors << error;
        }
    }
    for (auto* plot : plots)
        for (const char* format : {"png", "svg", "pdf"}) {
            const QString error = exportPlot(plot, dir + "/" + plot->objectName() + "." + format);
            if (error.isEmpty())
                ++written;
            else
                errors << error;
        }
    log(tr("Exported %1 plot file(s) to %2").arg(written).arg(dir));
    if (!errors.isEmpty())
        showError(tr("Export plots"), errors.join("\n"));
}

void MainWindow::exportResults()
{
    if (m_lastResultsJson.isEmpty())
        return;
    const QString path = askSavePath(this, tr("Export results"), "exportDir", m_lastResultsName + ".json",
                                     tr("JSON (*.json);;CSV (*.csv)"));
    if (path.isEmpty())
        return;
    const bool csv = path.endsWith(".csv", Qt::CaseInsensitive);
    const QString error = writeText(path, csv ? m_lastResultsCsv : m_lastResultsJson);
    if (!error.isEmpty())
        showError(tr("Export results"), error);
    else
        log(tr("Results written to %1").arg(path));
}

void MainWindow::saveModel()
{
    const QString method = m_viewMethod->currentData().toString();
    const int replicate = m_viewReplicate->value() - 1;
    const QString path = askSavePath(this,
                                     tr("Save correction model (%1, replicate %2)").arg(m_viewMethod->currentText()).arg(replicate + 1),
                                     "modelDir", QString("%1_r%2_q.pt").arg(method).arg(replicate), tr("LibTorch model (*.pt)"));
    if (path.isEmpty())
        return;
    m_runner.saveModel(replicate, method, path);
}

void MainWindow::openModel()
{
    if (m_experiment != QLatin1String("synthetic")) {
        log(tr("Open Model loads the synthetic experiment's correction networks: switch to it first."));
        return;
    }
    const QString path = askOpenPath(this, tr("Open correction model"), "modelDir", tr("LibTorch model (*.pt)"));
    if (path.isEmpty())
        return;
    if (!m_runner.loadModel(path, m_costs.matrix(), m_gridResolution->value()))
        log(tr("Busy: open the model when the job has finished"));
}

void MainWindow::runDemoAndScreenshot(const QString& pngPath)
{
    m_screenshotPath = pngPath;
    // Responsiveness probe: a 10 ms timer on the GUI thread; its largest lateness while
    // the pipeline runs (with live plots) is printed at the end.
    auto* probe = new QTimer(this);
    probe->setTimerType(Qt::PreciseTimer);
    probe->setInterval(10);
    auto clock = std::make_shared<QElapsedTimer>();
    auto worst = std::make_shared<qint64>(0);
    auto worstAt = std::make_shared<qint64>(0);
    auto last = std::make_shared<qint64>(0);
    connect(probe, &QTimer::timeout, this, [clock, worst, worstAt, last] {
        const qint64 now = clock->elapsed();
        if (*last >= 0 && now - *last - 10 > *worst) {  // the first tick only sets the origin
            *worst = now - *last - 10;
            *worstAt = now;
        }
        *last = now;
    });
    auto startProbe = [probe, clock, last] {
        clock->start();
        *last = -1;
        probe->start();
    };
    connect(&m_runner, &JobRunner::started, this, startProbe);
    connect(&m_imageRunner, &ImageJobRunner::started, this, startProbe);
    connect(&m_camvidRunner, &CamvidJobRunner::started, this, startProbe);
    auto shoot = [this, probe, worst, worstAt, clock] {
        std::fprintf(stdout, "lcstudio: largest event-loop delay while the pipeline ran: %lld ms (%.1f s into the run of %.1f s)\n",
                     static_cast<long long>(*worst), *worstAt / 1000.0, clock->elapsed() / 1000.0);
        probe->stop();
        if (m_experiment != QLatin1String("synthetic")) {
            // The image page needs the width more than the results table and the log.
            auto* costDock = findChild<QDockWidget*>("costDock");
            auto* experimentDock = findChild<QDockWidget*>("experimentDock");
            if (costDock && experimentDock && m_resultsDock) {
                resizeDocks({costDock, m_resultsDock}, {410, 400}, Qt::Horizontal);
                resizeDocks({costDock, experimentDock}, {470, 550}, Qt::Vertical);
            }
        }
        // Let the queued replots land before grabbing.
        QTimer::singleShot(300, this, [this] {
            for (auto* plot : findChildren<QCustomPlot*>())
                plot->replot();
            const QString error = saveImageAtomically(grab().toImage(), m_screenshotPath);
            if (!error.isEmpty()) {
                std::fprintf(stderr, "lcstudio: cannot write screenshot: %s\n", qPrintable(error));
                QApplication::exit(1);
                return;
            }
            std::fprintf(stdout, "lcstudio: screenshot written to %s\n", qPrintable(m_screenshotPath));
            QApplication::exit(0);
        });
    };
    connect(&m_runner, &JobRunner::finished, this, [shoot](JobRunner::Job job) {
        if (job == JobRunner::Job::RunAll)
            shoot();
    });
    connect(&m_imageRunner, &ImageJobRunner::finished, this, [shoot](ImageJobRunner::Job job) {
        if (job == ImageJobRunner::Job::Run)
            shoot();
    });
    connect(&m_camvidRunner, &CamvidJobRunner::finished, this, [shoot](CamvidJobRunner::Job job) {
        if (job == CamvidJobRunner::Job::Train)
            shoot();
    });
    // A demo that cannot find its data exits 2 with where to get it; any other failure 1.
    auto failedDemo = [](const char* what, const char* hint) {
        return [what, hint](auto, const QString& message, bool dataUnavailable) {
            if (dataUnavailable) {
                std::fprintf(stderr, "lcstudio: no %s data for the demo: %s\nlcstudio: %s\n", what,
                             qPrintable(message), hint);
                QApplication::exit(2);
                return;
            }
            std::fprintf(stderr, "lcstudio: demo run failed: %s\n", qPrintable(message));
            QApplication::exit(1);
        };
    };
    connect(&m_camvidRunner, &CamvidJobRunner::failed, this,
            failedDemo("CamVid", "pass --data DIR (a folder with train/, trainannot/, val/, valannot/) or set "
                                 "LCS_CAMVID_DIR"));
    connect(&m_imageRunner, &ImageJobRunner::failed, this,
            failedDemo("image", "pass --data DIR (an MNIST-like IDX folder or a CIFAR-10 binary folder) or install "
                                "Debian's dataset-fashion-mnist"));
    connect(&m_runner, &JobRunner::failed, this, [](JobRunner::Job, const QString& message) {
        std::fprintf(stderr, "lcstudio: demo run failed: %s\n", qPrintable(message));
        QApplication::exit(1);
    });
    auto cancelled = [] {
        std::fprintf(stderr, "lcstudio: demo run cancelled\n");
        QApplication::exit(1);
    };
    connect(&m_runner, &JobRunner::cancelled, this, cancelled);
    connect(&m_imageRunner, &ImageJobRunner::cancelled, this, cancelled);
    connect(&m_camvidRunner, &CamvidJobRunner::cancelled, this, cancelled);
    QTimer::singleShot(0, this, &MainWindow::runAll);
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    m_recorrectPending = false;
    m_runner.cancel();
    m_imageRunner.cancel();
    m_camvidRunner.cancel();
    QSettings settings;
    settings.setValue("window/geometry", saveGeometry());
    settings.setValue("window/state", saveState());
    event->accept();
}

} // namespace lcs::ui
