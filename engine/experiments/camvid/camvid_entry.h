#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/experiments/camvid/camvid_experiment.h"
#include "engine/experiments/experiment.h"

/// CamVid segmentation (paper Fig. 5) as a registry entry: the run (CW-SGD, SGHMC with
/// the student S, q on S, all in memory), then S against q on the validation frames, and
/// frames per second where asked. `lcstudio-cli camvid run`, camvid session files and
/// the window's page all run it; the page observes it through the CamVid views.
namespace lcs {

/// What a test may give the CamVid entry: a last word on the config before a run or an
/// evaluation (a preset shrunk to seconds on tiny frames).
struct CamvidProviders {
    std::function<void(CamvidWindowConfig&)> tune;
};

/// S, q and the unlabelled frames of the last run: a cost edit re-trains only q. Each
/// re-correction publishes q's previews, the frames and the comparison as the run did.
class CamvidState : public RecorrectionState {
public:
    CamvidState(CamvidWindowConfig config, std::shared_ptr<CamvidWindowCache> cache, CostMatrix table);
    /// The run's frames per second, reported again with every re-correction.
    void setFps(CamvidFpsResult fps) { m_fps = std::move(fps); }
    std::string describe() const override;
    CostMatrix costs() const override { return m_table; }
    ExperimentOutput recorrect(const CostMatrix& costs, const JobContext& ctx) override;
    /// Writes S, the latest q (and the MC-dropout network where trained) as a CamVid model
    /// folder (saveCamvidWindowModels); returns the files written.
    std::vector<std::string> saveModels(const std::string& dir) const override;

private:
    CamvidWindowConfig m_config;
    std::shared_ptr<CamvidWindowCache> m_cache;
    CostMatrix m_table;  ///< as the user gave it (12 x 12 with void, or 11 x 11)
    std::optional<CamvidFpsResult> m_fps;  ///< the run's measurement (q's architecture stays)
};

/// The entry, with `providers` (tests) applied to every config it builds.
std::shared_ptr<const Experiment> makeCamvidExperiment(CamvidProviders providers = {});

} // namespace lcs
