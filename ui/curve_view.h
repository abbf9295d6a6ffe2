#pragma once

#include <QWidget>

#include "ui/ui_types.h"

class QCustomPlot;

namespace lcs::ui {

/// Correction curves per step: total loss, KL(q || p) and expected cost under q.
class CurveView : public QWidget {
    Q_OBJECT
public:
    explicit CurveView(QWidget* parent = nullptr);
    void setCurve(const std::vector<CurvePoint>& curve, const QString& title);
    void clear();
    QCustomPlot* plot() const { return m_plot; }

private:
    QCustomPlot* m_plot = nullptr;
};

} // namespace lcs::ui
