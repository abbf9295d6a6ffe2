#include "engine/experiments/results_document.h"

#include "base/core/number_format.h"
#include "engine/experiments/report_json.h"

namespace lcs {

std::string resultsJson(const ExperimentOutput& output)
{
    const bool hasFields = output.fields.is_object() && !output.fields.empty();
    if (output.experiment.empty() && !output.record && !output.observations && !hasFields && !output.evidence &&
        !output.costBenefit)
        return {};  // a job with no results (sampling alone)
    nlohmann::json j = output.fields.is_object() ? output.fields : nlohmann::json::object();
    if (!output.experiment.empty())
        j["experiment"] = output.experiment;
    if (output.record)
        j["run"] = runRecordJson(*output.record);
    if (output.observations)
        j["observations"] = observationsJson(*output.observations);
    if (output.evidence)
        j["evidence"] = *output.evidence;
    if (output.costBenefit)
        j["cost_benefit"] = costBenefitJson(*output.costBenefit);
    return j.dump(2) + "\n";
}

std::string resultsCsv(const ExperimentOutput& output)
{
    if (output.csvLayout && output.observations)
        return wideCsv(*output.observations, *output.csvLayout);
    return output.csvText;
}

std::string costBenefitCsv(const ExperimentOutput& output)
{
    return output.costBenefit ? costBenefitCsv(*output.costBenefit) : std::string();
}

std::string costBenefitCsv(const CostBenefit& curve)
{
    std::string out = "setting,value,current,method,replicate,rule,cost,referral_rate\n";
    for (const auto& r : curve.rows)
        out += curve.axis.setting + "," + formatNumber(r.value) + "," + (r.value == curve.axis.current ? "1" : "0") +
               "," + r.method + "," + std::to_string(r.replicate) + "," + r.rule + "," + reportCell(r.cost) + "," +
               reportCell(r.referralRate) + "\n";
    return out;
}

nlohmann::json costBenefitJson(const CostBenefit& curve)
{
    auto rows = nlohmann::json::array();
    for (const auto& r : curve.rows)
        rows.push_back({{"value", r.value},
                        {"method", r.method},
                        {"replicate", r.replicate},
                        {"rule", r.rule},
                        {"cost", reportNumber(r.cost)},
                        {"referral_rate", reportNumber(r.referralRate)}});
    return {{"setting", curve.axis.setting}, {"current", curve.axis.current}, {"values", curve.axis.values},
            {"rows", rows}};
}

} // namespace lcs
