#pragma once

#include <QMetaType>
#include <QString>
#include <QVector>

#include "base/decision/cost_matrix.h"
#include "engine/decision/correction_evidence.h"
#include "engine/experiments/plane_views.h"

/// Plain data that crosses from the job thread to the GUI thread. No tensors, no
/// engine objects with shared state: everything here is copied by value.
namespace lcs::ui {

struct JobProgress {
    QString phase;      ///< "sampling", "correcting", or an engine phase name
    QString detail;     ///< "replicate 3, bbvi"
    qint64 step = 0;    ///< within the current engine phase
    qint64 total = 0;
    double fraction = 0;  ///< of the whole job, 0..1
    QVector<QPair<QString, double>> figures;  ///< training figures of the latest report, for the status bar
};

} // namespace lcs::ui

Q_DECLARE_METATYPE(lcs::ui::JobProgress)
Q_DECLARE_METATYPE(lcs::TaskView)
Q_DECLARE_METATYPE(lcs::ResultRow)
Q_DECLARE_METATYPE(lcs::CostMatrix)
Q_DECLARE_METATYPE(lcs::CorrectionEvidence)
Q_DECLARE_METATYPE(lcs::EvidenceShown)
