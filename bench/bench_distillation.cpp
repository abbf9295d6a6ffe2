// The image experiments' hot loops, timed (Release build; figures, never a test):
//  1. one epoch of online distillation on Fashion-MNIST with 50% label corruption,
//     MLP 784-200-10, batch 64: per minibatch one SGLD teacher step on D and one student
//     step on a perturbed batch of D' (the authors' Python takes about 32 s here);
//  2. decisions per second: q (one forward pass) against a 30-sample ensemble.
// Usage: lcs_bench_distillation [DATA=fashion-mnist] [threads=1] [epochs=1]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <ATen/Parallel.h>
#include <torch/torch.h>

#include "calibration/image_training.h"
#include "core/threads.h"
#include "decision/decisions.h"
#include "image_data.h"

namespace {
double secondsSince(std::chrono::steady_clock::time_point t)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}
} // namespace

int main(int argc, char** argv)
{
    const std::string spec = argc > 1 ? argv[1] : "fashion-mnist";
    const int threads = argc > 2 ? std::atoi(argv[2]) : 1;
    const int epochs = argc > 3 ? std::atoi(argv[3]) : 1;
    lcs::configureThreads(threads);
    try {
        auto t0 = std::chrono::steady_clock::now();
        const auto data = lcs::loadImageDataset(spec);
        std::printf("%s: %lld training images loaded in %.2f s; %d intra-op thread(s)\n", data.name.c_str(),
                    static_cast<long long>(data.train.size()), secondsSince(t0), threads);
        auto generator = lcs::makeGenerator(1);
        lcs::TrainingSet train{data.train.images, lcs::corruptLabels(data.train.labels, 0.5, 10, generator)};
        lcs::ModelSpec model;
        model.inputShape = data.inputShape;
        model.classes = data.classes();
        model.hidden = {200};
        auto init = model.build(generator);
        lcs::SgldDistillationConfig config;
        config.epochs = epochs;
        config.learningRate = 2e-3;
        config.burnInSteps = 1LL << 40;  // time the steps, not the test-set predictions
        config.student = {0, 64, 0.05, lcs::LrSchedule::OneCycle, 0.9, 1e-4, {}};
        const auto perturb = [](const at::Tensor& x, at::Generator& g) { return lcs::withGaussianNoise(x, 0.05, g); };
        const auto result = lcs::runSgldDistillation(model, *init, train, train.x, perturb, data.test.images.slice(0, 0, 10),
                                                     config, generator, {});
        std::printf("distillation: %.2f s per epoch (%lld teacher + student steps of batch 64); target <= 4 s\n",
                    result.secondsPerEpoch, static_cast<long long>((train.x.size(0) + 63) / 64));

        // Decisions per second on the test set: q against a 30-member ensemble.
        torch::NoGradGuard noGrad;
        const auto L = lcs::costTensor(lcs::costPreset("mnist"));
        const auto& x = data.test.images;
        std::vector<lcs::Classifier> ensemble;
        for (int k = 0; k < 30; ++k)
            ensemble.push_back(model.build(generator));
        auto q = ensemble.front();
        for (auto& m : ensemble)
            m->eval();
        int64_t decided = 0;
        t0 = std::chrono::steady_clock::now();
        for (int rep = 0; rep < 5; ++rep)
            decided += lcs::bayesDecisions(lcs::predictClassProbabilities(*q, x), L).size(0);
        const double qRate = static_cast<double>(decided) / secondsSince(t0);
        decided = 0;
        t0 = std::chrono::steady_clock::now();
        for (int rep = 0; rep < 2; ++rep) {
            lcs::PredictiveAverage average;
            for (auto& m : ensemble)
                average.add(lcs::predictClassProbabilities(*m, x));
            decided += lcs::bayesDecisions(average.mean(), L).size(0);
        }
        const double ensembleRate = static_cast<double>(decided) / secondsSince(t0);
        std::printf("decisions per second: q %.0f, 30-sample ensemble %.0f (%.1fx)\n", qRate, ensembleRate,
                    qRate / ensembleRate);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "lcs_bench_distillation: %s\n", e.what());
        return 2;
    }
    return 0;
}
