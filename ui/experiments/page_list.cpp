#include "ui/experiments/page_list.h"

#include <algorithm>

#include "engine/experiments/experiment.h"
#include "ui/experiments/camvid/camvid_experiment_page.h"
#include "ui/experiments/image/image_experiment_page.h"
#include "ui/experiments/registry/registry_page.h"
#include "ui/experiments/synthetic/synthetic_page.h"

namespace lcs::ui {

PageRegistry& PageRegistry::global()
{
    static PageRegistry registry = [] {
        // The built-in pages, one line each; their experiments' entries are in
        // engine/experiments/builtin_experiments.cpp.
        PageRegistry r;
        r.add([](CostMatrixModel* c, CostEditor* e, QObject* p) { return new SyntheticPage(c, e, p); });
        r.add([](CostMatrixModel* c, CostEditor* e, QObject* p) { return new ImageExperimentPage(c, e, p); });
        r.add([](CostMatrixModel* c, CostEditor* e, QObject* p) { return new CamvidExperimentPage(c, e, p); });
        return r;
    }();
    return registry;
}

QList<ExperimentPage*> makeExperimentPages(CostMatrixModel* costs, CostEditor* costEditor, QObject* parent)
{
    QList<ExperimentPage*> pages;
    for (const auto& factory : PageRegistry::global().factories())
        pages << factory(costs, costEditor, parent);
    // Every registered experiment without a page of its own gets the page derived from
    // its declaration.
    for (const auto* experiment : ExperimentRegistry::global().all())
        if (!pageFor(pages, QString::fromStdString(experiment->name())))
            pages << new RegistryExperimentPage(*experiment, costs, costEditor, parent);
    return pages;
}

ExperimentPage* pageFor(const QList<ExperimentPage*>& pages, const QString& experiment)
{
    for (auto* page : pages)
        if (page->serves(experiment))
            return page;
    return nullptr;
}

QStringList experimentIds(const QList<ExperimentPage*>& pages)
{
    QStringList out;
    for (auto* page : pages)
        for (const auto& entry : page->experiments())
            out << entry.id;
    return out;
}

bool anyBusy(const QList<ExperimentPage*>& pages)
{
    return std::any_of(pages.begin(), pages.end(), [](ExperimentPage* page) { return page->isBusy(); });
}

} // namespace lcs::ui
