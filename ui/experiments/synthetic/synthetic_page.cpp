#include "synthetic_page.h"

#include <algorithm>

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpressionValidator>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QThread>
#include <QUndoStack>
#include <QVBoxLayout>

#include "qcustomplot_compat.h"

#include "inference/method_catalog.h"

#include "cost_matrix_model.h"
#include "curve_view.h"
#include "file_dialogs.h"
#include "region_view.h"
#include "results_table.h"
#include "session.h"

namespace lcs::ui {

namespace {

/// The engine's catalogue, as the strings the page stores and shows.
QStringList methodNames()
{
    QStringList out;
    for (auto m : allMethods())
        out << QString::fromStdString(methodName(m));
    return out;
}

} // namespace

SyntheticPage::SyntheticPage(CostMatrixModel* costs, CostEditor* costEditor, QObject* parent)
    : ExperimentPage(costs, costEditor, parent)
{
    m_panel = buildPanel();
    m_central = buildCentral();
    m_results = new ResultsTable;
    connectRunner();
    connect(costs, &CostMatrixModel::matrixChanged, this, &SyntheticPage::showSelectedTask);
    m_results->reset(settings().methods, settings().replicates);
}

SyntheticPage::~SyntheticPage() = default;

QList<ExperimentEntry> SyntheticPage::experiments() const
{
    return {{QStringLiteral("synthetic"), tr("Synthetic 2-D (paper Table 2)")}};
}

QWidget* SyntheticPage::resultsWidget() const
{
    return m_results;
}

QString SyntheticPage::resultsTitle() const
{
    return tr("Results (paper Table 2)");
}

QString SyntheticPage::welcomeText() const
{
    return tr("Ready: the synthetic experiment (two Gaussians, 90/10 imbalance, 500 unlabelled calibration points). "
              "Press F5 to sample and correct.");
}

CostMatrix SyntheticPage::defaultCosts(const QString&) const
{
    return costPreset("synthetic");
}

std::optional<std::vector<std::string>> SyntheticPage::presetClassNames() const
{
    return std::vector<std::string>{};
}

QWidget* SyntheticPage::buildPanel()
{
    auto* panel = new QWidget;
    auto* form = new QFormLayout(panel);
    // Labels above their fields when the dock is narrow, rather than a wider dock.
    form->setRowWrapPolicy(QFormLayout::WrapLongRows);
    auto* methods = new QWidget(panel);
    auto* methodLayout = new QVBoxLayout(methods);
    methodLayout->setContentsMargins(0, 0, 0, 0);
    const auto paper = paperMethods();
    for (auto m : allMethods()) {
        auto* box = new QCheckBox(QString::fromStdString(methodLabel(m)), methods);
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
    connect(run, &QPushButton::clicked, this, &SyntheticPage::run);
    connect(sample, &QPushButton::clicked, this, &SyntheticPage::sample);
    connect(correct, &QPushButton::clicked, this, &SyntheticPage::recorrect);
    connect(cancel, &QPushButton::clicked, this, &SyntheticPage::cancel);
    for (auto* b : {run, sample, correct, cancel}) {
        // Four buttons share a narrow dock: each may shrink to its text.
        b->setMinimumWidth(0);
        b->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
        buttons->addWidget(b);
    }
    form->addRow(buttons);
    form->addRow(m_posteriorState);

    connect(m_replicates, &QSpinBox::valueChanged, this, &SyntheticPage::markStale);
    connect(m_gridResolution, &QSpinBox::valueChanged, this, &SyntheticPage::markStale);
    connect(m_seed, &QLineEdit::textChanged, this, &SyntheticPage::markStale);
    connect(m_device, &QComboBox::currentIndexChanged, this, &SyntheticPage::markStale);
    for (auto* box : std::as_const(m_methodBoxes))
        connect(box, &QCheckBox::toggled, this, &SyntheticPage::markStale);
    return panel;
}

QWidget* SyntheticPage::buildCentral()
{
    // View selector, decision regions over curves.
    auto* central = new QWidget;
    auto* centralLayout = new QVBoxLayout(central);
    auto* selector = new QHBoxLayout;
    m_viewMethod = new QComboBox(central);
    for (auto m : allMethods())
        m_viewMethod->addItem(QString::fromStdString(methodLabel(m)), QString::fromStdString(methodName(m)));
    m_viewReplicate = new QSpinBox(central);
    m_viewReplicate->setRange(1, 1000);
    m_viewReplicate->setPrefix(tr("replicate "));
    m_followTraining = new QCheckBox(tr("follow training"), central);
    m_followTraining->setToolTip(tr("Show the task being trained"));
    m_followTraining->setChecked(true);
    selector->addWidget(new QLabel(tr("Show:"), central));
    selector->addWidget(m_viewMethod, 1);
    selector->addWidget(m_viewReplicate);
    selector->addWidget(m_followTraining);
    selector->addStretch(1);
    centralLayout->addLayout(selector);
    // The three region panels and the correction curves, two by two.
    m_regions = new RegionView(central);
    m_curves = new CurveView(m_regions);
    m_regions->setCornerWidget(m_curves);
    centralLayout->addWidget(m_regions, 1);
    connect(m_viewMethod, &QComboBox::currentIndexChanged, this, &SyntheticPage::showSelectedTask);
    connect(m_viewReplicate, &QSpinBox::valueChanged, this, &SyntheticPage::showSelectedTask);
    return central;
}

void SyntheticPage::connectRunner()
{
    connect(&m_runner, &SyntheticJobRunner::started, this, [this](SyntheticJobRunner::Job job) {
        m_currentJob = job;
        m_followedTask.clear();
        Q_EMIT jobStarted(m_runner.jobName(job));
    });
    connect(&m_runner, &SyntheticJobRunner::progress, this, &SyntheticPage::progress);
    connect(&m_runner, &SyntheticJobRunner::taskUpdated, this, &SyntheticPage::onTaskUpdated);
    connect(&m_runner, &SyntheticJobRunner::resultRow, m_results, &ResultsTable::addRow);
    connect(&m_runner, &SyntheticJobRunner::logMessage, this, &SyntheticPage::logLine);
    connect(&m_runner, &SyntheticJobRunner::finished, this,
            [this](SyntheticJobRunner::Job job, double seconds, const QString& json, const QString& csv) {
                if (!json.isEmpty())
                    setResults(json, csv, QStringLiteral("synthetic"));
                if (job == SyntheticJobRunner::Job::Recorrect) {
                    setLastRecorrectionSeconds(seconds);
                    Q_EMIT timingChanged(tr("re-correction on the cached posterior: %1 s").arg(seconds, 0, 'f', 2));
                } else {
                    Q_EMIT timingChanged(tr("%1: %2 s").arg(m_runner.jobName(job)).arg(seconds, 0, 'f', 1));
                }
                onJobEnded(job, tr("%1 finished in %2 s").arg(m_runner.jobName(job)).arg(seconds, 0, 'f', 2));
                if (job == SyntheticJobRunner::Job::Run && demoMode())
                    Q_EMIT demoDone();
            });
    connect(&m_runner, &SyntheticJobRunner::cancelled, this, [this](SyntheticJobRunner::Job job) {
        onJobEnded(job, tr("%1 cancelled").arg(m_runner.jobName(job)));
        reportDemoCancelled();
    });
    connect(&m_runner, &SyntheticJobRunner::failed, this, [this](SyntheticJobRunner::Job job, const QString& message) {
        onJobEnded(job, tr("%1 failed").arg(m_runner.jobName(job)));
        if (!demoMode())
            Q_EMIT errorRaised(tr("Job failed"), message);
        reportDemoFailure(QString(), QString(), message, false);
    });
    connect(&m_runner, &SyntheticJobRunner::modelSaved, this, [this](const QString& paths, const QString& error) {
        if (!error.isEmpty())
            Q_EMIT errorRaised(tr("Save model"), error);
        else
            Q_EMIT logLine(tr("Saved %1").arg(paths));
    });
    connect(&m_runner, &SyntheticJobRunner::modelLoaded, this, [this](const TaskView& view, const QString& error) {
        if (!error.isEmpty()) {
            Q_EMIT errorRaised(tr("Open model"), error);
            return;
        }
        m_followTraining->setChecked(false);
        m_regions->setTask(view, decisionNames());
        Q_EMIT logLine(tr("Loaded model (%1, replicate %2): decisions under the current cost matrix shown as \"corrected\"")
                           .arg(view.method).arg(view.replicate + 1));
    });
}

ExperimentSettings SyntheticPage::settings() const
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

void SyntheticPage::writeSession(Session& session) const
{
    session.settings = settings();
}

void SyntheticPage::readSession(const Session& session)
{
    m_replicates->setValue(session.settings.replicates);
    for (const QString& m : methodNames())
        m_methodBoxes.value(m)->setChecked(session.settings.methods.contains(m));
    m_seed->setText(QString::number(session.settings.seed));
    m_threads->setValue(session.settings.threads);
    m_iterations->setValue(session.settings.correctionIterations);
    m_gridResolution->setValue(session.settings.gridResolution);
    const int device = m_device->findData(session.settings.device.startsWith("cuda") ? "cuda" : "cpu");
    m_device->setCurrentIndex(device < 0 ? 0 : device);
    costs()->undoStack()->clear();
    // An edit like any other: with a posterior cached, the session's matrix re-corrects it.
    costs()->setMatrixDirect(session.costs);
}

void SyntheticPage::markStale()
{
    // The cached posterior is tied to what was sampled (data, methods, seed, device,
    // grid); correction steps and threads can change without re-sampling.
    if (!m_runner.hasPosterior())
        return;
    auto sampled = m_runner.posteriorSettings();
    const auto now = settings();
    sampled.correctionIterations = now.correctionIterations;
    sampled.threads = now.threads;
    if (sampled != now)
        m_posteriorState->setText(tr("Settings changed: Run or Sample to re-sample the posterior."));
}

QString SyntheticPage::taskKey(int replicate, const QString& method) const
{
    return method + "/" + QString::number(replicate);
}

QStringList SyntheticPage::decisionNames() const
{
    QStringList names;
    for (int d = 0; d < costs()->matrix().numDecisions(); ++d)
        names << QString::fromStdString(costs()->matrix().decisionName(d));
    return names;
}

void SyntheticPage::startJob(SyntheticJobRunner::Job job)
{
    const auto s = settings();
    if (s.methods.isEmpty()) {
        Q_EMIT errorRaised(tr("Nothing to run"), tr("Select at least one inference method."));
        return;
    }
    if (job == SyntheticJobRunner::Job::Recorrect && !m_runner.hasPosterior()) {
        Q_EMIT logLine(tr("No posterior yet: Run or Sample first."));
        return;
    }
    try {
        costs()->matrix().validateFor(2);
    } catch (const CostMatrixError& e) {
        Q_EMIT errorRaised(tr("Invalid cost matrix"), QString::fromStdString(e.what()));
        return;
    }
    if (job != SyntheticJobRunner::Job::Recorrect) {
        m_tasks.clear();
        m_regions->clear();
        m_curves->clear();
    }
    const auto& sampled = job == SyntheticJobRunner::Job::Recorrect ? m_runner.posteriorSettings() : s;
    m_results->reset(sampled.methods, sampled.replicates);
    m_runner.start(job, s, costs()->matrix());
}

void SyntheticPage::onTaskUpdated(const TaskView& view)
{
    const QString key = taskKey(view.replicate, view.method);
    m_tasks.insert(key, view);
    // Follow one task until its correction is done, rather than hopping between the
    // tasks that train in parallel (each hop would redraw everything).
    const auto followed = m_tasks.constFind(m_followedTask);
    const bool followedDone = followed == m_tasks.constEnd() || followed->correctionDone
                              || m_currentJob == SyntheticJobRunner::Job::Sample;
    if (m_followTraining->isChecked() && m_runner.isBusy() && key != m_followedTask && followedDone
        && !view.correctionDone) {
        m_followedTask = key;
        const QSignalBlocker b1(m_viewMethod), b2(m_viewReplicate);
        m_viewMethod->setCurrentIndex(m_viewMethod->findData(view.method));
        m_viewReplicate->setValue(view.replicate + 1);
    }
    if (taskKey(m_viewReplicate->value() - 1, m_viewMethod->currentData().toString()) == key)
        showSelectedTask();
}

void SyntheticPage::showSelectedTask()
{
    const auto it = m_tasks.constFind(taskKey(m_viewReplicate->value() - 1, m_viewMethod->currentData().toString()));
    if (it == m_tasks.constEnd())
        return;
    m_regions->setTask(*it, decisionNames());
    m_curves->setCurve(it->curve, tr("Correction: %1, replicate %2").arg(m_viewMethod->currentText()).arg(it->replicate + 1));
}

void SyntheticPage::onJobEnded(SyntheticJobRunner::Job job, const QString& status)
{
    Q_EMIT jobEnded(status, job != SyntheticJobRunner::Job::Recorrect || m_runner.hasPosterior());
    if (m_runner.hasPosterior()) {
        const auto& ps = m_runner.posteriorSettings();
        m_posteriorState->setText(tr("Cached posterior: %1 replicate(s) x %2 method(s), seed %3. "
                                     "Editing costs re-runs only the correction.")
                                      .arg(ps.replicates).arg(ps.methods.size()).arg(ps.seed));
    }
    Q_EMIT stateChanged();
    showSelectedTask();
    if (m_runner.hasPosterior() && takePendingRecorrection())
        startJob(SyntheticJobRunner::Job::Recorrect);
}

QList<QCustomPlot*> SyntheticPage::plots() const
{
    QList<QCustomPlot*> out = m_regions->plots();
    out << m_curves->plot();
    return out;
}

void SyntheticPage::saveModel()
{
    const QString method = m_viewMethod->currentData().toString();
    const int replicate = m_viewReplicate->value() - 1;
    const QString path = askSavePath(m_central,
                                     tr("Save correction model (%1, replicate %2)").arg(m_viewMethod->currentText()).arg(replicate + 1),
                                     "modelDir", QString("%1_r%2_q.pt").arg(method).arg(replicate), tr("LibTorch model (*.pt)"));
    if (path.isEmpty())
        return;
    m_runner.saveModel(replicate, method, path);
}

void SyntheticPage::openModel()
{
    const QString path = askOpenPath(m_central, tr("Open correction model"), "modelDir", tr("LibTorch model (*.pt)"));
    if (path.isEmpty())
        return;
    if (!m_runner.loadModel(path, costs()->matrix(), m_gridResolution->value()))
        Q_EMIT logLine(tr("Busy: open the model when the job has finished"));
}

} // namespace lcs::ui
