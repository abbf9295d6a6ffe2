#include "ui/experiments/registry/registry_page.h"

#include "ui/cost_editor.h"

#include <QFontDatabase>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

#include "base/core/input_error.h"
#include "engine/experiments/experiment.h"
#include "ui/cost_matrix_model.h"
#include "ui/results_table.h"
#include "ui/settings_form.h"

namespace lcs::ui {

RegistryExperimentPage::RegistryExperimentPage(const Experiment& experiment, CostMatrixModel* costs,
                                               CostEditor* costEditor, QObject* parent)
    : PanelExperimentPage({&experiment}, {QString::fromStdString(experiment.name()), {}, {}, {}},
                          JobNames{QString::fromStdString(experiment.name())}, nullptr,
                          QString::fromStdString(experiment.name()), costs, costEditor, parent),
      m_experiment(experiment)
{
    m_central = new QPlainTextEdit;
    m_central->setReadOnly(true);
    m_central->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_central->setPlaceholderText(QString::fromStdString(experiment.description()));
    m_rows = new QTableWidget;
    m_rows->verticalHeader()->hide();
    fitColumnsToContents(m_rows);
    setViews(m_central, m_rows);

    auto& r = m_runner;
    connect(&r, &JobRunner::table, m_central, &QPlainTextEdit::setPlainText);
    connect(&r, &JobRunner::cacheReady, this, [this](const QString& description, const CostMatrix&) {
        panel()->setState(description);
        Q_EMIT stateChanged();
    });
    connect(&r, &JobRunner::finished, this, [this](JobKind job, double seconds, const QString& json, const QString& csv) {
        setResults(json, csv, QString::fromStdString(m_experiment.name()));
        showRows(csv);
        if (job == JobKind::Recorrect)
            setLastRecorrectionSeconds(seconds);
        Q_EMIT timingChanged(tr("%1: %2 s").arg(m_runner.jobName(job)).arg(seconds, 0, 'f', 1));
        if (job == JobKind::Run && demoMode())
            Q_EMIT demoDone();
        ended(tr("%1 finished in %2 s").arg(m_runner.jobName(job)).arg(seconds, 0, 'f', 2));
    });
    connectJobEndings(QString::fromStdString(m_experiment.name()), QString());
}

RegistryExperimentPage::~RegistryExperimentPage() = default;

SettingsForm* RegistryExperimentPage::form() const
{
    return panel()->form(QString::fromStdString(m_experiment.name()));
}

QString RegistryExperimentPage::resultsTitle() const
{
    return tr("Results (%1)").arg(QString::fromStdString(m_experiment.name()));
}

CostMatrix RegistryExperimentPage::defaultCosts(const QString&) const
{
    nlohmann::json values = nlohmann::json::object();
    try {
        values = panel()->values();
    } catch (const std::exception&) {
    }
    return declaredDefaultCosts(m_experiment, values);
}

void RegistryExperimentPage::startJob(JobKind job)
{
    if (m_runner.isBusy())
        return;
    const auto settings = settingsForJob(job == JobKind::Run);
    if (!settings)
        return;
    if (job == JobKind::Run && !adoptDataClasses(m_experiment, *settings))
        return;  // the window asks whether to reset the matrix
    m_runner.start(job, *settings, costs()->matrix());
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
}

} // namespace lcs::ui
