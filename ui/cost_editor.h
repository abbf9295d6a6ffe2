#pragma once

#include <QWidget>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QHBoxLayout;
class QLabel;
class QTableView;

namespace lcs::ui {

class CostMatrixModel;

/// Point-and-click cost editing: the table (cells edited in place, shaded by value),
/// presets, reset to 0/1, referral toggle and cost, M with its check against the largest
/// cost, import/export. Every change is an undoable edit of the model.
class CostEditor : public QWidget {
    Q_OBJECT
public:
    CostEditor(CostMatrixModel* model, QWidget* parent = nullptr);

    /// Imports refuse matrices with another class count.
    void setExpectedClasses(int classes) { m_expectedClasses = classes; }
    int expectedClasses() const { return m_expectedClasses; }

public Q_SLOTS:
    void importMatrix();
    void exportMatrix();

Q_SIGNALS:
    void fileUsed(const QString& path);

private:
    /// The parts of the editor, top to bottom: presets and files, the matrix, the
    /// referral option, the utility constant M.
    QHBoxLayout* presetRow();
    QTableView* matrixTable();
    QHBoxLayout* referralRow();
    QHBoxLayout* utilityRow();
    void syncFromModel();
    void showMessage(const QString& text, bool error);

    CostMatrixModel* m_model;
    int m_expectedClasses = 2;
    QTableView* m_table = nullptr;
    QComboBox* m_presets = nullptr;
    // Referral offered and its cost; M automatic, or the spin box's.
    QCheckBox *m_referral = nullptr, *m_autoM = nullptr;
    QDoubleSpinBox *m_referralCost = nullptr, *m_m = nullptr;
    QLabel* m_status = nullptr;
};

} // namespace lcs::ui
