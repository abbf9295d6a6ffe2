#pragma once

#include <array>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include <ATen/core/Tensor.h>

#include "engine/core/normal_stream.h"
#include "engine/fastpath/flat_parameters.h"
#include "engine/models/mlp.h"

/// Online distillation's student side for MLP teachers and students (the Fashion-MNIST
/// and MNIST networks), off the autograd engine and overlapped with the teacher.
///
/// Student step s follows sampler step s: `rows` inputs x' of D' (uniformly drawn rows
/// plus Gaussian noise), the targets softmax(teacher_s(x')) of the teacher after that
/// step, and one SGD step (momentum, weight decay, as torch::optim::SGD) on
/// -mean_b sum_y target_by log S(y|x'_b), whose gradient with respect to S's logits is
/// (softmax - target) / rows.
///
/// On two cores the work is split so that each core does about half of it: the
/// teacher's core takes sampler step s+1 (a forward and a backward pass) and, at each
/// submission s, the targets of the step just taken (a forward pass of the teacher as it
/// is then); the student's core, at the same time, student step s (a forward and a
/// backward pass), then the standard normals of the teacher's noise for sampler step
/// s+2 (one per teacher parameter) and step s+2's inputs, all from a stream of its own.
/// Drawing two steps ahead means neither core waits for the other within a step, and
/// the student may fall a second step behind: the teacher waits for student step s-1
/// only when it needs step s+1's noise, at the update, and at submission s+1 for step
/// s-1's drawing of step s+1's inputs, so that a slow step on either core is absorbed.
/// With gatherAhead, student step s also copies out sampler step s+3's minibatch rows.
/// LibTorch's own threads split these 64-row products badly (`lcstudio-cli bench
/// distill`, docs/benchmarks.md). One core runs the same arithmetic in the same order,
/// so the result does not depend on the number of threads.
///
/// Its contract is tst_sgmcmc's tests: one step against autograd and torch::optim::SGD,
/// the gradient against a finite difference, the inputs' law, and the two-core run
/// equal to the one-core run.
namespace lcs {

/// The student's optimiser, as torch::optim::SGD: d = g + weightDecay p;
/// velocity = momentum velocity + d; p -= learningRate velocity.
struct StudentSgd {
    double momentum = 0.9;
    double weightDecay = 1e-4;
};

class MlpStudentSteps {
public:
    /// `teacher` is read at every submit; `student` is trained in place (its parameters
    /// become views into one flat buffer until this object goes). `calibration` holds
    /// the inputs of D' [N, ...] (float, on the CPU); `batchRows` is the most rows a
    /// step takes. With `overlap`, steps run on a thread of their own; otherwise submit
    /// runs the step before it returns. With `teacherNoise`, the sampler's noise comes
    /// from here (teacherNoiseFor).
    MlpStudentSteps(MlpImpl& teacher, MlpImpl& student, const at::Tensor& calibration, double noiseStd,
                    StudentSgd sgd, int64_t batchRows, uint64_t seed, bool overlap, bool teacherNoise = false);
    ~MlpStudentSteps();
    MlpStudentSteps(const MlpStudentSteps&) = delete;
    MlpStudentSteps& operator=(const MlpStudentSteps&) = delete;

    /// Starts the student step for the sampler step just taken, on `rows` inputs at
    /// `learningRate` (with overlap, queued behind at most one step in flight). Returns
    /// a finished step's loss: without overlap this step's, with overlap step s-2's
    /// (NaN for the first two), known by then whatever the timing.
    double submit(int64_t rows, double learningRate);
    /// Waits for the steps in flight; returns the last one's loss (NaN when none), and
    /// forgets the losses not yet returned. After drain the student is up to date.
    double drain();

    /// Standard normals for the teacher's sampler step `step` (1-based, the step after
    /// the last submitted), one per teacher parameter (Sghmc::useStandardNoise); null
    /// without `teacherNoise`. Waits, with overlap, for the student step that draws
    /// them. Valid until the next submit but one.
    const float* teacherNoiseFor(long long step, int64_t count);

    /// With overlap, from now on student step s also copies out sampler step s+3's
    /// minibatch (rows of `trainingInputs`, once announceBatches has said which), so that
    /// the teacher's core need not wait on memory for them; else nothing.
    void gatherAhead(const at::Tensor& trainingInputs);
    /// The minibatches of sampler steps firstStep, firstStep + 1, ... (ChainHooks::epochBatches).
    void announceBatches(long long firstStep, const std::vector<at::Tensor>& batches);
    /// Sampler step `step`'s inputs where a student step gathered exactly rows `index`
    /// for it, else an undefined tensor (ChainHooks::minibatchRows). Valid during that
    /// sampler step.
    at::Tensor minibatchRows(long long step, const at::Tensor& index);

    /// `rows` inputs of D' into out[0:rows]: uniformly drawn rows plus the noise.
    void drawInputs(at::Tensor& out, int64_t rows);
    /// One SGD step of the student on inputs x [rows, D] against `target` [rows, C];
    /// returns the loss before the step.
    double stepOn(const at::Tensor& x, const at::Tensor& target, double learningRate);

private:
    struct Job {
        long long step = 0;        ///< 1-based
        int64_t rows = 0;
        double learningRate = 0;
        at::Tensor targets;        ///< softmax of the teacher after sampler step `step`
    };
    double run(const Job& job);
    /// Until student step `step` has finished (or any has failed: rethrown here).
    void awaitFinished(std::unique_lock<std::mutex>& lock, long long step);
    /// drawInputs from `stream`.
    void drawRows(at::Tensor& out, int64_t rows, NormalStream& stream);
    /// Sampler step `step`'s announced minibatch into its buffer (gatherAhead).
    void gatherFor(long long step);
    void work();
    at::Tensor& inputsOf(long long step) { return m_inputs[static_cast<size_t>(step % 4)]; }
    std::vector<float>& noiseOf(long long step) { return m_teacherNoise[static_cast<size_t>(step % 3)]; }

    MlpImpl& m_teacher;
    MlpImpl& m_student;
    at::Tensor m_calibration;          ///< D' as rows [N, D]
    double m_noiseStd;
    StudentSgd m_sgd;
    int64_t m_batchRows;
    NormalStream m_stream;             ///< drawInputs' draws
    NormalStream m_noiseStream;        ///< the steps' draws, on the student's core
    std::unique_ptr<FlatParameters> m_flat;
    at::Tensor m_velocity;
    /// Inputs by step % 4: at submission s the teacher's core reads step s's while
    /// student step s-1 may still read its own and write step s+1's.
    std::array<at::Tensor, 4> m_inputs;
    std::array<std::vector<float>, 3> m_teacherNoise;  ///< sampler steps s, s+1, s+2's, by s % 3
    /// gatherAhead's: the training inputs, and sampler steps' minibatches by step % 4 (student
    /// step s writes step s+3's while the teacher reads step s+1's). Under m_mutex: the
    /// announced indices by step, and which step and index each buffer holds.
    at::Tensor m_training;
    std::array<at::Tensor, 4> m_minibatches;
    std::map<long long, at::Tensor> m_announced;
    std::array<long long, 4> m_minibatchStep{};
    std::array<at::Tensor, 4> m_minibatchIndex;
    long long m_submitted = 0;

    bool m_overlap;
    std::thread m_worker;
    std::mutex m_mutex;
    std::condition_variable m_changed;
    bool m_stop = false;
    std::deque<Job> m_queue;           ///< submitted, not yet started (at most two)
    long long m_finished = 0;          ///< the last student step finished
    std::deque<std::pair<long long, double>> m_losses;  ///< finished steps' losses by step, not yet returned
    std::exception_ptr m_failure;
};

} // namespace lcs
