// lcstudio-cli bench: figures measured against the machine itself (never a test).

#include <algorithm>
#include <atomic>
#include <chrono>
#include <string>
#include <cstdio>
#include <thread>
#include <vector>

#include <torch/torch.h>

#include "app/bench_machine.h"
#include "app/cli_commands.h"
#include "app/cli_flags.h"
#include "app/cli_support.h"
#include "datasets/image_data.h"
#include "engine/calibration/image_training.h"
#include "engine/core/blas_kernels.h"
#include "engine/core/thin_gemm.h"
#include "engine/core/threads.h"
#include "engine/decision/decisions.h"

namespace cli {
namespace {

const char* kBenchHelp = R"(lcstudio-cli bench distill - online distillation at the machine's limit

Usage: lcstudio-cli bench distill [--data D] [--epochs N] [--threads T]
Times the authors' configuration (label corruption 0.5, MLP 784-200-10, batch 64: per
minibatch one SGLD teacher step on D and one student step on a noisy batch of D') and
measures, in the same run, the single-precision matrix-product (sgemm) peak of one core
and of every core at once: the fastest of the BLAS's products (OpenBLAS's AVX-512
kernels where the CPU has them), LC Studio's kernel and the minibatch products at their
own shapes. When other processes keep more than a quarter of a core busy meanwhile
(from /proc/stat) it says so, and the limit is then cores x one core's peak: the idle
machine's.
Prints seconds per epoch, GFLOP per epoch (counted from the layer sizes: forward, weight
gradients and the input gradients backpropagation needs), the peak and the peak
resident memory; then the same epoch again beside one busy process the bench starts
itself (a loop on one core), the shared-machine figure; and ends with
  limit_ratio=<epoch seconds / (GFLOP per epoch / idle peak GFLOP/s)> shared_ratio=<beside a
  busy process / as found> product_ratio=<epoch seconds / its products' seconds spread
  over the idle cores> peak_rss_mb=<M>
(limit_ratio 1 = the epoch runs at the idle machine's sgemm peak on all cores). The
products' own time, timed at their batch-64 shapes on one core and spread over the idle
cores at the rate the peak scales by, is the floor these kernels allow.
  --data D     image data: a folder or mnist, fashion-mnist (default), cifar10
  --epochs N   epochs timed (default 1)
  --threads T  intra-op threads, fixed (default: the physical cores, fewer while other
               processes hold cores)
  -h, --help   this text
)";

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

/// Seconds one core takes for one distillation step's matrix products at their own
/// shapes (`batch` rows), through the same LibTorch calls the step makes: three forward
/// passes (the teacher's step, its targets on D', the student's), two weight gradients
/// and two sets of input gradients. The BLAS runs these thin products below its peak
/// for large squares (it packs a whole weight matrix for 64 rows); spread over the
/// cores, this is the floor the epoch can reach with these kernels, whatever else is
/// made faster.
double productSecondsPerStep(const std::vector<int64_t>& layers, int64_t batch)
{
    lcs::ScopedIntraOpThreads oneThread(1);
    torch::NoGradGuard noGrad;
    struct Layer {
        at::Tensor w, b, x, out, dOut, dW, dX;
    };
    std::vector<Layer> net;
    for (size_t l = 0; l + 1 < layers.size(); ++l)
        net.push_back({torch::rand({layers[l + 1], layers[l]}), torch::rand({layers[l + 1]}),
                       torch::rand({batch, layers[l]}), torch::empty({batch, layers[l + 1]}),
                       torch::rand({batch, layers[l + 1]}), torch::empty({layers[l + 1], layers[l]}),
                       torch::empty({batch, layers[l]})});
    // The thin kernels where the step's own calls take them (core/thin_gemm.h), else
    // LibTorch's products.
    const auto forward = [](Layer& l) {
        if (!lcs::thinLinearForward(l.out.data_ptr<float>(), l.x.data_ptr<float>(), l.w.data_ptr<float>(),
                                    l.b.data_ptr<float>(), l.x.size(0), l.w.size(0), l.w.size(1)))
            at::addmm_out(l.out, l.b, l.x, l.w.t());
    };
    const auto weightGradient = [](Layer& l) {
        if (!lcs::thinWeightGradient(l.dW.data_ptr<float>(), l.dOut.data_ptr<float>(), l.x.data_ptr<float>(),
                                     l.x.size(0), l.w.size(0), l.w.size(1)))
            at::mm_out(l.dW, l.dOut.t(), l.x);
    };
    const auto inputGradient = [](Layer& l) {
        if (!lcs::thinInputGradient(l.dX.data_ptr<float>(), l.dOut.data_ptr<float>(), l.w.data_ptr<float>(),
                                    l.x.size(0), l.w.size(0), l.w.size(1)))
            at::mm_out(l.dX, l.dOut, l.w);
    };
    const auto step = [&] {
        for (int pass = 0; pass < 3; ++pass)
            for (auto& layer : net)
                forward(layer);
        for (int pass = 0; pass < 2; ++pass)
            for (size_t l = 0; l < net.size(); ++l) {
                weightGradient(net[l]);
                if (l > 0)
                    inputGradient(net[l]);
            }
    };
    step();
    long long steps = 0;
    const auto start = std::chrono::steady_clock::now();
    while (secondsSince(start) < 0.5 || steps < 20) {
        step();
        ++steps;
    }
    return secondsSince(start) / static_cast<double>(steps);
}

/// Which kernels the products run on: OpenBLAS's own pick, or the AVX-512 kernels chosen
/// for this CPU where OpenBLAS fell back to older ones (lcs::chooseBlasKernels).
void printBlasKernels()
{
    const auto blas = lcs::blasKernels();
    if (blas.openBlas) {
        std::printf("BLAS: OpenBLAS, %s kernels", blas.kernels.c_str());
        if (!blas.pickedByBlas.empty())
            std::printf(" (chosen for this CPU's AVX-512; OpenBLAS itself picked %s)", blas.pickedByBlas.c_str());
        else if (!blas.userChoice.empty())
            std::printf(" (OPENBLAS_CORETYPE=%s)", blas.userChoice.c_str());
        std::printf("\n");
        if (!lcs::isAvx512Kernels(blas.kernels) && __builtin_cpu_supports("avx512f"))
            std::printf("  note: this CPU has AVX-512, which these kernels do not use\n");
    }
    std::printf("minibatch products (at most 256 rows, 2^16 multiply-adds or more: here every product of "
                "both layers at 64 rows): %s\n",
                lcs::thinGemmAvailable() ? "LC Studio's AVX-512 kernels" : "the BLAS (no AVX-512 here)");
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

/// The distillation's network on `data` (one hidden layer of 200, as the paper's) and
/// its layers' widths, input to output.
std::pair<lcs::ModelSpec, std::vector<int64_t>> distillationNetwork(const lcs::ImageDataset& data)
{
    lcs::ModelSpec model;
    model.inputShape = data.inputShape;
    model.classes = data.classes();
    model.hidden = {200};
    int64_t inputs = 1;
    for (auto d : data.inputShape)
        inputs *= d;
    std::vector<int64_t> layers{inputs};
    layers.insert(layers.end(), model.hidden.begin(), model.hidden.end());
    layers.push_back(model.classes);
    return {model, layers};
}

/// One core's seconds per epoch of `rows` for the products alone at their batch shapes,
/// printed; where they ran faster than every square product, `peak` becomes theirs.
double timeProductsAlone(const std::vector<int64_t>& layers, int64_t batch, int64_t rows, double gflop,
                         SgemmPeak& peak, int cores)
{
    const double productsOneCore =
        productSecondsPerStep(layers, batch) * static_cast<double>((rows + batch - 1) / batch);
    const double productsRate = gflop / productsOneCore;
    std::printf("the products alone, at their batch-%lld shapes: %.3f s per epoch on one core (%.1f GFLOP/s, %.0f%% of "
                "its peak)\n",
                static_cast<long long>(batch), productsOneCore, productsRate, 100.0 * productsRate / peak.oneCore);
    if (productsRate > peak.oneCore) {
        // A product ran faster than the "peak": the peak is the fastest rate seen, so the
        // limit is never flattered by squares that ran below the kernels' best. The
        // all-core peak scales with it as the cores scaled together (at most the number
        // of cores, above).
        peak.allCores *= productsRate / peak.oneCore;
        peak.oneCore = productsRate;
        std::printf("  faster than every square product above: the peak is theirs, %.1f GFLOP/s on one core, %.1f on "
                    "%d idle cores\n",
                    peak.oneCore, peak.idle(), cores);
    }
    return productsOneCore;
}

/// The distillation the bench times: SGLD with its student, `batch` rows a step (the
/// shapes the products were timed at), no burn-in end (the steps, not the test-set
/// predictions, are timed).
lcs::SgldDistillationConfig benchDistillationConfig(int epochs, int64_t batch)
{
    lcs::SgldDistillationConfig config;
    config.epochs = epochs;
    config.learningRate = 2e-3;
    config.burnInSteps = 1LL << 40;
    config.batchSize = batch;
    config.student =
        lcs::SgdConfig().withEpochs(0).withBatchSize(static_cast<int>(batch)).withLearningRate(0.05).withWeightDecay(1e-4);
    config.calibrationNoiseStd = 0.05;
    return config;
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
    const lcs::ThreadLoad load = parsed.values.count("--threads") ? lcs::ThreadLoad::Ignore : lcs::ThreadLoad::Follow;
    const int cores = lcs::physicalCores();
    lcs::chooseBlasKernels();  // the kernels every product below runs on, the peak's included
    auto peak = sgemmPeak(cores);
    printSgemmPeak(peak);
    printBlasKernels();

    auto start = std::chrono::steady_clock::now();
    const auto data = lcs::loadImageDataset(dataSpec);
    std::printf("%s: %lld training images loaded in %.2f s\n", data.name.c_str(),
                static_cast<long long>(data.train.size()), secondsSince(start));
    const auto network = distillationNetwork(data);
    const lcs::ModelSpec& model = network.first;
    const std::vector<int64_t>& layers = network.second;
    const double gflop = flopPerRow(layers) * static_cast<double>(data.train.size()) / 1e9;
    const int64_t batch = 64;
    const double productsOneCore = timeProductsAlone(layers, batch, data.train.size(), gflop, peak, cores);
    const double limit = gflop / peak.idle();
    // Spread over the idle cores at the rate their peak scales by (2x for two cores, 1x
    // for two hyper-threads of one): the floor for an epoch that did nothing else.
    const double products = productsOneCore * peak.oneCore / peak.idle();
    std::printf("  spread over the idle cores: %.3f s per epoch\n", products);
    // The same seed, data and network each time: only the machine's state differs.
    const auto epochSeconds = [&] {
        lcs::configureThreads(threads, load);
        auto generator = lcs::makeGenerator(1);
        lcs::TrainingSet train{data.train.images,
                               lcs::corruptLabels(data.train.labels, 0.5, data.classes(), generator)};
        auto init = model.build(generator);
        return lcs::runSgldDistillation(model, *init, train, train.x, data.test.images.slice(0, 0, 10),
                                        benchDistillationConfig(epochs, batch), generator, {})
            .secondsPerEpoch;
    };
    const double asFound = epochSeconds();
    std::printf("distillation: %.3f s per epoch on %d intra-op thread(s), %.1f GFLOP per epoch (%.1f GFLOP/s, "
                "%.0f%% of the idle peak); %.2f s at the idle peak\n",
                asFound, lcs::configuredThreads(), gflop, gflop / asFound, 100.0 * gflop / asFound / peak.idle(), limit);
    auto generator = lcs::makeGenerator(2);
    printDecisionRates(model, data, generator);
    double shared = 0;
    {
        BusyNeighbour neighbour;
        if (neighbour.started())
            shared = epochSeconds();
    }
    if (shared > 0)
        std::printf("beside one busy process (started by the bench, on one of %d cores): %.3f s per epoch, %.2fx the "
                    "epoch above (losing that core's whole share: %.2fx)\n",
                    cores, shared, shared / asFound, cores > 1 ? static_cast<double>(cores) / (cores - 1) : 2.0);
    const double rss = peakRssMegabytes();
    std::printf("peak resident memory: %.0f MB\n", rss);
    std::printf("limit_ratio=%.2f shared_ratio=%.2f product_ratio=%.2f peak_rss_mb=%.0f\n", asFound / limit,
                shared > 0 ? shared / asFound : 0.0, asFound / products, rss);
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
    if (what == "tabular")
        return benchTabular(argc, argv);
    if (what == "camvid")
        return benchCamvid(argc, argv);
    throw UsageError(what.empty() ? "bench: say what to measure: lcstudio-cli bench distill|tabular|camvid"
                                  : "bench: unknown benchmark \"" + what.substr(0, 40) +
                                        "\" (known: distill, tabular, camvid)");
}

} // namespace cli
