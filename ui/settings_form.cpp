#include "ui/settings_form.h"

#include <climits>

#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QVBoxLayout>

#include "base/core/number_format.h"
#include "base/inference/method_catalog.h"
#include "ui/job_runner.h"

namespace lcs::ui {

namespace {

/// A value as the text its flag would take ("0.3,0.5" for a list).
QString valueText(const nlohmann::json& v)
{
    if (v.is_null())
        return {};
    if (v.is_string())
        return QString::fromStdString(v.get<std::string>());
    if (v.is_array()) {
        QStringList items;
        for (const auto& x : v)
            items << valueText(x);
        return items.join(QLatin1Char(','));
    }
    if (v.is_number_float())
        return QString::fromStdString(formatNumber(v.get<double>()));
    return QString::fromStdString(v.dump());
}

/// Whole numbers a spin box holds, with one more entry below the range where the
/// default is decided at run time (shown with the default's words).
bool spinBoxFits(const SettingSpec& spec)
{
    return spec.kind == SettingKind::Integer && spec.min > INT_MIN + 1 && spec.max <= INT_MAX;
}

QString defaultWords(const SettingSpec& spec)
{
    return !spec.defaultText.empty() ? QString::fromStdString(spec.defaultText) : valueText(spec.defaultValue);
}

} // namespace

QString settingLabel(const SettingSpec& spec)
{
    QString label = !spec.label.empty() ? QString::fromStdString(spec.label)
                                        : QString::fromStdString(spec.name).replace(QLatin1Char('_'), QLatin1Char(' '));
    if (!label.isEmpty())
        label[0] = label[0].toUpper();
    if (!spec.unit.empty())
        label += QStringLiteral(" (%1)").arg(QString::fromStdString(spec.unit));
    return label;
}

SettingsForm::SettingsForm(std::vector<SettingSpec> specs, QWidget* parent) : QWidget(parent), m_specs(std::move(specs))
{
    m_form = new QFormLayout(this);
    m_form->setContentsMargins(0, 0, 0, 0);
    // Labels above their fields when the dock is narrow, rather than a wider dock.
    m_form->setRowWrapPolicy(QFormLayout::WrapLongRows);
    for (const auto& spec : m_specs) {
        QWidget* editor = editorFor(spec);
        const std::string presets = presetValuesText(spec);
        editor->setToolTip(QString::fromStdString(spec.help + (presets.empty() ? "" : "\npresets: " + presets)));
        m_form->addRow(settingLabel(spec), editor);
    }
    const QString device = QString::fromStdString(deviceSetting().name);
    if (!JobRunner::cudaAvailable() && m_editors.contains(device))
        restrictSuggestion(device, QStringLiteral("cuda"),
                           tr("This LibTorch build has no CUDA support or no GPU is visible"));
    // A new form starts from the window's values (a session opened later sets its own).
    setValues(windowValues(m_specs));
}

void SettingsForm::restrictSuggestion(const QString& setting, const QString& suggestion, const QString& why)
{
    auto* combo = qobject_cast<QComboBox*>(m_editors.value(setting));
    if (!combo)
        return;
    const int index = combo->findText(suggestion);
    if (auto* model = qobject_cast<QStandardItemModel*>(combo->model()); model && index >= 0) {
        model->item(index)->setEnabled(false);
        combo->setItemData(index, why, Qt::ToolTipRole);
    }
    m_restricted[setting] << suggestion;
}

QWidget* SettingsForm::editorFor(const SettingSpec& spec)
{
    const QString name = QString::fromStdString(spec.name);
    QWidget* editor = nullptr;
    if (spec.kind == SettingKind::Choice) {
        auto* combo = new QComboBox(this);
        for (const auto& c : spec.choices)
            combo->addItem(QString::fromStdString(c));
        connect(combo, &QComboBox::activated, this, &SettingsForm::edited);
        editor = combo;
    } else if (spec.kind == SettingKind::Methods) {
        auto* box = new QWidget(this);
        auto* column = new QVBoxLayout(box);
        column->setContentsMargins(0, 0, 0, 0);
        for (const auto& id : spec.choices) {
            const auto* info = findMethodInfo(id);
            auto* check = new QCheckBox(QString::fromStdString(info ? info->label : id), box);
            check->setObjectName(name + QLatin1Char('_') + QString::fromStdString(id));
            check->setProperty("methodId", QString::fromStdString(id));
            connect(check, &QCheckBox::clicked, this, &SettingsForm::edited);
            column->addWidget(check);
            m_methodBoxes[name] << check;
        }
        editor = box;
    } else if (spec.kind == SettingKind::Switch) {
        auto* check = new QCheckBox(this);
        connect(check, &QCheckBox::clicked, this, &SettingsForm::edited);
        editor = check;
    } else if (spinBoxFits(spec)) {
        auto* spin = new QSpinBox(this);
        const bool runTimeDefault = spec.defaultValue.is_null();
        spin->setRange(static_cast<int>(spec.min) - (runTimeDefault ? 1 : 0), static_cast<int>(spec.max));
        if (runTimeDefault)
            spin->setSpecialValueText(defaultWords(spec));
        connect(spin, &QSpinBox::valueChanged, this, &SettingsForm::edited);
        editor = spin;
    } else if (spec.kind == SettingKind::Text && !spec.suggestions.empty()) {
        auto* combo = new QComboBox(this);
        combo->setEditable(true);
        for (const auto& s : spec.suggestions)
            combo->addItem(QString::fromStdString(s));
        combo->lineEdit()->setPlaceholderText(defaultWords(spec));
        connect(combo, &QComboBox::currentTextChanged, this, &SettingsForm::edited);
        editor = combo;
    } else {
        auto* line = new QLineEdit(this);
        line->setPlaceholderText(defaultWords(spec));
        connect(line, &QLineEdit::textEdited, this, &SettingsForm::edited);
        editor = line;
    }
    editor->setObjectName(name);
    m_editors.insert(name, editor);
    if (spec.browse == SettingBrowse::None)
        return editor;
    const bool file = spec.browse == SettingBrowse::File;
    auto* row = new QWidget(this);
    auto* layout = new QHBoxLayout(row);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(editor, 1);
    auto* browse = new QPushButton(tr("Browse..."), row);
    browse->setObjectName(name + QStringLiteral("_browse"));
    connect(browse, &QPushButton::clicked, this, [this, name, file] {
        const QString dir = file ? QFileDialog::getOpenFileName(this, tr("Choose a file"))
                                 : QFileDialog::getExistingDirectory(this, tr("Choose a folder"));
        if (dir.isEmpty())
            return;
        setValues([&] {
            auto v = values();
            v[name.toStdString()] = dir.toStdString();
            return v;
        }());
        Q_EMIT edited();
    });
    layout->addWidget(browse);
    return row;
}

nlohmann::json SettingsForm::values() const
{
    auto out = nlohmann::json::object();
    for (const auto& spec : m_specs) {
        const QString name = QString::fromStdString(spec.name);
        QWidget* editor = m_editors.value(name);
        QString text;
        if (spec.kind == SettingKind::Methods) {
            QStringList chosen;
            for (auto* check : m_methodBoxes.value(name))
                if (check->isChecked())
                    chosen << check->property("methodId").toString();
            text = chosen.join(QLatin1Char(','));  // none chosen: refused by the parser, naming the flag
        } else if (spec.kind == SettingKind::Switch) {
            out[spec.name] = qobject_cast<QCheckBox*>(editor)->isChecked();
            continue;
        } else if (auto* spin = qobject_cast<QSpinBox*>(editor)) {
            if (spec.defaultValue.is_null() && spin->value() < spec.min)
                continue;  // the run-time default
            out[spec.name] = spin->value();
            continue;
        } else if (auto* combo = qobject_cast<QComboBox*>(editor)) {
            text = combo->currentText().trimmed();
        } else if (auto* line = qobject_cast<QLineEdit*>(editor)) {
            text = line->text().trimmed();
        }
        if (text.isEmpty() && spec.kind != SettingKind::Methods)
            continue;  // the default
        out[spec.name] = parseSettingValue(spec, text.toStdString());
    }
    return out;
}

void SettingsForm::setValues(const nlohmann::json& values)
{
    for (const auto& spec : m_specs) {
        const QString name = QString::fromStdString(spec.name);
        QWidget* editor = m_editors.value(name);
        bool given = values.contains(spec.name) && !values.at(spec.name).is_null();
        for (const QString& restricted : m_restricted.value(name))
            if (given && values.at(spec.name).is_string() &&
                QString::fromStdString(values.at(spec.name).get<std::string>()).startsWith(restricted))
                given = false;  // not usable here: the default
        const nlohmann::json v = given ? values.at(spec.name) : spec.defaultValue;
        const QSignalBlocker quiet(editor);
        if (spec.kind == SettingKind::Methods) {
            QStringList chosen = valueText(v).split(QLatin1Char(','), Qt::SkipEmptyParts);
            for (auto* check : m_methodBoxes.value(name))
                check->setChecked(chosen.contains(check->property("methodId").toString()));
        } else if (spec.kind == SettingKind::Switch) {
            qobject_cast<QCheckBox*>(editor)->setChecked(v.is_boolean() && v.get<bool>());
        } else if (auto* spin = qobject_cast<QSpinBox*>(editor)) {
            spin->setValue(v.is_number() ? v.get<int>() : spin->minimum());
        } else if (auto* combo = qobject_cast<QComboBox*>(editor)) {
            if (combo->isEditable())
                combo->setEditText(valueText(v));  // a run-time default: empty, its words as the placeholder
            else
                combo->setCurrentText(valueText(v));
        } else if (auto* line = qobject_cast<QLineEdit*>(editor)) {
            line->setText(valueText(v));
        }
    }
}

} // namespace lcs::ui
