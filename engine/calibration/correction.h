#pragma once

#include <functional>
#include <vector>

#include <ATen/core/Generator.h>
#include <ATen/core/Tensor.h>

#include "core/job.h"
#include "decision/cost_matrix.h"
#include "models/mlp.h"

namespace lcs {

/// The correction objective (the negative of the paper's eq.
/// lcost_final), averaged over the batch:
///   loss = mean_b [ sum_y q(y|x_b) L[y, c_b] / M + KL(q(.|x_b) || p(.|x_b)) ]
///   c_b  = argmin_d sum_y q(y|x_b) L[y, d]   (recomputed from q, no gradient)
struct CorrectionTerms {
    at::Tensor loss;          ///< scalar, differentiable w.r.t. the q logits
    at::Tensor kl;            ///< scalar, mean KL(q || p)
    at::Tensor expectedCost;  ///< scalar, mean sum_y q(y) L[y, c] (not divided by M)
    at::Tensor decisions;     ///< [B] the c_b used
};

/// qLogits [B, C] (unnormalised), p [B, C] probabilities (clamped away from 0 inside),
/// costs [C, D], M > 0. The decisions c_b are the Bayes decisions under the current q (the
/// paper's coordinate step), unless `decisions` [B] is given.
CorrectionTerms correctionObjective(const at::Tensor& qLogits, const at::Tensor& p, const at::Tensor& costs,
                                    double utilityConstant, const at::Tensor& decisions = {});

/// The same objective without autograd, with its gradient w.r.t. the logits in closed
/// form (c held fixed): per row b and class k,
///   d loss / d z_bk = q_bk (a_bk - sum_y q_by a_by) / B,  a_by = L[y, c_b]/M + log q_by - log p_by.
/// Takes log p (computed once per calibration set). Used by trainCorrection.
struct CorrectionGradient {
    CorrectionTerms terms;
    at::Tensor gradient;  ///< [B, C]
};
CorrectionGradient correctionObjectiveWithGradient(const at::Tensor& qLogits, const at::Tensor& logP,
                                                   const at::Tensor& costs, double utilityConstant);

/// The optimum of the objective at one point for a fixed decision c:
/// q(y) ∝ p(y) exp(-L[y, c] / M).
at::Tensor closedFormCorrection(const at::Tensor& p, const at::Tensor& costs, int64_t decision,
                                double utilityConstant);

/// The costs under which Bayes decisions on p are the objective's pointwise optimum over
/// both q and c: with q as above the objective is -log Z_c, Z_c = sum_y p(y) exp(-L[y, c] / M),
/// so the best c minimises sum_y p(y) (1 - exp(-L[y, c] / M)). These costs are less lopsided
/// than L (ratios shrink towards 1), so the optimum is less cost-sensitive than Bayes on p.
at::Tensor correctionOptimumCosts(const at::Tensor& costs, double utilityConstant);

struct CorrectionConfig {
    int iterations = 500;
    /// Peak Adam learning rate. The authors use 0.1 from a random q on the 2-D data; from
    /// the warm start (below) 0.1 throws much of the fit away in the first steps. On the
    /// synthetic experiment 0.01, 0.03 and 0.1 give the same paired differences within
    /// about one standard error (seeds 0-2, 30 replicates each; figures in the README).
    double learningRate = 0.03;
    /// Cosine-anneal the learning rate to 0 over the run. At a constant 0.1, Adam from a
    /// fresh q sometimes ends 500 steps still oscillating (KL(q||p) ~ 0.1 instead of
    /// ~0.005 in about one replicate in ten), which shows up as noise in the decisions.
    bool cosineSchedule = true;
    int batchSize = 0;             ///< 0 = the whole calibration set each step
    std::vector<int64_t> hidden{50};
    double inputNoiseStd = 0.0;    ///< N(0, s^2) added to calibration inputs per step
    /// Before the correction, a fresh q is distilled into the predictive it corrects
    /// (minimising KL(p || q) with Adam) for this many steps: the paper starts q from
    /// the student S, and a fresh q trained at lr 0.1 sometimes collapsed in its first
    /// steps to one class everywhere (all ReLUs dead, zero gradient) and never left.
    /// Not used when trainCorrection is given an initial network.
    int warmStartSteps = 300;
    double warmStartLearningRate = 0.01;
};

struct CorrectionStep {
    int step = 0;
    double loss = 0;
    double kl = 0;
    double expectedCost = 0;
};

struct CorrectionOutput {
    Mlp q{nullptr};
    std::vector<CorrectionStep> curve;  ///< one entry per correction step (not the warm start)
    double seconds = 0;
    /// KL(q || p) on the calibration set after the warm start (NaN without one).
    double warmStartKl = 0;
    /// q ended deciding one class for every calibration input while p's own decisions
    /// differ between inputs: a collapsed q, reported rather than silently returned.
    bool collapsed = false;
};

/// The collapse test of CorrectionOutput::collapsed: Bayes decisions under qProbs are the
/// same for every row while those under p are not. qProbs, p [N, C]; costs [C, D].
bool decisionsCollapsed(const at::Tensor& qProbs, const at::Tensor& p, const at::Tensor& costs);

/// Called after every step with the step's figures and the network being trained (for
/// snapshots); runs on the job's thread.
using CorrectionObserver = std::function<void(const CorrectionStep&, MlpImpl& q)>;

/// Trains q on calibration inputs x [N, D] against the predictive p [N, C]. `initial`
/// warm-starts q (copied, not modified); without it q is a fresh MLP with
/// config.hidden drawn from `generator`.
CorrectionOutput trainCorrection(const at::Tensor& x, const at::Tensor& p, const CostMatrix& costs,
                                 const CorrectionConfig& config, at::Generator& generator, const JobContext& ctx,
                                 const CorrectionObserver& observer = {}, const Mlp* initial = nullptr);

/// q's class probabilities at x (no gradient), computed on q's device, returned on the CPU.
at::Tensor predictProbabilities(MlpImpl& model, const at::Tensor& x);

} // namespace lcs
