#pragma once

#include <functional>
#include <memory>
#include <vector>

#include <QList>
#include <QStringList>

class QObject;

namespace lcs::ui {

class CostEditor;
class CostMatrixModel;
class ExperimentPage;

/// Makes an experiment's own page from the window's cost matrix model and editor.
using PageFactory = std::function<ExperimentPage*(CostMatrixModel*, CostEditor*, QObject*)>;

/// The experiments' own pages, in the chooser's order: the built-in ones (page_list.cpp,
/// one line each), then any added (a plug-in's, a test's). A registered experiment that
/// no page here serves gets the page derived from its declaration.
class PageRegistry {
public:
    static PageRegistry& global();
    void add(PageFactory factory) { m_factories.push_back(std::move(factory)); }
    const std::vector<PageFactory>& factories() const { return m_factories; }

private:
    std::vector<PageFactory> m_factories;
};

/// Every experiment page, in the chooser's order (the first is shown at start-up): one
/// per factory of PageRegistry, then a derived one per registered experiment no page
/// serves. The window only iterates over the list. Tests inject their data into the
/// experiment registry (ExperimentRegistry::replace) and their pages here.
QList<ExperimentPage*> makeExperimentPages(CostMatrixModel* costs, CostEditor* costEditor, QObject* parent);

/// The page serving `experiment`, or null.
ExperimentPage* pageFor(const QList<ExperimentPage*>& pages, const QString& experiment);
/// Every experiment id the pages serve, in the chooser's order.
QStringList experimentIds(const QList<ExperimentPage*>& pages);
bool anyBusy(const QList<ExperimentPage*>& pages);
/// Every page writes its settings into `session` (whose experiment and costs are set).

} // namespace lcs::ui
