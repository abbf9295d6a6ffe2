#include "ui/experiments/experiment_chooser.h"

#include <QComboBox>
#include <QFormLayout>
#include <QScrollArea>
#include <QStackedWidget>
#include <QVBoxLayout>

#include "ui/experiments/experiment_page.h"

namespace lcs::ui {

ExperimentChooser::ExperimentChooser(const QList<ExperimentPage*>& pages, QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    auto* chooser = new QFormLayout;
    m_box = new QComboBox(this);
    m_box->setObjectName("experimentSelector");
    // The titles are long; the dock's width is the settings', not the longest title's.
    m_box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_box->setMinimumContentsLength(12);
    chooser->addRow(tr("Experiment"), m_box);
    layout->addLayout(chooser);
    m_settings = new QStackedWidget(this);
    for (auto* page : pages) {
        for (const auto& entry : page->experiments())
            m_box->addItem(entry.title, entry.id);
        m_settings->addWidget(page->settingsWidget());
    }
    auto* scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidget(m_settings);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll->setMinimumWidth(m_settings->minimumSizeHint().width() + 16);
    layout->addWidget(scroll, 1);
    connect(m_box, &QComboBox::activated, this, [this](int index) { Q_EMIT chosen(m_box->itemData(index).toString()); });
}

void ExperimentChooser::showExperiment(const QString& experiment, const ExperimentPage* page)
{
    const QSignalBlocker block(m_box);
    m_box->setCurrentIndex(m_box->findData(experiment));
    m_settings->setCurrentWidget(page->settingsWidget());
}

QString ExperimentChooser::currentTitle() const
{
    return m_box->currentText();
}

void ExperimentChooser::setChoosable(bool choosable)
{
    m_box->setEnabled(choosable);
}

} // namespace lcs::ui
