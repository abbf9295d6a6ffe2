#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "base/decision/cost_matrix.h"
#include "base/io/session_file.h"
#include "engine/experiments/experiment.h"
#include "engine/experiments/image/corruption_experiment.h"

/// Sweep folders for tests: a corruption session and results files written by the
/// experiment's own writer (corruptionOutput), so the sweep reads what runs write.
namespace sweep_fixtures {

inline const lcs::SessionExperiment& experimentNamed(const std::string& name)
{
    static const auto catalogue = lcs::sessionCatalogue();
    for (const auto& e : catalogue)
        if (e.name == name)
            return e;
    throw std::logic_error("no experiment " + name);
}

/// A corruption session on Fashion-MNIST with the default settings.
inline lcs::SessionData corruptionSession()
{
    lcs::SessionData s;
    s.experiment = lcs::kCorruptionExperiment;
    s.settings = lcs::checkedSettings(experimentNamed(s.experiment).settings, {{"data", "fashion-mnist"}}, "test");
    s.costs = lcs::CostMatrix::zeroOne(10);
    return s;
}

inline lcs::CorruptionRow corruptionRow(double rate, int trial, lcs::ImageMethod method, double cost, double accuracy)
{
    lcs::CorruptionRow r;
    r.setting = rate;
    r.trial = trial;
    r.method = method;
    r.metrics.averageCost = cost;
    r.metrics.accuracy = accuracy;
    r.metrics.nll = 0.5;
    return r;
}

/// A corruption results file of one rate with `rows` (its summary names SGLD + S and q).
inline std::string corruptionResults(double rate, const std::vector<lcs::CorruptionRow>& rows)
{
    lcs::CorruptionResult r;
    r.record.experiment = lcs::kCorruptionExperiment;
    r.record.costs = lcs::CostMatrix::zeroOne(10);
    r.rows = rows;
    for (auto method : {lcs::ImageMethod::SgldS, lcs::ImageMethod::Ours}) {
        lcs::CorruptionSummary s;
        s.rate = rate;
        s.method = method;
        r.summary.push_back(s);
    }
    return lcs::resultsJson(lcs::corruptionOutput(r));
}

} // namespace sweep_fixtures
