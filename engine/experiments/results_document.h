#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/io/observations.h"
#include "engine/experiments/cost_benefit_curve.h"
#include "engine/experiments/run_record.h"

/// A finished run's results as one document, and the one place that writes it out: the
/// results file (JSON), its CSV, the cost-benefit CSV. An experiment fills the document;
/// it never assembles a file, so every experiment's files share their framing (the run
/// record, the long table, the evidence, the curve) and a field is added in one place.
namespace lcs {

/// A finished run, re-correction or action in the experiment's one results format.
struct ExperimentOutput {
    /// The results file's "experiment" (empty: the file has none).
    std::string experiment;
    /// "run": what a reader needs to repeat the run (absent for a measurement that is
    /// no run, such as frames per second).
    std::optional<RunRecord> record;
    /// "observations", the long table every reader can use; also the CSV's rows where
    /// csvLayout is set.
    std::optional<std::vector<Observation>> observations;
    /// The CSV as a wide view of the observations (so the two never disagree).
    std::optional<WideLayout> csvLayout;
    /// The CSV of a document whose figures are no long table (one model evaluated).
    std::string csvText;
    /// "evidence": the held-out comparison of the rules (a null value: a run that could
    /// gather none, said so; absent: no key).
    std::optional<nlohmann::json> evidence;
    /// The experiment's own fields ("methods", "summary", "seed", ...): an object.
    nlohmann::json fields = nlohmann::json::object();
    /// "cost_benefit", and its own CSV: the curve, where the run made one.
    std::optional<CostBenefit> costBenefit;
    /// The text table the CLI prints and the window logs.
    std::string table;
    /// The reliability diagrams as CSV (reliabilityCsv), where the experiment draws them.
    std::string reliability;
};

/// The results file: `fields` with "experiment", "run", "observations", "evidence" and
/// "cost_benefit" where the document has them, keys in order, two-space indented; ""
/// for a document with none of them (a job that has no results, such as sampling alone).
std::string resultsJson(const ExperimentOutput& output);
/// The results CSV: the observations laid out by csvLayout, else csvText ("" for none).
std::string resultsCsv(const ExperimentOutput& output);
/// [setting, value, current, method, replicate, rule, cost, referral_rate]; "" without a curve.
std::string costBenefitCsv(const ExperimentOutput& output);

/// The curve as the results file's "cost_benefit" and as its CSV.
nlohmann::json costBenefitJson(const CostBenefit& curve);
std::string costBenefitCsv(const CostBenefit& curve);

} // namespace lcs
