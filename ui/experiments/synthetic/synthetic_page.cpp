#include "ui/experiments/synthetic/synthetic_page.h"

#include <algorithm>

#include <QCheckBox>
#include <QColor>
#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QStackedWidget>
#include <QTabWidget>
#include <QUndoStack>
#include <QVBoxLayout>

#include "ui/qcustomplot_compat.h"

#include "base/inference/method_catalog.h"

#include "base/core/input_error.h"
#include "engine/experiments/experiment.h"
#include "engine/experiments/experiment_names.h"
#include "engine/experiments/own_predictive/own_predictive_experiment.h"
#include "engine/experiments/synthetic/synthetic_settings.h"
#include "ui/cost_benefit_view.h"
#include "ui/cost_matrix_model.h"
#include "ui/curve_view.h"
#include "ui/confusion_plot.h"
#include "ui/decisions_view.h"
#include "ui/evidence_panel.h"
#include "ui/file_dialogs.h"
#include "ui/method_style.h"
#include "ui/region_view.h"
#include "ui/reliability_view.h"
#include "ui/results_table.h"
#include "ui/session.h"
#include "ui/settings_form.h"

namespace lcs::ui {

namespace {

constexpr const char* kGridResolution = "grid_resolution";

/// The settings a job runs with: the window draws the decision regions on its own grid
/// whatever grid a session asks for.
nlohmann::json windowSettings(nlohmann::json settings)
{
    if (const auto grid = settings.find(kGridResolution); grid != settings.end() && grid->is_number_integer())
        *grid = windowRegionGrid(grid->get<int>());
    return settings;
}

/// The experiments this page serves, in the chooser's order.
const char* const kServed[] = {kSyntheticExperiment, kTabularExperiment, kOwnPredictiveExperiment};

const Experiment& registered(const QString& experiment)
{
    return ExperimentRegistry::global().get(experiment.toStdString());
}

} // namespace

JobNames SyntheticPage::jobNames()
{
    return {tr("Run (sample + correct)"), tr("Correction")};
}

std::unique_ptr<ViewAdapter> SyntheticPage::viewAdapter()
{
    return std::make_unique<ForwardingAdapter<TaskView, ResultRow, EvidenceShown>>();
}

SyntheticPage::SyntheticPage(CostMatrixModel* costs, CostEditor* costEditor, QObject* parent)
    : ExperimentPage(costs, costEditor, parent),
      m_runner(jobNames(), viewAdapter())
{
    m_panel = buildPanel();
    m_central = buildCentral();
    m_results = new ResultsTable;
    connectRunner();
    connect(costs, &CostMatrixModel::matrixChanged, this, &SyntheticPage::showSelectedTask);
    resetResults(settings());
}

void SyntheticPage::resetResults(const nlohmann::json& settings)
{
    if (!settings.contains("methods")) {  // a user's predictive: one task
        m_results->reset({QString::fromLatin1(kOwnPredictiveSeries)}, 1, {tr("your P")});
        m_evidence->showNoEvidence(
            !(settings.contains("labels") && settings.at("labels").is_string() &&
              !settings.at("labels").get<std::string>().empty())
                ? tr("No labels: the costs above are expected costs under P, which q lowers by construction; "
                     "nothing here shows q helps. Give the Labels of X's rows to see held-out evidence.")
                : tr("Held-out evidence appears here when the correction has run."));
        showEvidenceTitle();
        return;
    }
    showEvidenceTitle();
    m_evidence->showNoEvidence(tr("Verdicts on the test rows appear here as replicates finish."));
    QStringList methods;
    for (const auto& id : settings.at("methods"))
        methods << QString::fromStdString(id.get<std::string>());
    m_results->reset(methods, settings.at("replicates").get<int>());
}

SyntheticPage::~SyntheticPage() = default;

void SyntheticPage::showEvidenceTitle()
{
    const int at = m_centralTabs->indexOf(m_evidence);
    m_centralTabs->setTabText(at, evidenceTabTitle(m_evidence->worse()));
    m_centralTabs->tabBar()->setTabTextColor(at, m_evidence->worse() ? worseColour() : QColor());
}

QList<ExperimentEntry> SyntheticPage::experiments() const
{
    QList<ExperimentEntry> out;
    for (const char* id : kServed)
        out << ExperimentEntry::of(registered(QString::fromLatin1(id)));
    return out;
}

void SyntheticPage::activate(const QString& experiment)
{
    m_formStack->setCurrentWidget(m_forms.value(experiment));
    ExperimentPage::activate(experiment);
    Q_EMIT stateChanged();
}

bool SyntheticPage::canSample() const
{
    return experiment() != QLatin1String(kOwnPredictiveExperiment);
}

SettingsForm* SyntheticPage::form() const
{
    return m_forms.value(experiment());
}

bool SyntheticPage::hasOwnPosterior() const
{
    return m_runner.hasCache() && m_runner.cacheExperiment() == experiment();
}

QList<ExperimentPage::OpenAction> SyntheticPage::openActions()
{
    const QString arrays = tr("Arrays (*.npy *.NPY *.csv *.CSV);;All files (*)");
    return {{tr("Open &Data (CSV or ARFF table)..."), QString::fromLatin1(kTabularExperiment),
             [this](QWidget* parent) {
                 const QString path = askOpenPath(
                     parent, tr("Open data (a CSV table or a Weka ARFF file)"), "tableDir",
                     tr("Tables (*.csv *.CSV *.arff *.ARFF);;CSV tables (*.csv *.CSV);;Weka ARFF (*.arff *.ARFF);;"
                        "All files (*)"));
                 if (path.isEmpty())
                     return;
                 openTable(path);
                 // The matrix follows the table's classes now, not at the first run.
                 try {
                     adoptDataClasses(declared(), settings());
                 } catch (const InputError&) {
                     // a table the form cannot read yet: the run says why
                 }
                 Q_EMIT logLine(path.endsWith(QLatin1String(".arff"), Qt::CaseInsensitive)
                                    ? tr("Table %1: its class is the last attribute unless the Experiment dock's "
                                         "label names another; Run (F5)")
                                          .arg(path)
                                    : tr("Table %1: its label column is \"label\" unless the Experiment dock "
                                         "names another; Run (F5)")
                                          .arg(path));
             }},
            {tr("Open &Predictive (X and P)..."), QString::fromLatin1(kOwnPredictiveExperiment),
             [this, arrays](QWidget* parent) {
                 const QString x = askOpenPath(parent, tr("Open predictive: the features X (N x D)"), "predictiveDir",
                                               arrays);
                 if (x.isEmpty())
                     return;
                 const QString p = askOpenPath(parent, tr("Open predictive: the probabilities P (N x K or T x N x K)"),
                                               "predictiveDir", arrays);
                 if (p.isEmpty())
                     return;
                 openPredictive(x, p);
                 run();
             }}};
}

void SyntheticPage::setFiles(const QString& experiment, const nlohmann::json& files)
{
    // The form's other values stay (one it cannot parse goes back to its default).
    auto* form = m_forms.value(experiment);
    nlohmann::json values = nlohmann::json::object();
    try {
        values = form->values();
    } catch (const InputError&) {
    }
    values.update(files);
    form->setValues(values);
}

void SyntheticPage::openPredictive(const QString& features, const QString& predictive)
{
    setFiles(QString::fromLatin1(kOwnPredictiveExperiment),
             {{kFeaturesSetting, features.toStdString()}, {kPredictiveSetting, predictive.toStdString()}});
}

void SyntheticPage::openTable(const QString& path)
{
    setFiles(QString::fromLatin1(kTabularExperiment), {{kDataSetting, path.toStdString()}});
}

QWidget* SyntheticPage::resultsWidget() const
{
    return m_results;
}

QString SyntheticPage::resultsTitle() const
{
    if (experiment() == QLatin1String(kOwnPredictiveExperiment))
        // With labels the row holds realised test costs (and the verdict in its tooltip),
        // without them the mean expected cost under P: the title names neither.
        return tr("Results (your predictive)");
    return experiment() == QLatin1String(kSyntheticExperiment) ? tr("Results (paper Table 2)") : tr("Results (your table)");
}

QString SyntheticPage::welcomeText() const
{
    return tr("Ready: the synthetic experiment (two Gaussians, 90/10 imbalance, 500 unlabelled calibration points). "
              "Press F5 to sample and correct.");
}

CostMatrix SyntheticPage::defaultCosts(const QString& experiment) const
{
    nlohmann::json values = nlohmann::json::object();
    try {
        values = m_forms.value(experiment)->values();
    } catch (const InputError&) {
    }
    return declaredDefaultCosts(registered(experiment), values);
}

std::optional<std::vector<std::string>> SyntheticPage::presetClassNames() const
{
    // A table's or a predictive's classes are its own: presets keep the names the matrix has.
    if (experiment() != QLatin1String(kSyntheticExperiment))
        return std::nullopt;
    return std::vector<std::string>{};
}

QWidget* SyntheticPage::buildPanel()
{
    auto* panel = new QWidget;
    auto* column = new QVBoxLayout(panel);
    column->setContentsMargins(0, 0, 0, 0);
    m_formStack = new QStackedWidget(panel);
    for (const char* id : kServed) {
        auto* form = new SettingsForm(registered(QString::fromLatin1(id)).settings(), m_formStack);
        m_forms.insert(QString::fromLatin1(id), form);
        m_formStack->addWidget(form);
        connect(form, &SettingsForm::edited, this, &SyntheticPage::markStale);
    }
    column->addWidget(m_formStack);
    m_posteriorState = new QLabel(tr("no posterior sampled yet"), panel);
    m_posteriorState->setWordWrap(true);
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
    column->addLayout(buttons);
    column->addWidget(m_posteriorState);
    column->addStretch(1);
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
    m_viewMethod->addItem(tr("Your predictive"), QString::fromLatin1(kOwnPredictiveSeries));
    m_viewReplicate = new QSpinBox(central);
    m_viewReplicate->setRange(0, 999);
    m_viewReplicate->setPrefix(tr("replicate "));
    m_viewReplicate->setToolTip(tr("Replicates are numbered from 0, as in the results file and the saved models' names (_r0)"));
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
    // The plots on one tab, the held-out evidence on the other: its title carries the
    // verdict, so a worse q shows even while the plots are in front.
    m_centralTabs = new QTabWidget(central);
    m_centralTabs->setObjectName("synthetic_tabs");
    m_centralTabs->setDocumentMode(true);
    m_evidence = new EvidencePanel(m_centralTabs);
    m_reliability = new ReliabilityView(m_centralTabs);
    m_centralTabs->addTab(m_regions, tr("Decision regions and curves"));
    m_decisions = new DecisionsView(m_centralTabs);
    m_centralTabs->addTab(m_decisions, tr("Decisions"));
    m_centralTabs->addTab(m_reliability, tr("Calibration"));
    m_costBenefit = new CostBenefitView(m_centralTabs);
    m_centralTabs->addTab(m_costBenefit, tr("Cost-benefit"));
    m_centralTabs->setTabVisible(m_centralTabs->indexOf(m_costBenefit), false);  // shown with a curve
    m_centralTabs->addTab(m_evidence, evidenceTabTitle(false));
    centralLayout->addWidget(m_centralTabs, 1);
    connect(m_viewMethod, &QComboBox::currentIndexChanged, this, &SyntheticPage::showSelectedTask);
    connect(m_viewReplicate, &QSpinBox::valueChanged, this, &SyntheticPage::showSelectedTask);
    return central;
}

void SyntheticPage::connectRunner()
{
    connect(&m_runner, &JobRunner::started, this, [this](JobKind job) {
        m_currentJob = job;
        m_followedTask.clear();
        Q_EMIT jobStarted(m_runner.jobName(job));
    });
    connect(&m_runner, &JobRunner::progress, this, &SyntheticPage::progress);
    onView<TaskView>(&m_runner, this, [this](const TaskView& view) { onTaskUpdated(view); });
    connect(&m_runner, &JobRunner::cacheReady, m_posteriorState, &QLabel::setText);
    onView<ResultRow>(&m_runner, this, [this](const ResultRow& row) {
        m_results->addRow(row);
        if (row.method != kOwnPredictiveSeries) {  // a user's predictive has its own evidence
            m_evidence->showReplicates(m_results->rows(), m_results->methods(), m_results->labels());
            showEvidenceTitle();
        }
    });
    onView<EvidenceShown>(&m_runner, this, [this](const EvidenceShown& shown) {
                // The run's answer is the evidence: it comes to the front; the plots are a click away.
                m_evidence->showCorrection(shown.evidence, shown.costs);
                showEvidenceTitle();
                m_centralTabs->setCurrentWidget(m_evidence);
            });
    connect(&m_runner, &JobRunner::logMessage, this, &SyntheticPage::logLine);
    connect(&m_runner, &JobRunner::finished, this,
            [this](JobKind job, double seconds, const QString& json, const QString& csv) {
                if (!json.isEmpty()) {
                    setResults(json, csv, experiment());
                    try {
                        m_costBenefit->setResults(nlohmann::json::parse(json.toStdString()), experiment());
                    } catch (const nlohmann::json::exception&) {
                        m_costBenefit->setResults(nlohmann::json::object(), experiment());
                    }
                    m_centralTabs->setTabVisible(m_centralTabs->indexOf(m_costBenefit), m_costBenefit->hasCurve());
                }
                if (job == JobKind::Recorrect) {
                    setLastRecorrectionSeconds(seconds);
                    Q_EMIT timingChanged(tr("re-correction on the cached posterior: %1 s").arg(seconds, 0, 'f', 2));
                } else {
                    Q_EMIT timingChanged(tr("%1: %2 s").arg(m_runner.jobName(job)).arg(seconds, 0, 'f', 1));
                }
                onJobEnded(job, tr("%1 finished in %2 s").arg(m_runner.jobName(job)).arg(seconds, 0, 'f', 2));
                if (job == JobKind::Run && demoMode())
                    Q_EMIT demoDone();
            });
    connect(&m_runner, &JobRunner::cancelled, this, [this](JobKind job) {
        onJobEnded(job, tr("%1 cancelled").arg(m_runner.jobName(job)));
        reportDemoCancelled();
    });
    connect(&m_runner, &JobRunner::failed, this, [this](JobKind job, const QString& message) {
        onJobEnded(job, tr("%1 failed").arg(m_runner.jobName(job)));
        if (!demoMode())
            Q_EMIT errorRaised(job == JobKind::Evaluate ? tr("Open model") : tr("Job failed"), message);
        reportDemoFailure(QString(), QString(), message, false);
    });
    connect(&m_runner, &JobRunner::modelsSaved, this, [this](const QString&, const QStringList& files,
                                                             const QString& error) {
        const QString paths = files.join(QStringLiteral(", "));
        if (!error.isEmpty() && !demoMode())
            Q_EMIT errorRaised(tr("Export model"), error);
        else if (error.isEmpty())
            Q_EMIT logLine(tr("Saved %1").arg(paths));
        Q_EMIT modelSaved(paths, error);
    });
}

const Experiment& SyntheticPage::declared() const
{
    return registered(experiment());
}

nlohmann::json SyntheticPage::settings() const
{
    return checkedSettings(declared().settings(), form()->values(), declared().name());
}

void SyntheticPage::writeSession(Session& session) const
{
    session.settings = form()->values();
}

void SyntheticPage::readSession(const Session& session)
{
    form()->setValues(session.settings);
    costs()->undoStack()->clear();
    // An edit like any other: with a posterior cached, the session's matrix re-corrects it.
    costs()->setMatrixDirect(session.costs);
}

void SyntheticPage::markStale()
{
    // The cached posterior is tied to what was sampled (data, methods, seed, device,
    // grid); the correction's settings and the threads can change without re-sampling.
    if (!hasOwnPosterior())
        return;
    nlohmann::json now;
    try {
        now = settings();
    } catch (const InputError&) {
        return;  // said when the user runs
    }
    auto sampled = m_runner.cacheSettings();
    now = windowSettings(now);
    for (const char* free : {"correction_iterations", "correction_lr", "warm_start_steps", "threads"}) {
        sampled.erase(free);
        now.erase(free);
    }
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

void SyntheticPage::startJob(JobKind job)
{
    nlohmann::json s;
    try {
        s = settings();
    } catch (const InputError& e) {
        Q_EMIT errorRaised(tr("Settings"), QString::fromStdString(e.what()));
        return;
    }
    if (job == JobKind::Recorrect && !hasOwnPosterior()) {
        Q_EMIT logLine(tr("No posterior of this experiment yet: Run or Sample first."));
        return;
    }
    const bool ownData = experiment() != QLatin1String(kSyntheticExperiment);
    if (ownData && job != JobKind::Recorrect && !adoptDataClasses(declared(), s))
        return;  // the window asks whether to reset the matrix
    // A table's or a predictive's classes are checked against the matrix when it is read.
    if (!costsUsable(ownData ? 0 : 2))
        return;
    if (job != JobKind::Recorrect) {
        m_tasks.clear();
        m_regions->clear();
        m_curves->clear();
    }
    resetResults(job == JobKind::Recorrect ? m_runner.cacheSettings() : s);
    m_runner.start(job, JobRequest{experiment(), windowSettings(s), {}}, costs()->matrix());
}

void SyntheticPage::onTaskUpdated(const TaskView& view)
{
    if (m_currentJob == JobKind::Evaluate) {  // an opened model's regions, not a task of the run
        m_followTraining->setChecked(false);
        m_regions->setTask(view, decisionNames());
        Q_EMIT logLine(tr("Loaded model (%1, replicate %2): decisions under the current cost matrix shown as "
                          "\"corrected\"").arg(QString::fromStdString(view.method)).arg(view.replicate));
        return;
    }
    const QString key = taskKey(view.replicate, QString::fromStdString(view.method));
    m_tasks.insert(key, view);
    // Follow one task until its correction is done, rather than hopping between the
    // tasks that train in parallel (each hop would redraw everything).
    const auto followed = m_tasks.constFind(m_followedTask);
    const bool followedDone = followed == m_tasks.constEnd() || followed->correctionDone
                              || m_currentJob == JobKind::Sample;
    if (m_followTraining->isChecked() && m_runner.isBusy() && key != m_followedTask && followedDone
        && !view.correctionDone) {
        m_followedTask = key;
        const QSignalBlocker b1(m_viewMethod), b2(m_viewReplicate);
        m_viewMethod->setCurrentIndex(m_viewMethod->findData(QString::fromStdString(view.method)));
        m_viewReplicate->setValue(view.replicate);
    }
    if (taskKey(m_viewReplicate->value(), m_viewMethod->currentData().toString()) == key)
        showSelectedTask();
}

void SyntheticPage::showSelectedTask()
{
    const auto it = m_tasks.constFind(taskKey(m_viewReplicate->value(), m_viewMethod->currentData().toString()));
    if (it == m_tasks.constEnd())
        return;
    m_regions->setPlaneShown(!it->test.empty() || it->uncorrected.isValid() || it->corrected.isValid());
    m_regions->setTask(*it, decisionNames());
    m_curves->setCurve(it->curve, tr("Correction: %1, replicate %2").arg(m_viewMethod->currentText()).arg(it->replicate));
    if (it->correctionDone)
        m_decisions->setTask(*it, m_viewMethod->currentText(), decisionNames(), costs()->matrix());
    else
        m_decisions->clear();
    if (it->reliabilityUncorrected.empty())
        m_reliability->clear();
    else
        m_reliability->setDiagrams(it->reliabilityUncorrected, it->eceUncorrected, it->reliabilityCorrected,
                                   it->eceCorrected, methodColourOf(QString::fromStdString(it->method)),
                                   tr("Reliability on the test rows: %1, replicate %2")
                                       .arg(m_viewMethod->currentText())
                                       .arg(it->replicate));
}

void SyntheticPage::onJobEnded(JobKind job, const QString& status)
{
    Q_EMIT jobEnded(status, job != JobKind::Recorrect || m_runner.hasCache());
    Q_EMIT stateChanged();
    if (job != JobKind::Evaluate)  // an opened model's regions stay until the user picks a task
        showSelectedTask();
    if (hasOwnPosterior() && takePendingRecorrection())
        startJob(JobKind::Recorrect);
}

QList<QCustomPlot*> SyntheticPage::plots() const
{
    QList<QCustomPlot*> out = m_regions->plots();
    out << m_curves->plot() << m_decisions->confusion()->plot() << m_reliability->plot();
    if (m_costBenefit->hasCurve())
        out << m_costBenefit->plot();
    return out;
}

QString SyntheticPage::plotFileContext() const
{
    const QString method = m_viewMethod->currentData().toString();
    if (method.isEmpty())
        return experiment();
    return QStringLiteral("%1_%2_r%3").arg(experiment(), method).arg(m_viewReplicate->value());
}

void SyntheticPage::saveModel()
{
    const QString method = m_viewMethod->currentData().toString();
    const int replicate = m_viewReplicate->value();
    // A user's predictive saves the rule its run kept (q, P or a calibration inside one
    // model); the synthetic and table methods save q.
    const bool own = method == QLatin1String(kOwnPredictiveSeries);
    const QString path = askSavePath(m_central,
                                     own ? tr("Save the kept rule (%1)").arg(m_viewMethod->currentText())
                                         : tr("Save correction model (%1, replicate %2)").arg(m_viewMethod->currentText()).arg(replicate),
                                     "modelDir",
                                     own ? QString::fromLatin1(kKeptRuleFile) : QString("%1_r%2_q.pt").arg(method).arg(replicate),
                                     tr("LibTorch model (*.pt)"));
    if (path.isEmpty())
        return;
    m_runner.saveModel(replicate, method, path);
}

bool SyntheticPage::exportModelTo(const QString& path)
{
    const QString method = m_viewMethod->currentData().toString();
    return canSaveModel() && !method.isEmpty() && m_runner.saveModel(m_viewReplicate->value(), method, path);
}

void SyntheticPage::openModel()
{
    const QString path = askOpenPath(m_central, tr("Open correction model"), "modelDir", tr("LibTorch model (*.pt)"));
    if (path.isEmpty())
        return;
    // On the plane the form names (a table's range), at its grid or the window's.
    nlohmann::json asked;
    try {
        asked = settings();
    } catch (const InputError& e) {
        Q_EMIT errorRaised(tr("Open model"), QString::fromStdString(e.what()));
        return;
    }
    // The experiment's declared action, run as every job is.
    asked[kSavedModelSetting] = path.toStdString();
    if (!m_runner.start(JobKind::Evaluate, JobRequest{experiment(), asked, {}}, costs()->matrix()))
        Q_EMIT logLine(tr("Busy: open the model when the job has finished"));
}

} // namespace lcs::ui
