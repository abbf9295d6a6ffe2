#pragma once

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>

#include <ATen/core/Tensor.h>

#include "core/normal_stream.h"
#include "fastpath/flat_parameters.h"
#include "models/mlp.h"

/// Online distillation's student side for MLP teachers and students (the Fashion-MNIST
/// and MNIST networks), off the autograd engine and overlapped with the teacher.
///
/// Each student step: draw `rows` inputs of D' uniformly with Gaussian noise, take the
/// teacher's softmax on them as targets, and make one SGD step (momentum, weight decay,
/// as torch::optim::SGD) on -mean_b sum_y target_by log S(y|x'_b), whose gradient with
/// respect to S's logits is (softmax - target) / rows. The teacher is the chain's state
/// after the sampler step that submitted the student step: its weights are copied at
/// submission, so the student step can run on a second core while the teacher takes its
/// next step. On two cores the teacher and the student each keep one core busy;
/// LibTorch's own parallelism splits these 64-row products badly (measured in
/// `lcstudio-cli bench distill`, README "Performance").
///
/// Its contract is tst_image_training's test of one step against the same step through
/// autograd and against a finite difference of the loss.
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
    /// the inputs of D' [N, ...] (float, on the CPU). With `overlap`, steps run on a
    /// thread of their own; otherwise submit runs the step before it returns.
    MlpStudentSteps(MlpImpl& teacher, MlpImpl& student, const at::Tensor& calibration, double noiseStd,
                    StudentSgd sgd, uint64_t seed, bool overlap);
    ~MlpStudentSteps();
    MlpStudentSteps(const MlpStudentSteps&) = delete;
    MlpStudentSteps& operator=(const MlpStudentSteps&) = delete;

    /// Waits for the step in flight, snapshots the teacher and starts the next step on
    /// `rows` inputs at `learningRate`. Returns the finished step's loss (NaN when none
    /// was in flight): with overlap, a step's loss is known one submit later.
    double submit(int64_t rows, double learningRate);
    /// Waits for the step in flight; returns its loss (NaN when none). After drain the
    /// student is up to date.
    double drain();

    /// One step, run where it is called (what the worker runs).
    double stepNow(int64_t rows, double learningRate);
    /// `rows` inputs of D': uniformly drawn rows plus the noise, [rows, D].
    at::Tensor drawInputs(int64_t rows);
    /// One step on the given inputs against the snapshot of the teacher (updated by
    /// submit, or by snapshotTeacher); returns the loss before the step.
    double stepOn(const at::Tensor& x, double learningRate);
    void snapshotTeacher();

private:
    void work();
    void rethrowFailure();

    MlpImpl& m_teacher;
    MlpImpl& m_student;
    Mlp m_snapshot;            ///< the teacher as it was at submission
    at::Tensor m_calibration;  ///< D' as rows [N, D]
    double m_noiseStd;
    StudentSgd m_sgd;
    NormalStream m_stream;
    std::unique_ptr<FlatParameters> m_flat;
    at::Tensor m_velocity;

    bool m_overlap;
    std::thread m_worker;
    std::mutex m_mutex;
    std::condition_variable m_changed;
    bool m_pending = false, m_running = false, m_stop = false;
    int64_t m_rows = 0;
    double m_learningRate = 0;
    double m_lastLoss = 0;
    bool m_haveLoss = false;
    std::exception_ptr m_failure;
};

} // namespace lcs
