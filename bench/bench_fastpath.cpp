// Does the synthetic experiment's fast path (hand-written backward passes, engine/fastpath)
// pay? Times the correction's training on the paper's 2-50-2 network and 500 calibration
// points both ways through the one correction loop (runCorrection), one thread:
// trainCorrection (the fast path's hand-written gradient) and trainImageCorrection
// (autograd on the same objective, the same network as a FlatMlp, the same Adam
// schedule). Prints steps per second and their ratio; the fast path is kept only while
// the ratio is well above 1.
// Usage: lcs_bench_fastpath [steps=2000] [hidden=50] [points=500]
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include <torch/torch.h>

#include "base/decision/cost_matrix.h"
#include "engine/calibration/correction.h"
#include "engine/calibration/image_training.h"
#include "engine/core/threads.h"
#include "engine/decision/decisions.h"
#include "engine/models/mlp.h"

namespace {

double secondsSince(std::chrono::steady_clock::time_point t)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

} // namespace

int main(int argc, char** argv)
{
    const int steps = argc > 1 ? std::max(10, std::atoi(argv[1])) : 2000;
    const int64_t hidden = argc > 2 ? std::max(1, std::atoi(argv[2])) : 50;
    const int64_t points = argc > 3 ? std::max(10, std::atoi(argv[3])) : 500;
    lcs::configureThreads(1);
    torch::manual_seed(0);
    const auto x = torch::randn({points, 2});
    const auto p = torch::softmax(torch::randn({points, 2}) * 2.0, 1);
    const auto costs = lcs::costPreset("synthetic");
    const auto L = lcs::costTensor(costs);
    lcs::Mlp initial(2, std::vector<int64_t>{hidden}, 2);

    // The fast path, as the experiment runs it (no warm start, so only the steps count).
    lcs::CorrectionConfig config;
    config.epochs = steps;
    config.warmStartSteps = 0;
    auto gen = at::make_generator<at::CPUGeneratorImpl>(1);
    auto start = std::chrono::steady_clock::now();
    lcs::trainCorrection(x, p, costs, config, gen, {}, {}, &initial);
    const double fast = steps / secondsSince(start);

    // The same loop (runCorrection) with autograd: the same network as a FlatMlp, the
    // same configuration, the stored p.
    lcs::ModelSpec spec;
    spec.architecture = "mlp";
    spec.inputShape = {2};
    spec.hidden = {hidden};
    spec.classes = 2;
    auto specGen = at::make_generator<at::CPUGeneratorImpl>(2);
    auto flat = spec.build(specGen);
    {
        torch::NoGradGuard noGrad;
        auto src = initial->parameters();
        auto dst = flat->parameters();
        for (size_t i = 0; i < src.size(); ++i)
            dst[i].copy_(src[i]);
    }
    gen = at::make_generator<at::CPUGeneratorImpl>(1);
    start = std::chrono::steady_clock::now();
    lcs::trainImageCorrection(spec, *flat, x, {nullptr, p}, costs, config, gen, {});
    const double autograd = steps / secondsSince(start);

    std::printf("correction step, %lld-%lld-2 MLP, %lld points, 1 thread, %d steps\n", 2LL,
                static_cast<long long>(hidden), static_cast<long long>(points), steps);
    std::printf("  fast path (trainCorrection):   %9.0f steps/s\n", fast);
    std::printf("  autograd (trainImageCorrection): %7.0f steps/s\n", autograd);
    std::printf("  fast path / autograd: %.2fx\n", fast / autograd);
    return 0;
}
