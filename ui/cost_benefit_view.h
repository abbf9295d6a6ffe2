#pragma once

#include <nlohmann/json.hpp>

#include "ui/plot_parts.h"

class QCPMarginGroup;

namespace lcs::ui {

/// The cost-benefit curve of a run (its results' "cost_benefit"): realised test cost
/// (top) and referral rate (below, for a referral axis) against the referral cost or the
/// ratio of the two errors' costs, per method and decision rule, each point the mean over
/// replicates: P dashed with circles, q solid with squares, the baselines dotted; the
/// run's own value marked by a vertical line. Empty, with a note saying how to get one,
/// when the run made none.
class CostBenefitView : public PlotView {
    Q_OBJECT
public:
    explicit CostBenefitView(QWidget* parent = nullptr);
    /// Draws `results`' curve; false (and the note) when it has none.
    bool setResults(const nlohmann::json& results, const QString& experiment);
    bool hasCurve() const { return m_hasCurve; }

private:
    bool m_hasCurve = false;
    QCPMarginGroup* m_margins = nullptr;  ///< lines the two axis rects up, made once
};

} // namespace lcs::ui
