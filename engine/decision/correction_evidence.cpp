#include "decision/correction_evidence.h"

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
    std::string out = "  " + padded(s.rule + " (truth \\ decision)", 24);
    for (int k = 0; k < d; ++k)
        out += padded(costs.decisionName(k), width);
    out += "\n";
    for (int y = 0; y < c; ++y) {
        out += "  " + padded(costs.decisionName(y), 24);
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
                                            Selection selection, uint64_t seed)
{
    if (validationLabels.empty() || testLabels.empty())
        throw std::invalid_argument("correction evidence: needs validation and test rows");
    CorrectionEvidence e;
    e.validationP = scoreRule("P", bayesDecisionsOf(validationP, costs), validationLabels, costs, validationP);
    e.validationQ = scoreRule("q", bayesDecisionsOf(validationQ, costs), validationLabels, costs, validationQ);

    const auto logValidation = logOf(validationP), logTest = logOf(testP);
    e.temperature = fitTemperature(logValidation, validationLabels);
    e.offsets = fitClassOffsets(logValidation, validationLabels, costs);
    const auto tempered = adjustedProbabilities(logTest, e.temperature);
    const auto offset = adjustedProbabilities(logTest, 1.0, e.offsets);

    e.rules.push_back(scoreRule("P", bayesDecisionsOf(testP, costs), testLabels, costs, testP));
    e.rules.push_back(scoreRule("q", bayesDecisionsOf(testQ, costs), testLabels, costs, testQ));
    e.rules.push_back(scoreRule("temperature", bayesDecisionsOf(tempered, costs), testLabels, costs, tempered));
    e.rules.push_back(scoreRule("offsets", bayesDecisionsOf(offset, costs), testLabels, costs, offset));
    for (size_t k = 1; k < e.rules.size(); ++k)
        e.comparisons.push_back(compareRules(e.rules[0], e.rules[k], seed + k));

    const std::string rows = " (" + std::to_string(validationLabels.size()) + " rows)";
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

const char* selectionName(Selection s)
{
    switch (s) {
    case Selection::Validation: return "validation";
    case Selection::Clear: return "clear";
    case Selection::None: return "none";
    }
    return "validation";
}

const std::vector<std::string>& selectionNames()
{
    static const std::vector<std::string> names{"validation", "clear", "none"};
    return names;
}

Selection selectionFromName(const std::string& name)
{
    for (auto s : {Selection::Validation, Selection::Clear, Selection::None})
        if (name == selectionName(s))
            return s;
    throw std::invalid_argument("unknown selection rule \"" + name.substr(0, 40) + "\"");
}

bool selectionKeepsQ(Selection s, const RuleScore& validationP, const RuleScore& validationQ, uint64_t seed)
{
    switch (s) {
    case Selection::None: return true;
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
    std::string out = "Held-out evidence on " + std::to_string(rows) + " " + e.setName +
                      " rows (no network or choice saw their labels):\n";
    out += "  " + padded("rule", 13) + padded("cost", 9) + padded("accuracy", 10) + padded("referred", 10) +
           padded("ECE", 8) + padded("vs P: change [95% interval]", 32) + "verdict\n";
    for (size_t k = 0; k < e.rules.size(); ++k) {
        const auto& r = e.rules[k];
        std::string line = "  " + padded(r.rule, 13) + padded(number(r.cost), 9) + padded(number(r.accuracy, "%.3f"), 10) +
                           padded(number(r.referralRate, "%.3f"), 10) + padded(number(r.ece, "%.3f"), 8);
        if (k > 0) {
            const auto& c = e.comparisons[k - 1];
            line += padded(number(c.difference.mean, "%+.4f") + " [" + number(c.difference.low, "%+.4f") + ", " +
                               number(c.difference.high, "%+.4f") + "]",
                           32) +
                    verdictName(c.verdict);
        }
        out += line + "\n";
    }
    out += "Confusion on the " + e.setName + " rows:\n" + confusionText(e.rules[0], costs) +
           confusionText(e.rules[1], costs);
    out += "Temperature fitted on validation: " + number(e.temperature, "%.3g") + "; class offsets:";
    for (double b : e.offsets)
        out += " " + number(b, "%+.2f");
    out += "\nKept: " + e.kept + ", because " + e.keptReason + ".\n";
    out += "Verdict: " + verdictSentence(e.comparisons[0], e.setName) + "\n";
    if (e.kept == "P" && e.comparisons[0].verdict != Verdict::Worse)
        out += "The run's decisions are P's (chosen on validation).\n";
    for (size_t k = 1; k < e.comparisons.size(); ++k)
        if (e.comparisons[k].difference.mean < e.comparisons[0].difference.mean)
            out += "Note: " + e.comparisons[k].candidate.rule + " costs less than q on these rows (" +
                   number(e.comparisons[k].candidate.cost) + " against " + number(e.comparisons[0].candidate.cost) +
                   ").\n";
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
    return {{"set", e.setName},
            {"rules", rules},
            {"validation", {{"rows", e.validationP.rowCosts.size()},
                            {"cost_p", e.validationP.cost},
                            {"cost_q", e.validationQ.cost}}},
            {"temperature", e.temperature},
            {"offsets", e.offsets},
            {"kept", e.kept},
            {"kept_reason", e.keptReason},
            {"verdict", verdictSentence(e.comparisons.at(0), e.setName)}};
}

} // namespace lcs
