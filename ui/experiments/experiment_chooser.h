#pragma once

#include <QList>
#include <QWidget>

class QComboBox;
class QStackedWidget;

namespace lcs::ui {

class ExperimentPage;

/// The Experiment dock's contents: the experiment chooser on top, the current page's
/// settings below (scrolling rather than squeezed when the dock is short).
class ExperimentChooser : public QWidget {
    Q_OBJECT
public:
    /// Lists every experiment of `pages` and takes their settings widgets.
    explicit ExperimentChooser(const QList<ExperimentPage*>& pages, QWidget* parent = nullptr);

    /// Shows `experiment` as chosen and `page`'s settings, without emitting chosen().
    void showExperiment(const QString& experiment, const ExperimentPage* page);
    /// The chooser's title of the experiment shown.
    QString currentTitle() const;
    /// A running job keeps the experiment: the chooser is disabled, the settings not.
    void setChoosable(bool choosable);

Q_SIGNALS:
    /// The user picked `experiment` (the window decides whether to switch).
    void chosen(const QString& experiment);

private:
    QComboBox* m_box = nullptr;
    QStackedWidget* m_settings = nullptr;
};

} // namespace lcs::ui
