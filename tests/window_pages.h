#pragma once

#include "ui/experiments/camvid/camvid_experiment_page.h"
#include "ui/experiments/image/image_experiment_page.h"
#include "ui/experiments/synthetic/synthetic_page.h"
#include "ui/main_window.h"

/// The window tests' typed way to a page's runner, form and views: the window itself
/// names no experiment, so the tests find the page by its type.
namespace lcs::ui {

template <class Page>
Page* pageOf(const MainWindow& window)
{
    for (auto* page : window.pages())
        if (auto* p = qobject_cast<Page*>(page))
            return p;
    return nullptr;
}

inline JobRunner* syntheticRunner(const MainWindow& w) { return pageOf<SyntheticPage>(w)->runner(); }
inline JobRunner* imageRunner(const MainWindow& w) { return pageOf<ImageExperimentPage>(w)->runner(); }
inline ExperimentPanel* imagePanel(const MainWindow& w) { return pageOf<ImageExperimentPage>(w)->panel(); }
inline ImageResultsPage* imagePage(const MainWindow& w) { return pageOf<ImageExperimentPage>(w)->page(); }
inline JobRunner* camvidRunner(const MainWindow& w) { return pageOf<CamvidExperimentPage>(w)->runner(); }
inline ExperimentPanel* camvidPanel(const MainWindow& w) { return pageOf<CamvidExperimentPage>(w)->panel(); }
inline CamvidResultsPage* camvidPage(const MainWindow& w) { return pageOf<CamvidExperimentPage>(w)->page(); }

} // namespace lcs::ui
