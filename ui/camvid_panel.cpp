#include "camvid_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpressionValidator>
#include <QSettings>
#include <QSpinBox>

#include "file_dialogs.h"

namespace lcs::ui {

namespace {
constexpr const char* kDataKey = "camvid/data";
}

CamvidExperimentPanel::CamvidExperimentPanel(QWidget* parent) : QWidget(parent)
{
    auto* form = new QFormLayout(this);
    m_data = new QLineEdit(rememberedData(), this);
    m_data->setObjectName("camvidData");
    m_data->setPlaceholderText(tr("a CamVid folder (train/, trainannot/, val/, valannot/)"));
    m_data->setToolTip(tr("A folder laid out like CamVid: train/ and val/ frames, trainannot/ and valannot/ label "
                          "images with values 0-11 (11 = void), or train.txt / val.txt lists"));
    auto* browse = new QPushButton(tr("Browse..."), this);
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString dir = askFolder(this, tr("CamVid folder"), QStringLiteral("camvidDir"));
        if (!dir.isEmpty())
            m_data->setText(dir);
    });
    auto* dataRow = new QHBoxLayout;
    dataRow->addWidget(m_data, 1);
    dataRow->addWidget(browse);
    m_preset = new QComboBox(this);
    m_preset->setObjectName("camvidPreset");
    m_preset->addItem(tr("demo: 90x120, light SegNet (about a minute)"), "demo");
    m_preset->addItem(tr("cpu: 180x240, light SegNet (minutes)"), "cpu");
    // The presets' descriptions are long: the dock keeps its width, the combo elides.
    m_preset->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_preset->setMinimumContentsLength(12);
    m_maxFrames = new QSpinBox(this);
    m_maxFrames->setRange(0, 100000);
    m_maxFrames->setSpecialValueText(tr("preset's"));
    m_maxFrames->setToolTip(tr("Training frames (also the unlabelled frames q is trained on); 0 = the preset's"));
    m_maxEvalFrames = new QSpinBox(this);
    m_maxEvalFrames->setRange(0, 100000);
    m_maxEvalFrames->setSpecialValueText(tr("preset's"));
    m_maxEvalFrames->setToolTip(tr("Validation frames evaluated and shown in the viewer; 0 = the preset's"));
    // Short text (the dock is narrow); the why is in the tooltip.
    m_mcDropout = new QCheckBox(tr("also train an MC-dropout network"), this);
    m_mcDropout->setToolTip(tr("For the frames per second of real MC dropout"));
    m_seed = new QLineEdit("0", this);
    m_seed->setValidator(new QRegularExpressionValidator(QRegularExpression("[0-9]{1,19}"), m_seed));
    form->addRow(tr("Data folder"), dataRow);
    form->addRow(tr("Preset"), m_preset);
    form->addRow(tr("Training frames"), m_maxFrames);
    form->addRow(tr("Validation frames"), m_maxEvalFrames);
    form->addRow(m_mcDropout);
    form->addRow(tr("Seed"), m_seed);
    auto* note = new QLabel(tr("Networks: CW-SGD (the chain's start), SGHMC with the student S, and q on S trained on "
                               "the unlabelled training frames. Editing the 12x12 cost table after a run re-trains "
                               "only q."),
                            this);
    note->setWordWrap(true);
    form->addRow(note);
    auto* buttons = new QHBoxLayout;
    m_run = new QPushButton(tr("Run"), this);
    m_run->setObjectName("camvidRun");
    m_recorrect = new QPushButton(tr("Re-correct"), this);
    m_cancel = new QPushButton(tr("Cancel"), this);
    m_cancel->setObjectName("camvidCancel");
    buttons->addWidget(m_run);
    buttons->addWidget(m_recorrect);
    buttons->addWidget(m_cancel);
    form->addRow(buttons);
    m_state = new QLabel(tr("Nothing trained yet."), this);
    m_state->setWordWrap(true);
    form->addRow(m_state);
    connect(m_run, &QPushButton::clicked, this, &CamvidExperimentPanel::runRequested);
    connect(m_recorrect, &QPushButton::clicked, this, &CamvidExperimentPanel::recorrectRequested);
    connect(m_cancel, &QPushButton::clicked, this, &CamvidExperimentPanel::cancelRequested);
    setBusy(false, false);
}

CamvidSettings CamvidExperimentPanel::settings() const
{
    CamvidSettings s;
    s.data = m_data->text().trimmed();
    s.preset = m_preset->currentData().toString();
    s.maxFrames = m_maxFrames->value();
    s.maxEvalFrames = m_maxEvalFrames->value();
    s.mcDropout = m_mcDropout->isChecked();
    s.seed = m_seed->text().toULongLong();
    return s;
}

void CamvidExperimentPanel::applySettings(const CamvidSettings& s)
{
    m_data->setText(s.data);
    const int preset = m_preset->findData(s.preset);
    m_preset->setCurrentIndex(preset < 0 ? 0 : preset);
    m_maxFrames->setValue(static_cast<int>(s.maxFrames));
    m_maxEvalFrames->setValue(static_cast<int>(s.maxEvalFrames));
    m_mcDropout->setChecked(s.mcDropout);
    m_seed->setText(QString::number(s.seed));
}

QString CamvidExperimentPanel::validate() const
{
    const QString dir = m_data->text().trimmed();
    if (dir.isEmpty())
        return tr("Data folder: choose a CamVid folder (train/, trainannot/, val/, valannot/).");
    if (!QFileInfo(dir).isDir())
        return tr("Data folder: %1 is not a folder.").arg(dir);
    return {};
}

void CamvidExperimentPanel::rememberData() const
{
    QSettings().setValue(kDataKey, m_data->text().trimmed());
}

QString CamvidExperimentPanel::rememberedData()
{
    const QString stored = QSettings().value(kDataKey).toString();
    return stored.isEmpty() ? qEnvironmentVariable("LCS_CAMVID_DIR") : stored;
}

void CamvidExperimentPanel::setBusy(bool busy, bool canRecorrect)
{
    m_run->setEnabled(!busy);
    m_recorrect->setEnabled(!busy && canRecorrect);
    m_cancel->setEnabled(busy);
    for (QWidget* w : {static_cast<QWidget*>(m_data), static_cast<QWidget*>(m_preset),
                       static_cast<QWidget*>(m_maxFrames), static_cast<QWidget*>(m_maxEvalFrames),
                       static_cast<QWidget*>(m_mcDropout), static_cast<QWidget*>(m_seed)})
        w->setEnabled(!busy);
}

void CamvidExperimentPanel::setState(const QString& text)
{
    m_state->setText(text);
}

} // namespace lcs::ui
