#pragma once

#include <QHash>
#include <QWidget>

#include "image_types.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace lcs::ui {

/// Settings of the image experiments: data (a folder, or fashion-mnist / mnist /
/// cifar10; remembered in QSettings), preset, corruption rates or referral costs,
/// trials, methods, subset sizes, seed, epochs and threads; Run / Re-correct / Cancel.
class ImageExperimentPanel : public QWidget {
    Q_OBJECT
public:
    explicit ImageExperimentPanel(QWidget* parent = nullptr);

    /// "corruption" or "selective": which rates/costs and methods the panel offers.
    void setExperiment(const QString& experiment);
    QString experiment() const { return m_experiment; }

    ImageExperimentSettings settings() const;
    void applySettings(const ImageExperimentSettings& settings);
    /// Empty when the settings can run; else what is wrong, naming the field.
    QString validate() const;
    /// Remembers the data field in QSettings (called when a run starts).
    void rememberData() const;

    void setBusy(bool busy, bool canRecorrect);
    void setState(const QString& text);

    /// The remembered data path, or fashion-mnist.
    static QString rememberedData();

Q_SIGNALS:
    void runRequested();
    void recorrectRequested();
    void cancelRequested();

private:
    /// Parses "0.3, 0.5" into numbers; empty optional-like result with `error` set on failure.
    QVector<double> values(QString* error) const;

    QString m_experiment;
    QLineEdit* m_data = nullptr;
    QComboBox* m_preset = nullptr;
    QLabel* m_valuesLabel = nullptr;
    QLineEdit* m_values = nullptr;
    QHash<QString, QString> m_valuesText;  ///< per experiment, so switching keeps both
    QSpinBox* m_trials = nullptr;
    QWidget* m_corruptionMethods = nullptr;
    QWidget* m_selectiveMethods = nullptr;
    QHash<QString, QCheckBox*> m_methodBoxes;  ///< key "experiment/method"
    QSpinBox* m_maxTrain = nullptr;
    QSpinBox* m_maxTest = nullptr;
    QSpinBox* m_epochs = nullptr;
    QLineEdit* m_seed = nullptr;
    QSpinBox* m_threads = nullptr;
    QComboBox* m_device = nullptr;
    QPushButton* m_run = nullptr;
    QPushButton* m_recorrect = nullptr;
    QPushButton* m_cancel = nullptr;
    QLabel* m_state = nullptr;
};

} // namespace lcs::ui
