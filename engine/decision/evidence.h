#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/decision/cost_matrix.h"

/// Held-out evidence for a decision rule against the uncorrected one, on labelled rows
/// neither rule was fitted on: realised cost, accuracy, confusion, referral rate, the
/// calibration of the probabilities the rule decides from, and the paired difference in
/// cost with a bootstrap interval over rows, ending in a plain verdict. Plain C++ (no
/// LibTorch): every figure is checked against hand counts in tst_evidence.
namespace lcs {

/// Probabilities of N rows over K classes, row-major.
struct ClassProbabilities {
    int64_t rows = 0;
    int classes = 0;
    std::vector<double> values;  ///< rows * classes
    const double* row(int64_t i) const { return values.data() + i * classes; }
};

/// How one rule did on the labelled rows.
struct RuleScore {
    std::string rule;                 ///< e.g. "P", "q", "temperature", "offsets"
    std::vector<int64_t> decisions;   ///< per row, in [0, D)
    std::vector<double> rowCosts;     ///< L[y_i, d_i]
    double cost = 0;                  ///< mean of rowCosts
    double accuracy = 0;              ///< on rows not referred; NaN when every row is referred
    double referralRate = 0;
    double ece = 0;                   ///< of the probabilities decided from (NaN when none are given)
    std::vector<int64_t> confusion;   ///< [C x D] row-major counts, rows = truth
};

/// Scores decisions on rows with labels (class indices in [0, C)) under `costs`;
/// `probabilities` (may be empty) gives the ECE.
RuleScore scoreRule(const std::string& rule, const std::vector<int64_t>& decisions,
                    const std::vector<int64_t>& labels, const CostMatrix& costs,
                    const ClassProbabilities& probabilities = {});

/// Bins of every reliability diagram and ECE: equal-width in top-label confidence.
inline constexpr int kReliabilityBins = 15;

/// One bin of a reliability diagram: the rows whose top-label confidence max_y p(y) lies
/// in (b/B, (b+1)/B] (0 joins the first bin), their mean confidence and the share whose
/// most probable class (the first on a tie) is the label. Empty: count 0, NaN means.
struct ReliabilityBin {
    int64_t count = 0;
    double confidence = 0;
    double accuracy = 0;
};

/// Reliability diagram and top-label expected calibration error (Guo et al. 2017),
/// accumulated a row at a time: ECE = sum_b (n_b / N) |accuracy_b - confidence_b|. A row
/// whose largest entry is not finite is left out.
class ReliabilityCounter {
public:
    explicit ReliabilityCounter(int bins = kReliabilityBins);
    void add(const double* probabilities, int classes, int64_t label);
    std::vector<ReliabilityBin> bins() const;
    double ece() const;  ///< NaN before any row

private:
    std::vector<double> m_confidence, m_hits;
    std::vector<int64_t> m_count;
    int64_t m_rows = 0;
};

/// The ECE of `p` against `labels` in `bins` bins (ReliabilityCounter).
double expectedCalibrationError(const ClassProbabilities& p, const std::vector<int64_t>& labels,
                                int bins = kReliabilityBins);

/// mean_i (candidate_i - reference_i) with a 95% interval. Negative: the candidate costs
/// less. `rows` counts the pairs (rows, frames or replicates).
struct PairedDifference {
    double mean = 0;
    double low = 0;
    double high = 0;
    int64_t rows = 0;
};
/// The value at quantile q in [0, 1] of non-empty sorted values, linearly interpolated
/// (numpy's default): every bootstrap interval's percentiles.
double sortedQuantile(const std::vector<double>& sorted, double q);

/// The p-quantile of Student's t distribution with `df` > 0 degrees of freedom (the
/// regularised incomplete beta function inverted by bisection; within 1e-10).
double studentTQuantile(double p, double df);

/// Over rows: the paired bootstrap, `resamples` draws of N rows with replacement from a
/// generator seeded `seed`. Its percentile interval is widened about the mean by
/// sqrt(N / (N - 1)) t_{0.975, N-1} / z_{0.975} (Hesterberg's expanded percentile
/// interval): the plain percentile interval is an interval of known variance with the
/// variance's divisor N, which covers too rarely at small N (about 91% at 10 rows); at
/// 500 rows the factor is 1.003. Coverage by simulation: tst_rule_choice.
PairedDifference pairedBootstrap(const std::vector<double>& reference, const std::vector<double>& candidate,
                                 uint64_t seed, int resamples = 2000);

/// Over replicates: the Student t interval mean +- t_{0.975, n-1} s / sqrt(n), s the
/// standard deviation with divisor n - 1. Each replicate's difference is a mean over
/// hundreds of rows, so close to normal, where t is exact; a percentile bootstrap over 2-10
/// replicates covered the truth in 48-91% of simulated runs. NaN bounds below 2 pairs.
PairedDifference replicateInterval(const std::vector<double>& reference, const std::vector<double>& candidate);

/// Fewer pairs than this give no verdict, only "too few to tell": an interval from two
/// replicates is so wide (t = 12.7) or, bootstrapped, so narrow that neither reading helps.
inline constexpr int64_t kMinimumPairsForVerdict = 3;

/// The interval's reading: the candidate is better (the whole interval below 0), worse
/// (the whole interval above 0), not distinguishable, or unreadable (fewer than
/// kMinimumPairsForVerdict pairs).
enum class Verdict { Better, NoClearDifference, Worse, TooFewToTell };
Verdict verdictOf(const PairedDifference& d);
const char* verdictName(Verdict v);  ///< "better", "no clear difference", "worse", "too few to tell"

/// The candidate's comparison with the uncorrected rule on one set of rows.
struct Comparison {
    RuleScore reference;
    RuleScore candidate;
    PairedDifference difference;  ///< candidate - reference, per row
    Verdict verdict = Verdict::NoClearDifference;
};
Comparison compareRules(const RuleScore& reference, const RuleScore& candidate, uint64_t seed);

/// q against P over replicates (one test cost of each per replicate): the paired change
/// with its Student t interval over replicates (replicateInterval), rules named "P" and
/// "q", costs the means.
Comparison compareOverReplicates(const std::vector<double>& uncorrected, const std::vector<double>& corrected);

/// One sentence a user can act on, e.g. "q raised the test cost from 0.0183 to 0.0213
/// (change +0.0030, 95% interval +0.0004 to +0.0061): keep P's decisions."
/// `unit` names what was paired ("rows", "replicates").
std::string verdictSentence(const Comparison& c, const std::string& setName, const std::string& unit = "rows");

} // namespace lcs
