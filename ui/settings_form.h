#pragma once

#include <vector>

#include <QHash>
#include <QWidget>

#include <nlohmann/json.hpp>

#include "core/settings.h"

class QCheckBox;

namespace lcs::ui {

/// An experiment's settings form, built from its declarations (lcs::SettingSpec): a
/// line edit per number, list or text (empty: the default, shown as the placeholder),
/// a combo box per choice, a check box per method. Values are parsed by the same parser
/// as the command line's flags, so the form accepts and refuses exactly what the CLI does.
class SettingsForm : public QWidget {
    Q_OBJECT
public:
    explicit SettingsForm(std::vector<SettingSpec> specs, QWidget* parent = nullptr);

    /// name -> parsed value of every setting the user filled in (the others are left out:
    /// their defaults apply). Throws InputError naming the setting's flag.
    nlohmann::json values() const;
    /// Shows `values` (name -> value); settings it does not name go back to their defaults.
    void setValues(const nlohmann::json& values);
    const std::vector<SettingSpec>& specs() const { return m_specs; }

private:
    std::vector<SettingSpec> m_specs;
    QHash<QString, QWidget*> m_editors;                 ///< per setting: QLineEdit or QComboBox
    QHash<QString, QList<QCheckBox*>> m_methodBoxes;    ///< Methods settings: one box per choice
};

/// "Correction iterations" for "correction_iterations".
QString settingLabel(const SettingSpec& spec);

} // namespace lcs::ui
