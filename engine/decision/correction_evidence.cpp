#include "engine/decision/correction_evidence.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace lcs {

namespace {

std::string number(double v, const char* format = "%.4f")
{
    if (std::isnan(v))
        return "-";
    char b[48];
    std::snprintf(b, sizeof b, format, v);
    return b;
}

std::string padded(std::string s, size_t width)
{
    if (s.size() < width)
        s.append(width - s.size(), ' ');
    return s;
}

std::string confusionText(const RuleScore& s, const CostMatrix& costs)
{
    const int c = costs.numClasses(), d = costs.numDecisions();
    size_t width = 6;
    for (int k = 0; k < d; ++k)
        width = std::max(width, costs.decisionName(k).size() + 1);
    const std::string corner = s.rule + " (truth \\ decision)";
    const size_t cornerWidth = std::max<size_t>(24, corner.size() + 2);
    std::string out = "  " + padded(corner, cornerWidth);
    for (int k = 0; k < d; ++k)
        out += padded(costs.decisionName(k), width);
    out += "\n";
    for (int y = 0; y < c; ++y) {
        out += "  " + padded(costs.decisionName(y), cornerWidth);
        for (int k = 0; k < d; ++k)
            out += padded(std::to_string(s.confusion[static_cast<size_t>(y * d + k)]), width);
        out += "\n";
    }
    return out;
}

} // namespace

CorrectionEvidence gatherCorrectionEvidence(const ClassProbabilities& validationP, const ClassProbabilities& validationQ,
                                            const std::vector<int64_t>& validationLabels,
                                            const ClassProbabilities& testP, const ClassProbabilities& testQ,
                                            const std::vector<int64_t>& testLabels, const CostMatrix& costs,
                                            Selection selection, uint64_t seed, int folds)
{
    if (validationLabels.empty() || testLabels.empty())
        throw std::invalid_argument("correction evidence: needs validation and test rows");
    CorrectionEvidence e;
    e.validationP = scoreRule("P", bayesDecisionsOf(validationP, costs), validationLabels, costs, validationP);
    e.validationQ = scoreRule("q", bayesDecisionsOf(validationQ, costs), validationLabels, costs, validationQ);
    // Refuses validation labels of one class, or folds a class cannot fill, before anything is fitted.
    const int chosenFolds =
        crossValidates(selection) ? foldsFor(validationLabels, costs, folds) : 0;

    e.rules.push_back(scoreRule("P", bayesDecisionsOf(testP, costs), testLabels, costs, testP));
    e.rules.push_back(scoreRule("q", bayesDecisionsOf(testQ, costs), testLabels, costs, testQ));
    std::vector<CalibrationKind> offered;
    for (auto kind : calibrationsFor(validationP.classes)) {
        try {
            e.calibrations.push_back(fitCalibration(kind, validationP, validationLabels, costs));
        } catch (const std::invalid_argument&) {
            continue;  // only under the older rules: cross-validation refused one class above
        }
        offered.push_back(kind);
        const auto& fit = e.calibrations.back();
        if (fit.hasProbabilities()) {
            const auto calibrated = fit.probabilities(testP);
            e.rules.push_back(scoreRule(fit.name(), bayesDecisionsOf(calibrated, costs), testLabels, costs, calibrated));
        } else {
            e.rules.push_back(scoreRule(fit.name(), fit.decisions(testP, costs), testLabels, costs));
        }
        if (kind == CalibrationKind::Temperature)
            e.temperature = fit.temperature;
        if (kind == CalibrationKind::Offsets)
            e.offsets = fit.offsets;
    }
    for (size_t k = 1; k < e.rules.size(); ++k)
        e.comparisons.push_back(compareRules(e.rules[0], e.rules[k], seed + k));

    const std::string rows = " (" + std::to_string(validationLabels.size()) + " rows)";
    if (crossValidates(selection)) {
        e.choice = chooseRuleByCrossValidation(validationP,
                                               {{"P", e.validationP.decisions}, {"q", e.validationQ.decisions, false}},
                                               validationLabels, costs, offered, chosenFolds, seed + 211,
                                               selectionGuard(selection));
        e.kept = e.choice.kept;
        e.keptReason = e.choice.reason;
        return e;
    }
    const bool keep = selectionKeepsQ(selection, e.validationP, e.validationQ, seed + 101);
    e.kept = keep ? "q" : "P";
    if (selection == Selection::None)
        e.keptReason = "selection is off (--select none): q's decisions are used as they are";
    else if (selection == Selection::Clear)
        e.keptReason = "q's validation cost " + number(e.validationQ.cost) + " against P's " +
                       number(e.validationP.cost) + rows +
                       (keep ? " is clearly lower (the paired interval lies below zero)"
                             : " is not clearly lower (selection rule clear): the uncorrected decisions are used");
    else if (keep)
        e.keptReason = "q's validation cost " + number(e.validationQ.cost) +
                       (e.validationQ.cost < e.validationP.cost ? " is below" : " equals") + " P's " +
                       number(e.validationP.cost) + rows;
    else
        e.keptReason = "q's validation cost " + number(e.validationQ.cost) + " is above P's " +
                       number(e.validationP.cost) + rows + ": the uncorrected decisions are used";
    return e;
}

bool crossValidates(Selection s)
{
    return s == Selection::CrossValidation || s == Selection::CrossValidationMin;
}

double selectionGuard(Selection s)
{
    return s == Selection::CrossValidation ? kSelectionGuard : 0.0;
}

const RuleScore* CorrectionEvidence::rule(const std::string& name) const
{
    for (const auto& r : rules)
        if (r.rule == name)
            return &r;
    return nullptr;
}

const Comparison* CorrectionEvidence::comparison(const std::string& name) const
{
    for (const auto& c : comparisons)
        if (c.candidate.rule == name)
            return &c;
    return nullptr;
}

const FittedCalibration* CorrectionEvidence::calibration(const std::string& name) const
{
    for (const auto& c : calibrations)
        if (c.name() == name)
            return &c;
    return nullptr;
}

const char* selectionName(Selection s)
{
    switch (s) {
    case Selection::CrossValidation: return "cv";
    case Selection::CrossValidationMin: return "cv-min";
    case Selection::Validation: return "validation";
    case Selection::Clear: return "clear";
    case Selection::None: return "none";
    }
    return "validation";
}

const std::vector<std::string>& selectionNames()
{
    static const std::vector<std::string> names{"cv", "cv-min", "validation", "clear", "none"};
    return names;
}

Selection selectionFromName(const std::string& name)
{
    for (auto s : {Selection::CrossValidation, Selection::CrossValidationMin, Selection::Validation, Selection::Clear,
                   Selection::None})
        if (name == selectionName(s))
            return s;
    throw std::invalid_argument("unknown selection rule \"" + name.substr(0, 40) + "\"");
}

bool selectionKeepsQ(Selection s, const RuleScore& validationP, const RuleScore& validationQ, uint64_t seed)
{
    switch (s) {
    case Selection::None: return true;
    case Selection::CrossValidation:
    case Selection::CrossValidationMin:
    case Selection::Validation: return validationQ.cost <= validationP.cost;
    case Selection::Clear:
        return !validationP.rowCosts.empty() &&
               verdictOf(pairedBootstrap(validationP.rowCosts, validationQ.rowCosts, seed)) == Verdict::Better;
    }
    return true;
}

std::string correctionEvidenceText(const CorrectionEvidence& e, const CostMatrix& costs)
{
    const int64_t rows = e.rules.empty() ? 0 : static_cast<int64_t>(e.rules[0].rowCosts.size());
    std::string out;
    // The kept rule first: it is what the run's decisions, files and models use.
    if (const auto* kept = e.comparison(e.kept))
        out += "Decisions kept: " + e.kept + ". " + verdictSentence(*kept, e.setName) + "\n";
    else
        out += "Decisions kept: P (the uncorrected decisions).\n";
    out += "  Why: " + e.keptReason + ".\n";
    out += "Held-out evidence on " + std::to_string(rows) + " " + e.setName +
           " rows (no network, calibration or choice saw their labels):\n";
    out += "  " + padded("rule", 13) + padded("cost", 9) + padded("accuracy", 10) + padded("referred", 10) +
           padded("ECE", 8) + padded("vs P: change [95% interval]", 32) + "verdict\n";
    for (size_t k = 0; k < e.rules.size(); ++k) {
        const auto& r = e.rules[k];
        std::string line = "  " + padded(r.rule + (r.rule == e.kept ? " *" : ""), 13) + padded(number(r.cost), 9) +
                           padded(number(r.accuracy, "%.3f"), 10) + padded(number(r.referralRate, "%.3f"), 10) +
                           padded(number(r.ece, "%.3f"), 8);
        if (k > 0) {
            const auto& c = e.comparisons[k - 1];
            line += padded(number(c.difference.mean, "%+.4f") + " [" + number(c.difference.low, "%+.4f") + ", " +
                               number(c.difference.high, "%+.4f") + "]",
                           32) +
                    verdictName(c.verdict);
        }
        out += line + "\n";
    }
    out += "  (* the kept rule)\n";
    out += "Confusion on the " + e.setName + " rows:\n" + confusionText(e.rules[0], costs) +
           confusionText(e.rules[1], costs);
    if (const auto* kept = e.rule(e.kept); kept && e.kept != "P" && e.kept != "q")
        out += confusionText(*kept, costs);
    out += "Fitted on validation:";
    for (const auto& c : e.calibrations) {
        out += " " + c.name();
        if (c.kind == CalibrationKind::Temperature)
            out += " " + number(c.temperature, "%.3g");
        else if (c.kind == CalibrationKind::Offsets)
            for (double b : c.offsets)
                out += " " + number(b, "%+.2f");
        else if (c.kind == CalibrationKind::Platt)
            out += " a " + number(c.platt.a, "%.3g") + " b " + number(c.platt.b, "%+.3g");
        else if (c.kind == CalibrationKind::Isotonic)
            out += " (" + std::to_string(c.isotonic.x.size()) + " knots)";
        else if (c.kind == CalibrationKind::Constant)
            out += " \"" + costs.decisionName(static_cast<int>(c.constantDecision)) + "\"";
        out += ";";
    }
    out += "\nVerdict on q: " + verdictSentence(e.comparisons[0], e.setName) + "\n";
    return out;
}

namespace {

/// NaN (an accuracy with every row referred) as null: JSON has no NaN.
nlohmann::json orNull(double v)
{
    return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}

nlohmann::json ruleJson(const RuleScore& r, const CostMatrix& costs)
{
    const int d = costs.numDecisions();
    nlohmann::json confusion = nlohmann::json::array();
    for (int y = 0; y < costs.numClasses(); ++y)
        confusion.push_back(std::vector<int64_t>(r.confusion.begin() + y * d, r.confusion.begin() + (y + 1) * d));
    return {{"rule", r.rule},           {"rows", r.rowCosts.size()}, {"cost", r.cost},
            {"accuracy", orNull(r.accuracy)}, {"referral_rate", r.referralRate}, {"ece", orNull(r.ece)},
            {"confusion", confusion}};
}

} // namespace

nlohmann::json correctionEvidenceJson(const CorrectionEvidence& e, const CostMatrix& costs)
{
    nlohmann::json rules = nlohmann::json::array();
    for (size_t k = 0; k < e.rules.size(); ++k) {
        auto j = ruleJson(e.rules[k], costs);
        if (k > 0) {
            const auto& c = e.comparisons[k - 1];
            j["change_vs_p"] = {{"mean", c.difference.mean},
                                {"low", c.difference.low},
                                {"high", c.difference.high},
                                {"verdict", verdictName(c.verdict)}};
        }
        rules.push_back(j);
    }
    nlohmann::json calibrations = nlohmann::json::array();
    for (const auto& c : e.calibrations)
        calibrations.push_back(c.toJson());
    nlohmann::json crossValidation = nullptr;
    if (e.choice.folds > 0) {
        nlohmann::json costsByRule = nlohmann::json::object();
        for (const auto& c : e.choice.candidates)
            costsByRule[c.rule] = orNull(c.cost);
        crossValidation = {{"folds", e.choice.folds}, {"rows", e.choice.rows}, {"cost", costsByRule}};
    }
    const auto* kept = e.comparison(e.kept);
    return {{"set", e.setName},
            {"kept", e.kept},
            {"kept_reason", e.keptReason},
            {"kept_verdict", kept ? nlohmann::json(verdictSentence(*kept, e.setName))
                                  : nlohmann::json("the uncorrected decisions are kept")},
            {"rules", rules},
            {"validation", {{"rows", e.validationP.rowCosts.size()},
                            {"cost_p", e.validationP.cost},
                            {"cost_q", e.validationQ.cost}}},
            {"cross_validation", crossValidation},
            {"calibrations", calibrations},
            {"temperature", e.temperature},
            {"offsets", e.offsets},
            {"verdict", verdictSentence(e.comparisons.at(0), e.setName)}};
}

} // namespace lcs
