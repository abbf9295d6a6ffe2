// lcstudio-cli: the headless front end. Same engine as the GUI, no Qt.
#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include <ATen/Parallel.h>
#include <torch/torch.h>

#include "core/atomic_file.h"
#include "core/threads.h"
#include "decision/decisions.h"
#include "experiments/synthetic_experiment.h"
#include "experiments/synthetic_report.h"
#include "io/model_io.h"

namespace {

constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;
constexpr int kExitCancelled = 130;

lcs::CancelToken g_cancel;

extern "C" void onInterrupt(int)
{
    g_cancel.cancel();
}

struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

const char* kTopHelp = R"(lcstudio-cli - post-hoc loss calibration of Bayesian neural networks, headless

Usage:
  lcstudio-cli synthetic [options]   reproduce the paper's synthetic experiment (Table 2)
  lcstudio-cli decide [options]      decisions from a saved correction network
  lcstudio-cli presets [NAME]        list the paper's cost matrices, or print one as JSON
  lcstudio-cli --help | --version

Run "lcstudio-cli COMMAND --help" for the options of a command.
Exit status: 0 success, 1 failure, 2 bad usage, 130 interrupted.
)";

const char* kSyntheticHelp = R"(lcstudio-cli synthetic - the paper's synthetic 2-D experiment

For each replicate and inference method: sample the posterior, decide on the test set
without correction, train the correction q on the 500 unlabelled calibration points,
decide again with q. Prints Table 2 (mean ± std over replicates, paired difference).

Options:
  --replicates N      replicates (default 10)
  --methods LIST      comma-separated from bbvi, sghmc, sgld, kfac_laplace
                      (default bbvi,sghmc,kfac_laplace)
  --seed S            base seed; replicate r is determined by (S, r) (default 0)
  --threads T         (replicate, method) tasks run in parallel (default: all cores)
  --costs FILE        cost matrix (.json or Weka .cost, 2 classes); default: the paper's
  --preset NAME       a named preset instead of --costs (see "lcstudio-cli presets")
  --correction-iterations N   q training steps (default 500)
  --device D          cpu (default) or cuda[:N] when this LibTorch build has CUDA
  --json FILE         write results as JSON (atomically)
  --csv FILE          write per-replicate results as CSV (atomically)
  --save-models DIR   save each q (and the MAP / BBVI networks) with a JSON sidecar
  --quiet             no progress on stderr
  -h, --help          this text
)";

const char* kDecideHelp = R"(lcstudio-cli decide - Bayes decisions from a saved correction network

Options:
  --model FILE        a network saved by --save-models or by LC Studio (FILE.json beside it)
  --points FILE       CSV of input rows (one point per line, comma-separated features;
                      a non-numeric first line is taken as a header)
  --point X,Y,...     one input point (repeatable)
  --costs FILE        decide under this matrix instead of the one saved with the model
  -h, --help          this text
Prints one line per point: the features, the class probabilities and the decision.
)";

long long parseInteger(const std::string& flag, const std::string& value, long long lo, long long hi)
{
    size_t used = 0;
    long long v = 0;
    try {
        v = std::stoll(value, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used == 0 || used != value.size())
        throw UsageError(flag + ": \"" + value + "\" is not an integer");
    if (v < lo || v > hi)
        throw UsageError(flag + ": " + value + " is outside " + std::to_string(lo) + ".." + std::to_string(hi));
    return v;
}

std::vector<double> parseNumbers(const std::string& what, const std::string& text)
{
    std::vector<double> out;
    std::stringstream ss(text);
    std::string field;
    while (std::getline(ss, field, ',')) {
        size_t used = 0;
        double v = 0;
        try {
            v = std::stod(field, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        while (used < field.size() && std::isspace(static_cast<unsigned char>(field[used])))
            ++used;
        if (used == 0 || used != field.size())
            throw UsageError(what + ": \"" + field + "\" is not a number");
        out.push_back(v);
    }
    return out;
}

/// Minimal "--flag value" / "--flag=value" parser: unknown flags are usage errors.
class Args {
public:
    Args(int argc, char** argv, int first)
    {
        for (int i = first; i < argc; ++i)
            m_items.emplace_back(argv[i]);
    }
    bool next(std::string& flag, std::string& value, const std::vector<std::string>& valueFlags)
    {
        if (m_pos >= m_items.size())
            return false;
        flag = m_items[m_pos++];
        value.clear();
        const auto eq = flag.find('=');
        if (flag.rfind("--", 0) == 0 && eq != std::string::npos) {
            value = flag.substr(eq + 1);
            flag = flag.substr(0, eq);
            return true;
        }
        if (std::find(valueFlags.begin(), valueFlags.end(), flag) != valueFlags.end()) {
            if (m_pos >= m_items.size())
                throw UsageError(flag + " needs a value");
            value = m_items[m_pos++];
        }
        return true;
    }

private:
    std::vector<std::string> m_items;
    size_t m_pos = 0;
};

/// Live progress on stderr: one rewritten line on a terminal, a line per finished
/// task otherwise (so CI logs stay short).
class ProgressPrinter {
public:
    explicit ProgressPrinter(bool quiet) : m_quiet(quiet), m_tty(::isatty(STDERR_FILENO) != 0) {}
    void operator()(const lcs::Progress& p)
    {
        if (m_quiet)
            return;
        double done = 0, total = 0;
        for (const auto& [k, v] : p.scalars) {
            if (k == "tasks_done")
                done = v;
            if (k == "tasks_total")
                total = v;
        }
        if (p.phase == "replicate_done") {
            double u = 0, c = 0;
            for (const auto& [k, v] : p.scalars) {
                if (k == "uncorrected_cost")
                    u = v;
                if (k == "corrected_cost")
                    c = v;
            }
            std::fprintf(stderr, "%s[%lld/%lld] %s: cost %.3f -> %.3f\n", m_tty ? "\r\033[K" : "", p.step, p.total,
                         p.detail.c_str(), u, c);
            return;
        }
        if (m_tty)
            std::fprintf(stderr, "\r\033[K[%.0f/%.0f] %s: %s %lld/%lld", done, total, p.detail.c_str(),
                         p.phase.c_str(), p.step, p.total);
    }
    void finish()
    {
        if (!m_quiet && m_tty)
            std::fprintf(stderr, "\r\033[K");
    }

private:
    bool m_quiet;
    bool m_tty;
};

void saveRunModels(const std::string& dir, const lcs::SyntheticConfig& config, const lcs::ReplicateOutcome& o,
                   const lcs::SyntheticPredictive& p, const lcs::SyntheticCorrection& c)
{
    const std::string stem = dir + "/" + lcs::methodName(o.method) + "_r" + std::to_string(o.replicate);
    lcs::ModelInfo info;
    info.experiment = "synthetic";
    info.method = lcs::methodName(o.method);
    info.replicate = o.replicate;
    info.seed = config.seed;
    info.costs = config.costs;
    info.role = "q";
    lcs::saveMlp(c.q, info, stem + "_q.pt");
    if (auto mlp = std::dynamic_pointer_cast<lcs::MlpImpl>(p.model)) {
        info.role = o.method == lcs::InferenceMethod::KfacLaplace ? "map" : "last_sample";
        lcs::saveMlp(lcs::Mlp(mlp), info, stem + "_" + info.role + ".pt");
    }
}

int runSyntheticCommand(int argc, char** argv)
{
    lcs::SyntheticConfig config;
    config.threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    std::string jsonPath, csvPath, modelDir, costsPath, presetName;
    bool quiet = false;
    Args args(argc, argv, 2);
    std::string flag, value;
    const std::vector<std::string> valueFlags{"--replicates", "--methods", "--seed", "--threads", "--json",
                                              "--csv", "--save-models", "--costs", "--preset",
                                              "--correction-iterations", "--device"};
    while (args.next(flag, value, valueFlags)) {
        if (flag == "-h" || flag == "--help") {
            std::fputs(kSyntheticHelp, stdout);
            return kExitOk;
        } else if (flag == "--replicates") {
            config.replicates = static_cast<int>(parseInteger(flag, value, 1, 10000));
        } else if (flag == "--methods") {
            config.methods.clear();
            std::stringstream ss(value);
            std::string name;
            while (std::getline(ss, name, ',')) {
                auto m = lcs::parseMethod(name);
                if (!m)
                    throw UsageError("--methods: unknown method \"" + name
                                     + "\" (choose from bbvi, sghmc, sgld, kfac_laplace)");
                config.methods.push_back(*m);
            }
            if (config.methods.empty())
                throw UsageError("--methods: empty list");
        } else if (flag == "--seed") {
            config.seed = static_cast<uint64_t>(parseInteger(flag, value, 0, std::numeric_limits<long long>::max()));
        } else if (flag == "--threads") {
            config.threads = static_cast<int>(parseInteger(flag, value, 1, 256));
        } else if (flag == "--correction-iterations") {
            config.correction.iterations = static_cast<int>(parseInteger(flag, value, 0, 10000000));
        } else if (flag == "--device") {
            config.device = value;
            try {
                lcs::resolveDevice(value);
            } catch (const std::invalid_argument& e) {
                throw UsageError(std::string("--device: ") + e.what());
            }
        } else if (flag == "--json") {
            jsonPath = value;
        } else if (flag == "--csv") {
            csvPath = value;
        } else if (flag == "--save-models") {
            modelDir = value;
        } else if (flag == "--costs") {
            costsPath = value;
        } else if (flag == "--preset") {
            presetName = value;
        } else if (flag == "--quiet") {
            quiet = true;
        } else {
            throw UsageError("synthetic: unknown option \"" + flag + "\" (see lcstudio-cli synthetic --help)");
        }
    }
    if (!costsPath.empty() && !presetName.empty())
        throw UsageError("give --costs or --preset, not both");
    try {
        if (!costsPath.empty())
            config.costs = lcs::loadCostMatrix(costsPath);
        else if (!presetName.empty())
            config.costs = lcs::costPreset(presetName);
        config.costs.validateFor(2);
    } catch (const lcs::CostMatrixError& e) {
        throw UsageError(e.what());
    }
    if (!modelDir.empty()) {
        std::error_code ec;
        std::filesystem::create_directories(modelDir, ec);
        if (ec)
            throw UsageError("--save-models: cannot create " + modelDir + ": " + ec.message());
    }

    // Tiny networks: parallelism across tasks beats intra-op threads, which would only
    // fight over the same cores.
    lcs::configureThreads(1);
    ProgressPrinter printer(quiet);
    lcs::JobContext ctx{[&](const lcs::Progress& p) { printer(p); }, &g_cancel};
    lcs::ReplicateCallback onReplicate;
    if (!modelDir.empty())
        onReplicate = [&](const lcs::ReplicateOutcome& o, const lcs::SyntheticPredictive& p,
                          const lcs::SyntheticCorrection& c) { saveRunModels(modelDir, config, o, p, c); };
    const auto result = lcs::runSynthetic(config, ctx, onReplicate);
    printer.finish();
    std::fputs(lcs::syntheticTable(result).c_str(), stdout);
    if (!jsonPath.empty())
        lcs::writeFileAtomically(jsonPath, lcs::syntheticJson(result));
    if (!csvPath.empty())
        lcs::writeFileAtomically(csvPath, lcs::syntheticCsv(result));
    return kExitOk;
}

int runDecideCommand(int argc, char** argv)
{
    std::string modelPath, pointsPath, costsPath;
    std::vector<std::vector<double>> points;
    Args args(argc, argv, 2);
    std::string flag, value;
    while (args.next(flag, value, {"--model", "--points", "--point", "--costs"})) {
        if (flag == "-h" || flag == "--help") {
            std::fputs(kDecideHelp, stdout);
            return kExitOk;
        } else if (flag == "--model") {
            modelPath = value;
        } else if (flag == "--points") {
            pointsPath = value;
        } else if (flag == "--point") {
            points.push_back(parseNumbers("--point", value));
        } else if (flag == "--costs") {
            costsPath = value;
        } else {
            throw UsageError("decide: unknown option \"" + flag + "\" (see lcstudio-cli decide --help)");
        }
    }
    if (modelPath.empty())
        throw UsageError("decide: --model FILE is required");
    if (!pointsPath.empty()) {
        std::ifstream in(pointsPath);
        if (!in)
            throw UsageError("--points: cannot open " + pointsPath);
        std::string line;
        int lineNo = 0;
        while (std::getline(in, line)) {
            ++lineNo;
            if (line.find_first_not_of(" \t\r") == std::string::npos)
                continue;
            if (!line.empty() && line.back() == '\r')
                line.pop_back();
            try {
                points.push_back(parseNumbers(pointsPath + " line " + std::to_string(lineNo), line));
            } catch (const UsageError&) {
                if (lineNo == 1)
                    continue;  // header
                throw;
            }
        }
    }
    if (points.empty())
        throw UsageError("decide: no points (use --points FILE or --point X,Y)");

    auto loaded = lcs::loadMlp(modelPath);
    lcs::CostMatrix costs = loaded.info.costs;
    if (!costsPath.empty())
        costs = lcs::loadCostMatrix(costsPath);
    if (costs.empty())
        throw UsageError("decide: " + modelPath + ".json has no cost matrix; pass --costs FILE");
    costs.validateFor(static_cast<int>(loaded.info.classes));
    std::vector<float> flat;
    for (size_t i = 0; i < points.size(); ++i) {
        if (static_cast<int64_t>(points[i].size()) != loaded.info.inputs)
            throw UsageError("decide: point " + std::to_string(i + 1) + " has " + std::to_string(points[i].size())
                             + " features, the model takes " + std::to_string(loaded.info.inputs));
        flat.insert(flat.end(), points[i].begin(), points[i].end());
    }
    auto x = torch::tensor(flat).reshape({static_cast<int64_t>(points.size()), loaded.info.inputs});
    auto probs = torch::softmax(loaded.model->forward(x), 1).detach();
    auto decisions = lcs::bayesDecisions(probs, lcs::costTensor(costs));
    for (size_t i = 0; i < points.size(); ++i) {
        std::string row;
        for (double v : points[i])
            row += std::to_string(v) + ",";
        for (int64_t c = 0; c < probs.size(1); ++c)
            row += std::to_string(probs[i][c].item<double>()) + ",";
        row += costs.decisionName(static_cast<int>(decisions[i].item<int64_t>()));
        std::puts(row.c_str());
    }
    return kExitOk;
}

int runPresetsCommand(int argc, char** argv)
{
    if (argc <= 2) {
        for (const auto& n : lcs::costPresetNames()) {
            const auto m = lcs::costPreset(n);
            std::printf("%-10s %2d classes%s\n", n.c_str(), m.numClasses(), m.hasReferral() ? " + referral" : "");
        }
        return kExitOk;
    }
    const std::string name = argv[2];
    if (name == "-h" || name == "--help") {
        std::puts("lcstudio-cli presets [NAME]: list presets, or print one as JSON");
        return kExitOk;
    }
    try {
        std::fputs(lcs::costMatrixToJson(lcs::costPreset(name)).c_str(), stdout);
    } catch (const lcs::CostMatrixError& e) {
        throw UsageError(e.what());
    }
    return kExitOk;
}

} // namespace

int main(int argc, char** argv)
{
    std::signal(SIGINT, onInterrupt);
    std::signal(SIGTERM, onInterrupt);
    if (argc < 2) {
        std::fputs(kTopHelp, stderr);
        return kExitUsage;
    }
    const std::string command = argv[1];
    try {
        if (command == "-h" || command == "--help" || command == "help") {
            std::fputs(kTopHelp, stdout);
            return kExitOk;
        }
        if (command == "--version") {
            std::puts("lcstudio-cli " LCS_VERSION);
            return kExitOk;
        }
        if (command == "synthetic")
            return runSyntheticCommand(argc, argv);
        if (command == "decide")
            return runDecideCommand(argc, argv);
        if (command == "presets")
            return runPresetsCommand(argc, argv);
        throw UsageError("unknown command \"" + command + "\" (see lcstudio-cli --help)");
    } catch (const UsageError& e) {
        std::fprintf(stderr, "lcstudio-cli: %s\n", e.what());
        return kExitUsage;
    } catch (const lcs::Cancelled&) {
        std::fprintf(stderr, "\nlcstudio-cli: interrupted\n");
        return kExitCancelled;
    } catch (const c10::Error& e) {
        std::fprintf(stderr, "lcstudio-cli: %s\n", e.what_without_backtrace());
        return kExitFailure;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "lcstudio-cli: %s\n", e.what());
        return kExitFailure;
    }
}
