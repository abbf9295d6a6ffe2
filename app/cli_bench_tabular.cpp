// lcstudio-cli bench tabular: the table methods (BBVI, SGHMC, KFAC-Laplace and q's
// correction) timed on a table, against the machine's own sgemm peak.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <random>
#include <optional>
#include <string>
#include <vector>

#include <unistd.h>

#include "app/bench_machine.h"
#include "app/cli_commands.h"
#include "app/cli_flags.h"
#include "app/cli_support.h"
#include "base/core/atomic_file.h"
#include "base/inference/method_catalog.h"
#include "engine/core/threads.h"
#include "engine/experiments/experiment.h"
#include "engine/experiments/synthetic/synthetic_experiment.h"
#include "engine/experiments/synthetic/synthetic_settings.h"

namespace cli {
namespace {

const char* kBenchTabularHelp = R"(lcstudio-cli bench tabular - the table methods at the machine's limit

Usage: lcstudio-cli bench tabular [--rows N] [--columns D] [--classes K] [--data TABLE]
                                  [--replicates R] [--methods M,...]
Runs the tabular experiment with its defaults (an MLP of 50 hidden units; BBVI 5,000
full-batch steps, SGHMC 5,300, KFAC-Laplace 2,000 MAP steps and its curvature; q's
correction) on a generated table of N rows of D numeric columns and K classes (a
linear world with noise, 20% of the rows unlabelled; default 5,000 x 57, 2 classes), or
on --data TABLE, and prints per method the seconds of one replicate's inference and
correction, the GFLOP they count from the layer sizes and step counts (forward, weight
gradients, the input gradients backpropagation needs; BBVI's local reparameterisation
twice that; KFAC-Laplace's factors, and every predictive sample's forward over the
evaluation rows), and the limit ratio: seconds / (GFLOP / one core's sgemm peak), since
a (replicate, method) task runs on one core. Then the same beside one busy process, and
  limit_ratio_<method>=<R> ... shared_ratio=<beside a busy process / as found>
  wall_ratio=<the run's wall seconds / (all GFLOP / the idle cores' peak)> peak_rss_mb=<M>
  --rows N        rows of the generated table (100 to 1000000; default 5000)
  --columns D     numeric columns (1 to 1000; default 57)
  --classes K     classes (2 to 20; default 2)
  --data TABLE    a CSV or ARFF table instead (label column "label", ARFF's last attribute)
  --replicates R  replicates timed (default 1)
  --methods M     methods (default bbvi,sghmc,kfac_laplace)
  -h, --help      this text
)";

/// A table of `rows` rows and `columns` numeric columns whose label follows a linear
/// world with noise; every fifth row unlabelled (the calibration rows q trains on).
std::string generatedTable(int64_t rows, int64_t columns, int classes)
{
    std::mt19937_64 random(7);
    std::normal_distribution<double> normal;
    std::vector<std::vector<double>> weights(static_cast<size_t>(classes), std::vector<double>(static_cast<size_t>(columns)));
    for (auto& w : weights)
        for (auto& v : w)
            v = normal(random) / std::sqrt(static_cast<double>(columns));
    std::string text;
    for (int64_t c = 0; c < columns; ++c)
        text += "x" + std::to_string(c) + ",";
    text += "label\n";
    std::vector<double> x(static_cast<size_t>(columns));
    char cell[32];
    for (int64_t r = 0; r < rows; ++r) {
        for (auto& v : x) {
            v = normal(random);
            std::snprintf(cell, sizeof cell, "%.4f,", v);
            text += cell;
        }
        int best = 0;
        double bestScore = -1e300;
        for (int k = 0; k < classes; ++k) {
            double score = normal(random);  // the noise that makes the world uncertain
            for (size_t c = 0; c < x.size(); ++c)
                score += 2 * weights[static_cast<size_t>(k)][c] * x[c];
            if (score > bestScore) {
                bestScore = score;
                best = k;
            }
        }
        text += (r % 5 == 4 ? std::string() : "c" + std::to_string(best)) + "\n";
    }
    return text;
}

/// Multiply-adds of one pass of an MLP of `layers` over one row: sum of in x out.
double multiplyAdds(const std::vector<int64_t>& layers)
{
    double total = 0;
    for (size_t i = 0; i + 1 < layers.size(); ++i)
        total += static_cast<double>(layers[i]) * static_cast<double>(layers[i + 1]);
    return total;
}

/// FLOP of one training step on `rows` rows: forward, weight gradients, and the input
/// gradients of every layer but the first (what backpropagation needs).
double stepFlop(const std::vector<int64_t>& layers, double rows)
{
    const double p = multiplyAdds(layers), first = static_cast<double>(layers[0]) * static_cast<double>(layers[1]);
    return rows * (2 * p + 2 * p + 2 * (p - first));
}

struct MethodFlop {
    double inference = 0, correction = 0;
};

/// The FLOP one replicate of `method` counts from the layer sizes and step counts of
/// `config` on `data`'s rows.
MethodFlop methodFlop(const lcs::SyntheticConfig& config, lcs::InferenceMethod method, const lcs::SyntheticData& data)
{
    std::vector<int64_t> layers{data.trainX.size(1)};
    layers.insert(layers.end(), config.hidden.begin(), config.hidden.end());
    layers.push_back(lcs::classCount(config));
    const double n = static_cast<double>(data.trainX.size(0));
    double evalRows = static_cast<double>(data.testX.size(0) + data.calibrationX.size(0));
    if (data.validationX.defined())
        evalRows += static_cast<double>(data.validationX.size(0));
    const double forwardEval = 2 * multiplyAdds(layers) * evalRows;
    const auto rowsOf = [&](int batch) { return batch > 0 ? std::min<double>(batch, n) : n; };
    MethodFlop f;
    switch (method) {
    case lcs::InferenceMethod::Bbvi:
        // Local reparameterisation: a mean and a variance product per layer, each with
        // its weight and input gradients.
        f.inference = config.bbvi.iterations * 2 * stepFlop(layers, rowsOf(config.bbvi.batchSize)) +
                      config.bbvi.samples * forwardEval;
        break;
    case lcs::InferenceMethod::Sghmc:
    case lcs::InferenceMethod::Sgld:
        f.inference = (config.sghmc.burnIn + static_cast<double>(config.sghmc.samples) * config.sghmc.thinning) *
                          stepFlop(layers, rowsOf(config.sghmc.batchSize)) +
                      config.sghmc.samples * forwardEval;
        break;
    case lcs::InferenceMethod::KfacLaplace: {
        double factors = 0, sampling = 0;
        for (size_t i = 0; i + 1 < layers.size(); ++i) {
            const double in = static_cast<double>(layers[i] + 1), out = static_cast<double>(layers[i + 1]);
            factors += 2 * n * in * in + 2 * n * out * out;     // A = a'a, G = g'g
            sampling += 2 * in * in * out + 2 * in * out * out;  // L_A Z L_G'
        }
        const double p = multiplyAdds(layers), first = static_cast<double>(layers[0]) * static_cast<double>(layers[1]);
        f.inference = config.kfac.map.iterations * stepFlop(layers, rowsOf(config.kfac.map.batchSize)) +
                      std::max(1, config.kfac.fisherLabelDraws) * (2 * n * p + 2 * n * (p - first) + factors) +
                      config.kfac.samples * (sampling + forwardEval);
        break;
    }
    }
    // q: an MLP of the correction's width on the calibration rows, its warm start first.
    std::vector<int64_t> q{data.trainX.size(1)};
    q.insert(q.end(), config.correction.hidden.begin(), config.correction.hidden.end());
    q.push_back(lcs::classCount(config));
    const double calibration = static_cast<double>(data.calibrationX.size(0));
    const double batch = config.correction.batchSize > 0 ? std::min<double>(config.correction.batchSize, calibration)
                                                         : calibration;
    f.correction = (config.correction.epochs + config.correction.warmStartSteps) * stepFlop(q, batch);
    return f;
}

struct Timing {
    double wall = 0;
    std::vector<double> inference, correction;  ///< per method, mean over replicates
};

Timing timeRun(const lcs::SyntheticConfig& config)
{
    Timing t;
    const auto start = std::chrono::steady_clock::now();
    lcs::CancelToken cancel;
    const auto result = lcs::runSynthetic(config, lcs::JobContext{{}, &cancel});
    t.wall = secondsSince(start);
    for (const auto& m : result.methods) {
        double inference = 0, correction = 0;
        for (const auto& r : m.replicates) {
            inference += r.inferenceSeconds;
            correction += r.correctionSeconds;
        }
        t.inference.push_back(inference / static_cast<double>(m.replicates.size()));
        t.correction.push_back(correction / static_cast<double>(m.replicates.size()));
    }
    return t;
}

} // namespace

/// bench tabular's flags; help asked for prints it and gives nothing.
struct BenchTabularFlags {
    int64_t rows = 5000, columns = 57;
    int classes = 2, replicates = 1;
    std::string data, methods = "bbvi,sghmc,kfac_laplace";
    bool generated = true;  ///< no --data: a generated table
};

std::optional<BenchTabularFlags> parseBenchTabularFlags(int argc, char** argv)
{
    const auto parsed = parseFlags(argc, argv, 3, "bench tabular", {},
                                   {{"--rows", true}, {"--columns", true}, {"--classes", true}, {"--data", true},
                                    {"--replicates", true}, {"--methods", true}},
                                   kBenchTabularHelp);
    if (parsed.help) {
        std::fputs(kBenchTabularHelp, stdout);
        return std::nullopt;
    }
    BenchTabularFlags f;
    for (const auto& [flag, value] : parsed.values) {
        if (flag == "--rows")
            f.rows = parseIntegerFlag(flag, value, 100, 1000000);
        else if (flag == "--columns")
            f.columns = parseIntegerFlag(flag, value, 1, 1000);
        else if (flag == "--classes")
            f.classes = static_cast<int>(parseIntegerFlag(flag, value, 2, 20));
        else if (flag == "--data")
            f.data = value;
        else if (flag == "--replicates")
            f.replicates = static_cast<int>(parseIntegerFlag(flag, value, 1, 100));
        else if (flag == "--methods")
            f.methods = value;
    }
    f.generated = f.data.empty();
    if (!f.generated && (parsed.values.count("--rows") || parsed.values.count("--columns") || parsed.values.count("--classes")))
        throw UsageError("bench tabular: --data takes its rows, columns and classes from the table; leave out --rows, "
                         "--columns and --classes");
    return f;
}

int benchTabular(int argc, char** argv)
{
    const auto flags = parseBenchTabularFlags(argc, argv);
    if (!flags)
        return kExitOk;
    auto [rows, columns, classes, replicates, data, methods, generated] = *flags;
    const int cores = lcs::physicalCores();
    auto peak = sgemmPeak(cores);
    printSgemmPeak(peak);

    // The generated table lives in a temporary folder for the run's reader.
    const auto folder = std::filesystem::temp_directory_path() /
                        ("lcstudio-bench-tabular-" + std::to_string(::getpid()));
    std::filesystem::create_directories(folder);
    struct Cleanup {
        std::filesystem::path path;
        ~Cleanup() { std::filesystem::remove_all(path); }
    } cleanup{folder};
    if (data.empty()) {
        data = (folder / "table.csv").string();
        lcs::writeFileAtomically(data, generatedTable(rows, columns, classes));
    }
    nlohmann::json settings{{"data", data}, {"replicates", replicates}, {"methods", splitNames(methods)}};
    const auto& tabular = lcs::ExperimentRegistry::global().get("tabular");
    const auto config =
        lcs::tabularConfigFrom(lcs::checkedSettings(tabular.settings(), settings, "bench tabular"), std::nullopt);
    const auto sample = lcs::syntheticDataFor(config, 0);
    std::printf("table: %lld training, %lld validation, %lld test and %lld calibration rows of %lld features, %lld "
                "classes (%s)\n",
                static_cast<long long>(sample.trainX.size(0)),
                static_cast<long long>(sample.validationX.defined() ? sample.validationX.size(0) : 0),
                static_cast<long long>(sample.testX.size(0)), static_cast<long long>(sample.calibrationX.size(0)),
                static_cast<long long>(sample.trainX.size(1)), static_cast<long long>(lcs::classCount(config)),
                generated ? "generated" : data.c_str());
    std::printf("%d (replicate, method) task(s) on %d worker thread(s), one core each\n",
                replicates * static_cast<int>(config.methods.size()), config.threads);

    const auto asFound = timeRun(config);
    double totalFlop = 0;
    std::string ratios;
    std::printf("%-14s %10s %10s %9s %10s %10s %9s\n", "method", "inference", "GFLOP", "ratio", "correction", "GFLOP",
                "ratio");
    for (size_t i = 0; i < config.methods.size(); ++i) {
        const auto flop = methodFlop(config, config.methods[i], sample);
        totalFlop += replicates * (flop.inference + flop.correction);
        const double inferenceLimit = flop.inference / 1e9 / peak.oneCore,
                     correctionLimit = flop.correction / 1e9 / peak.oneCore;
        const double inferenceRatio = asFound.inference[i] / inferenceLimit;
        std::printf("%-14s %9.2fs %10.1f %8.1fx %9.2fs %10.2f %8.1fx\n",
                    lcs::methodLabel(config.methods[i]).c_str(), asFound.inference[i], flop.inference / 1e9,
                    inferenceRatio, asFound.correction[i], flop.correction / 1e9,
                    asFound.correction[i] / correctionLimit);
        ratios += "limit_ratio_" + lcs::methodName(config.methods[i]) + "=" +
                  std::to_string(inferenceRatio).substr(0, 5) + " ";
    }
    const double wallLimit = totalFlop / 1e9 / peak.idle();
    std::printf("the run: %.2f s wall for %.1f GFLOP (%.3f s at the idle cores' peak)\n", asFound.wall, totalFlop / 1e9,
                wallLimit);
    double shared = 0;
    {
        BusyNeighbour neighbour;
        if (neighbour.started())
            shared = timeRun(config).wall;
    }
    if (shared > 0)
        std::printf("beside one busy process (started by the bench, on one of %d cores): %.2f s wall, %.2fx the run "
                    "above\n",
                    cores, shared, shared / asFound.wall);
    const double rss = peakRssMegabytes();
    std::printf("peak resident memory: %.0f MB\n", rss);
    std::printf("%sshared_ratio=%.2f wall_ratio=%.2f peak_rss_mb=%.0f\n", ratios.c_str(),
                shared > 0 ? shared / asFound.wall : 0.0, asFound.wall / wallLimit, rss);
    return kExitOk;
}

} // namespace cli
