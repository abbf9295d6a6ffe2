#include "inference/sghmc.h"

#include <cmath>

#include <ATen/ATen.h>
#include <c10/util/string_utils.h>
#include <torch/autograd.h>

namespace lcs {

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

torch::Tensor Sghmc::step(LossClosure closure)
{
    torch::NoGradGuard noGrad;
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
            if (!p.grad().defined())
                continue;
            auto key = c10::guts::to_string(p.unsafeGetTensorImpl());
            auto it = state_.find(key);
            if (it == state_.end()) {
                auto s = std::make_unique<SghmcParamState>();
                s->velocity(torch::zeros_like(p));
                it = state_.emplace(key, std::move(s)).first;
            }
            auto& v = static_cast<SghmcParamState&>(*it->second).velocity();
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
    return loss;
}

} // namespace lcs
