// MainWindow: the docks, the pages behind the experiment chooser, the actions' state and
// the log. The menus and the File menu's work are in main_window_menus.cpp.
#include "ui/main_window.h"

#include <algorithm>

#include <QAbstractSpinBox>
#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QDockWidget>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScreen>
#include <QScrollBar>
#include <QSettings>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTime>
#include <QTimer>

#include "ui/cost_editor.h"
#include "ui/experiments/experiment_chooser.h"
#include "ui/experiments/experiment_page.h"
#include "ui/experiments/job_status.h"
#include "ui/experiments/page_list.h"
#include "ui/experiments/screenshot_demo.h"

namespace lcs::ui {

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent)
{
    setObjectName("LCStudioMainWindow");
    setWindowTitle(tr("LC Studio"));
    setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowTabbedDocks);
    m_costEditor = new CostEditor(&m_costs, this);
    m_pages = makeExperimentPages(&m_costs, m_costEditor, this);
    m_centralStack = new QStackedWidget(this);
    for (auto* page : std::as_const(m_pages))
        m_centralStack->addWidget(page->centralWidget());
    setCentralWidget(m_centralStack);
    buildDocks();
    buildActions();

    auto* status = new JobStatus(statusBar());
    for (auto* page : std::as_const(m_pages)) {
        status->watch(page);
        connectPage(page);
    }
    m_page = m_pages.front();
    m_experiment = m_page->experiments().front().id;
    m_page->activate(m_experiment);

    QSettings stored;
    restoreGeometry(stored.value("window/geometry").toByteArray());
    if (!restoreState(stored.value("window/state").toByteArray())) {
        // The first window fits the screen it opens on (a 1366x768 laptop included).
        QSize size(1500, 950);
        if (const auto* screen = this->screen())
            size = size.boundedTo(screen->availableGeometry().size() * 0.95);
        resize(size);
    } else {
        m_docksFitted = true;  // the user's own proportions
    }
    qApp->installEventFilter(this);
    rebuildRecentMenu();
    updateActions();
    if (const QString welcome = m_page->welcomeText(); !welcome.isEmpty())
        log(welcome);
}

QStringList MainWindow::experiments() const
{
    return experimentIds(m_pages);
}

MainWindow::~MainWindow()
{
    // The runners stop and join their threads while the views they feed still exist.
    qDeleteAll(m_pages);
}

void MainWindow::buildDocks()
{
    auto dock = [this](const QString& title, const char* name, QWidget* widget, Qt::DockWidgetArea area) {
        auto* d = new QDockWidget(title, this);
        d->setObjectName(name);
        d->setWidget(widget);
        addDockWidget(area, d);
        return d;
    };
    m_costDock = dock(tr("Cost matrix"), "costDock", m_costEditor, Qt::LeftDockWidgetArea);
    connect(m_costEditor, &CostEditor::fileUsed, this, &MainWindow::addRecentFile);
    // One dock for every experiment: the choice on top, its page's settings below.
    m_chooser = new ExperimentChooser(m_pages, this);
    connect(m_chooser, &ExperimentChooser::chosen, this, &MainWindow::setExperiment);
    m_experimentDock = dock(tr("Experiment"), "experimentDock", m_chooser, Qt::LeftDockWidgetArea);
    m_resultsStack = new QStackedWidget(this);
    for (auto* page : std::as_const(m_pages))
        m_resultsStack->addWidget(page->resultsWidget());
    m_resultsDock = dock(m_pages.front()->resultsTitle(), "resultsDock", m_resultsStack, Qt::RightDockWidgetArea);
    m_log = new QPlainTextEdit(this);
    m_log->setObjectName("log");
    m_log->setReadOnly(true);
    m_log->setMaximumBlockCount(5000);
    // Wrapped at the dock's width: every message is read whole on a small screen (the
    // printed table wraps too; the results dock and File > Export Results hold it aligned).
    m_log->setLineWrapMode(QPlainTextEdit::WidgetWidth);
    m_log->setFont(QFont("monospace", 9));
    m_logDock = dock(tr("Log"), "logDock", m_log, Qt::RightDockWidgetArea);
}

void MainWindow::connectPage(ExperimentPage* page)
{
    connect(page, &ExperimentPage::jobStarted, this, [this](const QString& name) { log(tr("%1 started").arg(name)); });
    connect(page, &ExperimentPage::jobStarted, this, &MainWindow::updateActions);
    connect(page, &ExperimentPage::logLine, this, &MainWindow::log);
    connect(page, &ExperimentPage::errorRaised, this, &MainWindow::showError);
    connect(page, &ExperimentPage::stateChanged, this, &MainWindow::updateActions);
    connect(page, &ExperimentPage::statusNote, this, [this](const QString& text) {
        statusBar()->showMessage(text, 15000);
    });
    connect(page, &ExperimentPage::costsNeedReset, this, &MainWindow::offerCostsReset);
}

void MainWindow::offerCostsReset(const QString& text)
{
    log(text);
    // Window-modal but not blocking, as showError: a test never hangs on it.
    auto* box = new QMessageBox(QMessageBox::Question, tr("Cost matrix and data"), text, QMessageBox::NoButton, this);
    auto* reset = box->addButton(tr("Reset Costs to 0/1 and Run"), QMessageBox::AcceptRole);
    box->addButton(tr("Keep My Matrix"), QMessageBox::RejectRole);
    box->setDefaultButton(reset);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setObjectName(QStringLiteral("costsResetBox"));
    connect(box, &QMessageBox::buttonClicked, this, [this, reset](QAbstractButton* clicked) {
        if (clicked == reset) {
            if (m_page->acceptOfferedCosts())
                runAll();
        } else {
            log(tr("Cost matrix kept; the run waits for a matrix over the data's classes (Edit > Reset Costs to "
                   "0/1, or File > Import Cost Matrix)"));
        }
    });
    box->open();
}

bool MainWindow::eventFilter(QObject* watched, QEvent* event)
{
    if (event->type() == QEvent::Wheel)
        if (auto* widget = qobject_cast<QWidget*>(watched);
            widget && !widget->hasFocus() &&
            (qobject_cast<QAbstractSpinBox*>(widget) || qobject_cast<QComboBox*>(widget)) && widget->parentWidget()) {
            QCoreApplication::sendEvent(widget->parentWidget(), event);  // the form scrolls
            return true;
        }
    return QMainWindow::eventFilter(watched, event);
}

Session MainWindow::currentSession() const
{
    Session s;
    s.experiment = m_experiment.toStdString();
    s.costs = m_costs.matrix();
    m_page->writeSession(s);
    return s;
}

void MainWindow::applySession(const Session& session)
{
    setExperiment(QString::fromStdString(session.experiment));
    if (m_page->serves(QString::fromStdString(session.experiment)))
        m_page->readSession(session);
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
    // The log follows new lines unless the user scrolled up to read an earlier one.
    auto* bar = m_log->verticalScrollBar();
    const int reading = bar->value();
    const bool following = reading >= bar->maximum() - 2;
    m_log->appendPlainText(QTime::currentTime().toString("HH:mm:ss  ") + line);
    m_log->horizontalScrollBar()->setValue(0);  // appending scrolls to the long line's end
    bar->setValue(following ? bar->maximum() : reading);
}

void MainWindow::runAll()
{
    if (!anyBusy())
        m_page->run();
}

void MainWindow::sampleOnly()
{
    if (!anyBusy() && m_page->canSample())
        m_page->sample();
}

void MainWindow::correctOnly()
{
    if (!anyBusy())
        m_page->recorrect();
}

void MainWindow::cancelJob()
{
    for (auto* page : std::as_const(m_pages))
        page->cancel();
}

void MainWindow::setExperiment(const QString& experiment)
{
    const auto syncBox = [this] { m_chooser->showExperiment(m_experiment, m_page); };
    ExperimentPage* next = pageFor(m_pages, experiment);
    if (experiment == m_experiment || !next) {
        syncBox();
        return;
    }
    if (anyBusy()) {
        log(tr("A job is running: cancel it or let it finish before switching experiments."));
        syncBox();
        return;
    }
    m_page->deactivate();
    m_experiment = experiment;
    m_page = next;
    syncBox();
    m_centralStack->setCurrentWidget(next->centralWidget());
    m_resultsStack->setCurrentWidget(next->resultsWidget());
    next->activate(experiment);
    m_resultsDock->setWindowTitle(next->resultsTitle());  // a page titles its current experiment
    updateActions();
    log(tr("Experiment: %1").arg(m_chooser->currentTitle()));
}

void MainWindow::updateActions()
{
    const bool busy = anyBusy();
    for (auto* page : std::as_const(m_pages))
        page->updateControls(busy);
    m_runAction->setEnabled(!busy);
    m_sampleAction->setEnabled(!busy && m_page->canSample());
    m_correctAction->setEnabled(!busy && m_page->canRecorrect());
    m_cancelAction->setEnabled(busy);
    m_saveModelAction->setEnabled(!busy && m_page->canSaveModel());
    m_openModelAction->setEnabled(m_page->hasModels());
    for (auto* open : std::as_const(m_openActions))
        open->setEnabled(!busy);
    m_exportResultsAction->setEnabled(!m_page->resultsJson().isEmpty());
    m_chooser->setChoosable(!busy);
}

bool MainWindow::anyBusy() const
{
    return lcs::ui::anyBusy(m_pages);
}

void MainWindow::showEvent(QShowEvent* event)
{
    QMainWindow::showEvent(event);
    if (m_docksFitted)
        return;
    m_docksFitted = true;
    // The docks take a share of the width and the central page the rest, whatever the
    // screen (once the layout has the window's size); the proportions are then the user's.
    QTimer::singleShot(0, this, [this] {
        resizeDocks({m_costDock, m_resultsDock}, {std::clamp(width() * 2 / 9, 240, 440), std::clamp(width() * 6 / 25, 320, 420)},
                    Qt::Horizontal);
        resizeDocks({m_costDock, m_experimentDock}, {height() * 2 / 5, height() * 3 / 5}, Qt::Vertical);
        resizeDocks({m_resultsDock, m_logDock}, {height() * 2 / 5, height() * 3 / 5}, Qt::Vertical);
    });
}

void MainWindow::runDemoAndScreenshot(const QString& pngPath, const QString& plotsDir, const QString& tab,
                                      const QList<ScreenshotSteps::CostEdit>& edits, const QString& modelPath)
{
    ScreenshotSteps steps;
    steps.edits = edits;
    steps.modelPath = modelPath;
    // As the cost editor edits: through the model, so the page re-corrects as after a click.
    steps.applyEdit = [this](const ScreenshotSteps::CostEdit& edit) {
        if (edit.row < 0 || edit.row >= m_costs.rowCount() || edit.column < 0 || edit.column >= m_costs.columnCount())
            return tr("the matrix has %1 rows (true classes) and %2 columns (decisions), counted from 0")
                .arg(m_costs.rowCount())
                .arg(m_costs.columnCount());
        if (m_costs.matrix().at(edit.row, edit.column) == edit.value)
            return tr("the cost is %1 already: the edit changes nothing to re-correct").arg(edit.value);
        if (!m_costs.setData(m_costs.index(edit.row, edit.column), edit.value))
            return tr("the cost editor does not take %1 there").arg(edit.value);
        return QString();
    };
    runScreenshotDemo(this, m_page, pngPath, plotsDir, tab, steps);
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    cancelJob();
    QSettings settings;
    settings.setValue("window/geometry", saveGeometry());
    settings.setValue("window/state", saveState());
    event->accept();
}

} // namespace lcs::ui
