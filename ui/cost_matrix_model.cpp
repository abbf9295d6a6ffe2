#include "ui/cost_matrix_model.h"

#include <cmath>

#include <QBrush>
#include <QColor>
#include <QUndoCommand>

namespace lcs::ui {

namespace {

/// Replaces the whole matrix; cell edits to the same cell in a row merge into one step.
class ReplaceMatrixCommand : public QUndoCommand {
public:
    ReplaceMatrixCommand(CostMatrixModel* model, CostMatrix before, CostMatrix after, const QString& text,
                         int mergeKey = -1)
        : QUndoCommand(text), m_model(model), m_before(std::move(before)), m_after(std::move(after)),
          m_mergeKey(mergeKey)
    {
    }
    void undo() override { m_model->setMatrixDirect(m_before); }
    void redo() override { m_model->setMatrixDirect(m_after); }
    int id() const override { return m_mergeKey < 0 ? -1 : 0x1c05; }
    bool mergeWith(const QUndoCommand* other) override
    {
        const auto* o = static_cast<const ReplaceMatrixCommand*>(other);
        if (o->m_mergeKey != m_mergeKey)
            return false;
        m_after = o->m_after;
        return true;
    }

private:
    CostMatrixModel* m_model;
    CostMatrix m_before, m_after;
    int m_mergeKey;
};

} // namespace

CostMatrixModel::CostMatrixModel(QObject* parent) : QAbstractTableModel(parent)
{
    m_matrix = costPreset("synthetic");
}

int CostMatrixModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : m_matrix.numClasses();
}

int CostMatrixModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : m_matrix.numDecisions();
}

QVariant CostMatrixModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid())
        return {};
    const double v = m_matrix.at(index.row(), index.column());
    switch (role) {
    case Qt::DisplayRole:
        return QString::number(v, 'g', 6);
    case Qt::EditRole:
        return v;
    case Qt::BackgroundRole: {
        // White at 0, deepening red towards the largest cost: expensive mistakes stand out.
        const double maxCost = m_matrix.maxCost();
        const double t = maxCost > 0 ? std::clamp(v / maxCost, 0.0, 1.0) : 0.0;
        const bool referral = m_matrix.hasReferral() && index.column() == m_matrix.numClasses();
        if (referral)
            return QBrush(QColor::fromRgbF(1.0, 1.0 - 0.35 * t, 0.55 + 0.2 * (1 - t)));
        return QBrush(QColor::fromRgbF(1.0, 1.0 - 0.6 * t, 1.0 - 0.6 * t));
    }
    case Qt::ForegroundRole:
        return QBrush(Qt::black);
    case Qt::TextAlignmentRole:
        return int(Qt::AlignCenter);
    case Qt::ToolTipRole:
        return tr("Cost of deciding \"%1\" when the truth is \"%2\"")
            .arg(QString::fromStdString(m_matrix.decisionName(index.column())),
                 QString::fromStdString(m_matrix.classNames()[static_cast<size_t>(index.row())]));
    default:
        return {};
    }
}

QVariant CostMatrixModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (section < 0 || section >= (orientation == Qt::Horizontal ? m_matrix.numDecisions() : m_matrix.numClasses()))
        return {};
    const QString name = QString::fromStdString(orientation == Qt::Horizontal
                                                    ? m_matrix.decisionName(section)
                                                    : m_matrix.classNames().at(static_cast<size_t>(section)));
    if (role == Qt::ToolTipRole)
        return orientation == Qt::Horizontal ? tr("Decision: %1").arg(name) : tr("True class: %1").arg(name);
    if (role != Qt::DisplayRole)
        return {};
    // With many classes the names do not fit above narrow columns: the columns show the
    // class index (the rows "index name"), the tooltips the full names.
    const bool compact = m_matrix.numClasses() > 4;
    if (orientation == Qt::Horizontal)
        return compact ? (section < m_matrix.numClasses() ? QString::number(section) : tr("ref")) : name;
    // Rows name their class, at most 16 characters so that ten columns of costs and the
    // referral column still fit the dock beside them, elided in the middle where longer
    // (both ends of "build wind non-float" say more than its first word; the tooltip has
    // the whole name).
    const QString shortName = name.size() > 16 ? name.left(9) + QChar(0x2026) + name.right(6) : name;
    return compact ? QStringLiteral("%1 %2").arg(section).arg(shortName) : name;
}

Qt::ItemFlags CostMatrixModel::flags(const QModelIndex& index) const
{
    if (!index.isValid())
        return Qt::NoItemFlags;
    return Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemIsEditable;
}

bool CostMatrixModel::setData(const QModelIndex& index, const QVariant& value, int role)
{
    if (!index.isValid() || role != Qt::EditRole)
        return false;
    bool ok = false;
    const double v = value.typeId() == QMetaType::QString ? value.toString().trimmed().toDouble(&ok) : value.toDouble(&ok);
    const QString where = tr("cost[%1, %2]")
                              .arg(QString::fromStdString(m_matrix.classNames()[static_cast<size_t>(index.row())]),
                                   QString::fromStdString(m_matrix.decisionName(index.column())));
    if (!ok) {
        Q_EMIT errorOccurred(tr("%1: \"%2\" is not a number").arg(where, value.toString()));
        return false;
    }
    if (m_matrix.at(index.row(), index.column()) == v)
        return true;
    CostMatrix next = m_matrix;
    next.set(index.row(), index.column(), v);
    try {
        next.validate();
    } catch (const CostMatrixError& e) {
        Q_EMIT errorOccurred(tr("%1 refused: %2").arg(where, QString::fromStdString(e.what())));
        return false;
    }
    m_undo.push(new ReplaceMatrixCommand(this, m_matrix, next,
                                         tr("Set %1 to %2").arg(where).arg(v), index.row() * 1000 + index.column()));
    return true;
}

bool CostMatrixModel::applyMatrix(const CostMatrix& m, const QString& description)
{
    try {
        m.validate();
    } catch (const CostMatrixError& e) {
        Q_EMIT errorOccurred(QString::fromStdString(e.what()));
        return false;
    }
    if (m == m_matrix)
        return true;
    m_undo.push(new ReplaceMatrixCommand(this, m_matrix, m, description));
    return true;
}

bool CostMatrixModel::setReferral(bool on, double cost)
{
    if (on == m_matrix.hasReferral())
        return on ? setReferralCost(cost) : true;
    CostMatrix next = m_matrix;
    next.setReferral(on ? std::optional<double>(cost) : std::nullopt);
    return applyMatrix(next, on ? tr("Add referral (cost %1)").arg(cost) : tr("Remove referral"));
}

bool CostMatrixModel::setReferralCost(double cost)
{
    if (!m_matrix.hasReferral())
        return false;
    CostMatrix next = m_matrix;
    next.setReferral(cost);
    return applyMatrix(next, tr("Set referral cost to %1").arg(cost));
}

bool CostMatrixModel::setUtilityConstant(std::optional<double> m)
{
    CostMatrix next = m_matrix;
    next.setUtilityConstant(m);
    return applyMatrix(next, m ? tr("Set M to %1").arg(*m) : tr("Set M to the largest cost"));
}

bool CostMatrixModel::loadPreset(const QString& name)
{
    try {
        CostMatrix next = costPreset(name.toStdString());
        if (next.numClasses() != m_matrix.numClasses()) {
            Q_EMIT errorOccurred(tr("Preset \"%1\" has %2 classes; the experiment has %3")
                                     .arg(name).arg(next.numClasses()).arg(m_matrix.numClasses()));
            return false;
        }
        if (m_presetNames.size() == static_cast<size_t>(next.numClasses()))
            next.setClassNames(m_presetNames);
        return applyMatrix(next, tr("Load preset %1").arg(name));
    } catch (const CostMatrixError& e) {
        Q_EMIT errorOccurred(QString::fromStdString(e.what()));
        return false;
    }
}

bool CostMatrixModel::resetToZeroOne()
{
    CostMatrix next = CostMatrix::zeroOne(m_matrix.numClasses(), m_matrix.classNames());
    return applyMatrix(next, tr("Reset to 0/1 costs"));
}

bool CostMatrixModel::importFile(const QString& path, int expectedClasses)
{
    CostMatrix next;
    try {
        next = loadCostMatrix(path.toStdString());
        if (expectedClasses > 0)
            next.validateFor(expectedClasses);
    } catch (const std::exception& e) {
        // Readers throw InputError for bad content; anything else is still the file's
        // fault as far as the user can tell, and must never take the window down.
        QString msg = QString::fromStdString(e.what());
        if (!msg.contains(path))
            msg = path + ": " + msg;
        Q_EMIT errorOccurred(msg);
        return false;
    }
    // Weka files carry no class names; keep the experiment's.
    if (path.endsWith(".cost", Qt::CaseInsensitive) && next.numClasses() == m_matrix.numClasses())
        next.setClassNames(m_matrix.classNames());
    return applyMatrix(next, tr("Import %1").arg(path));
}

bool CostMatrixModel::exportFile(const QString& path)
{
    try {
        saveCostMatrix(m_matrix, path.toStdString());
        return true;
    } catch (const std::exception& e) {
        Q_EMIT errorOccurred(QString::fromStdString(e.what()));
        return false;
    }
}

void CostMatrixModel::setMatrixDirect(const CostMatrix& m)
{
    beginResetModel();
    m_matrix = m;
    endResetModel();
    Q_EMIT matrixChanged();
}

} // namespace lcs::ui
