#include "base/sweep/sweep_collect.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <tuple>

#include "base/core/atomic_file.h"
#include "base/core/input_error.h"
#include "base/core/json_input.h"
#include "base/core/number_format.h"
#include "base/io/observations.h"
#include "base/io/table_csv.h"

namespace lcs {

namespace {

constexpr size_t kMaxResultsBytes = size_t{256} << 20;

} // namespace

std::vector<RunObservation> runObservations(const nlohmann::json& results, const std::string& source)
{
    if (!results.is_object())
        throw InputError(source + ": not a results file (not a JSON object)");
    if (!results.contains("observations"))
        throw InputError(source + ": no \"observations\" (the long table every results file of this version "
                                  "carries); run the cell again with this version");
    // Rows of one (setting, trial, method, rule) are one run's metrics, in the file's order.
    std::vector<RunObservation> out;
    std::map<std::tuple<std::string, double, int, std::string, std::string>, size_t> runOf;
    for (const auto& o : observationsFromJson(results.at("observations"), source)) {
        const auto key = std::make_tuple(o.setting, o.settingValue, o.trial, o.method, o.rule);
        auto it = runOf.find(key);
        if (it == runOf.end()) {
            RunObservation run;
            run.method = o.method;
            run.rule = o.rule;
            run.setting = o.setting;
            run.settingValue = o.settingValue;
            it = runOf.emplace(key, out.size()).first;
            out.push_back(std::move(run));
        }
        out[it->second].metrics[o.metric] = o.value;
    }
    return out;
}

std::string meanErrorText(const MeanAndError& stats)
{
    char text[96];
    const double se = stats.standardError;
    if (!std::isfinite(se))
        std::snprintf(text, sizeof text, "%.4g (one run: no error)", stats.mean);
    else if (se <= 1e-12 * std::max(1.0, std::abs(stats.mean)))  // runs that agree but for the last bit of the mean
        std::snprintf(text, sizeof text, "%.6g ± 0", stats.mean);
    else {
        // Two significant digits of se: its leading digit sits at 10^floor(log10 se).
        const int decimals = std::clamp(1 - static_cast<int>(std::floor(std::log10(se))), 0, 15);
        std::snprintf(text, sizeof text, "%.*f ± %.*f", decimals, stats.mean, decimals, se);
    }
    return text;
}

MeanAndError meanAndStandardError(const std::vector<double>& values)
{
    MeanAndError out;
    out.n = values.size();
    if (values.empty()) {
        out.mean = out.standardError = std::numeric_limits<double>::quiet_NaN();
        return out;
    }
    double sum = 0;
    for (double v : values)
        sum += v;
    out.mean = sum / static_cast<double>(out.n);
    if (out.n < 2) {
        out.standardError = std::numeric_limits<double>::quiet_NaN();
        return out;
    }
    double squares = 0;
    for (double v : values)
        squares += (v - out.mean) * (v - out.mean);
    const double sampleVariance = squares / static_cast<double>(out.n - 1);
    out.standardError = std::sqrt(sampleVariance / static_cast<double>(out.n));
    return out;
}

SweepTable collectSweep(const std::string& dir, const SweepManifest& manifest)
{
    SweepTable table;
    table.experiment = manifest.experiment;
    table.cells = static_cast<int>(manifest.cells.size());
    for (const auto& axis : manifest.axes)
        if (axis.name != kReplicateAxis)
            table.axes.push_back(axis.name);

    struct Group {
        SweepTableRow row;
        std::vector<double> values;
    };
    std::vector<Group> groups;
    std::map<std::string, size_t> groupIndex;
    for (const auto& cell : manifest.cells) {
        const auto status = cellStatus(dir, cell.id);
        if (status.state != CellState::Done) {
            table.incomplete.push_back(status);
            continue;
        }
        const std::string path = sweep_paths::resultsJson(dir, cell.id);
        const auto results = parseJsonInput(readFile(path, kMaxResultsBytes), path, JsonLimits{kMaxResultsBytes, 32});
        const auto* run = results.is_object() && results.contains("run") ? &results.at("run") : nullptr;
        if (!run || !run->is_object() || !run->contains("experiment") || run->at("experiment") != manifest.experiment)
            throw InputError(path + ": not a results file of a " + manifest.experiment +
                             " run (its \"run\" record names another experiment or none)");
        nlohmann::json axisValues = nlohmann::json::object();
        for (const auto& axis : table.axes)
            axisValues[axis] = cell.values.at(axis);
        for (const auto& o : runObservations(results, path)) {
            if (!o.setting.empty()) {
                if (!table.setting.empty() && table.setting != o.setting)
                    throw InputError(path + ": varies " + o.setting + ", other cells " + table.setting);
                table.setting = o.setting;
            }
            for (const auto& [metric, value] : o.metrics) {
                const std::string key = axisValues.dump() + "|" + (o.setting.empty() ? "" : formatNumber(o.settingValue)) +
                                        "|" + o.method + "|" + o.rule + "|" + metric;
                auto [it, added] = groupIndex.emplace(key, groups.size());
                if (added) {
                    Group g;
                    g.row.axisValues = axisValues;
                    if (!o.setting.empty())
                        g.row.settingValue = o.settingValue;
                    g.row.method = o.method;
                    g.row.rule = o.rule;
                    g.row.metric = metric;
                    groups.push_back(std::move(g));
                }
                groups[it->second].values.push_back(value);
            }
        }
    }
    // A swept list whose one value is the runs' own setting (rates=0.5 for rate 0.5) says
    // nothing the setting does not: it is dropped from the grouping axes.
    std::vector<std::string> axes;
    for (const auto& axis : table.axes) {
        bool mirrors = !groups.empty() && !table.setting.empty();
        for (const auto& g : groups) {
            const auto& v = g.row.axisValues.at(axis);
            mirrors = mirrors && g.row.settingValue && v.is_array() && v.size() == 1 && v[0].is_number() &&
                      v[0].get<double>() == *g.row.settingValue;
        }
        if (mirrors)
            for (auto& g : groups)
                g.row.axisValues.erase(axis);
        else
            axes.push_back(axis);
    }
    table.axes = axes;
    for (auto& g : groups) {
        g.row.stats = meanAndStandardError(g.values);
        table.rows.push_back(std::move(g.row));
    }
    return table;
}

namespace {

std::string numberCell(double v) { return std::isfinite(v) ? formatNumber(v) : std::string(); }

nlohmann::json numberOrNull(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

} // namespace

std::string sweepTableCsv(const SweepTable& table)
{
    std::string out;
    for (const auto& axis : table.axes)
        out += csvText(axis) + ",";
    if (!table.setting.empty())
        out += table.setting + ",";
    out += "method,rule,metric,n,mean,se\n";
    for (const auto& row : table.rows) {
        for (const auto& axis : table.axes)
            out += csvText(sweepValueText(row.axisValues.at(axis))) + ",";
        if (!table.setting.empty())
            out += (row.settingValue ? formatNumber(*row.settingValue) : std::string()) + ",";
        out += csvText(row.method) + "," + csvText(row.rule) + "," + csvText(row.metric) + "," +
               std::to_string(row.stats.n) + "," + numberCell(row.stats.mean) + "," +
               numberCell(row.stats.standardError) + "\n";
    }
    return out;
}

WideSweepTable wideSweepTable(const SweepTable& table)
{
    WideSweepTable wide;
    wide.keyColumns = table.axes;
    if (!table.setting.empty())
        wide.keyColumns.push_back(table.setting);
    wide.keyColumns.push_back("method");
    wide.keyColumns.push_back("rule");
    std::map<std::vector<std::string>, size_t> rowOf;
    for (const auto& row : table.rows) {
        std::vector<std::string> keys;
        for (const auto& axis : table.axes)
            keys.push_back(sweepValueText(row.axisValues.at(axis)));
        if (!table.setting.empty())
            keys.push_back(row.settingValue ? formatNumber(*row.settingValue) : std::string());
        keys.push_back(row.method);
        keys.push_back(row.rule);
        const auto [at, fresh] = rowOf.emplace(keys, wide.rows.size());
        if (fresh)
            wide.rows.push_back({keys, {}});
        wide.rows[at->second].metrics[row.metric] = row.stats;
        if (std::find(wide.metrics.begin(), wide.metrics.end(), row.metric) == wide.metrics.end())
            wide.metrics.push_back(row.metric);
    }
    return wide;
}

std::string sweepTableWideCsv(const SweepTable& table)
{
    const auto wide = wideSweepTable(table);
    std::string out;
    for (const auto& key : wide.keyColumns)
        out += csvText(key) + ",";
    for (size_t m = 0; m < wide.metrics.size(); ++m) {
        const auto name = csvText(wide.metrics[m]);
        out += name + "_n," + name + "_mean," + name + "_se" + (m + 1 < wide.metrics.size() ? "," : "");
    }
    out += "\n";
    for (const auto& row : wide.rows) {
        for (const auto& key : row.keys)
            out += csvText(key) + ",";
        for (size_t m = 0; m < wide.metrics.size(); ++m) {
            const auto it = row.metrics.find(wide.metrics[m]);
            if (it != row.metrics.end())
                out += std::to_string(it->second.n) + "," + numberCell(it->second.mean) + "," +
                       numberCell(it->second.standardError);
            else
                out += ",,";
            out += m + 1 < wide.metrics.size() ? "," : "";
        }
        out += "\n";
    }
    return out;
}

namespace {

/// One aligned text table of `table`'s rows, widths in characters ("±" is two bytes).
std::string alignedWideText(const SweepTable& table)
{
    const auto wide = wideSweepTable(table);
    std::vector<std::vector<std::string>> cells{wide.keyColumns};
    for (const auto& metric : wide.metrics)
        cells.front().push_back(metric);
    for (const auto& row : wide.rows) {
        auto line = row.keys;
        if (line.back().empty())
            line.back() = "-";  // a figure without a decision rule (the run's seconds)
        for (const auto& metric : wide.metrics) {
            const auto it = row.metrics.find(metric);
            line.push_back(it == row.metrics.end() ? "" : meanErrorText(it->second) + " (" +
                                                              std::to_string(it->second.n) + ")");
        }
        cells.push_back(std::move(line));
    }
    const auto width = [](const std::string& text) {
        return static_cast<size_t>(std::count_if(text.begin(), text.end(),
                                                 [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
    };
    std::vector<size_t> widths(cells.front().size(), 0);
    for (const auto& line : cells)
        for (size_t c = 0; c < line.size(); ++c)
            widths[c] = std::max(widths[c], width(line[c]));
    std::string out;
    for (const auto& line : cells) {
        std::string text;
        for (size_t c = 0; c < line.size(); ++c)
            text += line[c] + (c + 1 < line.size() ? std::string(widths[c] - width(line[c]) + 2, ' ') : "");
        while (!text.empty() && text.back() == ' ')
            text.pop_back();
        out += text + "\n";
    }
    return out;
}

} // namespace

std::string sweepTableWideText(const SweepTable& table)
{
    // The decision rules' figures first; the run's own (seconds, collapse), which have no
    // rule, in a table of their own below, so neither is padded with the other's columns.
    SweepTable ruled = table, unruled = table;
    ruled.rows.clear();
    unruled.rows.clear();
    for (const auto& row : table.rows)
        (row.rule.empty() ? unruled : ruled).rows.push_back(row);
    std::string out;
    if (!ruled.rows.empty())
        out += alignedWideText(ruled);
    if (!unruled.rows.empty())
        out += (out.empty() ? "" : "\n") + alignedWideText(unruled);
    return out;
}

std::string sweepTableJson(const SweepTable& table)
{
    auto rows = nlohmann::json::array();
    for (const auto& row : table.rows) {
        nlohmann::json j = {{"values", row.axisValues}, {"method", row.method}, {"rule", row.rule},
                            {"metric", row.metric},     {"n", row.stats.n},     {"mean", numberOrNull(row.stats.mean)},
                            {"se", numberOrNull(row.stats.standardError)}};
        if (row.settingValue)
            j[table.setting] = *row.settingValue;
        rows.push_back(std::move(j));
    }
    auto incomplete = nlohmann::json::array();
    for (const auto& c : table.incomplete) {
        nlohmann::json j = {{"cell", c.id}, {"state", cellStateName(c.state)},
                            {"log", "logs/" + sweep_paths::cellName(c.id) + ".log"}};
        if (c.state == CellState::Failed)
            j["exit_status"] = c.exitStatus;
        incomplete.push_back(std::move(j));
    }
    const nlohmann::json root = {{"format", "lcstudio-sweep-table"},
                                 {"version", 1},
                                 {"experiment", table.experiment},
                                 {"axes", table.axes},
                                 {"setting", table.setting.empty() ? nlohmann::json(nullptr) : nlohmann::json(table.setting)},
                                 {"cells", table.cells},
                                 {"incomplete_cells", incomplete},
                                 {"rows", rows}};
    return root.dump(2) + "\n";
}

} // namespace lcs
