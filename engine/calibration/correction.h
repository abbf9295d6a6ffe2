#pragma once

#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <ATen/core/Generator.h>
#include <ATen/core/Tensor.h>

#include "base/decision/cost_matrix.h"
#include "engine/core/job.h"
#include "engine/core/training_loop.h"
#include "engine/models/classifier.h"
#include "engine/models/mlp.h"

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
/// Takes log p. The decisions are q's Bayes decisions unless given. Used by the fast path.
struct CorrectionGradient {
    CorrectionTerms terms;
    at::Tensor gradient;  ///< [B, C]
};
CorrectionGradient correctionObjectiveWithGradient(const at::Tensor& qLogits, const at::Tensor& logP,
                                                   const at::Tensor& costs, double utilityConstant,
                                                   const at::Tensor& decisions = {});

/// What q learns from labelled rows besides the paper's objective (CorrectionConfig::
/// labelTerm): nothing (the paper's q, the default); the labels' log loss -log q(y|x), a
/// proper scoring rule that pulls q towards the frequencies the labels show (what a
/// calibration of P fits); or a soft realised cost sum_d pi_d L[y, d] with pi =
/// softmax(-R / tau) over the decisions, R_d = sum_k q_k L[k, d] the expected cost of
/// decision d under q and tau a tenth of the largest cost: the cost q's own decision
/// would realise on the row, made differentiable.
enum class LabelTerm { None, LogLoss, SoftCost };
/// "none", "log_loss", "soft_cost": the settings' spelling; throws std::invalid_argument.
const char* labelTermName(LabelTerm term);
LabelTerm labelTermFromName(const std::string& name);
/// Every term's name, in the enum's order: the setting's choices.
const std::vector<std::string>& labelTermNames();

/// The label term on logits [B, C] against labels [B] (class indices; -1: unlabelled,
/// contributing nothing), weight w, as mean over the labelled rows times w, with its
/// gradient w.r.t. the logits in closed form: log loss w (q - e_y) / B_l; soft cost
/// w / B_l * q_j (g_j - sum_k q_k g_k) with g = (dl/dR) L^T, dl/dR_d = -pi_d (c_d - pi.c) / tau,
/// c = L[y, .]. Zero loss and gradient without labelled rows.
struct LabelTermGradient {
    double loss = 0;
    at::Tensor gradient;  ///< [B, C]
};
LabelTermGradient labelTermWithGradient(const at::Tensor& logits, const at::Tensor& labels, const at::Tensor& costs,
                                        LabelTerm term, double weight);

/// The optimum of the objective at one point for a fixed decision c:
/// q(y) ∝ p(y) exp(-L[y, c] / M).
at::Tensor closedFormCorrection(const at::Tensor& p, const at::Tensor& costs, int64_t decision,
                                double utilityConstant);

/// The costs under which Bayes decisions on p are the objective's pointwise optimum over
/// both q and c: with q as above the objective is -log Z_c, Z_c = sum_y p(y) exp(-L[y, c] / M),
/// so the best c minimises sum_y p(y) (1 - exp(-L[y, c] / M)). These costs are less lopsided
/// than L (ratios shrink towards 1), so the optimum is less cost-sensitive than Bayes on p.
at::Tensor correctionOptimumCosts(const at::Tensor& costs, double utilityConstant);

enum class Optimiser { Adam, SgdMomentum };

/// How q is trained: one struct for every experiment. The defaults are the synthetic
/// experiment's (Adam on the whole calibration set, cosine-annealed); the image
/// experiments' presets use SGD with momentum on minibatches and a one-cycle schedule
/// (sgdCorrectionConfig).
/// sgdCorrectionConfig brace-initialises the first eight fields in this order.
struct CorrectionConfig {
    /// Passes over the calibration set D'. With the whole set per step (batchSize 0) an
    /// epoch is one step, so this is the number of steps.
    int epochs = 500;
    int batchSize = 0;             ///< 0 = the whole calibration set each step, in order
    /// Peak learning rate. The authors use 0.1 from a random q on the 2-D data; from
    /// the warm start (below) 0.1 throws much of the fit away in the first steps. On the
    /// synthetic experiment 0.01, 0.03 and 0.1 give the same paired differences within
    /// about one standard error (seeds 0-2, 30 replicates each; figures in docs/design-notes.md).
    double learningRate = 0.03;
    /// Cosine to 0 over the run by default. At a constant 0.1, Adam from a fresh q
    /// sometimes ends 500 steps still oscillating (KL(q||p) ~ 0.1 instead of ~0.005 in
    /// about one replicate in ten), which shows up as noise in the decisions.
    LrSchedule schedule = LrSchedule::Cosine;
    Optimiser optimiser = Optimiser::Adam;
    double momentum = 0.9;         ///< SGD only
    /// L2 penalty on q's parameters (coupled, as torch.optim's weight_decay) for both
    /// optimisers: it keeps q smooth between the calibration inputs it fits.
    double weightDecay = 0.0;
    /// N(0, s^2) added to calibration inputs per step (times each feature's inputStd when
    /// q standardises its inputs, so s is in the units q sees).
    double inputNoiseStd = 0.0;
    /// Train q with dropout off and BatchNorm on its running statistics, i.e. as the
    /// deterministic network that makes the decisions. The objective compares q with S
    /// in S's inference mode, so this trains the function that is scored; with dropout on,
    /// q's decision c flickers between steps on every uncertain input.
    bool inferenceMode = false;
    /// How each input's decision c is chosen. false: the Bayes decision under the current
    /// q (the paper's coordinate step). true: the decision that minimises the objective
    /// jointly with q(.|x), i.e. the Bayes decision under p with the costs 1 - exp(-L/M)
    /// (correctionOptimumCosts), fixed per input. Warm-started from S, the coordinate step
    /// returns S's own decision on nearly every input (q boosts whatever it decides), so q
    /// moves only through the network's spill-over; the joint step aims q at the
    /// objective's optimum instead.
    bool jointDecision = false;
    /// The share of the calibration inputs held out of q's training to decide when to
    /// stop, without labels: after every epoch the objective (the same decisions rule,
    /// no input noise, q in inference mode) is evaluated on the held-out inputs, and q
    /// ends with the parameters of the epoch where it was lowest (0: the warm start).
    /// The held-out inputs are drawn once from the run's generator. 0: every input is
    /// trained on and q ends with its last epoch's parameters.
    double heldOutShare = 0.0;

    /// q as a residual on the predictive it corrects: q(y|x) ∝ p(y|x) exp(f_y(x)), f an MLP
    /// whose last layer starts at zero, so q starts as p on every input (no warm start) and
    /// learns only the correction, whose pointwise optimum exp(-L[y, c] / M) is bounded.
    /// On inputs unlike the calibration set f stays near its start, so q stays near p;
    /// the price is that q needs p wherever it decides. The fast path (Mlp) only.
    bool residual = false;

    // A fresh q (trainCorrection without an initial network):
    std::vector<int64_t> hidden{50};
    /// The fresh q standardises its inputs with these (one per feature; empty: none).
    std::vector<double> inputMean{}, inputStd{};  // {} for -Wmissing-field-initializers
    /// Before the correction, a fresh q is distilled into the predictive it corrects
    /// (minimising KL(p || q) with Adam) for this many steps: the paper starts q from
    /// the student S, and a fresh q trained at lr 0.1 sometimes collapsed in its first
    /// steps to one class everywhere (all ReLUs dead, zero gradient) and never left.
    int warmStartSteps = 300;
    double warmStartLearningRate = 0.01;
    /// A predictive known only at its rows (a user's P): with studentTeacherSteps > 0 a
    /// student S (an MLP like q, standardising as q does) is first distilled from P on the
    /// calibration rows for this many steps (KL(p || S), Adam at warmStartLearningRate),
    /// and the correction's teacher is S wherever q is trained, so inputs moved by
    /// inputNoiseStd are scored against S there rather than against P at the row they came
    /// from. A residual q builds on S at those inputs too. 0: P at the row.
    int studentTeacherSteps = 0;
    /// Labelled calibration rows (PredictiveSource::labels) add this term, times
    /// labelWeight, to the objective q trains on and is kept by (LabelTerm). The fast
    /// path (Mlp) only.
    LabelTerm labelTerm = LabelTerm::None;
    double labelWeight = 1.0;
};

/// The image experiments' q: SGD with momentum 0.9 and no weight decay on minibatches.
CorrectionConfig sgdCorrectionConfig(int epochs, int batchSize, double learningRate, LrSchedule schedule,
                                     double inputNoiseStd);

struct CorrectionStep {
    int step = 0;                  ///< 1-based; an epoch's number in epoch curves
    double loss = 0;
    double kl = 0;
    double expectedCost = 0;
};

/// Where the predictive p that q corrects comes from: the student S (amortised,
/// evaluated in its inference mode on the same noisy inputs as q), or a stored
/// predictive [N, C] (or [N, C, H, W]) aligned with the calibration inputs.
struct PredictiveSource {
    PredictiveSource() = default;
    PredictiveSource(ClassifierImpl* studentIn, at::Tensor storedIn,
                     std::function<at::Tensor(const at::Tensor& inputs)> teacherAtIn = {})
        : student(studentIn), stored(std::move(storedIn)), teacherAt(std::move(teacherAtIn))
    {
    }

    ClassifierImpl* student = nullptr;
    at::Tensor stored;
    /// Probabilities at any inputs (a student of a stored predictive); used before
    /// `stored`, which it makes unnecessary.
    std::function<at::Tensor(const at::Tensor& inputs)> teacherAt;
    /// The calibration rows' labels [N] (class indices, -1 where unlabelled), for
    /// CorrectionConfig::labelTerm; undefined: none.
    at::Tensor labels;
};

/// A batch's labels and the term they add (none: labels undefined or LabelTerm::None).
struct LabelBatch {
    at::Tensor labels;  ///< [B], -1 where unlabelled
    LabelTerm term = LabelTerm::None;
    double weight = 0;
    bool active() const { return labels.defined() && term != LabelTerm::None && weight > 0; }
};

/// The one thing that differs between the networks q can be: how the objective and its
/// gradient are computed on a batch. Autograd for any Classifier
/// (calibration/image_training.cpp); hand-written backward passes for the synthetic
/// experiment's Mlp (the fast path, fastpath/mlp_backward.h).
class CorrectionNetwork {
public:
    virtual ~CorrectionNetwork() = default;
    /// The tensors the optimiser steps.
    virtual std::vector<at::Tensor> parameters() = 0;
    /// The objective on inputs x against p (class dimension second) with the decisions
    /// given (or, undefined, q's Bayes decisions), leaving its gradient in parameters()'
    /// .grad().
    /// With an active `labels`, the label term joins the loss and its gradient.
    virtual CorrectionTerms objectiveAndGradient(const at::Tensor& x, const at::Tensor& p, const at::Tensor& costs,
                                                 double utilityConstant, const at::Tensor& decisions,
                                                 const LabelBatch& labels) = 0;
    virtual void setTraining(bool on) = 0;
    /// Class probabilities on the CPU, in inference mode, without gradient. `p` is the
    /// predictive at the same inputs, which a residual q (CorrectionConfig::residual)
    /// builds on and every other q ignores.
    virtual at::Tensor probabilities(const at::Tensor& x, const at::Tensor& p) = 0;
};

struct CorrectionRun {
    std::vector<CorrectionStep> curve;       ///< one entry per step
    std::vector<CorrectionStep> epochCurve;  ///< means over each epoch's steps
    /// q ended deciding one class for every calibration input (up to 2,000 of them)
    /// while p's own decisions differ between inputs: a collapsed q, reported rather
    /// than silently returned.
    bool collapsed = false;
    double seconds = 0;
    /// With CorrectionConfig::heldOutShare > 0: the objective on the held-out inputs
    /// before training (entry 0) and after every epoch, and the epoch whose parameters
    /// q ended with (0: the warm start). Empty and -1 without a held-out share.
    std::vector<double> heldOutObjective;
    int keptEpoch = -1;
    int64_t heldOutInputs = 0;
};

/// Called after every step, and at the end of every epoch; both run on the job's thread.
using CorrectionStepCallback = std::function<void(const CorrectionStep&)>;
using CorrectionEpochCallback = std::function<void(int epoch)>;

/// The correction's one training loop, for every experiment and network: config.epochs
/// passes over the calibration inputs x [N, ...] in shuffled minibatches (or the whole
/// set in order), each step: input noise, p from `source`, the decisions (joint or
/// coordinate), the objective's gradient from `q`, one optimiser step at the scheduled
/// learning rate. Reports progress under `phase` about 100 times, honours cancellation,
/// and ends with the collapse check.
CorrectionRun runCorrection(CorrectionNetwork& q, const at::Tensor& x, const PredictiveSource& source,
                            const CostMatrix& costs, const CorrectionConfig& config, at::Generator& generator,
                            const JobContext& ctx, const std::string& phase = "correction",
                            const CorrectionStepCallback& onStep = {}, const CorrectionEpochCallback& onEpoch = {});

struct CorrectionOutput {
    Mlp q{nullptr};
    std::vector<CorrectionStep> curve;  ///< one entry per correction step (not the warm start)
    double seconds = 0;
    /// KL(q || p) on the calibration set after the warm start (NaN without one).
    double warmStartKl = 0;
    /// KL(S || p) on the calibration set of the student teacher
    /// (CorrectionConfig::studentTeacherSteps; NaN without one).
    double studentKl = std::numeric_limits<double>::quiet_NaN();
    bool collapsed = false;             ///< see CorrectionRun::collapsed
    bool residual = false;              ///< q is f of a residual q (CorrectionConfig::residual)
    /// See CorrectionRun: the held-out objective per epoch and the epoch kept (-1: none).
    std::vector<double> heldOutObjective;
    int keptEpoch = -1;
    int64_t heldOutInputs = 0;
};

/// The collapse test of CorrectionRun::collapsed: Bayes decisions under qProbs are the
/// same for every row while those under p are not. qProbs, p [N, C]; costs [C, D].
bool decisionsCollapsed(const at::Tensor& qProbs, const at::Tensor& p, const at::Tensor& costs);

/// Called after every step with the step's figures and the network being trained (for
/// snapshots); runs on the job's thread.
using CorrectionObserver = std::function<void(const CorrectionStep&, MlpImpl& q)>;

/// The synthetic experiment's q, an Mlp, trained by runCorrection through the fast path
/// on calibration inputs x [N, D] against the predictive p [N, C]. `initial` warm-starts
/// q (copied, not modified); without it q is a fresh MLP with config.hidden drawn from
/// `generator`, first distilled into p for config.warmStartSteps.
/// `labels` [N] (class indices, -1 unlabelled; undefined: none) feed config.labelTerm.
CorrectionOutput trainCorrection(const at::Tensor& x, const at::Tensor& p, const CostMatrix& costs,
                                 const CorrectionConfig& config, at::Generator& generator, const JobContext& ctx,
                                 const CorrectionObserver& observer = {}, const Mlp* initial = nullptr,
                                 const at::Tensor& labels = {});

/// q's class probabilities at x (no gradient), computed on q's device, returned on the CPU.
at::Tensor predictProbabilities(MlpImpl& model, const at::Tensor& x);

/// The same for a q trained with CorrectionConfig::residual (softmax(log p + f(x)), p [N, C]
/// the predictive at x), or, when `residual` is false, predictProbabilities(q, x).
at::Tensor correctedProbabilities(MlpImpl& q, const at::Tensor& x, const at::Tensor& p, bool residual);

} // namespace lcs
