#include "registry_page.h"

#include <QFontDatabase>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

#include "core/input_error.h"
#include "cost_matrix_model.h"
#include "experiments/experiment.h"
#include "settings_form.h"

namespace lcs::ui {

RegistryExperimentPage::RegistryExperimentPage(const Experiment& experiment, CostMatrixModel* costs,
                                               CostEditor* costEditor, QObject* parent)
    : ExperimentPage(costs, costEditor, parent), m_experiment(experiment), m_runner(experiment)
{
    m_settings = new QWidget;
    auto* column = new QVBoxLayout(m_settings);
    m_form = new SettingsForm(experiment.settings(), m_settings);
    column->addWidget(m_form);
    auto* buttons = new QHBoxLayout;
    m_runButton = new QPushButton(tr("Run"), m_settings);
    m_recorrectButton = new QPushButton(tr("Re-correct"), m_settings);
    m_cancelButton = new QPushButton(tr("Cancel"), m_settings);
    for (auto* b : {m_runButton, m_recorrectButton, m_cancelButton})
        buttons->addWidget(b);
    column->addLayout(buttons);
    m_state = new QLabel(tr("Nothing run yet."), m_settings);
    m_state->setWordWrap(true);
    column->addWidget(m_state);
    column->addStretch(1);
    connect(m_runButton, &QPushButton::clicked, this, [this] { run(); });
    connect(m_recorrectButton, &QPushButton::clicked, this, [this] { recorrect(); });
    connect(m_cancelButton, &QPushButton::clicked, this, [this] { cancel(); });

    m_central = new QPlainTextEdit;
    m_central->setReadOnly(true);
    m_central->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_central->setPlaceholderText(QString::fromStdString(experiment.description()));
    m_rows = new QTableWidget;
    m_rows->verticalHeader()->hide();

    auto& r = m_runner;
    connect(&r, &JobRunner::started, this, [this](JobKind job) {
        m_currentJob = job;
        Q_EMIT jobStarted(m_runner.jobName(job));
    });
    connect(&r, &JobRunner::progress, this, &RegistryExperimentPage::progress);
    connect(&r, &ExperimentJobRunner::table, m_central, &QPlainTextEdit::setPlainText);
    connect(&r, &JobRunner::logMessage, this, &RegistryExperimentPage::logLine);
    connect(&r, &JobRunner::cacheReady, this, [this](const QString& description, const CostMatrix&) {
        m_state->setText(description);
        Q_EMIT stateChanged();
    });
    connect(&r, &JobRunner::finished, this, [this](JobKind job, double seconds, const QString& json, const QString& csv) {
        setResults(json, csv, QString::fromStdString(m_experiment.name()));
        showRows(csv);
        if (job == JobKind::Recorrect)
            setLastRecorrectionSeconds(seconds);
        Q_EMIT timingChanged(tr("%1: %2 s").arg(m_runner.jobName(job)).arg(seconds, 0, 'f', 1));
        Q_EMIT jobEnded(tr("%1 finished in %2 s").arg(m_runner.jobName(job)).arg(seconds, 0, 'f', 2), true);
        Q_EMIT stateChanged();
        if (job == JobKind::Run && demoMode())
            Q_EMIT demoDone();
        if (isActive() && m_runner.hasCache() && takePendingRecorrection())
            startJob(JobKind::Recorrect);
    });
    connect(&r, &JobRunner::cancelled, this, [this](JobKind job) {
        Q_EMIT jobEnded(tr("%1 cancelled").arg(m_runner.jobName(job)), true);
        Q_EMIT stateChanged();
        reportDemoCancelled();
    });
    connect(&r, &JobRunner::failed, this, [this](JobKind job, const QString& message, bool noData) {
        Q_EMIT jobEnded(tr("%1 failed").arg(m_runner.jobName(job)), true);
        Q_EMIT stateChanged();
        if (!demoMode())
            Q_EMIT errorRaised(tr("Job failed"), message);
        reportDemoFailure(QString::fromStdString(m_experiment.name()), QString(), message, noData);
    });
}

RegistryExperimentPage::~RegistryExperimentPage() = default;

QList<ExperimentEntry> RegistryExperimentPage::experiments() const
{
    return {{QString::fromStdString(m_experiment.name()), QString::fromStdString(m_experiment.title())}};
}

QWidget* RegistryExperimentPage::settingsWidget() const
{
    return m_settings;
}

QWidget* RegistryExperimentPage::centralWidget() const
{
    return m_central;
}

QWidget* RegistryExperimentPage::resultsWidget() const
{
    return m_rows;
}

QString RegistryExperimentPage::resultsTitle() const
{
    return tr("Results (%1)").arg(QString::fromStdString(m_experiment.name()));
}

CostMatrix RegistryExperimentPage::defaultCosts(const QString&) const
{
    const auto declared = m_experiment.settings();
    try {
        return m_experiment.defaultCosts(checkedSettings(declared, m_form->values(), m_experiment.name()));
    } catch (const std::exception&) {
    }
    try {  // a form that does not parse yet: the declared defaults decide
        return m_experiment.defaultCosts(checkedSettings(declared, nlohmann::json::object(), m_experiment.name()));
    } catch (const std::exception&) {
        return costs()->matrix();  // an experiment that cannot say without data: keep the matrix shown
    }
}

void RegistryExperimentPage::updateControls(bool anyBusy)
{
    m_runButton->setEnabled(!anyBusy);
    m_recorrectButton->setEnabled(!anyBusy && m_runner.hasCache());
    m_cancelButton->setEnabled(m_runner.isBusy());
}

void RegistryExperimentPage::startJob(JobKind job)
{
    if (m_runner.isBusy())
        return;
    nlohmann::json values;
    try {
        values = m_form->values();
    } catch (const InputError& e) {
        Q_EMIT errorRaised(tr("Cannot run"), QString::fromStdString(e.what()));
        return;
    }
    m_runner.start(job, QVariant::fromValue(values), costs()->matrix());
}

void RegistryExperimentPage::showRows(const QString& csv)
{
    QStringList lines = csv.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    m_rows->clear();
    m_rows->setRowCount(0);
    if (lines.isEmpty())
        return;
    const QStringList header = lines.takeFirst().split(QLatin1Char(','));
    m_rows->setColumnCount(static_cast<int>(header.size()));
    m_rows->setHorizontalHeaderLabels(header);
    m_rows->setRowCount(static_cast<int>(lines.size()));
    for (int r = 0; r < lines.size(); ++r) {
        const QStringList cells = lines[r].split(QLatin1Char(','));
        for (int c = 0; c < cells.size() && c < header.size(); ++c)
            m_rows->setItem(r, c, new QTableWidgetItem(cells[c]));
    }
    m_rows->resizeColumnsToContents();
}

void RegistryExperimentPage::writeSession(Session& session) const
{
    session.settings = m_form->values();
}

void RegistryExperimentPage::readSession(const Session& session)
{
    m_form->setValues(session.settings);
    setCostsQuietly(session.costs);  // a new setting, not an edit of a cached run's costs
}

} // namespace lcs::ui
