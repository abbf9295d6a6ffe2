#include "page_list.h"

#include <algorithm>

#include "camvid/camvid_experiment_page.h"
#include "experiments/experiment.h"
#include "image/image_experiment_page.h"
#include "registry/registry_page.h"
#include "synthetic/synthetic_page.h"

namespace lcs::ui {

QList<ExperimentPage*> makeExperimentPages(CostMatrixModel* costs, CostEditor* costEditor, QObject* parent)
{
    QList<ExperimentPage*> pages{new SyntheticPage(costs, costEditor, parent),
                                 new ImageExperimentPage(costs, costEditor, parent),
                                 new CamvidExperimentPage(costs, costEditor, parent)};
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
