// MainWindow's menus and toolbar, and what the File menu's entries do: sessions, recent
// files, sweep folders. The window's layout and its pages' wiring are in main_window.cpp.
#include "ui/main_window.h"

#include <QApplication>
#include <QDir>
#include <QFileInfo>
#include <QKeySequence>
#include <QMenuBar>
#include <QMessageBox>
#include <QToolBar>
#include <QDockWidget>

#include "ui/cost_editor.h"
#include "ui/file_dialogs.h"
#include "ui/sweep/sweep_view.h"

namespace lcs::ui {

// Long by design: the menus as a table, menu by menu in the order they show, so that
// each action's text, shortcut and slot read in one place.
void MainWindow::buildFileMenu()
{
    auto* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&Open Session..."), QKeySequence::Open, this, [this] {
        const QString path = askOpenPath(this, tr("Open session"), "sessionDir", tr("LC Studio sessions (*.lcsession *.json)"));
        if (!path.isEmpty() && !openSessionFile(path))
            showError(tr("Open session"), m_lastError);
    });
    file->addAction(tr("&Save Session"), QKeySequence::Save, this, [this] {
        if (m_sessionPath.isEmpty())
            saveSessionAs();
        else if (!saveSessionFile(m_sessionPath))
            showError(tr("Save session"), m_lastError);
    });
    file->addAction(tr("Save Session &As..."), QKeySequence::SaveAs, this, &MainWindow::saveSessionAs);
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    file->addAction(tr("Open S&weep..."), this, [this] {
        const QString dir = askFolder(this, tr("Open sweep folder"), "sweepDir");
        if (!dir.isEmpty() && !openSweepFolder(dir))
            showError(tr("Open sweep"), m_lastError);
    });
    file->addSeparator();
    file->addAction(tr("&Import Cost Matrix..."), QKeySequence(tr("Ctrl+I")), m_costEditor, &CostEditor::importMatrix);
    file->addAction(tr("&Export Cost Matrix..."), QKeySequence(tr("Ctrl+E")), m_costEditor, &CostEditor::exportMatrix);
    file->addSeparator();
    auto* exportPlots = file->addAction(tr("Export &Plots..."), QKeySequence(tr("Ctrl+Shift+P")), this,
                                        [this] { m_page->exportPlotsAsked(this); });
    m_exportResultsAction = file->addAction(tr("Export &Results..."), QKeySequence(tr("Ctrl+Shift+R")), this,
                                            [this] { m_page->exportResultsAsked(this); });
    m_saveModelAction = file->addAction(tr("Export &Model..."), QKeySequence(tr("Ctrl+Shift+S")), this,
                                        [this] { m_page->saveModel(); });
    m_openModelAction = file->addAction(tr("Open Mo&del..."), QKeySequence(tr("Ctrl+Shift+O")), this,
                                        [this] { m_page->openModel(); });
    // The export shortcuts work wherever the focus went after a dialog closed (a floating
    // dock, a plot): an application shortcut, not only the window's.
    for (auto* action : {exportPlots, m_exportResultsAction, m_saveModelAction, m_openModelAction})
        action->setShortcutContext(Qt::ApplicationShortcut);
    for (auto* page : std::as_const(m_pages))
        for (const auto& open : page->openActions())
            m_openActions << file->addAction(open.title, this, [this, page, open] {
                setExperiment(open.experiment);  // refused while a job runs: the log says so
                if (m_page == page && m_experiment == open.experiment)
                    open.ask(this);
            });
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);
}

std::pair<QAction*, QAction*> MainWindow::buildEditMenu()
{
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
    return {undo, redo};
}

void MainWindow::buildActions()
{
    buildFileMenu();
    const auto [undo, redo] = buildEditMenu();

    auto* run = menuBar()->addMenu(tr("&Run"));
    m_runAction = run->addAction(tr("&Run"), QKeySequence(Qt::Key_F5), this, &MainWindow::runAll);
    m_sampleAction = run->addAction(tr("&Sample Posterior Only"), QKeySequence(Qt::SHIFT | Qt::Key_F5), this,
                                    &MainWindow::sampleOnly);
    m_correctAction = run->addAction(tr("Re-&correct (cached run)"), QKeySequence(Qt::Key_F6), this,
                                     &MainWindow::correctOnly);
    m_cancelAction = run->addAction(tr("C&ancel"), QKeySequence(Qt::Key_Escape), this, &MainWindow::cancelJob);

    auto* view = menuBar()->addMenu(tr("&View"));
    for (auto* dock : findChildren<QDockWidget*>())
        view->addAction(dock->toggleViewAction());

    auto* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About LC Studio"), this, [this] {
        QMessageBox::about(this, tr("About LC Studio"), tr("<b>LC Studio %1</b><p>Post-hoc loss calibration for Bayesian "
            "neural networks (Vadera, Ghosh, Ng, Marlin, UAI 2021).</p><p>Edit the cost matrix, sample the posterior, and "
            "compare corrected against uncorrected decisions.</p>").arg(QApplication::applicationVersion()));
    });

    auto* toolbar = addToolBar(tr("Run"));
    toolbar->setObjectName("runToolbar");
    for (auto* action : {m_runAction, m_sampleAction, m_correctAction, m_cancelAction})
        toolbar->addAction(action);
    toolbar->addSeparator();
    toolbar->addAction(undo);
    toolbar->addAction(redo);
}

void MainWindow::addRecentFile(const QString& path)
{
    rememberRecentFile(path);
    rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu()
{
    m_recentMenu->clear();
    const QStringList recent = recentFiles();
    for (const QString& path : recent) {
        m_recentMenu->addAction(QFileInfo(path).fileName(), this, [this, path] {
            if (path.endsWith(".lcsession", Qt::CaseInsensitive)) {
                if (!openSessionFile(path))
                    showError(tr("Open session"), m_lastError);
            } else if (m_costs.importFile(path, m_costEditor->expectedClasses())) {
                log(tr("Imported %1").arg(path));
            }
        })->setToolTip(path);
    }
    m_recentMenu->setEnabled(!recent.isEmpty());
}

void MainWindow::sessionFileUsed(const QString& path, const QString& logLine)
{
    m_sessionPath = path;
    setWindowTitle(tr("LC Studio - %1").arg(QFileInfo(path).fileName()));
    addRecentFile(path);
    log(logLine);
}

bool MainWindow::openSweepFolder(const QString& dir)
{
    if (!m_sweepView) {
        m_sweepView = new SweepView(this);
        m_sweepView->setWindowFlag(Qt::Window);
        m_sweepView->resize(1200, 720);
    }
    const QString problem = m_sweepView->open(dir);
    if (!problem.isEmpty()) {
        m_lastError = problem;
        return false;
    }
    m_sweepView->setWindowTitle(tr("Sweep %1 - LC Studio").arg(QDir(dir).dirName()));
    m_sweepView->show();
    m_sweepView->raise();
    log(tr("Opened sweep %1").arg(dir));
    return true;
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
    sessionFileUsed(path, tr("Opened session %1").arg(path));
    return true;
}

bool MainWindow::saveSessionFile(const QString& path)
{
    QString error;
    try {
        error = lcs::ui::saveSession(currentSession(), path);
    } catch (const std::exception& e) {  // a setting the form cannot parse
        error = QString::fromStdString(e.what());
    }
    if (!error.isEmpty()) {
        m_lastError = error;
        log(error);
        return false;
    }
    sessionFileUsed(path, tr("Saved session %1").arg(path));
    return true;
}

void MainWindow::saveSessionAs()
{
    const QString path = askSavePath(this, tr("Save session"), "sessionDir", m_experiment + ".lcsession",
                                     tr("LC Studio sessions (*.lcsession)"), m_sessionPath);
    if (!path.isEmpty() && !saveSessionFile(path))
        showError(tr("Save session"), m_lastError);
}

} // namespace lcs::ui
