#include "engine/inference/sghmc.h"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <type_traits>
#include <utility>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <c10/util/string_utils.h>
#include <torch/autograd.h>

#include "engine/core/normal_stream.h"
#include "engine/models/mlp.h"

namespace lcs {
namespace {

#if defined(__x86_64__) && defined(__GNUC__)
/// fusedStep's float update with given noise, 16 elements at a time: the scalar loops'
/// operations in their order, without fused multiply-adds, so the same numbers in one
/// pass (the distillation's teacher update, a tenth of its core's time before).
__attribute__((target("avx512f"))) void givenNoiseStepAvx512(float* theta, float* v, const float* g,
                                                             const float* given, int64_t n, float m, float lr,
                                                             float decay, float noiseStd)
{
    const __m512 zero = _mm512_setzero_ps(), momentum = _mm512_set1_ps(m), rate = _mm512_set1_ps(lr),
                 negativeRate = _mm512_set1_ps(-lr), prior = _mm512_set1_ps(decay), scale = _mm512_set1_ps(noiseStd);
    for (int64_t i = 0; i < n; i += 16) {
        const auto mask = static_cast<__mmask16>(n - i >= 16 ? 0xFFFF : (1u << (n - i)) - 1);
        const __m512 th = _mm512_maskz_loadu_ps(mask, theta + i);
        const __m512 eps = _mm512_add_ps(zero, _mm512_mul_ps(scale, _mm512_maskz_loadu_ps(mask, given + i)));
        const __m512 pull = _mm512_add_ps(_mm512_maskz_loadu_ps(mask, g + i), _mm512_mul_ps(prior, th));
        if (m == 0.0f) {
            const __m512 move = _mm512_add_ps(_mm512_mul_ps(negativeRate, pull), eps);
            _mm512_mask_storeu_ps(theta + i, mask, _mm512_add_ps(th, move));
        } else {
            const __m512 ve = _mm512_add_ps(
                _mm512_sub_ps(_mm512_mul_ps(momentum, _mm512_maskz_loadu_ps(mask, v + i)), _mm512_mul_ps(rate, pull)),
                eps);
            _mm512_mask_storeu_ps(v + i, mask, ve);
            _mm512_mask_storeu_ps(theta + i, mask, _mm512_add_ps(th, ve));
        }
    }
}
#endif

/// The whole update of one CPU tensor in one pass over memory, noise drawn in blocks:
///   v <- m v - lr (g + decay theta) + noiseStd * eps;  theta <- theta + v
/// (with m = 0, v itself is left as it was).
/// LibTorch's four element-wise ops and normal_ made the update, not the gradient, the
/// larger part of an SGLD step on the Fashion-MNIST MLP. With `given` (n standard
/// normals) eps is noiseStd * given, the value fill(eps, 0, noiseStd) would have written.
template <typename T>
void fusedStep(T* theta, T* v, const T* g, int64_t n, T m, T lr, T decay, T noiseStd, NormalStream* noise,
               const float* given = nullptr)
{
#if defined(__x86_64__) && defined(__GNUC__)
    if constexpr (std::is_same_v<T, float>) {
        static const bool avx512 = __builtin_cpu_supports("avx512f");
        if (given && noiseStd > 0 && avx512) {
            givenNoiseStepAvx512(theta, v, g, given, n, m, lr, decay, noiseStd);
            return;
        }
    }
#endif
    constexpr int64_t kBlock = 4096;
    T eps[kBlock];
    for (int64_t start = 0; start < n; start += kBlock) {
        const int64_t len = std::min(kBlock, n - start);
        if (given && noiseStd > 0)
            for (int64_t i = 0; i < len; ++i)
                eps[i] = T(0) + noiseStd * static_cast<T>(given[start + i]);
        else if (noise)
            noise->fill(eps, len, T(0), noiseStd);
        else
            std::fill(eps, eps + len, T(0));
        T* th = theta + start;
        T* ve = v + start;
        const T* gr = g + start;
        if (m == T(0)) {
            // SGLD: the velocity is never read again, so it is neither read nor kept (a
            // third of the pass's memory traffic); theta moves by what v would have been.
            for (int64_t i = 0; i < len; ++i)
                th[i] += -lr * (gr[i] + decay * th[i]) + eps[i];
            continue;
        }
        for (int64_t i = 0; i < len; ++i) {
            ve[i] = m * ve[i] - lr * (gr[i] + decay * th[i]) + eps[i];
            th[i] += ve[i];
        }
    }
}

bool fusable(const torch::Tensor& p)
{
    const auto& g = p.grad();
    return p.is_cpu() && p.is_contiguous() && g.is_contiguous() && g.scalar_type() == p.scalar_type() &&
           (p.scalar_type() == at::kFloat || p.scalar_type() == at::kDouble);
}

} // namespace

Sghmc::Sghmc(std::vector<torch::Tensor> params, SghmcOptions options, std::optional<at::Generator> generator)
    : torch::optim::Optimizer({torch::optim::OptimizerParamGroup(std::move(params))},
                              std::make_unique<SghmcOptions>(options)),
      m_generator(std::move(generator))
{
    TORCH_CHECK(options.lr() > 0, "Sghmc: learning rate must be positive, got ", options.lr());
    TORCH_CHECK(options.momentum() >= 0 && options.momentum() < 1, "Sghmc: momentum must be in [0, 1), got ",
                options.momentum());
    TORCH_CHECK(options.prior_precision() >= 0, "Sghmc: prior precision must be >= 0, got ",
                options.prior_precision());
    TORCH_CHECK(options.num_data() >= 1, "Sghmc: num_data must be >= 1, got ", options.num_data());
    TORCH_CHECK(options.temperature() >= 0, "Sghmc: temperature must be >= 0, got ", options.temperature());
}

Sghmc::~Sghmc() = default;

void Sghmc::useStandardNoise(const float* standardNormals, int64_t count)
{
    TORCH_CHECK(standardNormals && count >= 0, "Sghmc: noise buffer");
    m_givenNoise = standardNormals;
    m_givenNoiseCount = count;
}

torch::Tensor Sghmc::step(LossClosure closure)
{
    torch::NoGradGuard noGrad;
    // Given noise serves this step only, whatever happens in it.
    const float* given = std::exchange(m_givenNoise, nullptr);
    const int64_t givenCount = std::exchange(m_givenNoiseCount, 0);
    int64_t givenUsed = 0;
    torch::Tensor loss;
    if (closure) {
        at::AutoGradMode enableGrad(true);
        loss = closure();
    }
    for (auto& group : param_groups_) {
        const auto& o = static_cast<const SghmcOptions&>(group.options());
        const double lr = o.lr();
        const double m = o.momentum();
        const double n = o.num_data();
        const double decay = o.prior_precision() / n;
        const double noiseStd = std::sqrt(2.0 * (1.0 - m) * lr * o.temperature() / n);
        for (auto& p : group.params()) {
            if (!p.grad().defined()) {
                givenUsed += p.numel();  // its slice of the given noise goes unused
                continue;
            }
            auto key = c10::guts::to_string(p.unsafeGetTensorImpl());
            auto it = state_.find(key);
            if (it == state_.end()) {
                auto s = std::make_unique<SghmcParamState>();
                s->velocity(torch::zeros_like(p));
                it = state_.emplace(key, std::move(s)).first;
            }
            auto& v = static_cast<SghmcParamState&>(*it->second).velocity();
            if (fusable(p)) {
                if (noiseStd > 0 && !m_noise && !given) {
                    // One stream per sampler, seeded from the job's generator.
                    auto generator = m_generator ? *m_generator : at::detail::getDefaultCPUGenerator();
                    m_noise = std::make_unique<NormalStream>(drawSeed(generator));
                }
                NormalStream* noise = noiseStd > 0 ? m_noise.get() : nullptr;
                if (given) {
                    TORCH_CHECK(p.scalar_type() == at::kFloat && givenUsed + p.numel() <= givenCount,
                                "Sghmc: the given noise holds ", givenCount, " float values, fewer than the parameters");
                    fusedStep<float>(p.data_ptr<float>(), v.data_ptr<float>(), p.grad().data_ptr<float>(), p.numel(),
                                     static_cast<float>(m), static_cast<float>(lr), static_cast<float>(decay),
                                     static_cast<float>(noiseStd), noise, given + givenUsed);
                    givenUsed += p.numel();
                } else if (p.scalar_type() == at::kFloat)
                    fusedStep<float>(p.data_ptr<float>(), v.data_ptr<float>(), p.grad().data_ptr<float>(), p.numel(),
                                     static_cast<float>(m), static_cast<float>(lr), static_cast<float>(decay),
                                     static_cast<float>(noiseStd), noise);
                else
                    fusedStep<double>(p.data_ptr<double>(), v.data_ptr<double>(), p.grad().data_ptr<double>(),
                                      p.numel(), m, lr, decay, noiseStd, noise);
                continue;
            }
            TORCH_CHECK(!given, "Sghmc: given noise needs float parameters on the CPU");
            v.mul_(m).add_(p.grad(), -lr).add_(p, -lr * decay);
            if (noiseStd > 0) {
                auto noise = at::empty_like(p);
                if (p.is_cpu() && m_generator)
                    noise.normal_(0.0, noiseStd, *m_generator);
                else
                    noise.normal_(0.0, noiseStd);
                v.add_(noise);
            }
            p.add_(v);
        }
    }
    TORCH_CHECK(!given || givenUsed == givenCount, "Sghmc: the given noise holds ", givenCount,
                " values for ", givenUsed, " parameter elements");
    return loss;
}

} // namespace lcs
