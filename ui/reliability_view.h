#pragma once

#include <vector>

#include "engine/decision/evidence.h"
#include "ui/plot_parts.h"

namespace lcs::ui {

/// A reliability diagram: for each bin of top-label confidence, the share of test rows
/// whose most probable class is right against the bin's mean confidence, for the
/// uncorrected predictive P (dashed, circles) and the corrected q (solid, squares), with
/// the diagonal a calibrated distribution lies on and each one's ECE in the legend. The
/// correction moves probabilities towards the costs' decisions, so it changes calibration:
/// this shows by how much, on rows neither saw.
class ReliabilityView : public PlotView {
    Q_OBJECT
public:
    explicit ReliabilityView(QWidget* parent = nullptr);
    /// `colour` draws both (the task's method); an empty `corrected` shows P alone.
    void setDiagrams(const std::vector<ReliabilityBin>& uncorrected, double eceUncorrected,
                     const std::vector<ReliabilityBin>& corrected, double eceCorrected, const QColor& colour,
                     const QString& title);
    void clear();
};

} // namespace lcs::ui
