#include "io/observations.h"

#include <cmath>

#include "core/input_error.h"
#include "core/json_input.h"

namespace lcs {

nlohmann::json observationsJson(const std::vector<Observation>& rows)
{
    auto out = nlohmann::json::array();
    for (const auto& o : rows) {
        nlohmann::json j;
        if (!o.setting.empty()) {
            j["setting"] = o.setting;
            j["setting_value"] = o.settingValue;
        }
        j["trial"] = o.trial;
        j["method"] = o.method;
        j["rule"] = o.rule;
        j["metric"] = o.metric;
        j["value"] = o.value;
        out.push_back(std::move(j));
    }
    return out;
}

std::vector<Observation> observationsFromJson(const nlohmann::json& rows, const std::string& source)
{
    constexpr size_t kMaxRows = 10'000'000;
    if (!rows.is_array())
        throw InputError(source + ": field \"observations\" must be a list");
    if (rows.size() > kMaxRows)
        throw InputError(source + ": more than " + std::to_string(kMaxRows) + " observations");
    std::vector<Observation> out;
    out.reserve(rows.size());
    for (size_t i = 0; i < rows.size(); ++i) {
        const std::string where = source + ": observations[" + std::to_string(i) + "]";
        const auto& row = rows[i];
        if (!row.is_object())
            throw InputError(where + " must be an object");
        auto text = [&](const char* key, bool required) -> std::string {
            if (!row.contains(key)) {
                if (required)
                    throw InputError(where + " has no \"" + key + "\"");
                return {};
            }
            if (!row.at(key).is_string())
                throw InputError(where + "." + key + " must be text (is " + jsonExcerpt(row.at(key)) + ")");
            return row.at(key).get<std::string>();
        };
        auto number = [&](const char* key) {
            if (!row.contains(key) || !row.at(key).is_number())
                throw InputError(where + "." + key + " must be a number");
            const double v = row.at(key).get<double>();
            if (!std::isfinite(v))
                throw InputError(where + "." + key + " is not finite");
            return v;
        };
        Observation o;
        o.setting = text("setting", false);
        if (!o.setting.empty())
            o.settingValue = number("setting_value");
        if (!row.contains("trial") || !row.at("trial").is_number_integer() || row.at("trial").get<long long>() < 0 ||
            row.at("trial").get<long long>() > 1'000'000)
            throw InputError(where + ".trial must be a whole number in 0..1000000");
        o.trial = row.at("trial").get<int>();
        o.method = text("method", true);
        o.rule = text("rule", true);
        o.metric = text("metric", true);
        o.value = number("value");
        out.push_back(std::move(o));
    }
    return out;
}

} // namespace lcs
