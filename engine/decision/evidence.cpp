#include "engine/decision/evidence.h"

#include "engine/decision/confusion.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <stdexcept>

namespace lcs {

namespace {

double mean(const std::vector<double>& v)
{
    double s = 0;
    for (double x : v)
        s += x;
    return v.empty() ? std::numeric_limits<double>::quiet_NaN() : s / static_cast<double>(v.size());
}

std::string fixed4(double v)
{
    char b[32];
    std::snprintf(b, sizeof b, "%.4f", v);
    return b;
}

std::string signed4(double v)
{
    char b[32];
    std::snprintf(b, sizeof b, "%+.4f", v);
    return b;
}

} // namespace

RuleScore scoreRule(const std::string& rule, const std::vector<int64_t>& decisions, const std::vector<int64_t>& labels,
                    const CostMatrix& costs, const ClassProbabilities& probabilities)
{
    if (decisions.size() != labels.size())
        throw std::invalid_argument("scoreRule: " + std::to_string(decisions.size()) + " decisions for " +
                                    std::to_string(labels.size()) + " labels");
    const int c = costs.numClasses(), d = costs.numDecisions();
    RuleScore s;
    s.rule = rule;
    s.decisions = decisions;
    s.confusion.assign(static_cast<size_t>(c) * d, 0);
    for (size_t i = 0; i < labels.size(); ++i) {
        const int64_t y = labels[i], dec = decisions[i];
        if (y < 0 || y >= c || dec < 0 || dec >= d)
            throw std::invalid_argument("scoreRule: row " + std::to_string(i + 1) + " has label " + std::to_string(y) +
                                        " or decision " + std::to_string(dec) + " out of range");
        s.rowCosts.push_back(costs.at(static_cast<int>(y), static_cast<int>(dec)));
        ++s.confusion[static_cast<size_t>(y * d + dec)];
    }
    const auto figures = confusionFigures(s.confusion, costs);
    s.cost = mean(s.rowCosts);
    s.accuracy = figures.accuracy;
    s.referralRate = labels.empty() ? 0.0 : figures.referralRate;
    s.ece = probabilities.rows > 0 ? expectedCalibrationError(probabilities, labels)
                                   : std::numeric_limits<double>::quiet_NaN();
    return s;
}

ReliabilityCounter::ReliabilityCounter(int bins)
    : m_confidence(static_cast<size_t>(std::max(bins, 1)), 0.0), m_hits(m_confidence.size(), 0.0),
      m_count(m_confidence.size(), 0)
{
}

void ReliabilityCounter::add(const double* r, int classes, int64_t label)
{
    const auto top = static_cast<int64_t>(std::max_element(r, r + classes) - r);
    if (!std::isfinite(r[top]))
        return;  // not a probability: the callers' finiteness checks say so, not a bin
    const int bins = static_cast<int>(m_count.size());
    // Bin b holds confidences in (b/bins, (b+1)/bins]; 0 joins the first bin.
    const auto b = static_cast<size_t>(std::clamp(static_cast<int>(std::ceil(r[top] * bins)) - 1, 0, bins - 1));
    m_confidence[b] += r[top];
    m_hits[b] += top == label ? 1.0 : 0.0;
    ++m_count[b];
    ++m_rows;
}

std::vector<ReliabilityBin> ReliabilityCounter::bins() const
{
    const double nan = std::numeric_limits<double>::quiet_NaN();
    std::vector<ReliabilityBin> out(m_count.size());
    for (size_t b = 0; b < out.size(); ++b) {
        const auto n = static_cast<double>(m_count[b]);
        out[b] = {m_count[b], m_count[b] ? m_confidence[b] / n : nan, m_count[b] ? m_hits[b] / n : nan};
    }
    return out;
}

double ReliabilityCounter::ece() const
{
    if (m_rows == 0)
        return std::numeric_limits<double>::quiet_NaN();
    double ece = 0;
    for (size_t b = 0; b < m_count.size(); ++b)
        if (m_count[b] > 0)
            ece += std::abs(m_hits[b] - m_confidence[b]) / static_cast<double>(m_rows);
    return ece;
}

double expectedCalibrationError(const ClassProbabilities& p, const std::vector<int64_t>& labels, int bins)
{
    if (p.rows != static_cast<int64_t>(labels.size()) || bins < 1)
        throw std::invalid_argument("expectedCalibrationError: probabilities and labels differ in rows");
    ReliabilityCounter counter(bins);
    for (int64_t i = 0; i < p.rows; ++i)
        counter.add(p.row(i), p.classes, labels[static_cast<size_t>(i)]);
    return counter.ece();
}

double sortedQuantile(const std::vector<double>& sorted, double q)
{
    const double pos = q * static_cast<double>(sorted.size() - 1);
    const auto lo = static_cast<size_t>(std::floor(pos));
    const size_t hi = std::min(lo + 1, sorted.size() - 1);
    return sorted[lo] + (pos - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

namespace {

/// The continued fraction of the regularised incomplete beta function (modified Lentz).
double incompleteBetaFraction(double a, double b, double x)
{
    constexpr double tiny = 1e-300;
    const double qab = a + b, qap = a + 1, qam = a - 1;
    double c = 1, d = 1 - qab * x / qap;
    d = 1 / (std::abs(d) < tiny ? tiny : d);
    double h = d;
    for (int m = 1; m <= 500; ++m) {
        const double m2 = 2.0 * m;
        double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
        d = 1 + aa * d;
        c = 1 + aa / c;
        d = 1 / (std::abs(d) < tiny ? tiny : d);
        c = std::abs(c) < tiny ? tiny : c;
        h *= d * c;
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
        d = 1 + aa * d;
        c = 1 + aa / c;
        d = 1 / (std::abs(d) < tiny ? tiny : d);
        c = std::abs(c) < tiny ? tiny : c;
        const double step = d * c;
        h *= step;
        if (std::abs(step - 1) < 1e-15)
            break;
    }
    return h;
}

/// I_x(a, b), the regularised incomplete beta function.
double regularisedIncompleteBeta(double a, double b, double x)
{
    if (x <= 0)
        return 0;
    if (x >= 1)
        return 1;
    const double front =
        std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x));
    // The fraction converges fast below the mean of the beta distribution; above it, by symmetry.
    if (x < (a + 1) / (a + b + 2))
        return front * incompleteBetaFraction(a, b, x) / a;
    return 1 - front * incompleteBetaFraction(b, a, 1 - x) / b;
}

/// P(T <= t) for Student's t with `df` degrees of freedom.
double studentTCdf(double t, double df)
{
    const double tail = 0.5 * regularisedIncompleteBeta(df / 2, 0.5, df / (df + t * t));
    return t >= 0 ? 1 - tail : tail;
}

constexpr double kNormalQuantile975 = 1.959963984540054;

} // namespace

double studentTQuantile(double p, double df)
{
    if (!(p > 0 && p < 1) || !(df > 0))
        throw std::invalid_argument("studentTQuantile: needs 0 < p < 1 and df > 0");
    if (p == 0.5)
        return 0;
    if (p < 0.5)
        return -studentTQuantile(1 - p, df);
    double low = 0, high = 1;
    while (studentTCdf(high, df) < p && high < 1e12)
        high *= 2;
    for (int it = 0; it < 200 && high - low > 1e-12 * std::max(1.0, high); ++it) {
        const double mid = (low + high) / 2;
        (studentTCdf(mid, df) < p ? low : high) = mid;
    }
    return (low + high) / 2;
}

namespace {

/// candidate_i - reference_i, with `out` holding their count and mean.
std::vector<double> pairedDifferences(const std::vector<double>& reference, const std::vector<double>& candidate,
                                      const char* what, PairedDifference& out)
{
    if (reference.size() != candidate.size() || reference.empty())
        throw std::invalid_argument(std::string(what) + ": needs two equally long, non-empty cost lists");
    std::vector<double> diff(reference.size());
    for (size_t i = 0; i < diff.size(); ++i)
        diff[i] = candidate[i] - reference[i];
    out.rows = static_cast<int64_t>(diff.size());
    out.mean = mean(diff);
    return diff;
}

} // namespace

PairedDifference pairedBootstrap(const std::vector<double>& reference, const std::vector<double>& candidate,
                                 uint64_t seed, int resamples)
{
    if (resamples < 1)
        throw std::invalid_argument("pairedBootstrap: needs at least one resample");
    PairedDifference out;
    const auto diff = pairedDifferences(reference, candidate, "pairedBootstrap", out);
    const size_t n = diff.size();
    // The row indices come from a fixed engine and a hand-rolled bounded draw (the high
    // half of a 64 x 64-bit product: no division per draw), so the interval is the same on
    // every standard library.
    std::mt19937_64 engine(seed);
    std::vector<double> means(static_cast<size_t>(resamples));
    for (int r = 0; r < resamples; ++r) {
        double s = 0;
        for (size_t k = 0; k < n; ++k)
            s += diff[static_cast<size_t>((static_cast<unsigned __int128>(engine()) * n) >> 64)];
        means[static_cast<size_t>(r)] = s / static_cast<double>(n);
    }
    std::sort(means.begin(), means.end());
    const double low = sortedQuantile(means, 0.025), high = sortedQuantile(means, 0.975);
    const double expansion =
        n < 2 ? 1.0
              : std::sqrt(static_cast<double>(n) / static_cast<double>(n - 1)) *
                    studentTQuantile(0.975, static_cast<double>(n - 1)) / kNormalQuantile975;
    out.low = out.mean + expansion * (low - out.mean);
    out.high = out.mean + expansion * (high - out.mean);
    return out;
}

PairedDifference replicateInterval(const std::vector<double>& reference, const std::vector<double>& candidate)
{
    PairedDifference out;
    const auto diff = pairedDifferences(reference, candidate, "replicateInterval", out);
    const size_t n = diff.size();
    if (n < 2) {
        out.low = out.high = std::numeric_limits<double>::quiet_NaN();
        return out;
    }
    double squares = 0;
    for (double d : diff)
        squares += (d - out.mean) * (d - out.mean);
    const double standardError = std::sqrt(squares / static_cast<double>(n - 1) / static_cast<double>(n));
    const double half = studentTQuantile(0.975, static_cast<double>(n - 1)) * standardError;
    out.low = out.mean - half;
    out.high = out.mean + half;
    return out;
}

Verdict verdictOf(const PairedDifference& d)
{
    if (d.rows < kMinimumPairsForVerdict)
        return Verdict::TooFewToTell;
    if (d.high < 0)
        return Verdict::Better;
    if (d.low > 0)
        return Verdict::Worse;
    return Verdict::NoClearDifference;
}

const char* verdictName(Verdict v)
{
    switch (v) {
    case Verdict::Better: return "better";
    case Verdict::Worse: return "worse";
    case Verdict::TooFewToTell: return "too few to tell";
    case Verdict::NoClearDifference: break;
    }
    return "no clear difference";
}

Comparison compareRules(const RuleScore& reference, const RuleScore& candidate, uint64_t seed)
{
    Comparison c;
    c.reference = reference;
    c.candidate = candidate;
    c.difference = pairedBootstrap(reference.rowCosts, candidate.rowCosts, seed);
    c.verdict = verdictOf(c.difference);
    return c;
}

Comparison compareOverReplicates(const std::vector<double>& uncorrected, const std::vector<double>& corrected)
{
    RuleScore p, q;
    p.rule = "P";
    q.rule = "q";
    p.rowCosts = uncorrected;
    q.rowCosts = corrected;
    auto mean = [](const std::vector<double>& v) {
        double sum = 0;
        for (double x : v)
            sum += x;
        return v.empty() ? 0.0 : sum / static_cast<double>(v.size());
    };
    p.cost = mean(uncorrected);
    q.cost = mean(corrected);
    Comparison c;
    c.reference = p;
    c.candidate = q;
    c.difference = replicateInterval(uncorrected, corrected);
    c.verdict = verdictOf(c.difference);
    return c;
}

std::string verdictSentence(const Comparison& c, const std::string& setName, const std::string& unit)
{
    const auto& d = c.difference;
    if (c.verdict == Verdict::TooFewToTell) {
        const int64_t more = kMinimumPairsForVerdict - d.rows;
        return c.candidate.rule + " moved the " + setName + " cost from " + fixed4(c.reference.cost) + " to " +
               fixed4(c.candidate.cost) + " over " + std::to_string(d.rows) + " " + unit + ": too few " + unit +
               " to tell (a verdict needs at least " + std::to_string(kMinimumPairsForVerdict) + "; " +
               std::to_string(more) + " more).";
    }
    const std::string change = "(change " + signed4(d.mean) + ", 95% interval " + signed4(d.low) + " to " +
                               signed4(d.high) + ", " + std::to_string(d.rows) + " " + unit + ")";
    const std::string from = " the " + setName + " cost from " + fixed4(c.reference.cost) + " to " +
                             fixed4(c.candidate.cost) + " ";
    const std::string& q = c.candidate.rule;
    const std::string& p = c.reference.rule;
    switch (c.verdict) {
    case Verdict::Better: return q + " lowered" + from + change + ": " + q + " helps.";
    case Verdict::Worse: return q + " raised" + from + change + ": keep " + p + "'s decisions.";
    case Verdict::NoClearDifference:
    case Verdict::TooFewToTell: break;  // the latter answered above
    }
    return q + " moved" + from + change + ": no clear difference from " + p + ".";
}

} // namespace lcs
