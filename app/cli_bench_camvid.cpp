// lcstudio-cli bench camvid: CamVid training's step (the CW-SGD network of a preset)
// timed against the machine's own sgemm peak.
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "app/bench_machine.h"
#include "app/cli_commands.h"
#include "app/cli_flags.h"
#include "app/cli_support.h"
#include "base/models/architectures.h"
#include "datasets/camvid_data.h"
#include "engine/calibration/image_training.h"
#include "engine/core/job.h"
#include "engine/core/threads.h"
#include "engine/experiments/camvid/camvid_experiment.h"
#include "engine/models/mlp.h"

namespace cli {
namespace {

const char* kBenchCamvidHelp = R"(lcstudio-cli bench camvid - CamVid training's step at the machine's limit

Usage: lcstudio-cli bench camvid [--preset cpu|paper] [--steps N] [--threads T]
Trains the preset's SegNet (cpu: segnet_light2 at 180 x 240; paper: segnet at 360 x 480)
as camvid train's CW-SGD does (batch 4, class-weighted cross-entropy with the void label
left out, momentum SGD) on generated frames, so that no data is needed, and prints the
seconds per step, the frames per second, the GFLOP per step (counted from the layer
sizes: each 3 x 3 convolution's forward, its weight gradient and the input gradient of
every layer but the first) and the limit ratio: seconds per step / (GFLOP per step /
the idle cores' sgemm peak), since a step's products use every core. Then the same
beside one busy process the bench starts itself, and ends with
  limit_ratio=<R> shared_ratio=<beside a busy process / as found> steps_per_second=<S>
  gflop_per_step=<G> peak_rss_mb=<M>
  --preset P   cpu (default) or paper
  --steps N    steps timed after two of warm-up (1 to 1000; default 10)
  --threads T  intra-op threads, fixed (default: the physical cores, fewer while other
               processes hold cores, as camvid train does)
  -h, --help   this text
)";

/// FLOP of one training step of `batch` frames of `height` x `width` through the SegNet
/// of `architecture` with `classes` outputs: encoder stage s and its mirrored decoder
/// stage work at (height / 2^s) x (width / 2^s), the classifier at full size. Forward
/// 2 k^2 c_in c_out per output pixel, the weight gradient as much again, the input
/// gradient as much again for every layer but the first (whose input is the frame).
double segnetStepFlop(const std::string& architecture, int64_t classes, int64_t batch, int64_t height, int64_t width)
{
    const auto* a = lcs::findArchitecture(architecture);
    if (!a)
        throw std::logic_error("no architecture " + architecture);
    const auto& channels = a->stageChannels;
    const auto& convs = a->stageConvs;
    double flop = 0;
    bool first = true;
    const auto conv = [&](double in, double out, double pixels) {
        const double forward = 2.0 * 9.0 * in * out * pixels * static_cast<double>(batch);
        flop += first ? 2 * forward : 3 * forward;
        first = false;
    };
    int64_t in = 3;
    for (size_t s = 0; s < channels.size(); ++s) {
        const double pixels = static_cast<double>((height >> s) * (width >> s));
        for (int c = 0; c < convs[s]; ++c)
            conv(static_cast<double>(c == 0 ? in : channels[s]), static_cast<double>(channels[s]), pixels);
        in = channels[s];
    }
    for (size_t k = channels.size(); k-- > 0;) {
        const double pixels = static_cast<double>((height >> k) * (width >> k));
        const int64_t out = k == 0 ? channels[0] : channels[k - 1];
        for (int c = 0; c < convs[k]; ++c)
            conv(static_cast<double>(c == 0 ? channels[k] : out), static_cast<double>(out), pixels);
    }
    conv(static_cast<double>(channels[0]), static_cast<double>(classes), static_cast<double>(height * width));
    return flop;
}

/// Seconds per step of `steps` CW-SGD steps (after two of warm-up) on generated frames.
double secondsPerStep(const lcs::CamvidTrainConfig& preset, int steps)
{
    auto generator = lcs::makeGenerator(7);
    auto net = preset.model.build(generator);
    const int64_t batch = preset.sgd.batchSize, frames = batch * (steps + 2);
    lcs::TrainingSet data;
    data.x = torch::randn({frames, 3, preset.height, preset.width}, generator);
    // Labels in [0, 11], the void label (11) on about one pixel in twelve, as in CamVid.
    data.y = torch::randint(0, lcs::kCamvidRealClasses + 1, {frames, preset.height, preset.width}, generator,
                            torch::kLong);
    auto sgd = preset.sgd;
    sgd.epochs = 1;
    sgd.classWeights.assign(lcs::kCamvidRealClasses, 1.0);
    sgd.classWeights[0] = 0.5;  // weighted, as CW-SGD's are
    sgd.augmentation = {};
    lcs::CancelToken cancel;
    const lcs::JobContext ctx{{}, &cancel};
    // Two steps warm the allocator and the kernels up; the steps after them are timed.
    const lcs::TrainingSet warm{data.x.slice(0, 0, 2 * batch), data.y.slice(0, 0, 2 * batch)};
    lcs::trainSgd(*net, warm, sgd, generator, ctx, "warm-up");
    const lcs::TrainingSet timed{data.x.slice(0, 2 * batch), data.y.slice(0, 2 * batch)};
    const auto timedFrom = std::chrono::steady_clock::now();
    lcs::trainSgd(*net, timed, sgd, generator, ctx, "cw_sgd");
    return secondsSince(timedFrom) / static_cast<double>(steps);
}

}  // namespace

int benchCamvid(int argc, char** argv)
{
    const auto parsed = parseFlags(argc, argv, 3, "bench camvid", {},
                                   {{"--preset", true}, {"--steps", true}, {"--threads", true}}, kBenchCamvidHelp);
    if (parsed.help) {
        std::fputs(kBenchCamvidHelp, stdout);
        return kExitOk;
    }
    std::string presetName = "cpu";
    int steps = 10, threads = 0;
    for (const auto& [flag, value] : parsed.values) {
        if (flag == "--preset")
            presetName = value;
        else if (flag == "--steps")
            steps = static_cast<int>(parseIntegerFlag(flag, value, 1, 1000));
        else if (flag == "--threads")
            threads = static_cast<int>(parseIntegerFlag(flag, value, 1, 256));
    }
    if (presetName != "cpu" && presetName != "paper")
        throw UsageError("bench camvid: --preset \"" + presetName.substr(0, 40) + "\" is not cpu or paper");
    const auto preset = lcs::CamvidTrainConfig::preset(presetName);
    const int cores = lcs::physicalCores();
    auto peak = sgemmPeak(cores);
    printSgemmPeak(peak);
    lcs::configureThreads(threads, threads > 0 ? lcs::ThreadLoad::Ignore : lcs::ThreadLoad::Follow);
    const int64_t batch = preset.sgd.batchSize;
    const double flop = segnetStepFlop(preset.model.architecture, preset.model.classes, batch, preset.height,
                                       preset.width);
    std::printf("network: %s, %lld classes, frames %d x %d, batch %lld; %d intra-op thread(s)\n",
                preset.model.architecture.c_str(), static_cast<long long>(preset.model.classes), preset.height,
                preset.width, static_cast<long long>(batch), lcs::configuredThreads());
    const double asFound = secondsPerStep(preset, steps);
    const double limit = flop / 1e9 / peak.idle();
    std::printf("step: %.3f s (%.2f frames/s), %.1f GFLOP (%.3f s at the idle cores' peak): %.2fx the limit\n", asFound,
                static_cast<double>(batch) / asFound, flop / 1e9, limit, asFound / limit);
    double shared = 0;
    {
        BusyNeighbour neighbour;
        if (neighbour.started())
            shared = secondsPerStep(preset, steps);
    }
    if (shared > 0)
        std::printf("beside one busy process (started by the bench, on one of %d cores): %.3f s per step, %.2fx the "
                    "step above\n",
                    cores, shared, shared / asFound);
    const double rss = peakRssMegabytes();
    std::printf("peak resident memory: %.0f MB\n", rss);
    std::printf("limit_ratio=%.2f shared_ratio=%.2f steps_per_second=%.3f gflop_per_step=%.1f peak_rss_mb=%.0f\n",
                asFound / limit, shared > 0 ? shared / asFound : 0.0, 1.0 / asFound, flop / 1e9, rss);
    return kExitOk;
}

}  // namespace cli
