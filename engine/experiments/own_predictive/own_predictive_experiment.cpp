#include "engine/experiments/own_predictive/own_predictive_experiment.h"

#include "engine/experiments/correction_settings.h"

#include <chrono>
#include <cmath>
#include <cstdio>

#include "base/core/atomic_file.h"
#include "base/core/input_error.h"
#include "base/core/number_format.h"
#include "base/io/labels_file.h"
#include "base/io/observations.h"
#include "base/io/table_csv.h"
#include "engine/experiments/experiment.h"
#include "engine/experiments/report_json.h"
#include "engine/experiments/run_record.h"
#include "engine/experiments/plane_view_builder.h"
#include "engine/experiments/run_views.h"
#include "engine/experiments/synthetic/synthetic_settings.h"
#include "engine/io/model_io.h"

namespace lcs {

namespace {

/// Caps: 64 M numbers per array (512 MB as float64).
constexpr size_t kMaxArrayValues = size_t{64} << 20;

/// The predictive's 0/1 matrix: K classes, no names (P does not name its classes).
CostMatrix predictiveDefaultCosts(const OwnPredictiveChoices& choices)
{
    if (choices.predictivePath.empty())
        throw InputError("setting \"predictive\" is required");
    const auto p = readNumericArray(choices.predictivePath, "--predictive", 2, 3, kMaxArrayValues);
    return CostMatrix::zeroOne(static_cast<int>(p.shape.back()));
}

/// A matrix over P's classes, or a CostMatrixError naming P.
void checkOwnCosts(const CostMatrix& costs, const OwnPredictive& own, const std::string& predictivePath)
{
    if (costs.numClasses() != own.probabilities.size(1))
        throw CostMatrixError("the cost matrix has " + std::to_string(costs.numClasses()) + " classes but --predictive " +
                              predictivePath + " has " + std::to_string(own.probabilities.size(1)));
}

class OwnPredictiveExperiment : public Experiment {
public:
    std::string name() const override { return kOwnPredictiveExperiment; }
    std::string title() const override { return "your own predictive (correct any BNN's P)"; }
    std::string description() const override
    {
        return "Trains the correction q post hoc on a posterior predictive made anywhere: X holds N\n"
               "unlabelled inputs (N x D), P their predictive from any Bayesian model (N x K probabilities,\n"
               "or T x N x K of T posterior samples, averaged), each as .npy (float32/float64,\n"
               "little-endian) or CSV. q, an MLP on the features as they are, trains exactly as in the\n"
               "synthetic experiment. Prints how many decisions q changed and the mean expected cost\n"
               "under P before and after.\n"
               "Every row of P must sum to 1 within 0.001. q standardises X itself (the statistics are stored in\n"
               "q.pt). By default q is a residual on P (q = P x exp(f(x)), f starting at 0), so it needs P\n"
               "wherever it decides: q.pt's forward takes (x, p). --q-form standalone trains the paper's q, a\n"
               "network of x alone. With --labels the run splits X's rows into rows q trains on, validation\n"
               "rows (temperature and class offsets are fitted there, and P's decisions replace q's if q costs\n"
               "more there) and test rows, and prints the held-out evidence: cost, accuracy, referral rate,\n"
               "ECE and confusion of P, q and the baselines, the paired change against P with a bootstrap 95%\n"
               "interval, and a verdict.\n";
    }
    std::vector<SettingSpec> settings() const override { return specsOf(ownPredictiveSettings()); }
    std::vector<OutputSpec> outputs() const override
    {
        auto outputs = resultsOutputs("write one row per row of X (its decisions before and after) as CSV");
        outputs.push_back({"out", "DIR", PathKind::Folder,
                           "write results.json, decisions.csv, curve.csv, q.pt (TorchScript) with q.pt.json, and "
                           "kept_rule.pt with its sidecar (the kept rule as one model: forward(x, p)); "
                           "all of them or none"});
        outputs.push_back(costBenefitOutput("; needs --labels"));
        outputs.push_back(reliabilityOutput("P's and q's reliability diagrams on the held-out rows (needs --labels"));
        return outputs;
    }
    std::string costsHelp() const override
    {
        return "cost matrix with K classes, P's (.json or Weka .cost); default 0/1";
    }
    CostMatrix defaultCosts(const nlohmann::json& settings) const override
    {
        return predictiveDefaultCosts(choicesFrom(settings));
    }
    /// The classes are P's: checked when P is read.
    CostMatrix acceptedCosts(const CostMatrix& costs) const override { return costs; }
    /// X, P, the labels and test set read and the matrix fitted, by run()'s own first step.
    std::string checkInputs(const nlohmann::json& settings, const std::optional<CostMatrix>& costs) const override
    {
        const auto in = readRunInputs(settings, costs, {});
        return "X " + std::to_string(in.own.features.size(0)) + " x " + std::to_string(in.own.features.size(1)) +
               ", P over " + std::to_string(in.own.probabilities.size(1)) + " classes" +
               (in.choices.labelsPath.empty() ? ", no labels" : ", labels " + in.choices.labelsPath);
    }
    ExperimentRun run(const nlohmann::json& settings, const std::optional<CostMatrix>& costs, const JobContext& ctx,
                      const OutputPaths& outputs) const override
    {
        auto in = readRunInputs(settings, costs, outputs);
        auto state = std::make_shared<OwnPredictiveState>(std::move(in.choices), std::move(in.own), in.matrix,
                                                          std::move(in.evidence));
        showState(ctx, state);
        ExperimentRun out;
        out.output = state->correct(ctx);
        if (in.curvePoints > 0) {
            const auto curve = state->costBenefit(in.curvePoints, ctx);
            out.output.costBenefit = curve;
        }
        if (OutputFolder folder(outputs, "out"); folder.asked()) {
            state->writeFiles(folder.path());  // every file, or none
            folder.commit();
            out.output.table += "written to " + folder.target() +
                                ": results.json, decisions.csv, curve.csv, q.pt (+ q.pt.json), " + kKeptRuleFile +
                                " (+ .json; the kept rule, " + state->keptRule() + ")\n";
        }
        out.cache = std::move(state);
        return out;
    }

private:
    /// What a run reads, read and checked before any work.
    struct RunInputs {
        OwnPredictiveChoices choices;
        OwnPredictive own;
        CostMatrix matrix;
        OwnEvidenceInputs evidence;  ///< the labels and test set, read once
        int curvePoints = 0;         ///< of the cost-benefit curve; 0: none
    };
    /// Refuses what needs labels without them and a curve the matrix cannot draw, reads X
    /// and P, fits the matrix to P and reads the labels and test set.
    static RunInputs readRunInputs(const nlohmann::json& settings, const std::optional<CostMatrix>& costs,
                                   const OutputPaths& outputs)
    {
        RunInputs in;
        in.choices = choicesFrom(settings);
        const bool curveWritten = !outputs.path("cost_benefit").empty();
        const int points = in.choices.correction.costBenefitPoints;
        in.curvePoints = points > 0 ? points : curveWritten ? 9 : 0;
        if (in.choices.labelsPath.empty() && (in.curvePoints > 0 || !outputs.path("reliability").empty()))
            throw InputError(std::string(in.curvePoints > 0 ? (curveWritten ? "--cost-benefit" : "cost_benefit_points")
                                                            : "--reliability") +
                             " needs --labels: it scores decisions and probabilities on labelled rows q never "
                             "trained on");
        in.own = loadOwnPredictive(in.choices);
        if (in.own.features.size(0) < 2)
            throw InputError("--features " + in.choices.featuresPath + ": " +
                             std::to_string(in.own.features.size(0)) +
                             " row(s); q needs at least 2 (rows it trains on, and rows held out to choose its epoch)");
        in.matrix = costs ? *costs : CostMatrix::zeroOne(static_cast<int>(in.own.probabilities.size(1)));
        checkOwnCosts(in.matrix, in.own, in.choices.predictivePath);
        if (in.curvePoints > 0)
            costBenefitAxis(in.matrix, in.curvePoints);
        in.evidence = loadEvidenceInputs(in.choices, in.own, in.matrix);  // refused here if bad
        return in;
    }

    static OwnPredictiveChoices choicesFrom(const nlohmann::json& settings)
    {
        OwnPredictiveChoices c;
        applySettings(ownPredictiveSettings(), settings, c);
        return c;
    }
};

} // namespace

ModelInfo ownQInfo(const OwnCorrectionResult& result, const CostMatrix& costs, uint64_t seed)
{
    ModelInfo info;
    info.role = "q";
    info.experiment = kOwnPredictiveExperiment;
    info.method = "ours";
    info.seed = seed;
    info.costs = costs;
    info.collapsed = result.correction.collapsed;
    info.residualOnPredictive = result.correction.residual;
    if (result.qBase && result.correction.residual) {
        // A residual q corrects the calibrated P: the saved model calibrates the P it is
        // given first. (A standalone q takes x alone; the calibration shaped its training.)
        info.predictiveCalibration = result.qBase->name();
        result.qBase->softmaxAffine(static_cast<int>(costs.numClasses()), info.predictiveScale, info.predictiveShift);
    }
    return info;
}

OwnPredictiveState::OwnPredictiveState(OwnPredictiveChoices choices, OwnPredictive own, CostMatrix costs,
                                       OwnEvidenceInputs evidence)
    : m_choices(std::move(choices)), m_own(std::move(own)), m_costs(std::move(costs)), m_evidence(std::move(evidence))
{
}

std::string OwnPredictiveState::describe() const
{
    return "Your predictive (" + std::to_string(m_own.features.size(0)) + " rows) cached: editing costs re-trains only q.";
}

ExperimentOutput OwnPredictiveState::recorrect(const CostMatrix& costs, const JobContext& ctx)
{
    // Labels given as class names are read under the new matrix's names.
    checkOwnCosts(costs, m_own, m_choices.predictivePath);
    auto evidence = loadEvidenceInputs(m_choices, m_own, costs);
    return correctWith(m_choices, costs, std::move(evidence), ctx);
}

ExperimentOutput OwnPredictiveState::recorrect(const CostMatrix& costs, const nlohmann::json& settings,
                                               const JobContext& ctx)
{
    OwnPredictiveChoices asked;
    applySettings(ownPredictiveSettings(), settings, asked);
    // X and P are the cache: the files the run read, whatever the form says now.
    asked.featuresPath = m_choices.featuresPath;
    asked.predictivePath = m_choices.predictivePath;
    checkOwnCosts(costs, m_own, asked.predictivePath);
    auto evidence = loadEvidenceInputs(asked, m_own, costs);
    return correctWith(std::move(asked), costs, std::move(evidence), ctx);
}

ExperimentOutput OwnPredictiveState::correct(const JobContext& ctx)
{
    return correctWith(m_choices, m_costs, m_evidence, ctx);
}

ExperimentOutput OwnPredictiveState::correctWith(OwnPredictiveChoices choices, CostMatrix costs,
                                                 OwnEvidenceInputs evidence, const JobContext& ctx)
{
    const auto& correction = choices.correction.correction;
    PlaneViewBuilder views(ctx);
    CorrectionObserver observer;
    if (views.active())
        observer = [&](const CorrectionStep& step, MlpImpl& q) {
            views.ownCorrecting(m_own, costs, step, q, correction.residual);
        };
    auto result = correctOwnPredictive(m_own, costs, correction, choices.correction.seed, ctx, observer, evidence);
    // Only a finished correction replaces the last one: its q, costs and settings go together.
    m_choices = std::move(choices);
    m_costs = std::move(costs);
    m_evidence = std::move(evidence);
    m_last = std::move(result);
    views.ownCorrected(m_own, *m_last, m_costs);
    return lastOutput();
}

ExperimentOutput OwnPredictiveState::lastOutput() const
{
    auto out = ownPredictiveOutput(*m_last, m_costs, m_choices);
    out.table = ownPredictiveTable(*m_last, m_costs, m_own, m_evidence.test.readingNotes);
    return out;
}

CostBenefit OwnPredictiveState::costBenefit(int points, const JobContext& ctx) const
{
    if (m_choices.labelsPath.empty())
        throw InputError("the cost-benefit curve needs --labels: it scores each point's decisions on labelled rows");
    CostBenefit out;
    out.axis = costBenefitAxis(m_costs, points);
    // The labels and test set name the same classes at every point: the ones the run read.
    for (const double value : out.axis.values) {
        ctx.checkCancelled();
        const CostMatrix costs = costsAt(m_costs, out.axis.setting, value);
        const auto r = correctOwnPredictive(m_own, costs, m_choices.correction.correction, m_choices.correction.seed,
                                            ctx, {}, m_evidence);
        addEvidenceRows(out, value, kOwnPredictiveMethod, 0, r.evidence);
    }
    return out;
}

std::string ownReliabilityCsv(const OwnCorrectionResult& result)
{
    if (!result.hasEvidence)
        return {};
    DecisionMetrics before, after;
    before.reliability = result.reliabilityBefore;
    after.reliability = result.reliabilityAfter;
    Observation key;
    key.method = kOwnPredictiveMethod;
    key.rule = "uncorrected";
    std::vector<std::pair<Observation, const DecisionMetrics*>> diagrams{{key, &before}};
    key.rule = "corrected";
    diagrams.emplace_back(key, &after);
    return reliabilityCsv(diagrams);
}

void OwnPredictiveState::saveQ(const std::string& path) const
{
    if (!m_last)
        throw InputError("no corrected model yet: run the correction first");
    lcs::saveModel(m_last->correction.q, ownQInfo(*m_last, m_costs, m_choices.correction.seed), path);
}

void OwnPredictiveState::saveKeptRule(const std::string& path) const
{
    if (!m_last)
        throw InputError("no corrected model yet: run the correction first");
    const std::string rule = m_last->hasEvidence ? m_last->evidence.kept : "q";
    lcs::saveKeptRule(m_last->correction.q, ownQInfo(*m_last, m_costs, m_choices.correction.seed), rule,
                      m_last->hasEvidence ? m_last->evidence.calibration(rule) : nullptr, path);
}

std::vector<std::string> OwnPredictiveState::saveModel(int, const std::string&, const std::string& path) const
{
    saveKeptRule(path);
    return {path};
}

void OwnPredictiveState::writeFiles(const std::string& folder) const
{
    if (!m_last)
        throw InputError("no corrected model yet: run the correction first");
    const auto output = lastOutput();
    writeFileAtomically(folder + "/results.json", resultsJson(output));
    writeFileAtomically(folder + "/decisions.csv", resultsCsv(output));
    std::string curve = "step,loss,kl,expected_cost\n";
    for (const auto& s : m_last->correction.curve)
        curve += std::to_string(s.step) + "," + formatNumber(s.loss) + "," + formatNumber(s.kl) + "," +
                 formatNumber(s.expectedCost) + "\n";
    writeFileAtomically(folder + "/curve.csv", curve);
    saveQ(folder + "/q.pt");
    saveKeptRule(folder + "/" + kKeptRuleFile);
}

// Long by design: a declaration table, one entry per setting in the order the form and
// --help list them. Split, the one place a setting is declared would be scattered.
namespace {

/// The settings of the labels and what they are used for: the labelled rows and a test
/// set, how they are shared out, and how the kept rule is chosen and q trained on them.
void appendLabelSettings(std::vector<BoundSetting<OwnPredictiveChoices>>& s)
{
    using C = OwnPredictiveChoices;
    using J = nlohmann::json;
    auto optionalFile = [](const char* name, const char* help) {
        auto spec = textSetting(name, "FILE", help, "");
        spec.browse = SettingBrowse::File;
        return spec;
    };
    s.push_back({optionalFile("labels", "labels of X's rows (a column of class names or indices, or .npy): "
                                        "used only to choose between q and P and to score them"),
                 [](const C& c) { return J(c.labelsPath); }, [](C& c, const J& v) { c.labelsPath = v.get<std::string>(); }});
    s.push_back({optionalFile("test_features", "a separate labelled test set: its inputs (needs --labels)"),
                 [](const C& c) { return J(c.testFeaturesPath); },
                 [](C& c, const J& v) { c.testFeaturesPath = v.get<std::string>(); }});
    s.push_back({optionalFile("test_predictive", "the test set's predictive"),
                 [](const C& c) { return J(c.testPredictivePath); },
                 [](C& c, const J& v) { c.testPredictivePath = v.get<std::string>(); }});
    s.push_back({optionalFile("test_labels", "the test set's labels"),
                 [](const C& c) { return J(c.testLabelsPath); },
                 [](C& c, const J& v) { c.testLabelsPath = v.get<std::string>(); }});
    s.push_back({numberSetting("validation_share", "X",
                               "share of X's labelled rows held out of q's training to choose q or P "
                               "and fit the baselines", 0.25, 0, 0.8, true),
                 [](const C& c) { return J(c.validationShare); },
                 [](C& c, const J& v) { c.validationShare = v.get<double>(); }});
    s.push_back({numberSetting("test_share", "X",
                               "share of X's labelled rows held out to score the rules (without a test set)",
                               0.25, 0, 0.8, true),
                 [](const C& c) { return J(c.testShare); }, [](C& c, const J& v) { c.testShare = v.get<double>(); }});
    s.push_back({selectionSettingSpec(Selection::CrossValidation),
                 [](const C& c) { return J(c.select); }, [](C& c, const J& v) { c.select = v.get<std::string>(); }});
    s.push_back({foldsSettingSpec(), [](const C& c) { return J(c.folds); },
                 [](C& c, const J& v) { c.folds = v.get<int>(); }});
    s.push_back({choiceSetting("q_base", "BASE",
                               "p: q trains on P; calibrated: with --labels, the calibration of P with the "
                               "lowest cross-validated cost on the validation rows is fitted first and q "
                               "corrects what it leaves",
                               "p", {"p", "calibrated"}),
                 [](const C& c) { return J(c.qBase); }, [](C& c, const J& v) { c.qBase = v.get<std::string>(); }});
    s.push_back({choiceSetting("label_term", "TERM",
                               "with --labels, what the rows q trains on add to the paper's objective, times "
                               "--label-weight: log_loss, the labels' log loss (the default); soft_cost, a soft "
                               "realised cost of q's decisions; none, the paper's q (measured: "
                               "docs/decisions-benchmark.md). Without labels q trains on the objective alone",
                               labelTermName(LabelTerm::LogLoss), labelTermNames()),
                 [](const C& c) { return J(c.labelTerm); }, [](C& c, const J& v) { c.labelTerm = v.get<std::string>(); }});
    s.push_back({numberSetting("label_weight", "W", "the weight of the label term (with --label-term)", 1.0, 0,
                               100, false),
                 [](const C& c) { return J(c.labelWeight); }, [](C& c, const J& v) { c.labelWeight = v.get<double>(); }});
}

} // namespace

const std::vector<BoundSetting<OwnPredictiveChoices>>& ownPredictiveSettings()
{
    using C = OwnPredictiveChoices;
    using J = nlohmann::json;
    static const std::vector<BoundSetting<C>> settings = [] {
        std::vector<BoundSetting<C>> s;
        auto file = [](const char* name, const char* help) {
            auto spec = textSetting(name, "FILE", help, nullptr);
            spec.required = true;
            spec.browse = SettingBrowse::File;
            return spec;
        };
        s.push_back({file(kFeaturesSetting, "the inputs X (.npy or .csv), N x D"),
                     [](const C& c) { return J(c.featuresPath); },
                     [](C& c, const J& v) { c.featuresPath = v.get<std::string>(); }});
        s.push_back({file(kPredictiveSetting, "P (.npy or .csv): N x K, or T x N x K (.npy)"),
                     [](const C& c) { return J(c.predictivePath); },
                     [](C& c, const J& v) { c.predictivePath = v.get<std::string>(); }});
        // The synthetic experiment's correction settings, bound through its own config.
        for (const auto& shared : syntheticSettings()) {
            const auto& n = shared.spec.name;
            if (n != "seed" && n != "correction_iterations" && n != "correction_lr" && n != "warm_start_steps" &&
                n != "cost_benefit_points")
                continue;
            s.push_back({shared.spec, [get = shared.get](const C& c) { return get(c.correction); },
                         [set = shared.set](C& c, const J& v) { set(c.correction, v); }});
        }
        s.push_back({numberSetting("held_out_share", "X",
                                   "share of the rows q trains on held out, unlabelled, to keep q from the epoch "
                                   "whose objective there is lowest (0: the last epoch)", 0.2, 0, 0.9, false),
                     [](const C& c) { return J(c.correction.correction.heldOutShare); },
                     [](C& c, const J& v) { c.correction.correction.heldOutShare = v.get<double>(); }});
        s.push_back({qFormSettingSpec(true),
                     [](const C& c) { return J(qFormName(c.correction.correction.residual)); },
                     [](C& c, const J& v) { c.correction.correction.residual = qFormIsResidual(v.get<std::string>()); }});
        s.push_back({numberSetting("input_noise", "X",
                                   "std of the Gaussian noise added to q's inputs each step, in standardised units "
                                   "(P is the row's own)", 0.0, 0, 10, false),
                     [](const C& c) { return J(c.correction.correction.inputNoiseStd); },
                     [](C& c, const J& v) { c.correction.correction.inputNoiseStd = v.get<double>(); }});
        s.push_back({choiceSetting("teacher", "T",
                                   "what q is scored against where it trains: rows: P at the row an input came "
                                   "from (input noise moves x, not P); student: a network S distilled from P on "
                                   "q's rows first (500 steps), asked at the inputs themselves",
                                   "rows", {"rows", "student"}),
                     [](const C& c) { return J(c.correction.correction.studentTeacherSteps > 0 ? "student" : "rows"); },
                     [](C& c, const J& v) {
                         c.correction.correction.studentTeacherSteps = v.get<std::string>() == "student" ? 500 : 0;
                     }});
        s.push_back({numberSetting("weight_decay", "X", "L2 penalty on q's parameters", 0.0, 0, 1, false),
                     [](const C& c) { return J(c.correction.correction.weightDecay); },
                     [](C& c, const J& v) { c.correction.correction.weightDecay = v.get<double>(); }});
        appendLabelSettings(s);
        s.push_back({switchSetting("no_standardise", "q takes X as it is (by default it standardises each feature "
                                                     "with the mean and std of the rows it trains on)"),
                     [](const C& c) { return J(c.noStandardise); }, [](C& c, const J& v) { c.noStandardise = v.get<bool>(); }});
        return s;
    }();
    return settings;
}

OwnPredictive loadOwnPredictive(const OwnPredictiveChoices& choices)
{
    std::string xNote, pNote;
    const auto x = readNumericArray(choices.featuresPath, "--features", 2, 2, kMaxArrayValues, &xNote);
    const auto p = readNumericArray(choices.predictivePath, "--predictive", 2, 3, kMaxArrayValues, &pNote);
    auto own = ownPredictive(x, p, "--features " + choices.featuresPath, "--predictive " + choices.predictivePath);
    for (auto* note : {&xNote, &pNote})
        if (!note->empty())
            own.readingNotes.push_back(std::move(*note));
    return own;
}

OwnEvidenceInputs loadEvidenceInputs(const OwnPredictiveChoices& choices, const OwnPredictive& own,
                                     const CostMatrix& costs)
{
    OwnEvidenceInputs in;
    in.validationShare = choices.validationShare;
    in.testShare = choices.testShare;
    in.selection = selectionFromName(choices.select);
    in.folds = choices.folds;
    in.qOnCalibrated = choices.qBase == "calibrated";
    in.labelTerm = labelTermFromName(choices.labelTerm);
    in.labelWeight = choices.labelWeight;
    in.standardise = !choices.noStandardise;
    const int k = static_cast<int>(own.probabilities.size(1));
    const bool anyTest = !choices.testFeaturesPath.empty() || !choices.testPredictivePath.empty() ||
                         !choices.testLabelsPath.empty();
    if (anyTest && (choices.testFeaturesPath.empty() || choices.testPredictivePath.empty() ||
                    choices.testLabelsPath.empty()))
        throw InputError("a test set needs all three of --test-features, --test-predictive and --test-labels");
    if (anyTest && choices.labelsPath.empty())
        throw InputError("--test-features needs --labels too: X's labelled rows choose between q and P and fit "
                         "the baselines, the test set only scores them");
    if (choices.labelsPath.empty())
        return in;
    in.labels = readLabels(choices.labelsPath, "--labels", k, costs.classNames(), own.features.size(0));
    if (anyTest) {
        std::string xNote, pNote;
        const auto x = readNumericArray(choices.testFeaturesPath, "--test-features", 2, 2, kMaxArrayValues, &xNote);
        const auto p = readNumericArray(choices.testPredictivePath, "--test-predictive", 2, 3, kMaxArrayValues, &pNote);
        in.test = ownPredictive(x, p, "--test-features " + choices.testFeaturesPath,
                                "--test-predictive " + choices.testPredictivePath);
        for (auto* note : {&xNote, &pNote})
            if (!note->empty())
                in.test.readingNotes.push_back(std::move(*note));
        if (in.test.features.size(1) != own.features.size(1))
            throw InputError("--test-features " + choices.testFeaturesPath + ": " +
                             std::to_string(in.test.features.size(1)) + " features per row, --features " +
                             choices.featuresPath + " has " + std::to_string(own.features.size(1)));
        if (in.test.probabilities.size(1) != k)
            throw InputError("--test-predictive " + choices.testPredictivePath + ": " +
                             std::to_string(in.test.probabilities.size(1)) + " classes, --predictive " +
                             choices.predictivePath + " has " + std::to_string(k));
        in.testLabels = readLabels(choices.testLabelsPath, "--test-labels", k, costs.classNames(),
                                   in.test.features.size(0));
    }
    splitCounts(own.features.size(0), in);  // shares that leave a part empty: refused here, before any work
    return in;
}

std::vector<Observation> ownObservations(const OwnCorrectionResult& result)
{
    std::vector<Observation> rows;
    const auto add = [&](const std::string& rule, const std::string& metric, double value) {
        if (!std::isfinite(value))
            return;  // an undefined figure has no row
        Observation o;
        o.method = kOwnPredictiveMethod;
        o.rule = rule;
        o.metric = metric;
        o.value = value;
        rows.push_back(std::move(o));
    };
    add("corrected", "collapsed", result.correction.collapsed ? 1 : 0);
    add("corrected", "changed_decisions", static_cast<double>(result.changed));
    add("uncorrected", "expected_cost", result.expectedCostBefore.mean().item<double>());
    add("corrected", "expected_cost", result.expectedCostAfter.mean().item<double>());
    if (!result.hasEvidence)
        return rows;
    // P and q under the names every experiment gives them, each calibration under its
    // own, and the kept rule once more as "kept": what a sweep's table compares.
    const auto ruleName = [](const std::string& rule) {
        return rule == "P" ? std::string("uncorrected") : rule == "q" ? std::string("corrected") : rule;
    };
    for (const auto& score : result.evidence.rules)
        for (const auto& name : score.rule == result.evidence.kept
                                    ? std::vector<std::string>{ruleName(score.rule), "kept"}
                                    : std::vector<std::string>{ruleName(score.rule)}) {
            add(name, "cost", score.cost);
            add(name, "accuracy", score.accuracy);
            add(name, "referral_rate", score.referralRate);
            add(name, "ece", score.ece);
        }
    return rows;
}

ExperimentOutput ownPredictiveOutput(const OwnCorrectionResult& result, const CostMatrix& costs,
                                     const OwnPredictiveChoices& choices)
{
    ExperimentOutput out;
    out.experiment = kOwnPredictiveExperiment;
    RunRecord record;
    record.experiment = kOwnPredictiveExperiment;
    record.costs = costs;
    record.settings = settingValues(ownPredictiveSettings(), choices);
    record.seed = choices.correction.seed;
    out.record = record;
    out.observations = ownObservations(result);
    out.csvText = ownCorrectionCsv(result, costs);
    out.fields = ownCorrectionSummary(result, costs);
    out.evidence = result.hasEvidence ? correctionEvidenceJson(result.evidence, costs) : nlohmann::json(nullptr);
    out.reliability = ownReliabilityCsv(result);
    return out;
}

std::string ownPredictiveTable(const OwnCorrectionResult& result, const CostMatrix& costs, const OwnPredictive& own,
                               const std::vector<std::string>& testNotes)
{
    const int64_t samples = own.samples;
    const int64_t n = result.decisionsBefore.size(0);
    char line[512];
    std::snprintf(line, sizeof line,
                  "Your predictive: %lld rows of %lld features, %lld classes%s\n"
                  "q changed %lld of %lld decisions; mean expected cost under P: %.4f before, %.4f after%s\n",
                  static_cast<long long>(n), static_cast<long long>(result.correction.q->inputs),
                  static_cast<long long>(result.qProbabilities.size(1)),
                  samples > 1 ? (" (the mean of " + std::to_string(samples) + " samples)").c_str() : "",
                  static_cast<long long>(result.changed), static_cast<long long>(n),
                  result.expectedCostBefore.mean().item<double>(), result.expectedCostAfter.mean().item<double>(),
                  result.correction.collapsed ? " (warning: q collapsed to one class)" : "");
    std::string out = line;
    for (const auto* notes : {&own.readingNotes, &testNotes})
        for (const auto& note : *notes)
            out += "note: " + note + "\n";
    if (result.correction.keptEpoch >= 0)
        out += "q kept from epoch " + std::to_string(result.correction.keptEpoch) + " of " +
               std::to_string(result.correction.curve.size()) + " (lowest objective on " +
               std::to_string(result.correction.heldOutInputs) + " held-out rows of those it trains on; 0 = the warm start)\n";
    if (result.hasEvidence)
        out += correctionEvidenceText(result.evidence, costs);
    else
        out += "No labels given: nothing here shows that q's decisions cost less than P's. Give --labels Y (the "
               "labels of X's rows, used only to choose and to score) for held-out evidence.\n";
    return out;
}

std::shared_ptr<const Experiment> makeOwnPredictiveExperiment()
{
    return std::make_shared<OwnPredictiveExperiment>();
}

} // namespace lcs
