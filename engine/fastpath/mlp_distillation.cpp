#include "engine/fastpath/mlp_distillation.h"

#include <cstring>
#include <limits>
#include <utility>
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include <torch/torch.h>

#include "engine/core/rows.h"
#include "engine/core/threads.h"
#include "engine/fastpath/mlp_backward.h"

namespace lcs {
namespace {

#if defined(__x86_64__) && defined(__GNUC__)
/// sgdStep 16 elements at a time: the scalar loop's operations in its order, without
/// fused multiply-adds, so the same numbers.
__attribute__((target("avx512f"))) void sgdStepAvx512(float* p, float* v, const float* g, int64_t n, float m,
                                                      float decay, float lr)
{
    const __m512 momentum = _mm512_set1_ps(m), prior = _mm512_set1_ps(decay), rate = _mm512_set1_ps(lr);
    for (int64_t i = 0; i < n; i += 16) {
        const auto mask = static_cast<__mmask16>(n - i >= 16 ? 0xFFFF : (1u << (n - i)) - 1);
        const __m512 value = _mm512_maskz_loadu_ps(mask, p + i);
        const __m512 velocity = _mm512_add_ps(
            _mm512_add_ps(_mm512_mul_ps(momentum, _mm512_maskz_loadu_ps(mask, v + i)), _mm512_maskz_loadu_ps(mask, g + i)),
            _mm512_mul_ps(prior, value));
        _mm512_mask_storeu_ps(v + i, mask, velocity);
        _mm512_mask_storeu_ps(p + i, mask, _mm512_sub_ps(value, _mm512_mul_ps(rate, velocity)));
    }
}
#endif

/// torch::optim::SGD's step with momentum m and weight decay over n values:
/// v <- m v + g + decay p;  p <- p - lr v.
void sgdStep(float* p, float* v, const float* g, int64_t n, float m, float decay, float lr)
{
#if defined(__x86_64__) && defined(__GNUC__)
    static const bool avx512 = __builtin_cpu_supports("avx512f");
    if (avx512) {
        sgdStepAvx512(p, v, g, n, m, decay, lr);
        return;
    }
#endif
    for (int64_t i = 0; i < n; ++i) {
        v[i] = m * v[i] + g[i] + decay * p[i];
        p[i] -= lr * v[i];
    }
}

} // namespace

MlpStudentSteps::MlpStudentSteps(MlpImpl& teacher, MlpImpl& student, const at::Tensor& calibration, double noiseStd,
                                 StudentSgd sgd, int64_t batchRows, uint64_t seed, bool overlap, bool teacherNoise)
    : m_teacher(teacher), m_student(student),
      m_calibration(calibration.reshape({calibration.size(0), -1}).contiguous()), m_noiseStd(noiseStd), m_sgd(sgd),
      m_batchRows(batchRows), m_stream(seed), m_noiseStream(seed ^ 0x6a09e667f3bcc909ULL), m_overlap(overlap)
{
    TORCH_CHECK(m_calibration.is_cpu() && m_calibration.scalar_type() == at::kFloat && m_calibration.size(0) > 0,
                "distillation: D' must be float inputs on the CPU");
    TORCH_CHECK(m_calibration.size(1) == teacher.inputs && m_calibration.size(1) == student.inputs,
                "distillation: D' has ", m_calibration.size(1), " inputs per row, the networks ", teacher.inputs);
    TORCH_CHECK(batchRows > 0, "distillation: a step takes at least one row");
    m_flat = std::make_unique<FlatParameters>(student);
    m_velocity = torch::zeros_like(m_flat->tensor().detach());
    for (auto& inputs : m_inputs)
        inputs = at::empty({batchRows, m_calibration.size(1)}, at::kFloat);
    for (long long step : {1, 2})
        drawRows(inputsOf(step), batchRows, m_noiseStream);
    if (teacherNoise) {
        int64_t count = 0;
        for (const auto& p : teacher.parameters())
            count += p.numel();
        for (long long step : {1, 2}) {
            noiseOf(step).resize(static_cast<size_t>(count));
            m_noiseStream.fill(noiseOf(step).data(), count);
        }
        noiseOf(3).resize(static_cast<size_t>(count));
    }
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
    // This thread's share of the cores is one.
    ScopedIntraOpThreads oneThread(1);
    std::unique_lock<std::mutex> lock(m_mutex);
    for (;;) {
        m_changed.wait(lock, [this] { return !m_queue.empty() || m_stop; });
        if (m_stop)
            return;
        const Job job = std::move(m_queue.front());
        m_queue.pop_front();
        lock.unlock();
        double loss = std::numeric_limits<double>::quiet_NaN();
        std::exception_ptr failure;
        try {
            loss = run(job);
        } catch (...) {
            failure = std::current_exception();
        }
        lock.lock();
        m_finished = job.step;  // failed or not: nobody waits on it forever
        m_losses.emplace_back(job.step, loss);
        if (failure && !m_failure)
            m_failure = failure;
        m_changed.notify_all();
    }
}

void MlpStudentSteps::awaitFinished(std::unique_lock<std::mutex>& lock, long long step)
{
    m_changed.wait(lock, [&] { return m_finished >= step || m_failure; });
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
    awaitFinished(lock, m_submitted);
    const double loss = m_losses.empty() ? std::numeric_limits<double>::quiet_NaN() : m_losses.back().second;
    m_losses.clear();
    return loss;
}

const float* MlpStudentSteps::teacherNoiseFor(long long step, int64_t count)
{
    if (noiseOf(step).empty())
        return nullptr;
    TORCH_CHECK(step == m_submitted + 1, "distillation: noise asked for sampler step ", step, " after ", m_submitted,
                " submissions");
    TORCH_CHECK(count == static_cast<int64_t>(noiseOf(step).size()), "distillation: the sampler has ", count,
                " parameters, the teacher ", noiseOf(step).size());
    if (m_overlap) {
        // Step s+1's noise is drawn by student step s-1, which may still be running.
        std::unique_lock<std::mutex> lock(m_mutex);
        awaitFinished(lock, step - 2);
    }
    return noiseOf(step).data();
}

double MlpStudentSteps::submit(int64_t rows, double learningRate)
{
    TORCH_CHECK(rows > 0 && rows <= m_batchRows, "distillation: ", rows, " rows in a step of at most ", m_batchRows);
    Job job;
    job.step = m_submitted + 1;
    job.rows = rows;
    job.learningRate = learningRate;
    double previous = std::numeric_limits<double>::quiet_NaN();
    if (m_overlap) {
        // Step s's inputs are drawn by student step s-2; step s-1 may still be running.
        std::unique_lock<std::mutex> lock(m_mutex);
        awaitFinished(lock, job.step - 2);
        // Exactly step s-2's loss, whatever the timing: every run counts the same steps.
        while (!m_losses.empty() && m_losses.front().first <= job.step - 2) {
            if (m_losses.front().first == job.step - 2)
                previous = m_losses.front().second;
            m_losses.pop_front();
        }
    }
    {
        // The targets here, from the teacher as it is now; the student's core draws the
        // sampler's noise and the inputs instead.
        torch::NoGradGuard noGrad;
        job.targets = rowSoftmax(traceMlp(m_teacher, inputsOf(job.step).narrow(0, 0, rows)).logits);
    }
    ++m_submitted;
    if (!m_overlap)
        return run(job);
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_queue.push_back(std::move(job));
    }
    m_changed.notify_all();
    return previous;
}

double MlpStudentSteps::run(const Job& job)
{
    const double loss = stepOn(inputsOf(job.step).narrow(0, 0, job.rows), job.targets, job.learningRate);
    auto& noise = noiseOf(job.step + 2);
    if (!noise.empty())
        m_noiseStream.fill(noise.data(), static_cast<int64_t>(noise.size()));
    drawRows(inputsOf(job.step + 2), m_batchRows, m_noiseStream);
    if (m_overlap && m_training.defined())
        gatherFor(job.step + 3);
    return loss;
}

void MlpStudentSteps::gatherAhead(const at::Tensor& trainingInputs)
{
    if (!m_overlap || !trainingInputs.defined() || !trainingInputs.is_cpu() || !trainingInputs.is_contiguous() ||
        trainingInputs.dim() < 1)
        return;
    std::lock_guard<std::mutex> lock(m_mutex);  // the student's thread reads m_training
    m_training = trainingInputs;
    auto shape = trainingInputs.sizes().vec();
    shape[0] = m_batchRows;
    for (auto& buffer : m_minibatches)
        buffer = at::empty(shape, trainingInputs.options());
}

void MlpStudentSteps::announceBatches(long long firstStep, const std::vector<at::Tensor>& batches)
{
    if (!m_overlap)
        return;
    std::lock_guard<std::mutex> lock(m_mutex);
    if (!m_training.defined())
        return;
    for (size_t i = 0; i < batches.size(); ++i)
        if (batches[i].defined() && batches[i].size(0) <= m_batchRows)
            m_announced[firstStep + static_cast<long long>(i)] = batches[i];
}

void MlpStudentSteps::gatherFor(long long step)
{
    at::Tensor index;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        const auto it = m_announced.find(step);
        if (it == m_announced.end())
            return;  // not announced yet: the next epoch's first steps, gathered by the chain
        index = it->second;
        m_announced.erase(m_announced.begin(), std::next(it));  // steps before are past
    }
    const auto slot = static_cast<size_t>(step % 4);
    gatherRowsInto(m_minibatches[slot], m_training, index);
    std::lock_guard<std::mutex> lock(m_mutex);
    m_minibatchStep[slot] = step;
    m_minibatchIndex[slot] = index;
}

at::Tensor MlpStudentSteps::minibatchRows(long long step, const at::Tensor& index)
{
    if (!m_overlap)
        return {};
    // Student step step-3 gathered these; submission step-1 waited for it to finish.
    std::lock_guard<std::mutex> lock(m_mutex);
    const auto slot = static_cast<size_t>(step % 4);
    if (m_minibatchStep[slot] != step || !m_minibatchIndex[slot].is_same(index))
        return {};
    return m_minibatches[slot].narrow(0, 0, index.size(0));
}

void MlpStudentSteps::drawInputs(at::Tensor& out, int64_t rows)
{
    drawRows(out, rows, m_stream);
}

void MlpStudentSteps::drawRows(at::Tensor& out, int64_t rows, NormalStream& stream)
{
    const int64_t width = m_calibration.size(1), n = m_calibration.size(0);
    TORCH_CHECK(out.is_contiguous() && out.size(0) >= rows && rows >= 0 && out.size(1) == width,
                "distillation: input buffer");
    // x'_b = a uniformly drawn row of D' + noise, the noise drawn straight into place.
    float* xp = out.data_ptr<float>();
    const float* source = m_calibration.data_ptr<float>();
    // The rows first, asked of memory while the noise is drawn: D' is far larger than
    // the caches, and waiting for each row in turn took as long as drawing the noise.
    thread_local std::vector<const float*> drawn;  // kept: no allocation per step
    drawn.resize(static_cast<size_t>(rows));
    for (auto& row : drawn) {
        row = source + stream.below(n) * width;
        for (int64_t d = 0; d < width; d += 16)
            __builtin_prefetch(row + d);
        __builtin_prefetch(row + width - 1);  // a row need not start on a cache line
    }
    if (m_noiseStd > 0)
        stream.fill(xp, rows * width, 0.0f, static_cast<float>(m_noiseStd));
    else
        std::memset(xp, 0, sizeof(float) * static_cast<size_t>(rows * width));
    for (int64_t r = 0; r < rows; ++r) {
        const float* row = drawn[static_cast<size_t>(r)];
        float* dst = xp + r * width;
        for (int64_t d = 0; d < width; ++d)
            dst[d] += row[d];
    }
}

double MlpStudentSteps::stepOn(const at::Tensor& x, const at::Tensor& target, double learningRate)
{
    torch::NoGradGuard noGrad;
    const auto trace = traceMlp(m_student, x);
    const auto [loss, dLogits] = softCrossEntropyWithGradient(trace.logits, target);
    setMlpGradients(m_student, trace, backpropagateMlp(m_student, trace, dLogits));
    // SGD with momentum and weight decay over the flat buffer in one pass.
    auto& flat = m_flat->tensor();
    sgdStep(flat.data_ptr<float>(), m_velocity.data_ptr<float>(), flat.grad().data_ptr<float>(), flat.numel(),
            static_cast<float>(m_sgd.momentum), static_cast<float>(m_sgd.weightDecay),
            static_cast<float>(learningRate));
    return loss;
}

} // namespace lcs
