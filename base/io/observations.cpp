#include "base/io/observations.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <tuple>

#include "base/core/input_error.h"
#include "base/core/json_input.h"
#include "base/core/number_format.h"
#include "base/io/table_csv.h"

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

std::string wideCsv(const std::vector<Observation>& rows, const WideLayout& layout)
{
    const bool ruleIsKey = !layout.rule.empty();
    using Key = std::tuple<double, int, std::string, std::string>;
    auto keyOf = [&](const Observation& o) {
        return Key{o.settingValue, o.trial, o.method, ruleIsKey ? o.rule : std::string()};
    };
    // Each line's figures by (rule, metric); lines in the order the long table first names them.
    std::vector<Key> lines;
    std::map<Key, std::map<std::pair<std::string, std::string>, double>> figures;
    for (const auto& o : rows) {
        const Key key = keyOf(o);
        auto [it, added] = figures.try_emplace(key);
        if (added)
            lines.push_back(key);
        it->second[{ruleIsKey ? std::string() : o.rule, o.metric}] = o.value;
    }

    std::vector<std::string> header;
    const auto keyHeaders = layout.methodBeforeTrial
                                ? std::vector<const std::string*>{&layout.setting, &layout.method, &layout.trial, &layout.rule}
                                : std::vector<const std::string*>{&layout.setting, &layout.trial, &layout.method, &layout.rule};
    for (const auto* name : keyHeaders)
        if (!name->empty())
            header.push_back(*name);
    for (const auto& c : layout.columns)
        header.push_back(c.header);
    std::string out;
    auto writeLine = [&out](const std::vector<std::string>& cells) {
        for (size_t i = 0; i < cells.size(); ++i)
            out += (i ? "," : "") + cells[i];
        out += '\n';
    };
    std::vector<std::string> cells;
    for (const auto& h : header)
        cells.push_back(csvText(h));
    writeLine(cells);
    for (const auto& key : lines) {
        const auto& [settingValue, trial, method, rule] = key;
        cells.clear();
        if (!layout.setting.empty())
            cells.push_back(formatNumber(settingValue));
        if (!layout.method.empty() && layout.methodBeforeTrial)
            cells.push_back(csvText(method));
        if (!layout.trial.empty())
            cells.push_back(std::to_string(trial));
        if (!layout.method.empty() && !layout.methodBeforeTrial)
            cells.push_back(csvText(method));
        if (ruleIsKey)
            cells.push_back(csvText(rule));
        const auto& line = figures.at(key);
        for (const auto& c : layout.columns) {
            const auto it = line.find({ruleIsKey ? std::string() : c.rule, c.metric});
            if (it == line.end())
                cells.emplace_back();
            else if (c.whole && std::abs(it->second) < 9.0e15)
                cells.push_back(std::to_string(static_cast<long long>(it->second)));
            else
                cells.push_back(formatNumber(it->second));
        }
        writeLine(cells);
    }
    return out;
}

double observedValue(const std::vector<Observation>& rows, const Observation& key)
{
    for (const auto& o : rows)
        if (o.settingValue == key.settingValue && o.trial == key.trial && o.method == key.method &&
            o.rule == key.rule && o.metric == key.metric)
            return o.value;
    return std::numeric_limits<double>::quiet_NaN();
}

MeanStd meanStd(const std::vector<double>& v)
{
    MeanStd r;
    if (v.empty())
        return r;
    double sum = 0;
    for (double x : v)
        sum += x;
    r.count = static_cast<int>(v.size());
    r.mean = sum / static_cast<double>(v.size());
    if (v.size() > 1) {
        double ss = 0;
        for (double x : v)
            ss += (x - r.mean) * (x - r.mean);
        r.std = std::sqrt(ss / static_cast<double>(v.size() - 1));
    }
    return r;
}

std::string meanStdText(const MeanStd& m, int digits)
{
    char buf[96];
    if (m.count < 2)
        std::snprintf(buf, sizeof buf, "%.*f", digits, m.mean);
    else
        std::snprintf(buf, sizeof buf, "%.*f ± %.*f", digits, m.mean, digits, m.std);
    return buf;
}

ObservedCell::ObservedCell(const std::vector<Observation>& rows, double settingValue, const std::string& method)
{
    for (const auto& o : rows)
        if (o.settingValue == settingValue && o.method == method) {
            m_rows.push_back(o);
            if (o.metric == "collapsed") {  // every trial has one
                ++m_trials;
                m_collapsed += o.value != 0 ? 1 : 0;
            }
        }
}

MeanStd ObservedCell::figure(const std::string& metric, const std::string& rule) const
{
    std::vector<double> values;
    for (const auto& o : m_rows)
        if (o.metric == metric && o.rule == rule)
            values.push_back(o.value);
    if (static_cast<int>(values.size()) < m_trials) {
        const double undefined = std::numeric_limits<double>::quiet_NaN();
        return {undefined, m_trials > 1 ? undefined : 0.0, m_trials};
    }
    return meanStd(values);
}

} // namespace lcs
