#include "ui/cost_editor.h"

#include <algorithm>

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFontMetrics>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSignalBlocker>
#include <QStyle>
#include <QStyleOptionHeader>
#include <QTableView>
#include <QVBoxLayout>

#include "ui/cost_matrix_model.h"
#include "ui/file_dialogs.h"

namespace lcs::ui {
namespace {

/// Column titles elided in the middle to their section's width, so that class names
/// sharing a prefix ("Iris-versicolor", "Iris-virginica") keep the ends that tell them
/// apart. Qt 6's QHeaderView ignores its textElideMode (QTBUG-97571): a centred name
/// wider than its column lost both ends ("s-versicolo").
class ElidingHeader final : public QHeaderView {
public:
    using QHeaderView::QHeaderView;

protected:
    void initStyleOptionForIndex(QStyleOptionHeader* option, int logicalIndex) const override
    {
        QHeaderView::initStyleOptionForIndex(option, logicalIndex);
        const int margins = 2 * style()->pixelMetric(QStyle::PM_HeaderMargin, option, this) + 2;
        // The style draws the title of a selected column in bold: measure it so.
        QFont drawn = font();
        drawn.setBold(option->state.testFlag(QStyle::State_On));
        option->text = QFontMetrics(drawn).elidedText(option->text, Qt::ElideMiddle,
                                                      std::max(0, sectionSize(logicalIndex) - margins));
    }
};

} // namespace

CostEditor::CostEditor(CostMatrixModel* model, QWidget* parent) : QWidget(parent), m_model(model)
{
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(presetRow());
    layout->addWidget(new QLabel(tr("<small>rows: true class &nbsp;·&nbsp; columns: decision</small>"), this));
    layout->addWidget(matrixTable());
    auto* form = new QFormLayout;
    form->addRow(referralRow());
    form->addRow(utilityRow());
    layout->addLayout(form);
    m_status = new QLabel(this);
    m_status->setWordWrap(true);
    m_status->setObjectName("costStatus");
    layout->addWidget(m_status);
    layout->addStretch(1);

    connect(m_model, &CostMatrixModel::matrixChanged, this, &CostEditor::syncFromModel);
    connect(m_model, &CostMatrixModel::errorOccurred, this, [this](const QString& msg) { showMessage(msg, true); });
    syncFromModel();
}

QHBoxLayout* CostEditor::presetRow()
{
    auto* row = new QHBoxLayout;
    m_presets = new QComboBox(this);
    m_presets->setObjectName("costPresets");
    m_presets->addItem(tr("Preset..."));
    for (const auto& name : costPresetNames())
        m_presets->addItem(QString::fromStdString(name));
    connect(m_presets, &QComboBox::activated, this, [this](int index) {
        if (index > 0)
            m_model->loadPreset(m_presets->itemText(index));
        m_presets->setCurrentIndex(0);
    });
    // Named as the Edit menu's action (Reset Costs to 0/1), so a message naming one finds both.
    auto* reset = new QPushButton(tr("Reset to 0/1"), this);
    reset->setToolTip(tr("Reset Costs to 0/1: 0 on the diagonal, 1 elsewhere (the run's data decides the classes)"));
    connect(reset, &QPushButton::clicked, m_model, &CostMatrixModel::resetToZeroOne);
    auto* importButton = new QPushButton(tr("Import..."), this);
    auto* exportButton = new QPushButton(tr("Export..."), this);
    connect(importButton, &QPushButton::clicked, this, &CostEditor::importMatrix);
    connect(exportButton, &QPushButton::clicked, this, &CostEditor::exportMatrix);
    row->addWidget(m_presets, 1);
    row->addWidget(reset);
    row->addWidget(importButton);
    row->addWidget(exportButton);
    return row;
}

QTableView* CostEditor::matrixTable()
{
    m_table = new QTableView(this);
    m_table->setObjectName("costTable");
    auto* columns = new ElidingHeader(Qt::Horizontal, m_table);
    columns->setSectionsClickable(true);  // as QTableView's own header
    columns->setHighlightSections(true);
    m_table->setHorizontalHeader(columns);
    m_table->setModel(m_model);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    m_table->horizontalHeader()->setMinimumSectionSize(22);  // 10 classes + refer fit a narrow dock
    m_table->setWordWrap(false);
    // Costs such as 0.8 in 12 columns of a narrow dock: clipped digits read better than
    // "...", and the cells keep no padding (syncFromModel shrinks the font as well).
    m_table->setTextElideMode(Qt::ElideNone);
    m_table->setStyleSheet(QStringLiteral("QTableView::item { padding: 0px; }"));
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->setSizeAdjustPolicy(QAbstractScrollArea::AdjustToContents);
    m_table->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Maximum);
    return m_table;
}

QHBoxLayout* CostEditor::referralRow()
{
    auto* row = new QHBoxLayout;
    m_referral = new QCheckBox(tr("Referral option"), this);
    m_referral->setToolTip(tr("Adds a decision \"refer\" with a constant cost"));
    m_referralCost = new QDoubleSpinBox(this);
    m_referralCost->setRange(0.0, 1000.0);
    m_referralCost->setDecimals(3);
    m_referralCost->setSingleStep(0.05);
    m_referralCost->setValue(0.05);
    m_referralCost->setKeyboardTracking(false);
    row->addWidget(m_referral);
    row->addWidget(new QLabel(tr("cost"), this));
    row->addWidget(m_referralCost, 1);
    connect(m_referral, &QCheckBox::toggled, this, [this](bool on) { m_model->setReferral(on, m_referralCost->value()); });
    connect(m_referralCost, &QDoubleSpinBox::valueChanged, this, [this](double v) {
        if (m_model->matrix().hasReferral())
            m_model->setReferralCost(v);
    });
    return row;
}

QHBoxLayout* CostEditor::utilityRow()
{
    auto* row = new QHBoxLayout;
    m_autoM = new QCheckBox(tr("M = largest cost"), this);
    m_m = new QDoubleSpinBox(this);
    m_m->setRange(0.0, 1e6);
    m_m->setDecimals(3);
    m_m->setKeyboardTracking(false);
    m_m->setToolTip(tr("Utilities are M - L; M must be at least the largest cost"));
    row->addWidget(m_autoM);
    row->addWidget(new QLabel(tr("M"), this));
    row->addWidget(m_m, 1);
    connect(m_autoM, &QCheckBox::toggled, this, [this](bool automatic) {
        m_model->setUtilityConstant(automatic ? std::nullopt : std::optional<double>(m_m->value()));
    });
    connect(m_m, &QDoubleSpinBox::valueChanged, this, [this](double v) {
        if (!m_autoM->isChecked() && !m_model->setUtilityConstant(v))
            syncFromModel();
    });
    return row;
}

void CostEditor::syncFromModel()
{
    const auto& m = m_model->matrix();
    // Class columns share the width; the referral column keeps room for its number.
    auto* header = m_table->horizontalHeader();
    header->setSectionResizeMode(QHeaderView::Stretch);
    QFont cells = font();
    if (m.numDecisions() > 8)
        cells.setPointSizeF(cells.pointSizeF() * 0.85);
    m_table->setFont(cells);
    if (m.hasReferral() && m.numClasses() > 4)
        header->setSectionResizeMode(m.numClasses(), QHeaderView::ResizeToContents);
    // The row header keeps the width it measured for the first matrix it showed (a
    // 2-class "0 T-" clip of a 10-class "0  T-shirt/top"): measure the labels now.
    auto* rows = m_table->verticalHeader();
    const QFontMetrics metrics(rows->font());
    int widest = 0;
    for (int r = 0; r < m_model->rowCount(); ++r)
        widest = std::max(widest, metrics.horizontalAdvance(m_model->headerData(r, Qt::Vertical, Qt::DisplayRole).toString()));
    rows->setMinimumWidth(widest + 2 * rows->style()->pixelMetric(QStyle::PM_HeaderMargin, nullptr, rows) + 4);
    {
        const QSignalBlocker b1(m_referral), b2(m_referralCost), b3(m_autoM), b4(m_m);
        m_referral->setChecked(m.hasReferral());
        if (m.referralCost())
            m_referralCost->setValue(*m.referralCost());
        m_referralCost->setEnabled(m.hasReferral());
        m_autoM->setChecked(!m.utilityConstantSetting());
        m_m->setValue(m.utilityConstant());
        m_m->setEnabled(m.utilityConstantSetting().has_value());
    }
    showMessage(tr("%1 classes, %2 decisions · largest cost %3 · M = %4")
                    .arg(m.numClasses()).arg(m.numDecisions()).arg(m.maxCost()).arg(m.utilityConstant()),
                false);
}

void CostEditor::showMessage(const QString& text, bool error)
{
    m_status->setText(error ? QString("<span style='color:#b00020'>%1</span>").arg(text.toHtmlEscaped()) : text);
}

void CostEditor::importMatrix()
{
    const QString path = askOpenPath(this, tr("Import cost matrix"), "costDir", tr("Cost matrices (*.json *.cost);;All files (*)"));
    if (path.isEmpty())
        return;
    if (m_model->importFile(path, m_expectedClasses)) {
        showMessage(tr("Imported %1").arg(path), false);
        Q_EMIT fileUsed(path);
    }
}

void CostEditor::exportMatrix()
{
    const QString path = askSavePath(this, tr("Export cost matrix"), "costDir", "costs.json",
                                     tr("JSON (*.json);;Weka cost matrix (*.cost)"));
    if (path.isEmpty())
        return;
    if (m_model->exportFile(path)) {
        showMessage(tr("Exported %1").arg(path), false);
        Q_EMIT fileUsed(path);
    }
}

} // namespace lcs::ui
