#include "ui/experiment_panel.h"

#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSettings>
#include <QStackedWidget>
#include <QVBoxLayout>

#include "base/core/input_error.h"
#include "ui/settings_form.h"

namespace lcs::ui {

ExperimentPanel::ExperimentPanel(const QList<const Experiment*>& experiments, const ExperimentPanelOptions& options,
                                 QWidget* parent)
    : QWidget(parent), m_options(options)
{
    auto* column = new QVBoxLayout(this);
    column->setContentsMargins(0, 0, 0, 0);
    m_stack = new QStackedWidget(this);

    for (const auto* experiment : experiments) {
        const QString name = QString::fromStdString(experiment->name());
        auto* form = new SettingsForm(experiment->settings(), m_stack);
        form->setObjectName(name + QStringLiteral("Settings"));
        auto start = windowValues(experiment->settings());
        if (!rememberedData().isEmpty())
            start[kDataSetting] = rememberedData().toStdString();
        form->setValues(start);
        m_stack->addWidget(form);
        m_forms.insert(name, form);
        m_experiments.insert(name, experiment);
    }
    column->addWidget(m_stack);
    if (!options.note.isEmpty()) {
        auto* note = new QLabel(options.note, this);
        note->setWordWrap(true);
        column->addWidget(note);
    }

    auto* buttons = new QHBoxLayout;
    m_run = new QPushButton(tr("Run"), this);
    m_run->setObjectName(options.name + QStringLiteral("Run"));
    m_preview = new QPushButton(tr("Preview"), this);
    m_preview->setObjectName(options.name + QStringLiteral("Preview"));
    m_preview->setToolTip(tr("Run the same settings on %1% of the images: the views fill in within a minute or "
                             "two, and the log ends with how long the whole run would take here")
                              .arg(100 * kQuickPreviewFraction));
    m_recorrect = new QPushButton(tr("Re-correct"), this);
    m_recorrect->setToolTip(tr("Re-train only q on the cached student S for the current cost matrix"));
    m_cancel = new QPushButton(tr("Cancel"), this);
    m_cancel->setObjectName(options.name + QStringLiteral("Cancel"));
    connect(m_run, &QPushButton::clicked, this, &ExperimentPanel::runRequested);
    connect(m_preview, &QPushButton::clicked, this, &ExperimentPanel::previewRequested);
    connect(m_recorrect, &QPushButton::clicked, this, &ExperimentPanel::recorrectRequested);
    connect(m_cancel, &QPushButton::clicked, this, &ExperimentPanel::cancelRequested);
    for (auto* b : {m_run, m_preview, m_recorrect, m_cancel})
        buttons->addWidget(b);
    column->addLayout(buttons);
    m_state = new QLabel(tr("Nothing run yet."), this);
    m_state->setWordWrap(true);
    column->addWidget(m_state);
    column->addStretch(1);

    if (!experiments.isEmpty())
        setExperiment(QString::fromStdString(experiments.front()->name()));
    setBusy(false, false);
}

QString ExperimentPanel::rememberedData() const
{
    const QString stored = m_options.dataKey.isEmpty() ? QString() : QSettings().value(m_options.dataKey).toString();
    return stored.isEmpty() ? m_options.dataFallback : stored;
}

void ExperimentPanel::rememberData() const
{
    if (m_options.dataKey.isEmpty())
        return;
    try {
        const auto s = settings();
        if (s.contains(kDataSetting) && s[kDataSetting].is_string())
            QSettings().setValue(m_options.dataKey, QString::fromStdString(s[kDataSetting].get<std::string>()));
    } catch (const InputError&) {
    }
}

void ExperimentPanel::setExperiment(const QString& experiment)
{
    if (!m_forms.contains(experiment))
        return;
    m_experiment = experiment;
    m_stack->setCurrentWidget(m_forms.value(experiment));
    m_preview->setVisible(findSetting(m_experiments.value(experiment)->settings(), kPreviewSetting) != nullptr);
}

nlohmann::json ExperimentPanel::settings() const
{
    const auto* experiment = m_experiments.value(m_experiment);
    return checkedSettings(experiment->settings(), m_forms.value(m_experiment)->values(), experiment->name());
}

nlohmann::json ExperimentPanel::values() const
{
    return m_forms.value(m_experiment)->values();
}

void ExperimentPanel::applySettings(const nlohmann::json& settings)
{
    m_forms.value(m_experiment)->setValues(settings);
}

QString ExperimentPanel::validate(bool checkFolders) const
{
    nlohmann::json values;
    try {
        values = settings();
    } catch (const InputError& e) {
        return QString::fromStdString(e.what());
    }
    // A folder setting given as a path (not a name it suggests) must be a folder: said
    // before any job starts.
    for (const auto& spec : m_experiments.value(m_experiment)->settings()) {
        const auto& v = values.at(spec.name);
        if (!checkFolders || spec.browse == SettingBrowse::None || !v.is_string())
            continue;
        const QString path = QString::fromStdString(v.get<std::string>());
        if (spec.browse == SettingBrowse::File && !QFileInfo(path).isFile())
            return tr("%1: %2 is not a file").arg(QString::fromStdString(settingFlag(spec)), path);
        if (spec.browse == SettingBrowse::Folder && path.contains(QLatin1Char('/')) && !QFileInfo(path).isDir())
            return tr("%1: %2 is not a folder").arg(QString::fromStdString(settingFlag(spec)), path);
    }
    return {};
}

void ExperimentPanel::setBusy(bool busy, bool canRecorrect)
{
    m_run->setEnabled(!busy);
    m_preview->setEnabled(!busy);
    m_recorrect->setEnabled(!busy && canRecorrect);
    m_cancel->setEnabled(busy);
    m_stack->setEnabled(!busy);
}

void ExperimentPanel::setState(const QString& text)
{
    m_state->setText(text);
}

} // namespace lcs::ui
