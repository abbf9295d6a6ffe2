#include "image_panel.h"

#include <cmath>

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPushButton>
#include <QRegularExpressionValidator>
#include <QSettings>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QToolButton>
#include <QVBoxLayout>

#include "inference/method_catalog.h"

#include "file_dialogs.h"
#include "job_runner.h"

namespace lcs::ui {

namespace {

const char* kDataKey = "imageExperiment/data";

struct MethodChoice {
    ImageMethod method;
    bool byDefault;
};

const QList<MethodChoice>& methodsOf(const QString& experiment)
{
    static const QList<MethodChoice> corruption{{ImageMethod::SgldS, true},
                                                {ImageMethod::Sgld, false},
                                                {ImageMethod::LcSgld, true},
                                                {ImageMethod::CwSgd, true},
                                                {ImageMethod::Ours, true}};
    static const QList<MethodChoice> selective{{ImageMethod::Sghmc, true},
                                               {ImageMethod::LcSghmc, true},
                                               {ImageMethod::Ours, true},
                                               {ImageMethod::OursNoS, true}};
    return experiment == QLatin1String("selective") ? selective : corruption;
}

QString defaultValues(const QString& experiment)
{
    return experiment == QLatin1String("selective") ? QStringLiteral("0.05, 0.1, 0.2, 0.3")
                                                    : QStringLiteral("0.3, 0.5, 0.7");
}

} // namespace

ImageExperimentPanel::ImageExperimentPanel(QWidget* parent) : QWidget(parent)
{
    auto* form = new QFormLayout(this);
    form->setContentsMargins(0, 0, 0, 0);

    auto* dataRow = new QHBoxLayout;
    m_data = new QLineEdit(rememberedData(), this);
    m_data->setObjectName("imageData");
    m_data->setToolTip(tr("An MNIST-like IDX folder or a CIFAR-10 binary folder, or a name: fashion-mnist (Debian's "
                          "dataset-fashion-mnist), mnist ($LCS_MNIST_DIR), cifar10 ($LCS_CIFAR10_DIR)"));
    auto* names = new QToolButton(this);
    names->setText(tr("Names"));
    names->setPopupMode(QToolButton::InstantPopup);
    auto* menu = new QMenu(names);
    for (const QString& n : {QStringLiteral("fashion-mnist"), QStringLiteral("mnist"), QStringLiteral("cifar10")})
        menu->addAction(n, this, [this, n] { m_data->setText(n); });
    names->setMenu(menu);
    auto* browse = new QPushButton(tr("Browse..."), this);
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString dir = askFolder(this, tr("Image data folder (IDX or CIFAR-10 binary)"), "dataDir");
        if (!dir.isEmpty())
            m_data->setText(dir);
    });
    dataRow->addWidget(m_data, 1);
    dataRow->addWidget(names);
    dataRow->addWidget(browse);
    form->addRow(tr("Data"), dataRow);

    m_preset = new QComboBox(this);
    // The presets' descriptions are long: the dock keeps its width, the combo elides.
    m_preset->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_preset->setMinimumContentsLength(12);
    m_preset->addItem(tr("cpu (minutes here)"), "cpu");
    m_preset->addItem(tr("paper (appendix settings)"), "paper");
    form->addRow(tr("Preset"), m_preset);

    m_valuesLabel = new QLabel(this);
    m_values = new QLineEdit(this);
    m_values->setObjectName("imageValues");
    form->addRow(m_valuesLabel, m_values);
    connect(m_values, &QLineEdit::textEdited, this, [this](const QString& text) { m_valuesText[m_experiment] = text; });

    m_trials = new QSpinBox(this);
    m_trials->setRange(1, 1000);
    form->addRow(tr("Trials"), m_trials);

    auto* methods = new QWidget(this);  // both experiments' boxes; one is shown
    auto* methodsLayout = new QVBoxLayout(methods);
    methodsLayout->setContentsMargins(0, 0, 0, 0);
    for (const QString& experiment : {QStringLiteral("corruption"), QStringLiteral("selective")}) {
        auto* box = new QWidget(methods);
        auto* layout = new QVBoxLayout(box);
        layout->setContentsMargins(0, 0, 0, 0);
        layout->setSpacing(1);
        for (const auto& choice : methodsOf(experiment)) {
            const QString name = QString::fromStdString(imageMethodName(choice.method));
            auto* check = new QCheckBox(QString::fromStdString(imageMethodLabel(choice.method)), box);
            check->setChecked(choice.byDefault);
            layout->addWidget(check);
            m_methodBoxes.insert(experiment + "/" + name, check);
        }
        (experiment == QLatin1String("selective") ? m_selectiveMethods : m_corruptionMethods) = box;
        methodsLayout->addWidget(box);
    }
    form->addRow(tr("Methods"), methods);

    m_maxTrain = new QSpinBox(this);
    m_maxTrain->setRange(0, 100000000);
    m_maxTrain->setSingleStep(1000);
    m_maxTrain->setSpecialValueText(tr("all"));
    m_maxTrain->setValue(10000);
    m_maxTest = new QSpinBox(this);
    m_maxTest->setRange(0, 100000000);
    m_maxTest->setSingleStep(500);
    m_maxTest->setSpecialValueText(tr("all"));
    m_maxTest->setValue(2000);
    auto* sizes = new QHBoxLayout;
    sizes->addWidget(new QLabel(tr("train"), this));
    sizes->addWidget(m_maxTrain, 1);
    sizes->addWidget(new QLabel(tr("test"), this));
    sizes->addWidget(m_maxTest, 1);
    form->addRow(tr("Max images"), sizes);

    m_epochs = new QSpinBox(this);
    m_epochs->setRange(0, 100000);
    m_epochs->setSpecialValueText(tr("preset's"));
    m_epochs->setToolTip(tr("Epochs of SGLD + S (corruption) or SGHMC + S (selective)"));
    m_seed = new QLineEdit("0", this);
    m_seed->setValidator(new QRegularExpressionValidator(QRegularExpression("[0-9]{1,18}"), m_seed));
    m_threads = new QSpinBox(this);
    m_threads->setRange(0, 256);
    m_threads->setSpecialValueText(tr("auto"));
    m_threads->setToolTip(tr("Intra-op threads: auto = 1 for the MLP (its small matrices run slower split across "
                             "threads), all cores but one (kept for the window) for ResNet-18"));
    auto* misc = new QHBoxLayout;
    misc->addWidget(m_epochs, 1);
    misc->addWidget(new QLabel(tr("seed"), this));
    misc->addWidget(m_seed, 1);
    misc->addWidget(new QLabel(tr("threads"), this));
    misc->addWidget(m_threads, 1);
    form->addRow(tr("Epochs"), misc);

    // Where the networks train. CUDA is offered only when this LibTorch build can use a
    // GPU; results come back to the CPU either way.
    m_device = new QComboBox(this);
    m_device->setObjectName("imageDeviceBox");
    m_device->addItem(tr("CPU"), QStringLiteral("cpu"));
    m_device->addItem(tr("CUDA"), QStringLiteral("cuda"));
    if (!JobRunner::cudaAvailable()) {
        qobject_cast<QStandardItemModel*>(m_device->model())->item(1)->setEnabled(false);
        m_device->setItemData(1, tr("This LibTorch build has no CUDA support or no GPU is visible"),
                              Qt::ToolTipRole);
    }
    form->addRow(tr("Device"), m_device);

    auto* buttons = new QHBoxLayout;
    m_run = new QPushButton(tr("Run"), this);
    m_run->setObjectName("imageRunButton");
    m_recorrect = new QPushButton(tr("Re-correct"), this);
    m_recorrect->setToolTip(tr("Re-train only q on the cached student S for the current cost matrix"));
    m_cancel = new QPushButton(tr("Cancel"), this);
    connect(m_run, &QPushButton::clicked, this, &ImageExperimentPanel::runRequested);
    connect(m_recorrect, &QPushButton::clicked, this, &ImageExperimentPanel::recorrectRequested);
    connect(m_cancel, &QPushButton::clicked, this, &ImageExperimentPanel::cancelRequested);
    for (auto* b : {m_run, m_recorrect, m_cancel})
        buttons->addWidget(b);
    form->addRow(buttons);
    m_state = new QLabel(tr("No image run yet."), this);
    m_state->setWordWrap(true);
    form->addRow(m_state);

    setExperiment(QStringLiteral("corruption"));
    setBusy(false, false);
}

QString ImageExperimentPanel::rememberedData()
{
    const QString stored = QSettings().value(kDataKey).toString();
    return stored.isEmpty() ? QStringLiteral("fashion-mnist") : stored;
}

void ImageExperimentPanel::rememberData() const
{
    QSettings().setValue(kDataKey, m_data->text().trimmed());
}

void ImageExperimentPanel::setExperiment(const QString& experiment)
{
    m_experiment = experiment;
    const bool selective = experiment == QLatin1String("selective");
    m_valuesLabel->setText(selective ? tr("Referral costs r") : tr("Corruption rates"));
    m_values->setToolTip(selective ? tr("Comma-separated referral costs r >= 0, each a cost function")
                                   : tr("Comma-separated fractions of training labels replaced at random, in [0, 1]"));
    m_values->setText(m_valuesText.value(experiment, defaultValues(experiment)));
    m_corruptionMethods->setVisible(!selective);
    m_selectiveMethods->setVisible(selective);
}

QVector<double> ImageExperimentPanel::values(QString* error) const
{
    QVector<double> out;
    const QString what = m_valuesLabel->text();
    for (QString part : m_values->text().split(',', Qt::SkipEmptyParts)) {
        part = part.trimmed();
        bool ok = false;
        const double v = part.toDouble(&ok);
        if (!ok || !std::isfinite(v)) {
            *error = tr("%1: \"%2\" is not a number").arg(what, part);
            return {};
        }
        if (v < 0 || (m_experiment != QLatin1String("selective") && v > 1)) {
            *error = tr("%1: %2 is outside %3").arg(what).arg(v).arg(m_experiment == QLatin1String("selective") ? "[0, ∞)"
                                                                                                                : "[0, 1]");
            return {};
        }
        if (out.contains(v)) {
            *error = tr("%1: %2 is listed twice").arg(what).arg(v);
            return {};
        }
        out << v;
    }
    if (out.isEmpty())
        *error = tr("%1: give at least one value").arg(what);
    return out;
}

QString ImageExperimentPanel::validate() const
{
    QString error;
    values(&error);
    if (!error.isEmpty())
        return error;
    if (m_data->text().trimmed().isEmpty())
        return tr("Data: give a folder or one of fashion-mnist, mnist, cifar10");
    if (settings().methods.isEmpty())
        return tr("Methods: select at least one");
    return {};
}

ImageExperimentSettings ImageExperimentPanel::settings() const
{
    ImageExperimentSettings s;
    s.experiment = m_experiment;
    s.data = m_data->text().trimmed();
    s.preset = m_preset->currentData().toString();
    QString error;
    s.values = values(&error);
    s.trials = m_trials->value();
    for (const auto& choice : methodsOf(m_experiment)) {
        const QString name = QString::fromStdString(imageMethodName(choice.method));
        if (m_methodBoxes.value(m_experiment + "/" + name)->isChecked())
            s.methods << name;
    }
    s.maxTrain = m_maxTrain->value();
    s.maxTest = m_maxTest->value();
    s.seed = m_seed->text().toULongLong();
    s.epochs = m_epochs->value();
    s.threads = m_threads->value();
    s.device = m_device->currentData().toString();
    return s;
}

void ImageExperimentPanel::applySettings(const ImageExperimentSettings& s)
{
    setExperiment(s.experiment);
    m_data->setText(s.data);
    const int preset = m_preset->findData(s.preset);
    m_preset->setCurrentIndex(preset < 0 ? 0 : preset);
    QStringList parts;
    for (double v : s.values)
        parts << QString::number(v);
    m_valuesText[s.experiment] = parts.join(", ");
    m_values->setText(m_valuesText[s.experiment]);
    m_trials->setValue(s.trials);
    if (!s.methods.isEmpty())
        for (const auto& choice : methodsOf(s.experiment)) {
            const QString name = QString::fromStdString(imageMethodName(choice.method));
            m_methodBoxes.value(s.experiment + "/" + name)->setChecked(s.methods.contains(name));
        }
    m_maxTrain->setValue(static_cast<int>(std::min<qint64>(s.maxTrain, m_maxTrain->maximum())));
    m_maxTest->setValue(static_cast<int>(std::min<qint64>(s.maxTest, m_maxTest->maximum())));
    m_seed->setText(QString::number(s.seed));
    m_epochs->setValue(s.epochs);
    m_threads->setValue(s.threads);
    // A session saved on a GPU machine reopens on CPU where CUDA is not available.
    const int device = s.device.startsWith(QLatin1String("cuda")) && JobRunner::cudaAvailable() ? 1 : 0;
    m_device->setCurrentIndex(device);
}

void ImageExperimentPanel::setBusy(bool busy, bool canRecorrect)
{
    m_run->setEnabled(!busy);
    m_recorrect->setEnabled(!busy && canRecorrect);
    m_cancel->setEnabled(busy);
}

void ImageExperimentPanel::setState(const QString& text)
{
    m_state->setText(text);
}

} // namespace lcs::ui
