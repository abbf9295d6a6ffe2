#include "engine/decision/rule_choice.h"

#include "base/core/input_error.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <random>
#include <stdexcept>
#include <utility>

namespace lcs {

int foldsFor(const std::vector<int64_t>& labels, const CostMatrix& costs, int requested)
{
    if (requested < 0 || requested == 1)
        throw InputError("folds " + std::to_string(requested) +
                                    ": cross-validation needs 2 or more folds (0 chooses " +
                                    std::to_string(kDefaultFolds) + ")");
    std::map<int64_t, int64_t> perClass;
    for (auto y : labels)
        ++perClass[y];
    if (perClass.size() < 2) {
        const std::string only = perClass.empty() ? std::string("no class")
                                                  : "only class \"" +
                                                        costs.decisionName(static_cast<int>(perClass.begin()->first)) +
                                                        "\"";
        throw InputError("the " + std::to_string(labels.size()) + " labelled validation rows hold " + only +
                                    ": choosing a rule and fitting a calibration need labelled rows of at least two "
                                    "classes (more labelled rows, or a larger validation share)");
    }
    auto fewest = perClass.begin();
    for (auto it = perClass.begin(); it != perClass.end(); ++it)
        if (it->second < fewest->second)
            fewest = it;
    const std::string name = costs.decisionName(static_cast<int>(fewest->first));
    if (requested == 0)
        return static_cast<int>(std::max<int64_t>(2, std::min<int64_t>(kDefaultFolds, fewest->second)));
    if (fewest->second < requested)
        throw InputError("folds " + std::to_string(requested) + ": class \"" + name + "\" has " +
                                    std::to_string(fewest->second) + " labelled validation row(s), " +
                                    std::to_string(requested - fewest->second) +
                                    " short of one per fold; ask for at most " + std::to_string(fewest->second) +
                                    " folds, or 0 to choose");
    return requested;
}

std::vector<int> stratifiedFolds(const std::vector<int64_t>& labels, int folds, uint64_t seed)
{
    std::map<int64_t, std::vector<size_t>> byClass;
    for (size_t i = 0; i < labels.size(); ++i)
        byClass[labels[i]].push_back(i);
    std::mt19937_64 engine(seed);
    std::vector<int> out(labels.size(), 0);
    int next = 0;
    for (auto& [label, rows] : byClass) {
        // Fisher-Yates with a hand-rolled bounded draw: the same folds on every library.
        for (size_t i = rows.size(); i > 1; --i)
            std::swap(rows[i - 1], rows[static_cast<size_t>((static_cast<unsigned __int128>(engine()) * i) >> 64)]);
        for (size_t r : rows) {
            out[r] = next;
            next = (next + 1) % folds;
        }
    }
    return out;
}

std::vector<int> groupedFolds(const std::vector<int64_t>& groups, int folds, uint64_t seed)
{
    std::map<int64_t, size_t> slot;  // group -> its place among the groups, in order of first appearance
    std::vector<int64_t> order;
    for (auto g : groups)
        if (slot.emplace(g, order.size()).second)
            order.push_back(g);
    std::mt19937_64 engine(seed);
    for (size_t i = order.size(); i > 1; --i)
        std::swap(order[i - 1], order[static_cast<size_t>((static_cast<unsigned __int128>(engine()) * i) >> 64)]);
    std::map<int64_t, int> foldOf;
    for (size_t k = 0; k < order.size(); ++k)
        foldOf[order[k]] = static_cast<int>(k % static_cast<size_t>(folds));
    std::vector<int> out(groups.size());
    for (size_t i = 0; i < groups.size(); ++i)
        out[i] = foldOf[groups[i]];
    return out;
}

namespace {

/// The mean of `values` and its standard error, cluster-robust over `groups` (empty:
/// every value its own group): sqrt(G / (G - 1) sum_g e_g^2) / n, e_g the sum of group g's
/// deviations from the mean. One value per group gives sqrt(sum (v - mean)^2 / (n - 1) / n),
/// the plain standard error. NaN below two groups. Values past the end of `groups` (the
/// unseen row) are each their own group.
std::pair<double, double> meanAndStandardError(const std::vector<double>& values,
                                               const std::vector<int64_t>& groups = {})
{
    const double n = static_cast<double>(values.size());
    double mean = 0;
    for (double v : values)
        mean += v;
    mean /= n;
    std::map<int64_t, double> deviation;  // group -> e_g
    std::vector<double> alone;
    for (size_t i = 0; i < values.size(); ++i) {
        if (i < groups.size())
            deviation[groups[i]] += values[i] - mean;
        else
            alone.push_back(values[i] - mean);
    }
    double squares = 0;
    for (const auto& [group, e] : deviation)
        squares += e * e;
    for (double e : alone)
        squares += e * e;
    const double g = static_cast<double>(deviation.size() + alone.size());
    return {mean, g > 1 ? std::sqrt(g / (g - 1) * squares) / n : std::numeric_limits<double>::quiet_NaN()};
}

ClassProbabilities subset(const ClassProbabilities& p, const std::vector<size_t>& rows)
{
    ClassProbabilities out;
    out.classes = p.classes;
    out.rows = static_cast<int64_t>(rows.size());
    out.values.reserve(rows.size() * static_cast<size_t>(p.classes));
    for (size_t r : rows)
        out.values.insert(out.values.end(), p.row(static_cast<int64_t>(r)), p.row(static_cast<int64_t>(r)) + p.classes);
    return out;
}

std::string figure(double v)
{
    if (!std::isfinite(v))
        return "not fitted";
    char b[32];
    std::snprintf(b, sizeof b, "%.4f", v);
    return b;
}

} // namespace

namespace {

/// A fixed rule scored as it is on every labelled row.
CandidateCost fixedCandidate(const FixedRule& rule, const std::vector<int64_t>& labels, const CostMatrix& costs)
{
    if (rule.decisions.size() != labels.size())
        throw std::invalid_argument("rule choice: " + rule.name + " has " + std::to_string(rule.decisions.size()) +
                                    " decisions for " + std::to_string(labels.size()) + " labelled rows");
    CandidateCost candidate{rule.name, 0, std::vector<double>(labels.size()), rule.decisions, 0, 0, 0};
    double total = 0;
    for (size_t i = 0; i < labels.size(); ++i)
        total += (candidate.rowCosts[i] = costs.at(static_cast<int>(labels[i]), static_cast<int>(rule.decisions[i])));
    candidate.cost = total / static_cast<double>(labels.size());
    return candidate;
}

/// A calibration fitted on every fold but one and scored on the one left out, fold by
/// fold; its cost NaN (and no rows) where a fold's training rows could not fit it.
CandidateCost calibrationCandidate(CalibrationKind kind, const ClassProbabilities& p,
                                   const std::vector<int64_t>& labels, const CostMatrix& costs,
                                   const std::vector<int>& fold, int folds)
{
    double total = 0;
    std::vector<double> rowCosts(labels.size(), 0.0);
    std::vector<int64_t> rowDecisions(labels.size(), 0);
    for (int f = 0; f < folds; ++f) {
        std::vector<size_t> train, held;
        for (size_t i = 0; i < labels.size(); ++i)
            (fold[i] == f ? held : train).push_back(i);
        if (held.empty())
            continue;
        std::vector<int64_t> trainLabels;
        for (size_t i : train)
            trainLabels.push_back(labels[i]);
        try {
            const auto fit = fitCalibration(kind, subset(p, train), trainLabels, costs);
            const auto decisions = fit.decisions(subset(p, held), costs);
            for (size_t k = 0; k < held.size(); ++k) {
                rowDecisions[held[k]] = decisions[k];
                total += (rowCosts[held[k]] = costs.at(static_cast<int>(labels[held[k]]), static_cast<int>(decisions[k])));
            }
        } catch (const std::invalid_argument&) {
            // e.g. a fold's training rows of one class: the rule sits this choice out
            return {calibrationName(kind), std::numeric_limits<double>::quiet_NaN(), {}, {}, 0, 0, 0};
        }
    }
    return {calibrationName(kind), total / static_cast<double>(labels.size()), std::move(rowCosts),
            std::move(rowDecisions), 0, 0, 0};
}

/// Each candidate's paired difference from the first offered, its standard error and
/// its dearest change (NaN for the first itself, or where not fitted).
void compareWithFirst(std::vector<CandidateCost>& candidates, const CostMatrix& costs,
                      const std::vector<int64_t>& groups)
{
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const auto& first = candidates.front().rowCosts;
    const auto& firstDecisions = candidates.front().decisions;
    for (size_t c = 0; c < candidates.size(); ++c) {
        auto& candidate = candidates[c];
        if (c == 0 || candidate.rowCosts.empty() || first.empty()) {
            candidate.changeVsFirst = candidate.standardError = nan;
            continue;
        }
        std::vector<double> differences(first.size());
        for (size_t i = 0; i < first.size(); ++i)
            differences[i] = candidate.rowCosts[i] - first[i];
        const auto [mean, error] = meanAndStandardError(differences, groups);
        candidate.changeVsFirst = mean;
        candidate.standardError = error;
        for (size_t i = 0; i < first.size(); ++i) {
            if (candidate.decisions[i] == firstDecisions[i])
                continue;
            for (int y = 0; y < costs.numClasses(); ++y)
                candidate.dearestChange =
                    std::max(candidate.dearestChange, costs.at(y, static_cast<int>(candidate.decisions[i])) -
                                                          costs.at(y, static_cast<int>(firstDecisions[i])));
        }
    }
}

/// Whether candidate c may be kept: scored, and under a guard its paired difference
/// from the first (with kUnseenRows more rows at its dearest change where the rule
/// counts them) below zero by more than `guard` standard errors.
bool eligible(const std::vector<CandidateCost>& candidates, size_t c, bool countsUnseenRow, double guard,
              const std::vector<int64_t>& groups)
{
    const auto& candidate = candidates[c];
    if (!std::isfinite(candidate.cost))
        return false;
    if (guard <= 0 || c == 0)
        return true;
    if (!std::isfinite(candidate.standardError))
        return false;
    auto differences = candidate.rowCosts;
    for (size_t i = 0; i < differences.size(); ++i)
        differences[i] -= candidates.front().rowCosts[i];
    if (countsUnseenRow)
        differences.insert(differences.end(), kUnseenRows, candidate.dearestChange);
    const auto [mean, error] = meanAndStandardError(differences, groups);
    // Strictly beyond, with room for rounding: one row in a rule's favour is a change
    // of exactly -1/n with a standard error of exactly 1/n, which is not beyond.
    return mean + guard * error < -1e-12;
}

/// One sentence: what was kept, by which rule, on what rows, every candidate's cost.
std::string choiceReason(const RuleChoice& choice, double guard, size_t rows, const std::vector<int64_t>& groups,
                         const std::vector<std::string>& unfitted)
{
    std::string list;
    auto ranked = choice.candidates;
    std::stable_sort(ranked.begin(), ranked.end(), [](const CandidateCost& a, const CandidateCost& b) {
        return (std::isfinite(a.cost) ? a.cost : INFINITY) < (std::isfinite(b.cost) ? b.cost : INFINITY);
    });
    for (const auto& c : ranked)
        list += (list.empty() ? "" : ", ") + c.rule + " " + figure(c.cost);
    std::string grouping;
    if (!groups.empty()) {
        std::map<int64_t, int> distinct;
        for (auto g : groups)
            distinct[g] = 1;
        grouping = " in " + std::to_string(distinct.size()) + " groups kept whole (folds by group, cluster-robust "
                   "standard errors)";
    }
    const std::string where = std::to_string(choice.folds) + "-fold cross-validation on " + std::to_string(rows) +
                              " labelled validation rows" + grouping + " (" + list + ")";
    const std::string& first = choice.candidates.front().rule;
    std::string reason;
    if (guard <= 0)
        reason = choice.kept + " had the lowest cost in " + where;
    else if (choice.kept == first)
        reason = "no rule beat " + first + " by more than " + figure(guard).substr(0, 3) +
                 " standard error of the paired difference (a calibration counting one more row at its "
                 "dearest change) in " + where;
    else
        reason = choice.kept + " had the lowest cost of the rules that beat " + first + " by more than " +
                 figure(guard).substr(0, 3) +
                 " standard error of the paired difference (a calibration counting one more row at its "
                 "dearest change) in " + where;
    if (!unfitted.empty()) {
        std::string names;
        for (const auto& u : unfitted)
            names += (names.empty() ? "" : ", ") + u;
        reason += "; " + names + " could not be fitted on every fold's training rows";
    }
    return reason;
}

} // namespace

RuleChoice chooseRuleByCrossValidation(const ClassProbabilities& p, const std::vector<FixedRule>& fixed,
                                       const std::vector<int64_t>& labels, const CostMatrix& costs,
                                       const std::vector<CalibrationKind>& calibrations, int folds, uint64_t seed,
                                       double guard, const std::vector<int64_t>& groups)
{
    if (!groups.empty() && groups.size() != labels.size())
        throw std::invalid_argument("rule choice: " + std::to_string(groups.size()) + " groups for " +
                                    std::to_string(labels.size()) + " labelled rows");
    if (p.rows != static_cast<int64_t>(labels.size()) || labels.empty())
        throw std::invalid_argument("rule choice: " + std::to_string(labels.size()) + " labels for " +
                                    std::to_string(p.rows) + " rows");
    if (folds < 2)
        throw std::invalid_argument("rule choice: cross-validation needs 2 or more folds");
    RuleChoice choice;
    choice.folds = folds;
    choice.rows = static_cast<int64_t>(labels.size());
    for (const auto& rule : fixed)
        choice.candidates.push_back(fixedCandidate(rule, labels, costs));
    const auto fold = groups.empty() ? stratifiedFolds(labels, folds, seed) : groupedFolds(groups, folds, seed);
    std::vector<std::string> unfitted;
    for (auto kind : calibrations) {
        choice.candidates.push_back(calibrationCandidate(kind, p, labels, costs, fold, folds));
        if (!std::isfinite(choice.candidates.back().cost))
            unfitted.push_back(calibrationName(kind));
    }
    compareWithFirst(choice.candidates, costs, groups);
    const CandidateCost* best = nullptr;
    for (size_t c = 0; c < choice.candidates.size(); ++c) {
        const bool countsUnseenRow = c >= fixed.size() || fixed[c].guardUnseenRow;
        if (eligible(choice.candidates, c, countsUnseenRow, guard, groups) &&
            (!best || choice.candidates[c].cost < best->cost - 1e-12))
            best = &choice.candidates[c];
    }
    if (!best)
        throw std::invalid_argument("rule choice: no candidate rule could be scored");
    choice.kept = best->rule;
    choice.reason = choiceReason(choice, guard, labels.size(), groups, unfitted);
    return choice;
}

} // namespace lcs
