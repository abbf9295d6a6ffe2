#pragma once

#include <memory>

#include <QList>
#include <QStringList>

class QObject;

namespace lcs::ui {

class CostEditor;
class CostMatrixModel;
class ExperimentPage;

/// Every experiment page, in the chooser's order (the first is shown at start-up). The
/// one place that names the experiments; the window only iterates over the list.
/// Tests inject their data into the registry (ExperimentRegistry::replace).
QList<ExperimentPage*> makeExperimentPages(CostMatrixModel* costs, CostEditor* costEditor, QObject* parent);

/// The page serving `experiment`, or null.
ExperimentPage* pageFor(const QList<ExperimentPage*>& pages, const QString& experiment);
/// Every experiment id the pages serve, in the chooser's order.
QStringList experimentIds(const QList<ExperimentPage*>& pages);
bool anyBusy(const QList<ExperimentPage*>& pages);
/// Every page writes its settings into `session` (whose experiment and costs are set).

} // namespace lcs::ui
