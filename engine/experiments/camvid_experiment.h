#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "calibration/image_training.h"
#include "camvid_data.h"
#include "core/job.h"
#include "decision/cost_matrix.h"
#include "decision/decisions.h"
#include "models/classifier.h"

/// The paper's segmentation experiment (CamVid, SegNet): train and save every method's
/// network, evaluate any split laid out like CamVid with per-class IoU, mIoU, pixel
/// accuracy and decision cost (uncorrected and corrected), write overlays, and time
/// frames per second of MC-dropout ensembles against q.
namespace lcs {

/// Method names of the segmentation experiment.
const std::vector<std::string>& camvidMethods();  ///< mc_dropout, lc_mc_dropout, cw_sgd, sghmc_s, ours

/// The 11 x 11 decision costs: the paper's 12 x 12 CamVid table without the void row
/// and column (void is never decided and never scored).
CostMatrix camvidDecisionCosts(const CostMatrix& table12);

struct CamvidTrainConfig {
    std::string data;                 ///< CamVid folder
    std::string split = "train";
    int height = 180, width = 240;    ///< frames are resized to this
    int64_t maxFrames = 0;            ///< 0 = every frame of the split
    std::vector<std::string> methods = camvidMethods();
    ModelSpec model;                  ///< segnet_light (cpu) or segnet (paper), dropout 0.3, 11 classes
    SgdConfig sgd;                    ///< mc_dropout's and cw_sgd's training
    double cwWeight = 1.4;            ///< on Car, Pedestrian, Bicyclist
    SgldDistillationConfig sghmc;     ///< from the CW-SGD network, with the student S
    SgdConfig lcFineTune;             ///< LC-MC-dropout: fine-tuning of the MC-dropout net
    int lcPasses = 5;                 ///< dropout passes per LC step (Cobb et al.: T = 5)
    ImageCorrectionConfig correction; ///< q on S, on unlabelled frames
    CostMatrix costs;                 ///< 11 x 11 (see camvidDecisionCosts)
    uint64_t seed = 0;
    std::string device = "cpu";

    static CamvidTrainConfig preset(const std::string& name);
};

struct CamvidTrainResult {
    std::vector<std::pair<std::string, std::string>> saved;  ///< (method, path)
    std::vector<std::pair<std::string, double>> seconds;     ///< training time per method
    double trainingFramesPerSecond = 0;  ///< frames through one SGD epoch per second (mc_dropout)
    int64_t frames = 0;
    double totalSeconds = 0;
};

/// Trains the methods and saves each network (and S, q) into outDir with sidecars, plus
/// outDir/camvid.json (frame size, normalisation, methods). Throws InputError for bad data.
CamvidTrainResult trainCamvid(const CamvidTrainConfig& config, const std::string& outDir, const JobContext& ctx);

/// The LC-MC-dropout loss (Cobb et al. 2018) on one batch of T dropout passes:
///   mean over labelled pixels of [ -log pbar(y) - log sum_c u(c, h*) pbar(c) ],
/// pbar the mean of the passes' softmax, u = M - L, h* = argmin_d sum_c pbar(c) L[c, d]
/// (held fixed). passLogits: T tensors [N, C, H, W]; labels [N, H, W].
at::Tensor lcMcDropoutLoss(const std::vector<at::Tensor>& passLogits, const at::Tensor& labels, const at::Tensor& costs,
                           double utilityConstant, int64_t ignoreLabel);

struct CamvidEvalConfig {
    std::string data;
    std::string split = "val";
    std::string modelDir;
    std::optional<CostMatrix> costs;  ///< decide under this 11- or 12-class matrix instead
    int mcPasses = 30;                ///< MC-dropout passes at test time
    std::string overlayDir;           ///< empty: no overlays
    int64_t maxFrames = 0;
    std::string device = "cpu";
};

struct CamvidMethodMetrics {
    std::string method;           ///< e.g. "mc_dropout", "sghmc_s", "ours"
    std::string rule;             ///< "uncorrected" or "corrected"
    DecisionMetrics metrics;
};

struct CamvidEvalResult {
    std::vector<CamvidMethodMetrics> rows;
    std::vector<std::string> classNames;  ///< the 11 scored classes
    int64_t frames = 0;
    int overlays = 0;
    double seconds = 0;
    size_t peakHeldFrames = 1;   ///< frames held at once while streaming (always 1)
};

/// Streams the frames of a split (one at a time), decides with every saved method and
/// accumulates metrics; writes overlay PNGs (frame | truth | S | q | where S and q
/// differ) when overlayDir is set.
CamvidEvalResult evaluateCamvid(const CamvidEvalConfig& config, const JobContext& ctx);

struct FpsPoint {
    int ensemble = 0;
    double ensembleFps = 0;   ///< MC-dropout predictive with this many passes
};
struct CamvidFpsResult {
    std::vector<FpsPoint> points;
    double qFps = 0;          ///< one forward pass of q and a Bayes decision
    double rawFps = 0;        ///< one forward pass of the same network, argmax only
    int height = 0, width = 0;
};
CamvidFpsResult camvidFramesPerSecond(const std::string& modelDir, const std::vector<int>& ensembles, int frames,
                                      const std::string& device);

std::string camvidTrainText(const CamvidTrainResult& r);
std::string camvidEvalTable(const CamvidEvalResult& r);
std::string camvidEvalJson(const CamvidEvalResult& r);
std::string camvidFpsTable(const CamvidFpsResult& r);
std::string camvidFpsJson(const CamvidFpsResult& r);

} // namespace lcs
