// lcstudio-cli: the headless front end. Same engine as the GUI, no Qt.
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <strings.h>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

#include <ATen/Parallel.h>
#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "app/cli_commands.h"
#include "app/cli_flags.h"
#include "app/cli_support.h"
#include "base/core/atomic_file.h"
#include "base/core/input_error.h"
#include "base/core/json_input.h"
#include "base/core/number_format.h"
#include "base/core/version.h"
#include "base/io/session_file.h"
#include "base/io/table_csv.h"
#include "base/io/tabular_csv.h"
#include "base/models/architectures.h"
#include "datasets/camvid_reader.h"
#include "datasets/cifar_reader.h"
#include "datasets/file_checks.h"
#include "datasets/idx_reader.h"
#include "datasets/image_data.h"
#include "engine/calibration/own_predictive.h"
#include "engine/core/threads.h"
#include "engine/decision/decisions.h"
#include "engine/experiments/camvid/camvid_experiment.h"
#include "engine/experiments/experiment.h"
#include "engine/experiments/image/corruption_experiment.h"
#include "engine/experiments/image/selective_experiment.h"
#include "engine/experiments/synthetic/synthetic_experiment.h"
#include "engine/experiments/synthetic/synthetic_report.h"
#include "engine/experiments/synthetic/synthetic_settings.h"
#include "engine/io/model_io.h"

using namespace cli;

void cli::checkDeviceFlag(const std::string& value)
{
    try {
        lcs::resolveDevice(value);
    } catch (const std::invalid_argument& e) {
        throw UsageError(std::string("--device: ") + e.what());
    }
}

namespace {

/// A session's device, checked as the --device flag is (a CUDA device where this
/// LibTorch build or machine has none is bad input, not a failed run): by run and check.
void checkSessionDevice(const nlohmann::json& settings)
{
    const auto device = settings.find("device");
    if (device != settings.end() && device->is_string())
        checkDeviceFlag(device->get<std::string>());
}

/// The top-level help: the experiments' lines come from the registry.
std::string topHelp()
{
    std::string out = "lcstudio-cli - post-hoc loss calibration of Bayesian neural networks, headless\n\nUsage:\n";
    auto line = [&](const std::string& usage, const std::string& what) {
        out += "  lcstudio-cli " + usage + std::string(usage.size() < 23 ? 23 - usage.size() : 1, ' ') + what + "\n";
        if (usage.size() >= 23)  // a long usage: its help on a line of its own
            out.insert(out.size() - what.size() - 2, "\n" + std::string(37, ' '));
    };
    for (const auto* e : lcs::ExperimentRegistry::global().all()) {
        line(e->command() + " [options]", e->title());
        std::string actions;
        for (const auto& action : lcs::commandLineActions(*e))
            actions += (actions.empty() ? "" : "|") + action.name;
        if (!actions.empty())
            line(e->name() + " " + actions, "its actions (see lcstudio-cli " + e->name() + " --help)");
    }
    line("run SESSION", "replay a session saved by the window");
    line("sweep plan|run|collect", "a session over a grid of settings, local or on Slurm");
    line("decide [options]", "decisions from a saved network (q, S, MAP, any exported classifier)");
    line("presets [NAME]", "list the paper's cost matrices, or print one as JSON");
    line("check FILE...", "check cost matrices, sessions, saved models and data");
    line("bench distill", "time distillation against this machine's sgemm peak");
    line("bench tabular", "time the table methods (BBVI, SGHMC, KFAC-Laplace, q) against the same peak");
    line("bench camvid", "time CamVid training's step (the preset's SegNet) against the same peak");
    out += R"(  lcstudio-cli --help | --version

Run "lcstudio-cli COMMAND --help" for the options of a command.
Exit status: 0 success, 1 failure, 2 bad usage, bad input or an output that cannot be
written (the message names the flag, file or field), 130 interrupted.
)";
    return out;
}

const char* kCheckHelp = R"(lcstudio-cli check - check LC Studio files without running anything

Usage: lcstudio-cli check FILE...
Reads each file with the same checks the window and the other commands apply and
prints one line per file: "ok: ..." with a summary, or the problem (naming the file
and the field). Kinds, by name: *.cost (Weka cost matrix), *.lcsession (session:
its fields, then the data, table, arrays or folder it names read and the matrix fitted
to them, as run reads them before any work, so check passes what run accepts),
*.pt (saved network: its *.pt.json sidecar and the weights it is tied to), *.json
(a cost matrix, a session / model sidecar by its "format" field, or a results file,
checked as the session its run record replays), *.npy and *.csv arrays of numbers
(as correct reads them; a CSV with text cells as a table, as tabular reads it with its
default label column), IDX files (*-ubyte, *-ubyte.gz), CIFAR-10 batches (*.bin), and
data folders: MNIST-like IDX,
CIFAR-10 binary, or CamVid (every frame of train, val and test is decoded and its
labels checked).
Exit status 0 when every file is fine, 2 otherwise.
)";

const char* kRunHelp = R"(lcstudio-cli run - replay a session saved by the window (or written by hand)

Usage: lcstudio-cli run SESSION.lcsession [--data D] [--json FILE] [--csv FILE] [--quiet]
Runs the session's experiment with its settings, seeds and cost matrix, exactly as the
experiment's own command runs them, and prints the same table. Sessions of the previous
version (1) are read and converted. A results file (--json of any experiment) is a
session too: its run record's experiment, settings and cost matrix repeat that run.
  --data D     the data folder or name, instead of the session's (experiments with data)
  --json FILE  write results as JSON (atomically)
  --csv FILE   write results as CSV (atomically)
  --quiet      no progress on stderr
)";

int runSessionCommand(int argc, char** argv)
{
    auto own = outputFlagSpecs(lcs::resultsOutputs());
    own.insert(own.end(), {{"SESSION", true}, {"--data", true}, {"--quiet", false}});
    const auto parsed = parseFlags(argc, argv, 2, "run", {}, own, kRunHelp);
    if (parsed.help) {
        std::fputs(kRunHelp, stdout);
        return kExitOk;
    }
    const auto given = parsed.values.find("SESSION");
    if (given == parsed.values.end())
        throw UsageError("run: no SESSION file given (see lcstudio-cli run --help)");
    const std::string sessionPath = given->second;
    const auto session = lcs::loadSessionFile(sessionPath, lcs::sessionCatalogue());
    const auto& experiment = lcs::ExperimentRegistry::global().get(session.experiment);
    auto settings = session.settings;
    if (parsed.values.count("--data")) {
        const auto specs = experiment.settings();
        const auto* data = lcs::findSetting(specs, lcs::kDataSetting);
        if (!data)
            throw UsageError("run: --data is for experiments that read data; " + sessionPath + " is a " +
                             session.experiment + " session");
        settings[data->name] = lcs::parseSettingValue(*data, parsed.values.at("--data"));
    }
    checkSessionDevice(settings);
    auto inputs = experiment.inputPaths(settings);
    inputs.push_back({"SESSION", sessionPath, lcs::PathKind::File});
    const CommandOutputs outputs(experiment.outputs(), parsed.values, inputs);
    return executeExperiment(experiment, settings, session.costs, outputs, parsed.switches.count("--quiet") > 0);
}

/// A data folder: CIFAR-10 binary, MNIST-like IDX, or CamVid (every frame of every split
/// among train, val and test is decoded and its labels checked).
std::string checkDataFolder(const std::string& dir)
{
    auto exists = [&](const std::string& name) {
        struct stat info {};
        return ::stat((dir + "/" + name).c_str(), &info) == 0;
    };
    const bool camvid = exists("train.txt") || exists("val.txt") || exists("test.txt") || exists("trainannot") ||
                        exists("valannot") || exists("testannot");
    if (!camvid) {
        const auto data = lcs::loadImageDataset(dir);
        std::string shape;
        for (auto d : data.inputShape)
            shape += (shape.empty() ? "" : "x") + std::to_string(d);
        return "image folder: " + std::to_string(data.train.size()) + " training and " +
               std::to_string(data.test.size()) + " test images of " + shape + ", " +
               std::to_string(data.classes()) + " classes";
    }
    std::string summary = "CamVid folder:";
    for (const char* split : {"train", "val", "test"}) {
        if (!exists(std::string(split) + ".txt") && !exists(split))
            continue;
        const auto pairs = lcs::findCamvidSplit(dir, split);
        int height = 0, width = 0;
        for (const auto& pair : pairs) {
            const auto frame = lcs::readCamvidFrame(pair);
            height = frame.height;
            width = frame.width;
            g_cancel.throwIfCancelled();
        }
        summary += std::string(" ") + split + " " + std::to_string(pairs.size()) + " frames (last " +
                   std::to_string(height) + "x" + std::to_string(width) + "),";
    }
    if (summary.back() != ',')
        throw lcs::InputError(dir + ": a CamVid folder, but none of its splits (train, val, test) has both "
                                    "frames and labels (SPLIT/ with SPLITannot/, or SPLIT.txt)");
    summary.back() = '.';
    return summary + " labels 0..11 (11 = void)";
}

std::string describe(const lcs::CostMatrix& m)
{
    return std::to_string(m.numClasses()) + "-class cost matrix" + (m.hasReferral() ? " with referral" : "") +
           ", M = " + lcs::formatNumber(m.utilityConstant());
}

/// The label column `tabular` reads when given none: its declared setting's default.
std::string tabularDefaultLabel()
{
    for (const auto& spec : lcs::ExperimentRegistry::global().get(lcs::kTabularExperiment).settings())
        if (spec.name == "label")
            return spec.defaultValue.get<std::string>();
    return "label";
}
/// What check says of a table: as `tabular` reads it, and the command that runs it.
std::string tableSummary(const lcs::TabularData& t)
{
    return "table: " + lcs::describeTable(t) + "; lcstudio-cli tabular --data FILE";
}

/// "session: corruption (rates 0.5, methods sgld_s,ours, ...), 10-class cost matrix, M = 1":
/// the settings that have a value, in their declared order.
std::string sessionSummary(const lcs::SessionData& s)
{
    std::string given;
    for (const auto& spec : lcs::ExperimentRegistry::global().get(s.experiment).settings()) {
        const auto& v = s.settings.at(spec.name);
        if (v.is_null() || (v.is_string() && v.get<std::string>().empty()))  // an unset path
            continue;
        std::string text = v.is_string() ? v.get<std::string>() : v.dump();
        if (v.is_array()) {
            text.clear();
            for (const auto& item : v)
                text += (text.empty() ? "" : ",") + (item.is_string() ? item.get<std::string>() : item.dump());
        }
        given += (given.empty() ? "" : ", ") + spec.name + " " + text;
    }
    return "session: " + s.experiment + " (" + given + "), " + describe(s.costs);
}

/// Whether `path` ends with `suffix`, in any case: the readers go by content, and
/// M.COST is a Weka matrix.
bool endsWithCaseless(const std::string& path, const char* suffix)
{
    const size_t n = std::strlen(suffix);
    return path.size() >= n && strcasecmp(path.c_str() + path.size() - n, suffix) == 0;
}

/// A saved network: what it is and, for a kept rule, what its forward needs.
std::string checkedNetwork(const std::string& path)
{
    const auto loaded = lcs::loadClassifier(path);
    const auto& rule = loaded.info.decisionRule;
    return "network " + loaded.spec.describe() + " (" + (loaded.info.role.empty() ? "model" : loaded.info.role) + ", "
           + (loaded.info.method.empty() ? "unknown method" : loaded.info.method) + "), weights match the sidecar"
           + (rule.empty() ? std::string()
              : rule == "q" ? std::string("; the kept rule q: forward(x, p) needs P")
                            : "; the kept rule " + rule + " (P" + (rule == "P" ? "" : " calibrated") +
                                  " inside, the network zero): forward(x, p) needs P")
           + (loaded.info.collapsed ? "; warning: q collapsed when it was trained" : "");
}

/// A JSON file of any kind LC Studio reads, told apart by its "format" (or its run record).
std::string checkedJson(const std::string& path)
{
    // Sniffs the kind with room for the largest file any reader takes; the reader of
    // that kind then applies its own limits, exactly as the commands that read it.
    const std::string text = lcs::readFile(path, size_t{16} << 20);
    const auto j = lcs::parseJsonInput(text, path, lcs::JsonLimits{size_t{16} << 20, 32});
    std::string format;
    if (j.is_object() && j.contains("format") && j["format"].is_string())
        format = j["format"].get<std::string>();
    if (format == "lcstudio-session")
        return checkedSession(lcs::sessionFromJson(text, path, lcs::sessionCatalogue()), path);
    // A results file: checked as the session its run record is (what `run` replays).
    if (format.empty() && j.is_object() && j.contains("run") && j["run"].is_object())
        return "results file, a replayable " +
               checkedSession(lcs::sessionFromJson(text, path, lcs::sessionCatalogue()), path);
    if (format == "lcstudio-camvid-models")
        return lcs::checkCamvidModelFolder(std::filesystem::path(path).has_parent_path()
                                               ? std::filesystem::path(path).parent_path().string()
                                               : std::string("."));
    if (format == "lcstudio-model") {
        const auto info = lcs::modelInfoFromJson(text, path);
        return "model sidecar for a " + std::to_string(info.parameterCount()) + "-parameter network";
    }
    return describe(lcs::loadCostMatrix(path));
}

/// A .npy or .csv array; a CSV with a header also as tabular would read it, and a CSV
/// of text cells as a table only.
std::string checkedArrayOrTable(const std::string& path, bool csv)
{
    try {
        const auto array = lcs::readNumericArray(path, "check", 1, 3, size_t{1} << 28);
        std::string shape;
        for (auto d : array.shape)
            shape += (shape.empty() ? "" : "x") + std::to_string(d);
        // Every command that reads arrays (correct's X, P and labels, decide --points)
        // needs rows: an empty one passes no command's check.
        if (!array.shape.empty() && array.shape[0] == 0)
            throw lcs::InputError(path + ": an array " + shape + " holds no rows; no command reads an empty array");
        std::string out = "array " + shape + " of finite numbers";
        // A CSV with a header line may be meant as a table for tabular too: what
        // tabular would make of it follows, accepted or refused, so that check says
        // what run would (numbers only, a label column of fractions is refused there).
        if (csv && !lcs::parseNumericCsv(lcs::readFile(path, size_t{1} << 28), path, size_t{1} << 28).header.empty()) {
            const auto set = tabularDefaultLabel();
            const std::string label = set.empty() ? lcs::kDefaultLabelColumn : set;
            try {
                out += "; as a table for tabular (label column \"" + label + "\"): " +
                       tableSummary(lcs::readTable(path, set, lcs::kMaxTableValues, lcs::MissingValues::Impute));
            } catch (const lcs::InputError& asTable) {
                out += "; tabular would refuse it as a table (label column \"" + label + "\"; another: tabular "
                       "--label COLUMN): " + asTable.what();
            }
        }
        return out;
    } catch (const lcs::InputError& asArray) {
        struct stat info {};
        if (!csv || ::stat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode))
            throw;  // no file to read as a table either
        // A CSV of text cells may be a table for `tabular` (its default label column).
        const auto set = tabularDefaultLabel();
        const std::string label = set.empty() ? lcs::kDefaultLabelColumn : set;
        try {
            return tableSummary(lcs::readTable(path, set, lcs::kMaxTableValues, lcs::MissingValues::Impute));
        } catch (const lcs::InputError& asTable) {
            throw lcs::InputError(std::string(asArray.what()) + "; nor is it a table for tabular with the label "
                                  "column \"" + label + "\" (another: tabular --label COLUMN): " + asTable.what());
        }
    }
}

/// One line about one file, or throws InputError / CostMatrixError naming the problem.
std::string checkFile(const std::string& path)
{
    if (path == "-")
        throw lcs::InputError("\"-\" (standard input) is not read; give a file name");
    const auto endsWith = [&](const char* suffix) { return endsWithCaseless(path, suffix); };
    if (endsWith(".pt"))
        return checkedNetwork(path);
    if (endsWith(".lcsession"))
        return checkedSession(lcs::loadSessionFile(path, lcs::sessionCatalogue()), path);
    if (endsWith(".cost"))
        return describe(lcs::loadCostMatrix(path));
    if (endsWith(".json"))
        return checkedJson(path);
    if (endsWith("-ubyte") || endsWith("-ubyte.gz") || endsWith(".idx") || endsWith(".idx.gz")) {
        const auto idx = lcs::readIdxFile(path);
        std::string shape;
        for (auto d : idx.shape)
            shape += (shape.empty() ? "" : "x") + std::to_string(d);
        return "IDX array " + shape + " of unsigned bytes";
    }
    if (endsWith(".npy") || endsWith(".csv"))
        return checkedArrayOrTable(path, endsWith(".csv"));
    if (lcs::isArffPath(path))
        return tableSummary(lcs::readTable(path, tabularDefaultLabel(), lcs::kMaxTableValues, lcs::MissingValues::Impute));
    if (endsWith(".bin")) {
        const auto batch = lcs::parseCifarBatch(lcs::readFile(path, lcs::kMaxCifarBatchBytes), path);
        return "CIFAR-10 batch of " + std::to_string(batch.size()) + " images";
    }
    if (lcs::isDirectory(path))
        return std::filesystem::exists(path + "/camvid.json") ? lcs::checkCamvidModelFolder(path)
                                                              : checkDataFolder(path);
    struct stat info {};
    if (::stat(path.c_str(), &info) != 0)
        throw lcs::InputError(path + ": no such file or directory");
    throw lcs::InputError(path + ": unknown kind of file (expected .json, .cost, .lcsession, .pt, IDX "
                                 "(*-ubyte[.gz]), a CIFAR-10 .bin batch or a data folder)");
}

int runCheckCommand(int argc, char** argv)
{
    if (argc <= 2)
        throw UsageError("check: no FILE given (see lcstudio-cli check --help)");
    const std::string first = argv[2];
    if (first == "-h" || first == "--help") {
        std::fputs(kCheckHelp, stdout);
        return kExitOk;
    }
    int status = kExitOk;
    for (int i = 2; i < argc; ++i) {
        try {
            std::printf("ok: %s: %s\n", argv[i], checkFile(argv[i]).c_str());
        } catch (const lcs::InputError& e) {
            std::fprintf(stderr, "lcstudio-cli: %s\n", e.what());
            status = kExitUsage;
        }
    }
    return status;
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
    if (argc > 3)
        throw UsageError("presets: one NAME at most (got \"" + std::string(argv[3]).substr(0, 40) + "\" too)");
    try {
        std::fputs(lcs::costMatrixToJson(lcs::costPreset(name)).c_str(), stdout);
    } catch (const lcs::CostMatrixError& e) {
        throw UsageError(e.what());
    }
    return kExitOk;
}

} // namespace

/// A session checked as `run` takes it: its own fields, then everything its run reads
/// (data, table, arrays, model folders) with the matrix fitted to it, by the experiment's
/// own first step (Experiment::checkInputs), so that check passes what run accepts.
std::string cli::checkedSession(const lcs::SessionData& s, const std::string& path)
{
    std::string read;
    try {
        checkSessionDevice(s.settings);
        read = lcs::ExperimentRegistry::global().get(s.experiment).checkInputs(s.settings, s.costs);
    } catch (const lcs::InputError& e) {
        throw lcs::InputError(path + " (what its run reads): " + e.what());
    }
    return sessionSummary(s) + (read.empty() ? "" : "; " + read);
}


int cli::runCli(int argc, char** argv)
{
    if (argc < 2) {
        std::fputs(topHelp().c_str(), stderr);
        return kExitUsage;
    }
    const std::string command = argv[1];
    try {
        if (command == "-h" || command == "--help" || command == "help" || command == "--version") {
            if (argc > 2)
                throw UsageError(command + ": unexpected argument \"" + std::string(argv[2]).substr(0, 40) +
                                 "\" (for a command's options: lcstudio-cli COMMAND --help)");
        }
        if (command == "-h" || command == "--help" || command == "help") {
            std::fputs(topHelp().c_str(), stdout);
            return kExitOk;
        }
        if (command == "--version") {
            std::printf("lcstudio-cli %s\n", lcs::programVersion());
            return kExitOk;
        }
        if (command == "decide")
            return runDecideCommand(argc, argv);
        if (command == "check")
            return runCheckCommand(argc, argv);
        if (command == "run")
            return runSessionCommand(argc, argv);
        if (command == "bench")
            return runBenchCommand(argc, argv);
        if (command == "sweep")
            return runSweepCommand(argc, argv);
        if (command == "presets")
            return runPresetsCommand(argc, argv);
        if (const auto* experiment = lcs::ExperimentRegistry::global().find(command))
            return lcs::commandLineActions(*experiment).empty() ? runExperimentCommand(*experiment, argc, argv)
                                                 : runExperimentGroupCommand(*experiment, argc, argv);
        throw UsageError("unknown command \"" + command + "\" (see lcstudio-cli --help)");
    } catch (const lcs::InputError& e) {  // UsageError included
        std::fprintf(stderr, "lcstudio-cli: %s\n", e.what());
        return kExitUsage;
    } catch (const lcs::OutputError& e) {
        std::fprintf(stderr, "lcstudio-cli: %s\n", e.what());
        return kExitUsage;
    } catch (const lcs::Cancelled&) {
        std::fprintf(stderr, "\nlcstudio-cli: interrupted\n");
        return g_cancelSignal > 0 ? 128 + g_cancelSignal : kExitCancelled;
    } catch (const c10::Error& e) {
        std::fprintf(stderr, "lcstudio-cli: %s\n", e.what_without_backtrace());
        return kExitFailure;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "lcstudio-cli: %s\n", e.what());
        return kExitFailure;
    }
}
