#include "page_list.h"

#include <algorithm>

#include "camvid/camvid_experiment_page.h"
#include "experiments/experiment.h"
#include "image/image_experiment_page.h"
#include "registry/registry_page.h"
#include "main_window.h"
#include "synthetic/synthetic_page.h"

namespace lcs::ui {

QList<ExperimentPage*> makeExperimentPages(CostMatrixModel* costs, CostEditor* costEditor,
                                           std::shared_ptr<const CamvidJobHooks> camvidHooks, QObject* parent)
{
    QList<ExperimentPage*> pages{new SyntheticPage(costs, costEditor, parent),
                                 new ImageExperimentPage(costs, costEditor, parent),
                                 new CamvidExperimentPage(costs, costEditor, std::move(camvidHooks), parent)};
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

// The window's typed access to single pages (tests and the command line's demo set-up)
// lives here, next to the list, so that the window itself names no experiment.

namespace {

template <class Page>
Page* pageOf(const MainWindow& window)
{
    for (auto* page : window.pages())
        if (auto* p = qobject_cast<Page*>(page))
            return p;
    return nullptr;
}

} // namespace

QStringList MainWindow::experiments() const
{
    return experimentIds(m_pages);
}

SyntheticJobRunner* MainWindow::runner() const
{
    return pageOf<SyntheticPage>(*this)->runner();
}

ImageJobRunner* MainWindow::imageRunner() const
{
    return pageOf<ImageExperimentPage>(*this)->runner();
}

ExperimentPanel* MainWindow::imagePanel() const
{
    return pageOf<ImageExperimentPage>(*this)->panel();
}

ImageResultsPage* MainWindow::imagePage() const
{
    return pageOf<ImageExperimentPage>(*this)->page();
}

CamvidJobRunner* MainWindow::camvidRunner() const
{
    return pageOf<CamvidExperimentPage>(*this)->runner();
}

ExperimentPanel* MainWindow::camvidPanel() const
{
    return pageOf<CamvidExperimentPage>(*this)->panel();
}

CamvidResultsPage* MainWindow::camvidPage() const
{
    return pageOf<CamvidExperimentPage>(*this)->page();
}

} // namespace lcs::ui
