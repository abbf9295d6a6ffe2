#pragma once

#include <vector>

#include <QHash>
#include <QWidget>

#include <nlohmann/json.hpp>

#include "base/core/settings.h"

class QCheckBox;
class QFormLayout;

namespace lcs::ui {

/// An experiment's settings form, built from its declarations (lcs::SettingSpec), so a
/// setting exists once and the window shows what the command line takes:
/// - a spin box per whole number of a modest range (its lowest entry shows the
///   default's words, "the preset's", where the default is decided at run time);
///   a line edit for larger ones (seeds), numbers and lists (empty: the default, shown
///   as the placeholder);
/// - a combo box per choice; an editable one for text with suggestions (a data set's
///   name, a device), with a Browse button where the declaration asks for a folder;
/// - a check box per method (the catalogue's label) and per switch.
/// Values are parsed by the same parser as the command line's flags, so the form accepts
/// and refuses exactly what the CLI does.
class SettingsForm : public QWidget {
    Q_OBJECT
public:
    explicit SettingsForm(std::vector<SettingSpec> specs, QWidget* parent = nullptr);

    /// name -> parsed value of every setting the user gave a value (the others are left
    /// out: their defaults apply). Throws InputError naming the setting's flag.
    nlohmann::json values() const;
    /// Shows `values` (name -> value); settings it does not name go back to their defaults.
    void setValues(const nlohmann::json& values);
    const std::vector<SettingSpec>& specs() const { return m_specs; }
    /// Lists `suggestion` of the Text setting `setting` but disabled, `why` as its
    /// tooltip; a value starting with it (a session from another machine) shows the
    /// default instead. The form does this itself for CUDA where it cannot run.
    void restrictSuggestion(const QString& setting, const QString& suggestion, const QString& why);

Q_SIGNALS:
    /// The user changed a value.
    void edited();

private:
    QWidget* editorFor(const SettingSpec& spec);

    std::vector<SettingSpec> m_specs;
    QFormLayout* m_form = nullptr;
    QHash<QString, QWidget*> m_editors;               ///< per setting: its input widget
    QHash<QString, QList<QCheckBox*>> m_methodBoxes;  ///< Methods settings: one box per choice
    QHash<QString, QStringList> m_restricted;         ///< per setting: suggestions this machine cannot use
};

/// The form's label of a setting: "Correction iterations (steps)" for
/// "correction_iterations" with unit "steps".
QString settingLabel(const SettingSpec& spec);

} // namespace lcs::ui
