#include "fastpath/mlp_distillation.h"

#include <cstring>
#include <limits>

#include <torch/torch.h>

#include "core/threads.h"
#include "fastpath/mlp_backward.h"

namespace lcs {

MlpStudentSteps::MlpStudentSteps(MlpImpl& teacher, MlpImpl& student, const at::Tensor& calibration, double noiseStd,
                                 StudentSgd sgd, uint64_t seed, bool overlap)
    : m_teacher(teacher), m_student(student), m_snapshot(teacher.inputs, teacher.hidden, teacher.classes),
      m_calibration(calibration.reshape({calibration.size(0), -1}).contiguous()), m_noiseStd(noiseStd), m_sgd(sgd),
      m_stream(seed), m_overlap(overlap)
{
    TORCH_CHECK(m_calibration.is_cpu() && m_calibration.scalar_type() == at::kFloat && m_calibration.size(0) > 0,
                "distillation: D' must be float inputs on the CPU");
    TORCH_CHECK(m_calibration.size(1) == teacher.inputs && m_calibration.size(1) == student.inputs,
                "distillation: D' has ", m_calibration.size(1), " inputs per row, the networks ", teacher.inputs);
    m_snapshot->eval();
    m_flat = std::make_unique<FlatParameters>(student);
    m_velocity = torch::zeros_like(m_flat->tensor().detach());
    if (m_overlap)
        m_worker = std::thread([this] { work(); });
}

MlpStudentSteps::~MlpStudentSteps()
{
    if (m_worker.joinable()) {
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_stop = true;
        }
        m_changed.notify_all();
        m_worker.join();
    }
}

void MlpStudentSteps::work()
{
    // This thread's share of the cores is one: its products are the student's.
    ScopedIntraOpThreads oneThread(1);
    std::unique_lock<std::mutex> lock(m_mutex);
    for (;;) {
        m_changed.wait(lock, [this] { return m_pending || m_stop; });
        if (m_stop)
            return;
        m_pending = false;
        m_running = true;
        const int64_t rows = m_rows;
        const double rate = m_learningRate;
        lock.unlock();
        double loss = std::numeric_limits<double>::quiet_NaN();
        std::exception_ptr failure;
        try {
            loss = stepNow(rows, rate);
        } catch (...) {
            failure = std::current_exception();
        }
        lock.lock();
        m_running = false;
        m_lastLoss = loss;
        m_haveLoss = true;
        if (failure && !m_failure)
            m_failure = failure;
        m_changed.notify_all();
    }
}

void MlpStudentSteps::rethrowFailure()
{
    if (m_failure) {
        auto failure = m_failure;
        m_failure = nullptr;
        std::rethrow_exception(failure);
    }
}

double MlpStudentSteps::drain()
{
    if (!m_overlap)
        return std::numeric_limits<double>::quiet_NaN();
    std::unique_lock<std::mutex> lock(m_mutex);
    m_changed.wait(lock, [this] { return !m_pending && !m_running; });
    rethrowFailure();
    const double loss = m_haveLoss ? m_lastLoss : std::numeric_limits<double>::quiet_NaN();
    m_haveLoss = false;
    return loss;
}

double MlpStudentSteps::submit(int64_t rows, double learningRate)
{
    const double previous = drain();
    snapshotTeacher();
    if (!m_overlap)
        return stepNow(rows, learningRate);
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_rows = rows;
        m_learningRate = learningRate;
        m_pending = true;
    }
    m_changed.notify_all();
    return previous;
}

void MlpStudentSteps::snapshotTeacher()
{
    torch::NoGradGuard noGrad;
    const auto from = m_teacher.linearLayers();
    const auto to = m_snapshot->linearLayers();
    for (size_t i = 0; i < from.size(); ++i) {
        to[i]->weight.copy_(from[i]->weight);
        to[i]->bias.copy_(from[i]->bias);
    }
}

double MlpStudentSteps::stepNow(int64_t rows, double learningRate)
{
    return stepOn(drawInputs(rows), learningRate);
}

at::Tensor MlpStudentSteps::drawInputs(int64_t rows)
{
    const int64_t width = m_calibration.size(1), n = m_calibration.size(0);
    // x'_b = a uniformly drawn row of D' + noise, the noise drawn straight into place.
    auto x = at::empty({rows, width}, at::kFloat);
    float* xp = x.data_ptr<float>();
    const float* source = m_calibration.data_ptr<float>();
    if (m_noiseStd > 0)
        m_stream.fill(xp, rows * width, 0.0f, static_cast<float>(m_noiseStd));
    else
        std::memset(xp, 0, sizeof(float) * static_cast<size_t>(rows * width));
    for (int64_t r = 0; r < rows; ++r) {
        const float* row = source + m_stream.below(n) * width;
        float* out = xp + r * width;
        for (int64_t d = 0; d < width; ++d)
            out[d] += row[d];
    }
    return x;
}

double MlpStudentSteps::stepOn(const at::Tensor& x, double learningRate)
{
    torch::NoGradGuard noGrad;
    const int64_t rows = x.size(0);
    const auto target = torch::softmax(traceMlp(*m_snapshot, x).logits, 1);
    const auto trace = traceMlp(m_student, x);
    const auto logProbs = torch::log_softmax(trace.logits, 1);
    const double loss = -(target * logProbs).sum(1).mean().item<double>();
    const auto dLogits = logProbs.exp().sub_(target).div_(static_cast<double>(rows));
    setMlpGradients(m_student, trace, backpropagateMlp(m_student, trace, dLogits));
    // SGD with momentum and weight decay over the flat buffer in one pass.
    auto& flat = m_flat->tensor();
    float* p = flat.data_ptr<float>();
    const float* g = flat.grad().data_ptr<float>();
    float* v = m_velocity.data_ptr<float>();
    const auto m = static_cast<float>(m_sgd.momentum), decay = static_cast<float>(m_sgd.weightDecay),
               lr = static_cast<float>(learningRate);
    for (int64_t i = 0, size = flat.numel(); i < size; ++i) {
        v[i] = m * v[i] + g[i] + decay * p[i];
        p[i] -= lr * v[i];
    }
    return loss;
}

} // namespace lcs
