// lcstudio-cli bench: figures measured against the machine itself (never a test).
#include <dlfcn.h>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <string>
#include <cstdio>
#include <thread>
#include <vector>

#include <torch/torch.h>

#include "calibration/image_training.h"
#include "cli_commands.h"
#include "cli_flags.h"
#include "cli_support.h"
#include "core/threads.h"
#include "decision/decisions.h"
#include "image_data.h"

namespace cli {
namespace {

const char* kBenchHelp = R"(lcstudio-cli bench distill - online distillation at the machine's limit

Usage: lcstudio-cli bench distill [--data D] [--epochs N] [--threads T]
Times the authors' configuration (label corruption 0.5, MLP 784-200-10, batch 64: per
minibatch one SGLD teacher step on D and one student step on a noisy batch of D') and
measures, in the same run, the single-precision matrix-product (sgemm) peak of every
core at once. Prints seconds per epoch, GFLOP per epoch (counted from the layer sizes:
forward, weight gradients and the input gradients backpropagation needs), the peak and
the peak resident memory, and ends with
  limit_ratio=<epoch seconds / (GFLOP per epoch / peak GFLOP/s)> peak_rss_mb=<M>
(1 = the epoch runs at the machine's sgemm peak on all cores).
  --data D     image data: a folder or mnist, fashion-mnist (default), cifar10
  --epochs N   epochs timed (default 1)
  --threads T  intra-op threads (default: the physical cores)
  -h, --help   this text
)";

double secondsSince(std::chrono::steady_clock::time_point t)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

/// GFLOP/s of n x n sgemm products running on `cores` threads at once, each on one
/// core's worth of BLAS (OpenBLAS single-threaded), for about `seconds`.
double sgemmRate(int cores, int64_t n, double seconds)
{
    std::atomic<int64_t> products{0};
    std::vector<std::thread> threads;
    const auto start = std::chrono::steady_clock::now();
    for (int c = 0; c < cores; ++c)
        threads.emplace_back([&] {
            lcs::ScopedIntraOpThreads oneCore(1);
            torch::NoGradGuard noGrad;
            const auto a = torch::rand({n, n}), b = torch::rand({n, n});
            auto out = torch::empty({n, n});
            at::mm_out(out, a, b);  // warm: pages, caches
            int64_t done = 0;
            while (secondsSince(start) < seconds) {
                at::mm_out(out, a, b);
                ++done;
            }
            products += done;
        });
    for (auto& t : threads)
        t.join();
    return static_cast<double>(products.load()) * 2.0 * n * n * n / secondsSince(start) / 1e9;
}

/// The peak: the best of a few sizes on one core, then that size on every core at once.
std::pair<double, double> sgemmPeak(int cores)
{
    int64_t best = 256;
    double bestRate = 0;
    for (int64_t n : {256, 512, 1024, 2048}) {
        const double rate = sgemmRate(1, n, 0.4);
        if (rate > bestRate) {
            bestRate = rate;
            best = n;
        }
    }
    return {sgemmRate(cores, best, 1.0), bestRate};
}

/// FLOP of one distillation step per input row, from the layer sizes: a teacher SGLD
/// step (forward, weight gradients, input gradients of every layer but the first) and a
/// student step (the teacher's forward on D' for the targets, then the student's
/// forward and backward as the teacher's).
double flopPerRow(const std::vector<int64_t>& layers)
{
    double forward = 0, inputGradients = 0;
    for (size_t l = 0; l + 1 < layers.size(); ++l) {
        const double product = 2.0 * static_cast<double>(layers[l]) * static_cast<double>(layers[l + 1]);
        forward += product;
        if (l > 0)
            inputGradients += product;
    }
    const double trainingStep = 2 * forward + inputGradients;
    return trainingStep + forward + trainingStep;
}

double peakRssMegabytes()
{
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<double>(usage.ru_maxrss) / 1024.0;  // kB on Linux
}

/// Which kernels OpenBLAS picked. Debian 12's OpenBLAS (0.3.21) does not know every newer
/// CPU and falls back to its generic Prescott (SSE3) kernels on, for one, Sapphire
/// Rapids: a quarter of the sgemm rate the CPU's AVX-512 gives. The peak measured above
/// is the one every product of this process gets, so the ratio stays honest; the note
/// says how to get the faster kernels.
void printBlasKernels()
{
    using CoreName = char* (*)();
    auto* coreName = reinterpret_cast<CoreName>(::dlsym(RTLD_DEFAULT, "openblas_get_corename"));
    if (!coreName)
        return;
    const std::string core = coreName();
    std::printf("BLAS: OpenBLAS, %s kernels\n", core.c_str());
    const bool generic = core == "Prescott" || core == "Core2" || core == "Nehalem" || core == "Penryn";
    if (generic && (__builtin_cpu_supports("avx512f") || __builtin_cpu_supports("avx2")))
        std::printf("  note: this CPU has %s, which these kernels do not use; OPENBLAS_CORETYPE=%s selects "
                    "kernels that do (set it before starting)\n",
                    __builtin_cpu_supports("avx512f") ? "AVX-512" : "AVX2",
                    __builtin_cpu_supports("avx512f") ? "SkylakeX" : "Haswell");
}

/// Decisions per second on the test set: q (one network of `model`) against a
/// 30-member ensemble of the same, each decided by Bayes under the data's preset.
void printDecisionRates(const lcs::ModelSpec& model, const lcs::ImageDataset& data, at::Generator& generator)
{
    torch::NoGradGuard noGrad;
    const auto L = lcs::costTensor(lcs::costPreset(data.classes() == 10 ? "mnist" : "cifar10"));
    const auto& x = data.test.images;
    std::vector<lcs::Classifier> ensemble;
    for (int k = 0; k < 30; ++k) {
        ensemble.push_back(model.build(generator));
        ensemble.back()->eval();
    }
    int64_t decided = 0;
    auto start = std::chrono::steady_clock::now();
    for (int rep = 0; rep < 5; ++rep)
        decided += lcs::bayesDecisions(lcs::predictClassProbabilities(*ensemble.front(), x), L).size(0);
    const double qRate = static_cast<double>(decided) / secondsSince(start);
    decided = 0;
    start = std::chrono::steady_clock::now();
    lcs::PredictiveAverage average;
    for (auto& m : ensemble)
        average.add(lcs::predictClassProbabilities(*m, x));
    decided += lcs::bayesDecisions(average.mean(), L).size(0);
    const double ensembleRate = static_cast<double>(decided) / secondsSince(start);
    std::printf("decisions per second: q %.0f, a 30-network ensemble %.0f (%.1fx)\n", qRate, ensembleRate,
                qRate / ensembleRate);
}

int benchDistill(int argc, char** argv)
{
    const auto parsed =
        parseFlags(argc, argv, 3, "bench distill", {}, {{"--data", true}, {"--epochs", true}, {"--threads", true}},
                   kBenchHelp);
    if (parsed.help) {
        std::fputs(kBenchHelp, stdout);
        return kExitOk;
    }
    std::string dataSpec = "fashion-mnist";
    int epochs = 1, threads = lcs::physicalCores();
    for (const auto& [flag, value] : parsed.values) {
        if (flag == "--data")
            dataSpec = value;
        else if (flag == "--epochs")
            epochs = static_cast<int>(parseIntegerFlag(flag, value, 1, 1000));
        else if (flag == "--threads")
            threads = static_cast<int>(parseIntegerFlag(flag, value, 1, 256));
    }
    lcs::configureThreads(threads);
    const int cores = lcs::physicalCores();
    const auto [peak, peakOneCore] = sgemmPeak(cores);
    std::printf("sgemm peak: %.1f GFLOP/s on %d core(s) at once (%.1f on one)\n", peak, cores, peakOneCore);
    printBlasKernels();

    auto start = std::chrono::steady_clock::now();
    const auto data = lcs::loadImageDataset(dataSpec);
    std::printf("%s: %lld training images loaded in %.2f s; %d intra-op thread(s)\n", data.name.c_str(),
                static_cast<long long>(data.train.size()), secondsSince(start), threads);
    auto generator = lcs::makeGenerator(1);
    lcs::TrainingSet train{data.train.images, lcs::corruptLabels(data.train.labels, 0.5, data.classes(), generator)};
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
    config.calibrationNoiseStd = 0.05;
    const auto result = lcs::runSgldDistillation(model, *init, train, train.x,
                                                 data.test.images.slice(0, 0, 10), config, generator, {});
    int64_t inputs = 1;
    for (auto d : data.inputShape)
        inputs *= d;
    std::vector<int64_t> layers{inputs};
    layers.insert(layers.end(), model.hidden.begin(), model.hidden.end());
    layers.push_back(model.classes);
    const double gflop = flopPerRow(layers) * static_cast<double>(train.x.size(0)) / 1e9;
    const double limit = gflop / peak;
    const double rss = peakRssMegabytes();
    std::printf("distillation: %.2f s per epoch, %.1f GFLOP per epoch (%.1f GFLOP/s, %.0f%% of the peak); "
                "%.2f s at the peak\n",
                result.secondsPerEpoch, gflop, gflop / result.secondsPerEpoch,
                100.0 * gflop / result.secondsPerEpoch / peak, limit);
    printDecisionRates(model, data, generator);
    std::printf("peak resident memory: %.0f MB\n", rss);
    std::printf("limit_ratio=%.2f peak_rss_mb=%.0f\n", result.secondsPerEpoch / limit, rss);
    return kExitOk;
}

} // namespace

int runBenchCommand(int argc, char** argv)
{
    const std::string what = argc > 2 ? argv[2] : "";
    if (what == "-h" || what == "--help") {
        std::fputs(kBenchHelp, stdout);
        return kExitOk;
    }
    if (what == "distill")
        return benchDistill(argc, argv);
    throw UsageError(what.empty() ? "bench: say what to measure: lcstudio-cli bench distill"
                                  : "bench: unknown benchmark \"" + what.substr(0, 40) + "\" (known: distill)");
}

} // namespace cli
