#include "engine/experiments/synthetic/synthetic_report.h"

#include "engine/experiments/report_json.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <cstdio>
#include <sstream>

#include <nlohmann/json.hpp>

#include "base/core/number_format.h"
#include "base/core/settings.h"
#include "engine/decision/evidence.h"
#include "engine/experiments/experiment_names.h"

namespace lcs {

namespace {

std::string trimmedRight(std::string text)
{
    text.erase(text.find_last_not_of(' ') + 1);
    return text;
}

std::string fmtStd(double std)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.5f", std);
    return buf;
}

nlohmann::json metricsJson(const DecisionMetrics& m)
{
    return {{"cost", reportNumber(m.averageCost)}, {"accuracy", reportNumber(m.accuracy)}, {"nll", reportNumber(m.nll)},
            {"referral_rate", reportNumber(m.referralRate)}};  // no IoU: a classification has no segments
}

/// A q whose test cost is more than this times P's on a replicate is named in a warning.
constexpr double kMuchWorseRatio = 1.5;

/// Whether any replicate of the method kept a rule other than q.
bool keptOtherThanQ(const MethodSummary& m)
{
    return std::any_of(m.replicates.begin(), m.replicates.end(),
                       [](const ReplicateOutcome& o) { return o.selected && o.kept != "q"; });
}

/// The paired difference corrected - uncorrected over replicates with its Student t
/// interval: the run's verdict for one method on the rules it kept ("the kept rule"
/// where any replicate kept other than q), or with `qAlone` on q's own decisions.
Comparison replicateComparison(const MethodSummary& m, bool qAlone = false)
{
    std::vector<double> uncorrected, corrected;
    for (const auto& o : m.replicates) {
        uncorrected.push_back(o.uncorrected.averageCost);
        corrected.push_back(qAlone ? o.qAlone.averageCost : o.corrected.averageCost);
    }
    auto c = compareOverReplicates(uncorrected, corrected);
    if (!qAlone && keptOtherThanQ(m))
        c.candidate.rule = "the kept rule";
    return c;
}

/// A baseline's test costs over the replicates that fitted it, paired with P's there.
struct BaselineSeries {
    std::vector<double> uncorrected, baseline, corrected;
};

BaselineSeries baselineSeries(const MethodSummary& m, const std::string& rule)
{
    BaselineSeries out;
    for (const auto& o : m.replicates)
        if (const double cost = o.baselineCost(rule); std::isfinite(cost)) {
            out.uncorrected.push_back(o.uncorrected.averageCost);
            out.baseline.push_back(cost);
            out.corrected.push_back(o.corrected.averageCost);
        }
    return out;
}

/// The calibrations any replicate of the method fitted, in calibrationsFor's order.
std::vector<std::string> baselineNames(const MethodSummary& m)
{
    std::vector<std::string> names;
    for (const auto& o : m.replicates)
        for (const auto& b : o.baselines)
            if (std::find(names.begin(), names.end(), b.rule) == names.end())
                names.push_back(b.rule);
    return names;
}

/// The baselines a reviewer asks for, per method, as q is reported: each one's mean test
/// cost, its change against P over the replicates with the interval and verdict (two or
/// more replicates), and whether it costs less than the run's decisions.
struct BaselineSummary {
    std::string name;
    int replicates = 0;
    double cost = 0, corrected = 0;
    std::optional<Comparison> againstP;
};

std::vector<BaselineSummary> baselineSummaries(const MethodSummary& m)
{
    std::vector<BaselineSummary> out;
    for (const auto& name : baselineNames(m)) {
        const auto series = baselineSeries(m, name);
        if (series.baseline.empty())
            continue;
        BaselineSummary b;
        b.name = name;
        b.replicates = static_cast<int>(series.baseline.size());
        b.cost = meanStd(series.baseline).mean;
        b.corrected = meanStd(series.corrected).mean;
        if (series.baseline.size() >= 2) {
            auto c = compareOverReplicates(series.uncorrected, series.baseline);
            c.candidate.rule = name;
            b.againstP = c;
        }
        out.push_back(std::move(b));
    }
    return out;
}

/// A replicate's calibrations by name: each one's test metrics.
nlohmann::json baselinesJson(const ReplicateOutcome& o)
{
    nlohmann::json out = nlohmann::json::object();
    for (const auto& b : o.baselines)
        out[b.rule] = metricsJson(b.metrics);
    return out;
}

std::vector<int> muchWorseReplicates(const MethodSummary& m)
{
    std::vector<int> out;
    for (const auto& o : m.replicates)
        if (o.qAlone.averageCost > kMuchWorseRatio * o.uncorrected.averageCost &&
            o.qAlone.averageCost > o.uncorrected.averageCost)
            out.push_back(o.replicate);
    return out;
}

} // namespace

namespace {

/// What the table is of, and the notes on the data it was run on.
void writeHeading(std::ostringstream& s, const SyntheticResult& r)
{
    const auto data = r.record.settings.find(kDataSetting);
    s << (r.record.experiment == kTabularExperiment && data != r.record.settings.end() && data->is_string()
              ? "Table " + data->get<std::string>()
              : std::string("Synthetic data"))
      << ": test decision cost over " << r.replicates << " replicate(s)" << (r.replicates > 1 ? ", mean ± std" : "")
      << "\n";
    const auto calibration = r.record.resolved.find(kCalibrationRowsKey);
    if (calibration != r.record.resolved.end() && *calibration == kTrainingInputsCalibration)
        s << "q trained on " << kTrainingInputsCalibration << "\n";
    if (const auto missing = r.record.resolved.find(kMissingValuesKey);
        missing != r.record.resolved.end() && missing->is_string())
        s << "missing values: " << missing->get<std::string>() << "\n";
    if (const auto formats = r.record.resolved.find(kNumberFormatsKey);
        formats != r.record.resolved.end() && formats->is_string())
        s << "number formats: " << formats->get<std::string>() << "\n";
}

/// One row per method: cost without and with correction, the paired difference,
/// accuracy, ECE and, with a referral decision, the share referred.
void writeMethodRows(std::ostringstream& s, const SyntheticResult& r)
{
    // Accuracy, ECE (15 bins of top-label confidence) and, with a referral decision, the
    // share of test rows referred: without ->
    // with correction, means over the replicates.
    const bool referral = r.record.costs.referralCost().has_value();
    char line[512];
    std::snprintf(line, sizeof line, "%-14s %-20s %-20s %-16s %-10s %-16s %-16s%s", "method", "w/o correction",
                  "w/ correction", "avg paired diff", "std diff", "accuracy", "ECE", referral ? " referred" : "");
    s << trimmedRight(line) << "\n";
    // The figures are read off the long table, as the CSV's are.
    const auto observed = syntheticObservations(r);
    for (const auto& m : r.methods) {
        const ObservedCell cell(observed, 0, methodName(m.method));
        const auto diff = cell.figure("cost", "paired_diff");
        const auto change = [&](const char* metric) {
            char text[64];
            std::snprintf(text, sizeof text, "%.3f -> %.3f", cell.figure(metric, "uncorrected").mean,
                          cell.figure(metric, "corrected").mean);
            return std::string(text);
        };
        std::snprintf(line, sizeof line, "%-14s %s %s %-16.5f %-10s %-16s %-16s%s", methodLabel(m.method).c_str(),
                      padded(meanStdText(cell.figure("cost", "uncorrected"), 3), 20).c_str(),
                      padded(meanStdText(cell.figure("cost", "corrected"), 3), 20).c_str(), diff.mean,
                      diff.count < 2 ? "" : fmtStd(diff.std).c_str(), change("accuracy").c_str(), change("ece").c_str(),
                      referral ? (" " + change("referral_rate")).c_str() : "");
        s << trimmedRight(line) << "\n";
    }
}

/// Replicates where q collapsed to one class, or cost far more than P.
void writeWarnings(std::ostringstream& s, const SyntheticResult& r)
{
    for (const auto& m : r.methods) {
        if (m.collapsedReplicates == 0)
            continue;
        std::string which;
        for (const auto& o : m.replicates)
            if (o.collapsed)
                which += (which.empty() ? "" : ", ") + std::to_string(o.replicate);
        s << "warning: " << methodLabel(m.method) << ": q collapsed to one class in " << m.collapsedReplicates
          << " replicate(s) (" << which << "); their corrected cost is included above\n";
    }
    for (const auto& m : r.methods) {
        const auto worse = muchWorseReplicates(m);
        if (worse.empty())
            continue;
        std::string which;
        for (int k : worse)
            which += (which.empty() ? "" : ", ") + std::to_string(k + 1);
        s << "warning: " << methodLabel(m.method) << ": q's test cost is more than " << kMuchWorseRatio
          << "x the uncorrected cost in " << worse.size() << " replicate(s) (" << which << ")\n";
    }
}

/// Which rule each method's replicates kept.
void writeSelection(std::ostringstream& s, const SyntheticResult& r)
{
    for (const auto& m : r.methods) {
        int selected = 0;
        std::vector<std::pair<std::string, int>> keptCounts;  // in order of first appearance
        std::vector<double> qAlone;
        for (const auto& o : m.replicates) {
            qAlone.push_back(o.qAlone.averageCost);
            if (!o.selected)
                continue;
            ++selected;
            auto it = std::find_if(keptCounts.begin(), keptCounts.end(), [&](const auto& k) { return k.first == o.kept; });
            if (it == keptCounts.end())
                keptCounts.emplace_back(o.kept, 1);
            else
                ++it->second;
        }
        if (selected == 0)
            continue;
        std::string kept;
        for (const auto& [rule, count] : keptCounts)
            kept += (kept.empty() ? "" : ", ") + rule + " in " + std::to_string(count);
        s << "selection: " << methodLabel(m.method) << ": the rule kept (chosen on the validation rows) was " << kept
          << " of " << selected << " replicate(s); the corrected column holds the kept rule's test cost; q alone: "
          << meanStdText(meanStd(qAlone), 3) << "\n";
    }
}

/// Every calibration fitted on the validation rows, against P.
void writeBaselines(std::ostringstream& s, const SyntheticResult& r)
{
    for (const auto& m : r.methods)
        for (const auto& b : baselineSummaries(m)) {
            char figure[64];
            std::snprintf(figure, sizeof figure, "%.4f", b.cost);
            s << "baseline: " << methodLabel(m.method) << ": " << b.name << " (fitted on the validation rows) "
              << figure;
            if (b.againstP)
                s << "; " << verdictSentence(*b.againstP, "test", "replicates");
            if (b.cost < b.corrected) {
                std::snprintf(figure, sizeof figure, "%.4f", b.corrected);
                s << (b.againstP ? " It costs" : "; it costs") << " less than the corrected decisions (" << figure << ").";
            }
            s << "\n";
        }
}

/// The kept rule (and q alone, where another rule was kept) against P over the replicates.
void writeVerdicts(std::ostringstream& s, const SyntheticResult& r)
{
    if (r.replicates > 1)
        for (const auto& m : r.methods) {
            if (m.replicates.size() < 2)
                continue;
            const auto c = replicateComparison(m);
            s << "verdict: " << methodLabel(m.method) << ": " << verdictSentence(c, "test", "replicates") << "\n";
            if (keptOtherThanQ(m))
                s << "verdict: " << methodLabel(m.method) << " (q alone): "
                  << verdictSentence(replicateComparison(m, true), "test", "replicates") << "\n";
        }
}

} // namespace

std::string syntheticTable(const SyntheticResult& r)
{
    std::ostringstream s;
    writeHeading(s, r);
    writeMethodRows(s, r);
    writeWarnings(s, r);
    writeSelection(s, r);
    writeBaselines(s, r);
    writeVerdicts(s, r);
    char line[512];
    std::snprintf(line, sizeof line, "(paired diff = uncorrected - corrected; > 0 means the correction lowered the cost)\n"
                                     "%.1f s wall\n", r.seconds);
    s << line;
    return s.str();
}

namespace {

nlohmann::json methodsJson(const SyntheticResult& r)
{
    nlohmann::json methods = nlohmann::json::object();
    for (const auto& m : r.methods) {
        nlohmann::json reps = nlohmann::json::array();
        for (const auto& o : m.replicates)
            reps.push_back({{"replicate", o.replicate},
                            {"uncorrected", metricsJson(o.uncorrected)},
                            {"corrected", metricsJson(o.corrected)},
                            {"inference_seconds", o.inferenceSeconds},
                            {"correction_seconds", o.correctionSeconds},
                            {"collapsed", o.collapsed},
                            {"kept", o.selected ? nlohmann::json(o.kept) : nlohmann::json(nullptr)},
                            {"q_alone", metricsJson(o.qAlone)},
                            {"baselines", baselinesJson(o)},
                            // The two fields earlier versions wrote, kept for readers of them.
                            {"temperature_cost", reportNumber(o.baselineCost("temperature"))},
                            {"offsets_cost", reportNumber(o.baselineCost("offsets"))},
                            {"validation_cost", o.selected ? nlohmann::json{{"uncorrected", o.validationCostUncorrected},
                                                                             {"q", o.validationCostQ}}
                                                           : nlohmann::json(nullptr)}});
        methods[methodName(m.method)] = {{"uncorrected", reportMeanStd(m.uncorrected)},
                                         {"corrected", reportMeanStd(m.corrected)},
                                         {"paired_diff", reportMeanStd(m.pairedDiff)},
                                         {"collapsed_replicates", m.collapsedReplicates},
                                         {"much_worse_replicates", muchWorseReplicates(m)},
                                         {"replicates", reps}};
        nlohmann::json baselines = nlohmann::json::object();
        for (const auto& b : baselineSummaries(m)) {
            nlohmann::json entry = {{"cost", b.cost}, {"replicates", b.replicates}};
            if (b.againstP)
                entry["change_against_uncorrected"] = {{"mean", b.againstP->difference.mean},
                                                       {"low", b.againstP->difference.low},
                                                       {"high", b.againstP->difference.high},
                                                       {"verdict", verdictName(b.againstP->verdict)}};
            baselines[b.name] = entry;
        }
        if (!baselines.empty())
            methods[methodName(m.method)]["baselines"] = baselines;
        if (m.replicates.size() >= 2) {
            const auto c = replicateComparison(m), q = replicateComparison(m, true);
            methods[methodName(m.method)]["change_over_replicates"] = {
                {"mean", c.difference.mean}, {"low", c.difference.low}, {"high", c.difference.high},
                {"verdict", verdictName(c.verdict)}};
            methods[methodName(m.method)]["q_alone_change_over_replicates"] = {
                {"mean", q.difference.mean}, {"low", q.difference.low}, {"high", q.difference.high},
                {"verdict", verdictName(q.verdict)}};
        }
    }
    return methods;
}

} // namespace

std::vector<Observation> syntheticObservations(const SyntheticResult& r)
{
    // Each replicate's uncorrected and corrected figures, Table 2's paired difference
    // (uncorrected - corrected cost of the same replicate), the reviewer's baselines as
    // rules of their own, and the replicate's seconds and collapse.
    std::vector<Observation> out;
    for (const auto& m : r.methods)
        for (const auto& o : m.replicates) {
            Observation key;
            key.trial = o.replicate;
            key.method = methodName(m.method);
            // A referral rate only where the matrix offers referral (elsewhere it is 0 by
            // construction, and says nothing).
            const ObservedMetrics observed{r.record.costs.hasReferral(), {}};
            key.rule = "uncorrected";
            appendObservations(out, key, o.uncorrected, observed);
            key.rule = "corrected";
            appendObservations(out, key, o.corrected, observed);
            auto add = [&](const char* rule, const char* metric, double value) {
                if (!std::isfinite(value))
                    return;
                Observation row = key;
                row.rule = rule;
                row.metric = metric;
                row.value = value;
                out.push_back(std::move(row));
            };
            add("paired_diff", "cost", o.uncorrected.averageCost - o.corrected.averageCost);
            for (const auto& b : o.baselines)
                add(b.rule.c_str(), "cost", b.metrics.averageCost);
            add("", "inference_seconds", o.inferenceSeconds);
            add("", "correction_seconds", o.correctionSeconds);
            add("", "collapsed", o.collapsed ? 1 : 0);
        }
    return out;
}

namespace {

WideLayout syntheticCsvLayout(const SyntheticResult& r)
{
    WideLayout layout;
    layout.trial = "replicate";
    layout.methodBeforeTrial = true;  // Table 2's order, as this CSV always had it
    layout.columns = {{"uncorrected_cost", "uncorrected", "cost"},
                      {"corrected_cost", "corrected", "cost"},
                      {"paired_diff", "paired_diff", "cost"},
                      {"uncorrected_accuracy", "uncorrected", "accuracy"},
                      {"corrected_accuracy", "corrected", "accuracy"},
                      {"uncorrected_nll", "uncorrected", "nll"},
                      {"corrected_nll", "corrected", "nll"},
                      {"uncorrected_ece", "uncorrected", "ece"},
                      {"corrected_ece", "corrected", "ece"},
                      {"inference_seconds", "", "inference_seconds"},
                      {"correction_seconds", "", "correction_seconds"},
                      {"collapsed", "", "collapsed", true},
                      {"temperature_cost", "temperature", "cost"},
                      {"offsets_cost", "offsets", "cost"},
                      {"platt_cost", "platt", "cost"},
                      {"isotonic_cost", "isotonic", "cost"},
                      {"vector_cost", "vector", "cost"},
                      {"constant_cost", "constant", "cost"}};
    if (r.record.costs.hasReferral())  // the long table has referral rates only then
        layout.columns.insert(layout.columns.end(), {{"uncorrected_referral_rate", "uncorrected", "referral_rate"},
                                                     {"corrected_referral_rate", "corrected", "referral_rate"}});
    return layout;
}

} // namespace

ExperimentOutput syntheticOutput(const SyntheticResult& r)
{
    ExperimentOutput out;
    out.experiment = r.record.experiment;
    out.record = r.record;
    out.observations = syntheticObservations(r);
    out.csvLayout = syntheticCsvLayout(r);
    out.fields = {{"replicates", r.replicates},
                  {"seconds", r.seconds},
                  {"seed", r.seed},
                  {"bbvi_prior", BbviPrior::name(r.bbviPrior)},
                  {"methods", methodsJson(r)}};
    out.table = syntheticTable(r);
    out.reliability = syntheticReliabilityCsv(r);
    return out;
}

std::string syntheticReliabilityCsv(const SyntheticResult& r)
{
    std::vector<std::pair<Observation, const DecisionMetrics*>> diagrams;
    for (const auto& m : r.methods)
        for (const auto& o : m.replicates) {
            Observation key;
            key.trial = o.replicate;
            key.method = methodName(m.method);
            key.rule = "uncorrected";
            diagrams.emplace_back(key, &o.uncorrected);
            key.rule = "corrected";
            diagrams.emplace_back(key, &o.corrected);
        }
    return reliabilityCsv(diagrams);
}

} // namespace lcs
