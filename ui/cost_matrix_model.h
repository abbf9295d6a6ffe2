#pragma once

#include <QAbstractTableModel>
#include <QUndoStack>

#include "base/decision/cost_matrix.h"

namespace lcs::ui {

/// The cost matrix as an editable table: rows = true class, columns = decision (the last
/// column is "refer" when referral is on). Every change goes through the undo stack, and
/// a change that would make the matrix invalid is refused with errorOccurred() and leaves
/// the matrix as it was.
class CostMatrixModel : public QAbstractTableModel {
    Q_OBJECT
public:
    explicit CostMatrixModel(QObject* parent = nullptr);

    const CostMatrix& matrix() const { return m_matrix; }
    QUndoStack* undoStack() { return &m_undo; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    /// Accepts a number or numeric text; refuses NaN, infinities, negatives and text.
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;

    /// Undoable whole-matrix edits; each validates first. Return false (and emit
    /// errorOccurred) when refused.
    bool applyMatrix(const CostMatrix& m, const QString& description);
    bool setReferral(bool on, double cost);
    bool setReferralCost(double cost);
    /// nullopt = "M = largest cost".
    bool setUtilityConstant(std::optional<double> m);
    /// Presets load with these class names when the class count matches (the paper's
    /// presets name MNIST / CIFAR-10 classes; the experiment's data may be another set
    /// of ten, such as Fashion-MNIST). Empty: the preset's own names.
    void setPresetClassNames(const std::vector<std::string>& names) { m_presetNames = names; }
    bool loadPreset(const QString& name);
    bool resetToZeroOne();

    /// Import from .json or .cost; a malformed file or a class count other than
    /// `expectedClasses` (when > 0) is refused and the matrix stays as it was.
    bool importFile(const QString& path, int expectedClasses);
    /// Atomic write; returns false with errorOccurred on failure.
    bool exportFile(const QString& path);

    /// Sets the matrix without an undo entry (used by the undo commands themselves and
    /// when a session is opened).
    void setMatrixDirect(const CostMatrix& m);

Q_SIGNALS:
    void matrixChanged();
    void errorOccurred(const QString& message);

private:
    CostMatrix m_matrix;
    QUndoStack m_undo;
    std::vector<std::string> m_presetNames;
};

} // namespace lcs::ui
