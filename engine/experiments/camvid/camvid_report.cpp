#include "engine/experiments/camvid/camvid_experiment.h"

#include "engine/experiments/report_json.h"

#include <cmath>
#include <cstdio>
#include <sstream>

#include <nlohmann/json.hpp>

#include "base/core/number_format.h"
#include "base/io/table_csv.h"
#include "engine/experiments/image/image_experiment_support.h"

/// The CamVid experiment's reports: the text tables the CLI prints and the one results
/// format (JSON and CSV) that the CLI's `camvid eval` and the window both write.
namespace lcs {

std::string camvidTrainText(const CamvidTrainResult& r)
{
    std::ostringstream s;
    char line[200];
    std::snprintf(line, sizeof line, "CamVid: trained on %lld frames in %.1f s\n", static_cast<long long>(r.frames),
                  r.totalSeconds);
    s << line;
    for (const auto& [m, sec] : r.seconds) {
        std::snprintf(line, sizeof line, "  %-14s %8.1f s\n", m.c_str(), sec);
        s << line;
    }
    if (!r.trainingFramesNetwork.empty()) {
        std::snprintf(line, sizeof line, "training throughput (SGD, %s): %.2f frames/s\n", r.trainingFramesNetwork.c_str(),
                      r.trainingFramesPerSecond);
        s << line;
    }
    s << camvidHeldOutText(r.heldOut);
    for (const auto& [m, path] : r.saved)
        s << "saved " << m << ": " << path << "\n";
    return s.str();
}

std::string camvidHeldOutText(const CamvidHeldOutCheck& check)
{
    if (check.objective.empty())
        return {};
    std::string text = "held-out objective by epoch (0 = S):";
    char number[32];
    for (double v : check.objective) {
        std::snprintf(number, sizeof number, " %.5f", v);
        text += number;
    }
    return text + "; q kept from epoch " + std::to_string(check.keptEpoch) + "\n";
}

namespace {

nlohmann::json fpsJson(const CamvidFpsResult& r)
{
    nlohmann::json points = nlohmann::json::array();
    for (const auto& p : r.points)
        points.push_back({{"ensemble", p.ensemble}, {"fps", reportNumber(p.ensembleFps)}});
    return {{"height", r.height}, {"width", r.width}, {"q_fps", reportNumber(r.qFps)},
            {"raw_fps", reportNumber(r.rawFps)}, {"ensemble", points}};
}

/// A decision's name: its class, or "refer" for the column past the classes.
std::string decisionName(const std::vector<std::string>& classNames, int decision)
{
    return decision >= 0 && decision < static_cast<int>(classNames.size()) ? classNames[static_cast<size_t>(decision)]
                                                                           : "refer";
}

std::vector<Observation> camvidObservations(const CamvidEvalResult& r)
{
    // Every scored rule's cost, expected cost, accuracy, NLL, mIoU, per-class IoU and pixels.
    std::vector<Observation> out;
    for (const auto& row : r.rows) {
        Observation key;
        key.method = row.method;
        key.rule = row.rule;
        appendObservations(out, key, row.metrics, ObservedMetrics{false, r.classNames});
        for (const auto& [metric, value] :
             {std::pair{"expected_cost", row.metrics.expectedCost}, {"pixels", double(row.metrics.count)}}) {
            if (!std::isfinite(value))
                continue;
            Observation o = key;
            o.metric = metric;
            o.value = value;
            out.push_back(std::move(o));
        }
    }
    return out;
}

nlohmann::json groupedComparisonJson(const GroupedComparison& e)
{
    nlohmann::json figures = nlohmann::json::array();
    for (const auto& f : e.figures) {
        nlohmann::json figure{{"figure", f.name},
                              {"higher_is_better", f.higherIsBetter},
                              {"change", reportNumber(f.difference.mean)},
                              {"change_low", reportNumber(f.difference.low)},
                              {"change_high", reportNumber(f.difference.high)},
                              {"verdict", verdictName(f.verdict)}};
        figure[e.reference] = reportNumber(f.reference);
        figure[e.candidate] = reportNumber(f.candidate);  // the kept rule may be S itself: then one value
        figures.push_back(std::move(figure));
    }
    return {{"reference", e.reference},
            {"candidate", e.candidate},
            {"resampled", e.unit},
            {"groups", e.groups},
            {"interval", "95% percentile bootstrap over resampled frames"},
            {"figures", figures},
            {"verdict", groupedVerdictSentence(e)}};
}

/// The kept rule: how it was chosen (every candidate's cross-validated cost on the choice
/// frames' pixels), what each calibration fitted, every rule's figures on the scored
/// frames and the kept rule against S there.
nlohmann::json keptRuleJson(const CamvidKeptRule& k)
{
    nlohmann::json candidates = nlohmann::json::array();
    for (const auto& c : k.choice.candidates)
        candidates.push_back({{"rule", c.rule},
                              {"cross_validated_cost", reportNumber(c.cost)},
                              {"change_vs_s", reportNumber(c.changeVsFirst)},
                              {"standard_error", reportNumber(c.standardError)}});
    nlohmann::json calibrations = nlohmann::json::array();
    for (const auto& c : k.calibrations)
        calibrations.push_back(c.toJson());
    nlohmann::json scored = nlohmann::json::array();
    for (const auto& r : k.scored)
        scored.push_back({{"rule", r.rule},
                          {"cost", reportNumber(r.metrics.averageCost)},
                          {"mean_iou", reportNumber(r.metrics.meanIoU)},
                          {"pixel_accuracy", reportNumber(r.metrics.accuracy)},
                          {"pixels", r.metrics.count}});
    return {{"kept", k.kept()},
            {"reason", k.choice.reason},
            {"folds", k.choice.folds},
            {"choice_frames", k.choiceFrames},
            {"choice_pixels", k.choicePixels},
            {"scored_frames", k.scoredFrames},
            {"candidates", candidates},
            {"calibrations", calibrations},
            {"scored", scored},
            {"evidence", groupedComparisonJson(k.evidence)}};
}

} // namespace

std::string camvidEvalTable(const CamvidEvalResult& r)
{
    std::ostringstream s;
    char line[512];
    std::snprintf(line, sizeof line, "CamVid evaluation over %lld frame(s) (void pixels ignored)\n",
                  static_cast<long long>(r.frames));
    s << line;
    // The decisions the evaluation keeps come first: what a user should decide with.
    if (r.keptRule)
        s << camvidKeptRuleSummary(*r.keptRule) << "\n";
    std::snprintf(line, sizeof line, "%-14s %-13s %-8s %-9s %-8s %-8s\n", "method", "decisions", "cost",
                  "expected", "mIoU", "pixel acc");
    s << line;
    // The figures are read off the long table, as the CSV's are; an undefined one reads "nan".
    const auto observed = camvidObservations(r);
    for (const auto& row : r.rows) {
        const auto figure = [&](const std::string& metric) {
            return observedValue(observed, {"", 0, 0, row.method, row.rule, metric});
        };
        const char* rule = row.rule == "corrected" ? "q (corrected)"
                           : row.rule == "correction_optimum" ? "q's optimum*" : "uncorrected";
        std::snprintf(line, sizeof line, "%-14s %-13s %-8.4f %-9.4f %-8.4f %-8.4f\n", row.method.c_str(), rule,
                      figure("cost"), figure("expected_cost"), figure("mean_iou"), figure("accuracy"));
        s << line;
    }
    s << "(expected: the cost each network expects to pay, sum_y p(y) L[y, d]; far below cost = overconfident)\n";
    for (const auto& row : r.rows)
        if (row.rule == "correction_optimum") {
            s << "(*: S decided as the correction objective's pointwise optimum would, Bayes under 1 - exp(-L/M))\n";
            break;
        }
    s << "per-class IoU:\n" << std::string(14, ' ');
    for (const auto& name : r.classNames) {
        std::snprintf(line, sizeof line, " %-8.8s", name.c_str());
        s << line;
    }
    s << "\n";
    for (const auto& row : r.rows) {
        std::snprintf(line, sizeof line, "%-14s", row.method.c_str());
        s << line;
        for (const auto& name : r.classNames) {
            std::snprintf(line, sizeof line, " %-8.4f",
                          observedValue(observed, {"", 0, 0, row.method, row.rule, "iou_" + name}));
            s << line;
        }
        s << "\n";
    }
    if (r.studentToCorrected && r.studentToCorrected->points > 0) {
        const auto& c = *r.studentToCorrected;
        std::snprintf(line, sizeof line,
                      "q changed %.2f%% of S's decisions; cost change %+.4f. Largest kinds (S -> q: pixels, cost change):\n",
                      100.0 * static_cast<double>(c.changed) / static_cast<double>(c.points), c.costChange);
        s << line;
        const auto name = [&](int k) { return decisionName(r.classNames, k); };
        for (size_t i = 0; i < c.kinds.size() && i < 8; ++i) {
            const auto& k = c.kinds[i];
            std::snprintf(line, sizeof line, "  %-12s -> %-12s %9lld  %+.4f\n", name(k.from).c_str(), name(k.to).c_str(),
                          static_cast<long long>(k.count), k.costChange);
            s << line;
        }
    }
    if (r.evidence) {
        s << "\n" << groupedComparisonText(*r.evidence);
        s << "Verdict: " << groupedVerdictSentence(*r.evidence) << "\n";
    }
    if (r.keptRule) {
        s << "\n" << groupedComparisonText(r.keptRule->evidence);
        s << "Verdict: " << groupedVerdictSentence(r.keptRule->evidence) << "\n";
    }
    if (r.overlays > 0)
        s << r.overlays << " overlay(s) written (frame | truth | S | q | where they differ)\n";
    std::snprintf(line, sizeof line, "%.1f s\n", r.seconds);
    s << line;
    return s.str();
}

namespace {

WideLayout camvidEvalLayout(const CamvidEvalResult& r)
{
    // One line per (method, decision rule); per-class IoU in the classes' order.
    WideLayout layout;
    layout.trial.clear();
    layout.rule = "decisions";
    layout.columns = {{"cost", "", "cost"},       {"expected_cost", "", "expected_cost"},
                      {"mean_iou", "", "mean_iou"}, {"pixel_accuracy", "", "accuracy"},
                      {"nll", "", "nll"},         {"pixels", "", "pixels", true}};
    for (const auto& name : r.classNames)
        layout.columns.push_back({"iou_" + name, "", "iou_" + name});
    return layout;
}

} // namespace

ExperimentOutput camvidEvalOutput(const CamvidEvalResult& r)
{
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& row : r.rows) {
        nlohmann::json iou = nlohmann::json::object();
        for (size_t c = 0; c < row.metrics.perClassIoU.size() && c < r.classNames.size(); ++c)
            iou[r.classNames[c]] = reportNumber(row.metrics.perClassIoU[c]);
        // The pixel counts behind every figure of the row, rows = true class, columns =
        // decision in the classes' order (then "refer" with a referral column): an IoU
        // alone does not say whether a rare class is decided too often or too seldom.
        nlohmann::json confusion = nlohmann::json::array();
        const auto& m = row.metrics;
        const bool complete = m.confusion.size() == size_t(m.numClasses) * size_t(m.numDecisions);
        for (int y = 0; complete && y < m.numClasses; ++y)
            confusion.push_back(std::vector<int64_t>(m.confusion.begin() + std::ptrdiff_t(y) * m.numDecisions,
                                                     m.confusion.begin() + std::ptrdiff_t(y + 1) * m.numDecisions));
        rows.push_back({{"method", row.method},
                        {"decisions", row.rule},
                        {"cost", reportNumber(row.metrics.averageCost)},
                        {"expected_cost", reportNumber(row.metrics.expectedCost)},
                        {"mean_iou", reportNumber(row.metrics.meanIoU)},
                        {"pixel_accuracy", reportNumber(row.metrics.accuracy)},
                        {"nll", reportNumber(row.metrics.nll)},
                        {"per_class_iou", iou},
                        {"pixels", row.metrics.count},
                        {"confusion", confusion}});
    }
    ExperimentOutput doc;
    doc.experiment = kCamvidExperiment;
    doc.record = r.record;
    doc.observations = camvidObservations(r);
    doc.csvLayout = camvidEvalLayout(r);
    doc.table = camvidEvalTable(r);
    auto& out = doc.fields;
    out = {{"frames", r.frames}, {"seconds", r.seconds}, {"methods", rows}};
    if (r.studentToCorrected) {
        const auto& c = *r.studentToCorrected;
        nlohmann::json kinds = nlohmann::json::array();
        for (const auto& k : c.kinds)
            kinds.push_back({{"from", decisionName(r.classNames, k.from)},
                             {"to", decisionName(r.classNames, k.to)},
                             {"pixels", k.count},
                             {"cost_change", reportNumber(k.costChange)}});
        out["changes_s_to_q"] = {{"pixels", c.points},
                                 {"changed", c.changed},
                                 {"cost_change", reportNumber(c.costChange)},
                                 {"kinds", kinds}};
    }
    if (r.evidence)
        doc.evidence = groupedComparisonJson(*r.evidence);
    if (r.keptRule)
        out["kept_rule"] = keptRuleJson(*r.keptRule);
    if (r.fps)
        out["fps"] = fpsJson(*r.fps);
    return doc;
}


CamvidEvalResult camvidWindowResults(const CamvidComparison& c, const CamvidWindowConfig& config,
                                     const CamvidWindowCache& cache, const std::optional<CamvidFpsResult>& fps)
{
    CamvidEvalResult r;
    r.rows = {{"sghmc_s", "uncorrected", c.uncorrected},
              {"ours", "corrected", c.corrected},
              {"sghmc_s", "correction_optimum", c.optimum}};
    r.studentToCorrected = c.changes;
    if (c.evidence.groups > 0)
        r.evidence = c.evidence;
    r.keptRule = c.keptRule;
    r.classNames = c.classNames;
    r.frames = c.frames;
    r.seconds = c.seconds;
    const auto& t = config.train;
    r.record = {kCamvidExperiment,
                cache.costs,
                {},
                config.declaredSettings,
                t.seed,
                {{"data", t.data},
                 {"split", cache.evalSplit},
                 {"height", t.height},
                 {"width", t.width},
                 {"max_frames", t.maxFrames},
                 {"max_eval_frames", cache.maxEvalFrames},
                 {"mc_dropout", config.trainMcDropout},
                 {"cw_sgd", trainingSettingsJson(t.sgd.epochs, t.sgd.batchSize, t.sgd.learningRate)},
                 {"sghmc", trainingSettingsJson(t.sghmc.epochs, t.sghmc.batchSize, t.sghmc.learningRate)},
                 {"correction", trainingSettingsJson(t.correction.epochs, t.correction.batchSize,
                                                     t.correction.learningRate)},
                 {"device", t.device}},
                ""};
    r.fps = fps;
    return r;
}

std::string camvidFpsTable(const CamvidFpsResult& r)
{
    std::ostringstream s;
    char line[200];
    std::snprintf(line, sizeof line, "Frames per second at %dx%d (one frame at a time)\n", r.width, r.height);
    s << line;
    std::snprintf(line, sizeof line,
                  "  q (one pass + Bayes decision): %.2f\n  the same network's forward pass alone: %.2f (q at %.0f%% of "
                  "it)\n",
                  r.qFps, r.rawFps, 100.0 * r.qFps / r.rawFps);
    s << line;
    for (const auto& p : r.points) {
        std::snprintf(line, sizeof line, "  MC dropout, %2d passes: %.2f  (q is %.1fx faster)\n", p.ensemble,
                      p.ensembleFps, r.qFps / p.ensembleFps);
        s << line;
    }
    return s.str();
}

ExperimentOutput camvidFpsOutput(const CamvidFpsResult& r)
{
    ExperimentOutput out;
    out.experiment = "camvid_fps";
    out.fields = fpsJson(r);
    out.table = camvidFpsTable(r);
    return out;
}

} // namespace lcs
