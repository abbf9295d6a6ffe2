#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/core/atomic_file.h"
#include "base/core/outputs.h"
#include "base/core/settings.h"
#include "base/decision/cost_matrix.h"
#include "base/io/session_file.h"
#include "engine/core/job.h"
#include "engine/experiments/results_document.h"

/// The experiment model: each experiment declares itself once, as an Experiment, and the
/// registry lists them. The command line (`lcstudio-cli NAME`, its flags and --help), the
/// window's job runner and the results files are derived from these declarations, so an
/// experiment added to the registry runs everywhere without a change to another file.
/// Plain C++: no Qt.
namespace lcs {

/// What a run leaves for re-correcting under new costs (a cached posterior predictive or
/// student S): held by the caller between jobs, used on one thread at a time.
class RecorrectionState {
public:
    virtual ~RecorrectionState() = default;
    /// One line for the window: what is cached and what a cost edit re-trains.
    virtual std::string describe() const = 0;
    /// The matrix q was last trained for (the one a cost editor starts from).
    virtual CostMatrix costs() const = 0;
    /// Re-trains only q for `costs` and scores it.
    virtual ExperimentOutput recorrect(const CostMatrix& costs, const JobContext& ctx) = 0;
    /// As recorrect(costs, ctx), with q's settings from `settings` (a page's form: its
    /// correction settings, threads, device) where the state takes them; the default
    /// leaves them.
    virtual ExperimentOutput recorrect(const CostMatrix& costs, const nlohmann::json& settings, const JobContext& ctx);
    /// Saves the model of one task of the last correction at `path`, with what it needs
    /// beside it: `series` names the task's method (or the page's series for a state of
    /// one task). Returns the files written; InputError where the state has no such model
    /// (the default: a state that saves no model from a page).
    virtual std::vector<std::string> saveModel(int replicate, const std::string& series, const std::string& path) const;
    /// The posterior predictives the state holds (0 where it holds none).
    virtual int predictiveCount() const { return 0; }
    /// Writes every network of the last run into the model folder `folder`; returns the
    /// files written. InputError where the state saves no folder (the default).
    virtual std::vector<std::string> saveModels(const std::string& folder) const;
};

/// Where a run writes the outputs it declared beyond the results files (outputs() names
/// them: saved networks, curves): output name -> path; a name absent or empty was not
/// asked for. The front end checked every path with the output policy before the run;
/// the run writes each one whole or not at all (OutputFolder, writeOutputFile). The
/// results files themselves (json, csv) are the front end's to write, from
/// ExperimentRun::output. With `together` set (the command line), the run only stages
/// its outputs there, and the front end commits them with the results files, last, all
/// or none: a full disk on --json then leaves --save-models as it was too.
struct OutputPaths : std::map<std::string, std::string> {
    using std::map<std::string, std::string>::map;
    OutputSet* together = nullptr;
    /// The path asked for `name`; empty when it was not asked for.
    std::string path(const std::string& name) const;
};

/// The folder output `name` of a run (--save-models, --out): files are written into
/// path(), and commit() puts them in place, all of them or none (or, with
/// OutputPaths::together, leaves that to the front end). Not asked for: asked() is false.
class OutputFolder {
public:
    OutputFolder(const OutputPaths& outputs, const std::string& name);
    bool asked() const { return !m_target.empty(); }
    /// Where to write the folder's files now (a staging folder).
    const std::string& path() const { return m_path; }
    /// The folder the user named, for messages and for writes after the run.
    const std::string& target() const { return m_target; }
    void commit();

private:
    std::optional<StagedFolder> m_own;
    std::string m_path, m_target;
};

/// Writes the file output `name` with `contents`, atomically, or stages it in
/// OutputPaths::together; nothing when it was not asked for.
void writeOutputFile(const OutputPaths& outputs, const std::string& name, const std::string& contents);

struct ExperimentRun {
    ExperimentOutput output;
    std::shared_ptr<RecorrectionState> cache;  ///< null: nothing to re-correct
};

/// Something an experiment does besides its run, on what a run leaves (CamVid's model
/// folder: train one, re-train its q, evaluate it, time it). Declared like the run: its
/// settings, drawn from the experiment's one declaration so that a setting means the same
/// in every action, and its outputs. `lcstudio-cli COMMAND ACTION`, its flags and --help
/// are derived from it; runExperimentAction runs it under the same thread policy.
struct ExperimentAction {
    std::string name;          ///< "train"
    std::string summary;       ///< one line for the command list
    std::string description;   ///< a paragraph for --help
    std::vector<SettingSpec> settings;
    std::vector<OutputSpec> outputs;
    bool takesCosts = true;    ///< whether it decides under a cost matrix (--costs)
    std::string costsHelp;     ///< the help of --costs; empty: the experiment's
    /// Offered as `lcstudio-cli COMMAND ACTION`; false: one of the window's actions only
    /// (kSampleAction, kEvaluateAction), run through runExperimentAction like every other.
    bool onCommandLine = true;
};

/// The window's actions, by the names an experiment declares them under: sampling alone
/// (the run's state to re-correct, no q trained), and a saved model deciding the data the
/// settings name (its path the setting kSavedModelSetting).
inline constexpr const char* kSampleAction = "sample";
inline constexpr const char* kEvaluateAction = "evaluate";
inline constexpr const char* kSavedModelSetting = "model";

/// The setting kEvaluateAction reads its model from: a file (or, for `folder`, a
/// folder) that must be given.
SettingSpec savedModelSetting(const std::string& help, bool folder = false);

/// One experiment, declared once.
class Experiment {
public:
    virtual ~Experiment() = default;
    /// The experiment's id: its command, its session files' and results' "experiment".
    virtual std::string name() const = 0;
    /// The lcstudio-cli command line that runs it: its name, or "NAME run" where NAME is a
    /// group of commands (camvid's train / eval / ... work on saved models).
    virtual std::string command() const { return name(); }
    /// One line for menus and the command list: "label corruption (paper Fig. 4)" (the
    /// window's experiment chooser shows it with a capital).
    virtual std::string title() const = 0;
    /// What a run does, a paragraph for --help.
    virtual std::string description() const = 0;
    /// Its settings: name, kind, default, range, unit, help, preset values.
    virtual std::vector<SettingSpec> settings() const = 0;
    /// What a run writes, declared beside the settings: the flag, kind and help of each
    /// output. By default the results files (JSON and CSV). The command line derives its
    /// output flags and their help from this, and every path given is checked by the
    /// output policy (core/outputs.h) before any work.
    virtual std::vector<OutputSpec> outputs() const { return resultsOutputs(); }
    /// The paths among `settings` (checked) that a run reads: the settings a form browses
    /// for (data folders). The output policy keeps outputs off them.
    std::vector<CommandPath> inputPaths(const nlohmann::json& settings) const;
    /// The same among the declarations `specs` (an action's).
    std::vector<CommandPath> inputPaths(const nlohmann::json& settings, const std::vector<SettingSpec>& specs) const;
    /// The folder a browsed setting's value reads: the value itself, or the folder a name
    /// stands for ("mnist" -> $LCS_MNIST_DIR), so that a name protects its folder too.
    virtual std::string inputFolder(const std::string& value) const { return value; }
    /// The method catalogue's ids this experiment offers (the catalogue's rows for name()).
    virtual std::vector<std::string> methods() const;
    /// The cost matrix a run decides under when the user gives none.
    virtual CostMatrix defaultCosts(const nlohmann::json& settings) const = 0;
    /// A user's matrix as a run takes it, checked as far as it can be without the data
    /// (a session file is checked with this on opening; class counts that depend on the
    /// data are checked by run). Throws CostMatrixError or InputError saying what is wrong.
    /// By default: as many classes as defaultCosts under the default settings, and a
    /// referral column only where that has one (experiments whose classes depend on
    /// their settings or data say their own).
    virtual CostMatrix acceptedCosts(const CostMatrix& costs) const;
    /// Reads everything a run of `settings` reads (its data, table, arrays, model
    /// folders) and checks `costs` against what it read, by the code run() itself starts
    /// with, then stops before any work: `check SESSION` passes exactly what `run SESSION`
    /// accepts. Returns one line on what was read (empty where a run reads nothing but its
    /// settings); throws InputError / CostMatrixError as run() would. By default:
    /// acceptedCosts.
    virtual std::string checkInputs(const nlohmann::json& settings, const std::optional<CostMatrix>& costs) const;
    /// The help of --costs for this experiment's command (which classes, the default).
    virtual std::string costsHelp() const { return "cost matrix (.json or Weka .cost); default: the experiment's"; }
    /// The intra-op threads a run of `settings` wants when `cores` are free for it: 1 by
    /// default (small networks, or an experiment that runs its own tasks in parallel);
    /// experiments of large products (ResNet-18, SegNet) take the cores. Read only by
    /// runExperiment, the one place threads are configured for a run.
    virtual int intraOpThreads(const nlohmann::json& settings, int cores) const { return 1; }
    /// Runs it. `settings` maps setting names to values (checkedSettings); `costs`
    /// none: defaultCosts; `outputs` the declared outputs asked for. Declares its plan
    /// through ctx.declarePlan before the work, reports progress with task identities
    /// from that plan. Throws InputError for bad settings or costs, Cancelled when ctx is
    /// cancelled. Front ends call runExperiment, not this.
    virtual ExperimentRun run(const nlohmann::json& settings, const std::optional<CostMatrix>& costs,
                              const JobContext& ctx, const OutputPaths& outputs) const = 0;
    /// Its further actions (none by default).
    virtual std::vector<ExperimentAction> actions() const { return {}; }
    /// Runs the action called `action` with `settings` checked against its declaration,
    /// as run() does. Front ends call runExperimentAction, not this. By default: there is
    /// no such action (InputError).
    virtual ExperimentRun act(const std::string& action, const nlohmann::json& settings,
                              const std::optional<CostMatrix>& costs, const JobContext& ctx,
                              const OutputPaths& outputs) const;
};

/// The action of `experiment` called `name`, or nothing.
std::optional<ExperimentAction> findAction(const Experiment& experiment, const std::string& name);
/// The actions `lcstudio-cli COMMAND ACTION` offers (ExperimentAction::onCommandLine): an
/// experiment with none is a command of its own, not a group.
std::vector<ExperimentAction> commandLineActions(const Experiment& experiment);

/// Who else needs the cores while a run works: the window keeps one for its GUI thread.
enum class CoreShare { AllCores, LeaveOneForGui };

/// The intra-op threads a run of `experiment` with `settings` gets: its intraOpThreads
/// over the physical cores, less one where the GUI shares them. The policy of every
/// route, applied by configureRunThreads.
int runThreads(const Experiment& experiment, const nlohmann::json& settings, CoreShare share);

/// Configures the calling thread's intra-op threads (OpenMP: every run sets its own) by
/// runThreads: a threads setting the user gave holds as given (its numbers repeat bit for
/// bit); otherwise the count is a ceiling that follows the other processes' load.
/// runExperiment calls it; so do the window's jobs that run part of an experiment (a
/// CamVid model evaluation, a synthetic re-sampling).
void configureRunThreads(const Experiment& experiment, const nlohmann::json& settings, CoreShare share);

/// The one way every front end runs an experiment (a command, `run SESSION`, a sweep's
/// cell, the window's job): configures the calling thread's intra-op threads for it
/// (Experiment::intraOpThreads over the physical cores, less one where the GUI shares
/// them), then runs it.
ExperimentRun runExperiment(const Experiment& experiment, const nlohmann::json& settings,
                            const std::optional<CostMatrix>& costs, const JobContext& ctx,
                            const OutputPaths& outputs = {}, CoreShare share = CoreShare::AllCores);
/// The same for one of the experiment's actions: the threads policy, then Experiment::act.
ExperimentRun runExperimentAction(const Experiment& experiment, const std::string& action,
                                  const nlohmann::json& settings, const std::optional<CostMatrix>& costs,
                                  const JobContext& ctx, const OutputPaths& outputs = {},
                                  CoreShare share = CoreShare::AllCores);

/// The experiments this program knows, by name. The built-in ones are there from the
/// start; more can be added (a test adds one).
class ExperimentRegistry {
public:
    /// The program's registry, with the built-in experiments.
    static ExperimentRegistry& global();

    /// Refuses (std::logic_error) an empty or duplicate name.
    void add(std::shared_ptr<const Experiment> experiment);
    /// Puts `experiment` in place of the one with its name (throws std::logic_error when
    /// there is none): how tests inject their data providers. The old entry is kept
    /// alive, so references taken from get() before stay valid (and keep running it).
    void replace(std::shared_ptr<const Experiment> experiment);
    /// The experiment called `name`, or nullptr.
    const Experiment* find(const std::string& name) const;
    /// The experiment called `name`; throws InputError listing the known names.
    const Experiment& get(const std::string& name) const;
    /// Every experiment, in the order they were added.
    std::vector<const Experiment*> all() const;

private:
    std::vector<std::shared_ptr<const Experiment>> m_experiments;
    std::vector<std::shared_ptr<const Experiment>> m_replaced;
};

/// What session files need to know of the experiments in `registry` (their declared
/// settings and the matrices they accept): sessions are read with
/// `sessionFromJson(text, source, sessionCatalogue())`.
SessionCatalogue sessionCatalogue(const ExperimentRegistry& registry = ExperimentRegistry::global());

/// Adds the paper's experiments (synthetic, corruption, selective, camvid) to `registry`.
void addBuiltinExperiments(ExperimentRegistry& registry);

} // namespace lcs
