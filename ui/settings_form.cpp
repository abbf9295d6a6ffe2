#include "settings_form.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QLineEdit>
#include <QVBoxLayout>

#include "core/number_format.h"

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

} // namespace

QString settingLabel(const SettingSpec& spec)
{
    QString label = QString::fromStdString(spec.name).replace(QLatin1Char('_'), QLatin1Char(' '));
    if (!label.isEmpty())
        label[0] = label[0].toUpper();
    if (!spec.unit.empty())
        label += QStringLiteral(" (%1)").arg(QString::fromStdString(spec.unit));
    return label;
}

SettingsForm::SettingsForm(std::vector<SettingSpec> specs, QWidget* parent) : QWidget(parent), m_specs(std::move(specs))
{
    auto* form = new QFormLayout(this);
    form->setContentsMargins(0, 0, 0, 0);
    for (const auto& spec : m_specs) {
        const QString name = QString::fromStdString(spec.name);
        const QString help = QString::fromStdString(spec.help);
        QWidget* editor = nullptr;
        if (spec.kind == SettingKind::Choice) {
            auto* combo = new QComboBox(this);
            for (const auto& c : spec.choices)
                combo->addItem(QString::fromStdString(c));
            editor = combo;
        } else if (spec.kind == SettingKind::Methods) {
            auto* box = new QWidget(this);
            auto* column = new QVBoxLayout(box);
            column->setContentsMargins(0, 0, 0, 0);
            for (const auto& c : spec.choices) {
                auto* check = new QCheckBox(QString::fromStdString(c), box);
                check->setObjectName(name + QLatin1Char('_') + QString::fromStdString(c));
                column->addWidget(check);
                m_methodBoxes[name] << check;
            }
            editor = box;
        } else {
            auto* line = new QLineEdit(this);
            line->setPlaceholderText(!spec.defaultText.empty() ? QString::fromStdString(spec.defaultText)
                                                                 : valueText(spec.defaultValue));
            editor = line;
        }
        editor->setObjectName(name);
        editor->setToolTip(help);
        m_editors.insert(name, editor);
        form->addRow(settingLabel(spec), editor);
    }
    setValues(nlohmann::json::object());
}

nlohmann::json SettingsForm::values() const
{
    auto out = nlohmann::json::object();
    for (const auto& spec : m_specs) {
        const QString name = QString::fromStdString(spec.name);
        QString text;
        if (spec.kind == SettingKind::Methods) {
            QStringList chosen;
            for (auto* check : m_methodBoxes.value(name))
                if (check->isChecked())
                    chosen << check->text();
            text = chosen.join(QLatin1Char(','));  // none chosen: refused by the parser, naming the flag
        } else if (auto* combo = qobject_cast<QComboBox*>(m_editors.value(name))) {
            text = combo->currentText();
        } else if (auto* line = qobject_cast<QLineEdit*>(m_editors.value(name))) {
            text = line->text().trimmed();
            if (text.isEmpty())
                continue;  // the default
        }
        out[spec.name] = parseSettingValue(spec, text.toStdString());
    }
    return out;
}

void SettingsForm::setValues(const nlohmann::json& values)
{
    for (const auto& spec : m_specs) {
        const QString name = QString::fromStdString(spec.name);
        const bool given = values.contains(spec.name) && !values.at(spec.name).is_null();
        const nlohmann::json v = given ? values.at(spec.name) : spec.defaultValue;
        if (spec.kind == SettingKind::Methods) {
            QStringList chosen = valueText(v).split(QLatin1Char(','), Qt::SkipEmptyParts);
            for (auto* check : m_methodBoxes.value(name))
                check->setChecked(chosen.contains(check->text()));
        } else if (auto* combo = qobject_cast<QComboBox*>(m_editors.value(name))) {
            combo->setCurrentText(valueText(v));
        } else if (auto* line = qobject_cast<QLineEdit*>(m_editors.value(name))) {
            line->setText(given ? valueText(v) : QString());
        }
    }
}

} // namespace lcs::ui
