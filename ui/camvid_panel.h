#pragma once

#include <QWidget>

#include "camvid_types.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace lcs::ui {

/// Settings of the CamVid experiment: the data folder (Browse; remembered in QSettings,
/// else $LCS_CAMVID_DIR), preset, training and validation frame caps, MC dropout, seed;
/// Run / Re-correct / Cancel.
class CamvidExperimentPanel : public QWidget {
    Q_OBJECT
public:
    explicit CamvidExperimentPanel(QWidget* parent = nullptr);

    CamvidSettings settings() const;
    void applySettings(const CamvidSettings& settings);
    /// Empty when the settings can run; else what is wrong, naming the field and path.
    QString validate() const;
    /// Remembers the data folder in QSettings (called when a run starts).
    void rememberData() const;
    /// The remembered folder, else $LCS_CAMVID_DIR, else empty.
    static QString rememberedData();

    void setBusy(bool busy, bool canRecorrect);
    void setState(const QString& text);

Q_SIGNALS:
    void runRequested();
    void recorrectRequested();
    void cancelRequested();

private:
    QLineEdit* m_data = nullptr;
    QComboBox* m_preset = nullptr;
    QSpinBox* m_maxFrames = nullptr;
    QSpinBox* m_maxEvalFrames = nullptr;
    QCheckBox* m_mcDropout = nullptr;
    QLineEdit* m_seed = nullptr;
    QPushButton* m_run = nullptr;
    QPushButton* m_recorrect = nullptr;
    QPushButton* m_cancel = nullptr;
    QLabel* m_state = nullptr;
};

} // namespace lcs::ui
