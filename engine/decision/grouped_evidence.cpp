#include "engine/decision/grouped_evidence.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <stdexcept>

namespace lcs {
namespace {

/// The figures compared, read from one confusion: cost, the chosen IoUs, mIoU.
std::vector<double> figureValues(const std::vector<int64_t>& confusion, const CostMatrix& costs,
                                 const std::vector<int>& iouClasses)
{
    const auto f = confusionFigures(confusion, costs);
    std::vector<double> v{f.averageCost};
    for (int c : iouClasses)
        v.push_back(f.perClassIoU[static_cast<size_t>(c)]);
    v.push_back(f.meanIoU);
    return v;
}

void addInto(std::vector<int64_t>& total, const std::vector<int64_t>& counts)
{
    for (size_t k = 0; k < total.size(); ++k)
        total[k] += counts[k];
}

std::string format(const char* pattern, double v)
{
    char b[48];
    std::snprintf(b, sizeof b, pattern, v);
    return b;
}

} // namespace

bool GroupedComparison::anyWorse() const
{
    return std::any_of(figures.begin(), figures.end(), [](const GroupedFigure& f) { return f.verdict == Verdict::Worse; });
}

GroupedComparisonAccumulator::GroupedComparisonAccumulator(CostMatrix costs) : m_costs(std::move(costs)) {}

void GroupedComparisonAccumulator::add(std::vector<int64_t> referenceConfusion, std::vector<int64_t> candidateConfusion)
{
    const size_t cells = static_cast<size_t>(m_costs.numClasses()) * static_cast<size_t>(m_costs.numDecisions());
    if (referenceConfusion.size() != cells || candidateConfusion.size() != cells)
        throw std::invalid_argument("GroupedComparisonAccumulator: a group's confusion does not have " +
                                    std::to_string(cells) + " cells");
    m_reference.push_back(std::move(referenceConfusion));
    m_candidate.push_back(std::move(candidateConfusion));
}

GroupedComparison GroupedComparisonAccumulator::compare(const std::string& reference, const std::string& candidate,
                                                        const std::vector<int>& iouClasses, uint64_t seed,
                                                        int resamples) const
{
    if (m_reference.empty())
        throw std::logic_error("GroupedComparisonAccumulator: no groups to compare");
    if (resamples < 1)
        throw std::invalid_argument("GroupedComparisonAccumulator: resamples must be positive");
    for (int c : iouClasses)
        if (c < 0 || c >= m_costs.numClasses())
            throw std::invalid_argument("GroupedComparisonAccumulator: class " + std::to_string(c) + " out of range");
    const size_t cells = m_reference.front().size();
    const size_t n = m_reference.size();
    std::vector<int64_t> allReference(cells, 0), allCandidate(cells, 0);
    for (size_t g = 0; g < n; ++g) {
        addInto(allReference, m_reference[g]);
        addInto(allCandidate, m_candidate[g]);
    }
    const auto referenceValues = figureValues(allReference, m_costs, iouClasses);
    const auto candidateValues = figureValues(allCandidate, m_costs, iouClasses);
    const size_t figures = referenceValues.size();
    // Whole groups drawn with replacement; every figure of a resample from the same draw.
    std::mt19937_64 engine(seed);
    std::vector<std::vector<double>> changes(figures);
    std::vector<int64_t> sumReference(cells), sumCandidate(cells);
    for (int r = 0; r < resamples; ++r) {
        std::fill(sumReference.begin(), sumReference.end(), 0);
        std::fill(sumCandidate.begin(), sumCandidate.end(), 0);
        for (size_t k = 0; k < n; ++k) {
            const size_t g = static_cast<size_t>(engine() % n);
            addInto(sumReference, m_reference[g]);
            addInto(sumCandidate, m_candidate[g]);
        }
        const auto a = figureValues(sumReference, m_costs, iouClasses);
        const auto b = figureValues(sumCandidate, m_costs, iouClasses);
        for (size_t f = 0; f < figures; ++f)
            if (std::isfinite(a[f]) && std::isfinite(b[f]))
                changes[f].push_back(b[f] - a[f]);
    }
    GroupedComparison out;
    out.reference = reference;
    out.candidate = candidate;
    out.groups = static_cast<int64_t>(n);
    const auto& names = m_costs.classNames();
    for (size_t f = 0; f < figures; ++f) {
        GroupedFigure figure;
        if (f == 0) {
            figure.name = "cost";
        } else if (f + 1 == figures) {
            figure.name = "mIoU";
            figure.higherIsBetter = true;
        } else {
            const int c = iouClasses[f - 1];
            figure.name = "IoU " + (static_cast<size_t>(c) < names.size() ? names[static_cast<size_t>(c)]
                                                                           : "class " + std::to_string(c));
            figure.higherIsBetter = true;
        }
        figure.reference = referenceValues[f];
        figure.candidate = candidateValues[f];
        figure.difference.rows = out.groups;
        figure.difference.mean = candidateValues[f] - referenceValues[f];
        auto& draws = changes[f];
        if (draws.empty() || !std::isfinite(figure.difference.mean)) {
            figure.difference.low = figure.difference.high = std::numeric_limits<double>::quiet_NaN();
        } else {
            std::sort(draws.begin(), draws.end());
            figure.difference.low = sortedQuantile(draws, 0.025);
            figure.difference.high = sortedQuantile(draws, 0.975);
            // verdictOf reads a negative change as better; an IoU is better when it rises.
            PairedDifference lowerIsBetter = figure.difference;
            if (figure.higherIsBetter) {
                lowerIsBetter.low = -figure.difference.high;
                lowerIsBetter.high = -figure.difference.low;
            }
            figure.verdict = verdictOf(lowerIsBetter);
        }
        out.figures.push_back(figure);
    }
    return out;
}

std::string groupedComparisonText(const GroupedComparison& c)
{
    std::string out = c.candidate + " against " + c.reference + " over " + std::to_string(c.groups) + " " + c.unit +
                      " (95% intervals from resampled " + c.unit + "):\n";
    char line[256];
    std::snprintf(line, sizeof line, "  %-16s %9s %9s %9s  %-21s %s\n", "figure", c.reference.c_str(),
                  c.candidate.c_str(), "change", "95% interval", "verdict");
    out += line;
    for (const auto& f : c.figures) {
        const std::string interval = std::isfinite(f.difference.low)
                                         ? format("%+.4f", f.difference.low) + " to " + format("%+.4f", f.difference.high)
                                         : "undefined";
        std::snprintf(line, sizeof line, "  %-16s %9.4f %9.4f %+9.4f  %-21s %s\n", f.name.c_str(), f.reference,
                      f.candidate, f.difference.mean, interval.c_str(), verdictName(f.verdict));
        out += line;
    }
    return out;
}

std::string groupedVerdictSentence(const GroupedComparison& c)
{
    std::vector<std::string> better, worse;
    for (const auto& f : c.figures) {
        const std::string moved = f.name + " (" + format("%+.4f", f.difference.mean) + ", 95% interval " +
                                  format("%+.4f", f.difference.low) + " to " + format("%+.4f", f.difference.high) + ")";
        if (f.verdict == Verdict::Better)
            better.push_back(moved);
        else if (f.verdict == Verdict::Worse)
            worse.push_back(moved);
    }
    auto join = [](const std::vector<std::string>& parts) {
        std::string s;
        for (size_t k = 0; k < parts.size(); ++k)
            s += (k == 0 ? "" : k + 1 == parts.size() ? " and " : ", ") + parts[k];
        return s;
    };
    const std::string over = " over " + std::to_string(c.groups) + " " + c.unit;
    if (c.groups < kMinimumPairsForVerdict)
        return c.candidate + " against " + c.reference + over + ": too few " + c.unit + " to tell (a verdict needs at least " +
               std::to_string(kMinimumPairsForVerdict) + ").";
    if (!worse.empty())
        return c.candidate + " is worse than " + c.reference + " on " + join(worse) +
               (better.empty() ? "" : " (better on " + join(better) + ")") + over + ": keep " + c.reference +
               "'s decisions where these figures matter.";
    if (!better.empty())
        return c.candidate + " is better than " + c.reference + " on " + join(better) + over +
               ", and worse on none.";
    return c.candidate + " and " + c.reference + " show no clear difference on any figure" + over + ".";
}

} // namespace lcs
