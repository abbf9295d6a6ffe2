#include "base/sweep/sweep_plan.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <set>

#include <sys/stat.h>

#include "base/core/atomic_file.h"
#include "base/core/cancel.h"
#include "base/core/input_error.h"
#include "base/core/json_input.h"
#include "base/core/number_format.h"
#include "base/core/outputs.h"
#include "base/io/table_csv.h"

namespace lcs {

namespace {

constexpr const char* kManifestFormat = "lcstudio-sweep";
constexpr int kManifestVersion = 1;
constexpr size_t kMaxManifestBytes = size_t{64} << 20;
constexpr size_t kMaxAxisValues = 10000;

std::string settingNames(const SessionExperiment& experiment)
{
    std::string names;
    for (const auto& s : experiment.settings)
        names += (names.empty() ? "" : ", ") + s.name;
    return names;
}

/// "A..B" as the integers A, A+1, ..., B; nothing when `item` is not a range.
std::optional<std::vector<std::string>> integerRange(const std::string& axis, const std::string& item)
{
    const size_t dots = item.find("..");
    if (dots == std::string::npos)
        return std::nullopt;
    const auto lo = parseInteger(item.substr(0, dots), -(1LL << 62), 1LL << 62);
    const auto hi = parseInteger(item.substr(dots + 2), -(1LL << 62), 1LL << 62);
    if (!lo || !hi)
        throw InputError("--over " + axis + ": \"" + item.substr(0, 40) + "\" is not a range of integers (A..B)");
    if (*hi < *lo)
        throw InputError("--over " + axis + ": the range \"" + item.substr(0, 40) + "\" is empty (" +
                         std::to_string(*lo) + " > " + std::to_string(*hi) + ")");
    if (static_cast<unsigned long long>(*hi - *lo) >= kMaxAxisValues)
        throw InputError("--over " + axis + ": the range \"" + item.substr(0, 40) + "\" has more than " +
                         std::to_string(kMaxAxisValues) + " values");
    std::vector<std::string> out;
    for (long long v = *lo; v <= *hi; ++v)
        out.push_back(std::to_string(v));
    return out;
}

const SessionExperiment& experimentIn(const SessionCatalogue& catalogue, const std::string& name,
                                      const std::string& source)
{
    std::string known;
    for (const auto& e : catalogue) {
        if (e.name == name)
            return e;
        known += (known.empty() ? "" : ", ") + e.name;
    }
    throw InputError(source + ": field \"experiment\": \"" + name.substr(0, 40) + "\" is not an experiment (" +
                     known + ")");
}

bool exists(const std::string& path)
{
    struct stat info {};
    return ::stat(path.c_str(), &info) == 0;
}

} // namespace

std::string sweepValueText(const nlohmann::json& value)
{
    if (value.is_string())
        return value.get<std::string>();
    if (value.is_boolean())
        return value.get<bool>() ? "true" : "false";
    if (value.is_number_integer())
        return std::to_string(value.get<long long>());
    if (value.is_number())
        return formatNumber(value.get<double>());
    if (value.is_array()) {
        std::string out;
        for (const auto& item : value)
            out += (out.empty() ? "" : ",") + sweepValueText(item);
        return out;
    }
    return value.dump();
}

std::vector<SweepAxis> parseSweepAxes(const std::vector<std::string>& overs, const SessionExperiment& experiment)
{
    std::vector<SweepAxis> axes;
    for (const auto& over : overs) {
        const size_t eq = over.find('=');
        if (eq == std::string::npos || eq == 0)
            throw InputError("--over: \"" + over.substr(0, 40) + "\" is not NAME=VALUES (as seed=0..4 or rates=0.3,0.5)");
        const std::string name = over.substr(0, eq);
        const auto* spec = findSetting(experiment.settings, name);
        if (!spec) {
            std::string hint;
            for (const auto& s : experiment.settings)
                if (s.name.rfind(name, 0) == 0 || name.rfind(s.name, 0) == 0)
                    hint = " (did you mean \"" + s.name + "\"?)";
            throw InputError("--over: \"" + name.substr(0, 40) + "\" is not a setting of " + experiment.name + hint +
                             "; its settings: " + settingNames(experiment));
        }
        for (const auto& axis : axes)
            if (axis.name == name)
                throw InputError("--over " + name + " is given twice");
        SweepAxis axis{name, {}};
        for (const auto& item : splitCsvLine(over.substr(eq + 1))) {  // "a," leaves "", refused below
            std::vector<std::string> texts{item};
            if (auto range = integerRange(name, item))
                texts = std::move(*range);
            for (const auto& text : texts) {
                if (text.empty())
                    throw InputError("--over " + name + ": an empty value (a stray comma?)");
                nlohmann::json value;
                try {
                    value = parseSettingValue(*spec, text);
                } catch (const InputError& e) {
                    throw InputError(std::string("--over ") + name + ": " + e.what());
                }
                if (std::find(axis.values.begin(), axis.values.end(), value) != axis.values.end())
                    throw InputError("--over " + name + ": " + sweepValueText(value) + " is listed twice");
                if (axis.values.size() >= kMaxAxisValues)
                    throw InputError("--over " + name + ": more than " + std::to_string(kMaxAxisValues) + " values");
                axis.values.push_back(std::move(value));
            }
        }
        axes.push_back(std::move(axis));
    }
    if (axes.empty())
        throw InputError("sweep plan: no axis (give --over NAME=VALUES at least once)");
    return axes;
}

std::vector<SweepCell> sweepCells(const std::vector<SweepAxis>& axes)
{
    size_t count = 1;
    for (const auto& axis : axes) {
        count *= axis.values.size();
        if (count > kMaxSweepCells)
            throw InputError("--over: the axes make more than " + std::to_string(kMaxSweepCells) + " cells");
    }
    std::vector<SweepCell> cells(count);
    for (size_t i = 0; i < count; ++i) {
        cells[i].id = static_cast<int>(i);
        size_t rest = i;
        for (size_t a = axes.size(); a-- > 0;) {  // the last axis varies fastest
            cells[i].values[axes[a].name] = axes[a].values[rest % axes[a].values.size()];
            rest /= axes[a].values.size();
        }
    }
    return cells;
}

SessionData cellSession(const SessionData& base, const SweepCell& cell, const SessionExperiment& experiment)
{
    SessionData session = base;
    for (const auto& [name, value] : cell.values.items())
        session.settings[name] = value;
    session.settings = checkedSettings(experiment.settings, session.settings, "cell " + sweep_paths::cellName(cell.id));
    return session;
}

namespace sweep_paths {
std::string manifest(const std::string& dir) { return dir + "/sweep.json"; }
std::string cellName(int id)
{
    char name[16];
    std::snprintf(name, sizeof name, "%04d", id);
    return name;
}
std::string session(const std::string& dir, int id) { return dir + "/cells/" + cellName(id) + ".lcsession"; }
std::string resultsJson(const std::string& dir, int id) { return dir + "/results/" + cellName(id) + ".json"; }
std::string resultsCsv(const std::string& dir, int id) { return dir + "/results/" + cellName(id) + ".csv"; }
std::string log(const std::string& dir, int id) { return dir + "/logs/" + cellName(id) + ".log"; }
std::string exitStatus(const std::string& dir, int id) { return dir + "/status/" + cellName(id) + ".exit"; }
} // namespace sweep_paths

std::string sweepManifestToJson(const SweepManifest& m)
{
    auto axes = nlohmann::json::array();
    for (const auto& a : m.axes)
        axes.push_back({{"name", a.name}, {"values", a.values}});
    auto cells = nlohmann::json::array();
    for (const auto& c : m.cells)
        cells.push_back({{"id", c.id}, {"values", c.values}});
    const nlohmann::json root = {{"format", kManifestFormat}, {"version", kManifestVersion},
                                 {"experiment", m.experiment}, {"axes", axes},
                                 {"cells", cells}};
    return root.dump(2) + "\n";
}

SweepManifest sweepManifestFromJson(const std::string& text, const std::string& source, const SessionCatalogue& catalogue)
{
    const auto j = parseJsonInput(text, source, JsonLimits{kMaxManifestBytes, 16});
    const JsonObjectReader r(j, source);
    r.refuseUnknown({"format", "version", "experiment", "axes", "cells"});
    if (r.stringOr("format", "") != kManifestFormat)
        r.fail("format", std::string("must be \"") + kManifestFormat + "\"");
    r.integer("version", kManifestVersion, kManifestVersion);
    SweepManifest m;
    m.experiment = r.string("experiment");
    const auto& experiment = experimentIn(catalogue, m.experiment, source);
    const auto& axes = r.require("axes");
    if (!axes.is_array() || axes.empty() || axes.size() > experiment.settings.size())
        r.fail("axes", "must be a non-empty list of the experiment's settings");
    for (size_t i = 0; i < axes.size(); ++i) {
        const JsonObjectReader a(axes[i], source, "axes[" + std::to_string(i) + "].");
        a.refuseUnknown({"name", "values"});
        SweepAxis axis{a.string("name"), {}};
        const auto* spec = findSetting(experiment.settings, axis.name);
        if (!spec)
            a.fail("name", "\"" + axis.name.substr(0, 40) + "\" is not a setting of " + m.experiment);
        for (const auto& earlier : m.axes)
            if (earlier.name == axis.name)
                a.fail("name", "\"" + axis.name + "\" is swept twice");
        const auto& values = a.require("values");
        if (!values.is_array() || values.empty() || values.size() > kMaxAxisValues)
            a.fail("values", "must be a non-empty list");
        for (const auto& v : values) {
            // The same check a session's value gets: the flag's parser.
            const auto checked = checkedSettings({*spec}, nlohmann::json{{axis.name, v}}, source + " (axes)");
            axis.values.push_back(checked.at(axis.name));
        }
        m.axes.push_back(std::move(axis));
    }
    const auto expected = sweepCells(m.axes);
    const auto& cells = r.require("cells");
    if (!cells.is_array() || cells.size() != expected.size())
        r.fail("cells", "must list the " + std::to_string(expected.size()) + " cells of the axes");
    for (size_t i = 0; i < cells.size(); ++i) {
        const JsonObjectReader c(cells[i], source, "cells[" + std::to_string(i) + "].");
        c.refuseUnknown({"id", "values"});
        SweepCell cell;
        cell.id = static_cast<int>(c.integer("id", static_cast<long long>(i), static_cast<long long>(i)));
        cell.values = c.object("values").json();
        if (cell.values != expected[i].values)
            c.fail("values", "are not cell " + std::to_string(i) + " of the axes (" + jsonExcerpt(cell.values) + ")");
        m.cells.push_back(std::move(cell));
    }
    return m;
}

SweepManifest loadSweepManifest(const std::string& dir, const SessionCatalogue& catalogue)
{
    const std::string path = sweep_paths::manifest(dir);
    if (!exists(path))
        throw InputError(dir + ": not a sweep folder (no sweep.json; make one with lcstudio-cli sweep plan)");
    return sweepManifestFromJson(readFile(path, kMaxManifestBytes), path, catalogue);
}

void writeSweepFolder(const std::string& dir, const SessionData& base, const SessionExperiment& experiment,
                      const std::vector<SweepAxis>& axes, const CancelToken* cancel)
{
    const auto checkCancelled = [&] {
        if (cancel)
            cancel->throwIfCancelled();
    };
    SweepManifest manifest{base.experiment, axes, sweepCells(axes)};
    std::vector<std::string> sessions;
    for (const auto& cell : manifest.cells) {  // every cell checked before anything is written
        checkCancelled();
        sessions.push_back(sessionToJson(cellSession(base, cell, experiment)));
    }
    if (exists(sweep_paths::manifest(dir)))
        throw InputError("--out " + dir + ": already holds a sweep (sweep.json); run it with lcstudio-cli sweep run, "
                         "or choose a new folder");
    std::error_code ec;
    if (std::filesystem::is_directory(dir, ec) && !std::filesystem::is_empty(dir, ec))
        throw InputError("--out " + dir + ": is a folder with files in it; a sweep needs a new or empty folder");
    StagedFolder staged(dir);
    for (const char* sub : {"cells", "results", "logs", "status"})
        if (!std::filesystem::create_directory(staged.path() + "/" + sub, ec))
            throw OutputError(dir + "/" + sub + ": cannot create the folder (" + ec.message() + ")");
    for (size_t i = 0; i < sessions.size(); ++i) {
        checkCancelled();  // the staging folder goes with `staged`
        writeFileAtomically(sweep_paths::session(staged.path(), static_cast<int>(i)), sessions[i]);
    }
    writeFileAtomically(sweep_paths::manifest(staged.path()), sweepManifestToJson(manifest));
    checkCancelled();
    staged.commit();
}

const char* cellStateName(CellState state)
{
    switch (state) {
    case CellState::Missing: return "missing";
    case CellState::Running: return "running";
    case CellState::Failed: return "failed";
    case CellState::Done: return "done";
    }
    return "?";
}

CellStatus cellStatus(const std::string& dir, int id)
{
    CellStatus s{id, CellState::Missing, 0};
    if (exists(sweep_paths::resultsJson(dir, id))) {
        s.state = CellState::Done;
        return s;
    }
    const std::string statusPath = sweep_paths::exitStatus(dir, id);
    if (exists(statusPath)) {
        s.state = CellState::Failed;
        std::string text;
        try {
            text = readFile(statusPath, 64);
        } catch (const InputError&) {
        }
        while (!text.empty() && (text.back() == '\n' || text.back() == ' '))
            text.pop_back();
        // A status of 0 without results is a failure too (the results could not be written).
        s.exitStatus = static_cast<int>(parseInteger(text, -1000, 1000).value_or(-1));
        return s;
    }
    if (exists(sweep_paths::log(dir, id)))
        s.state = CellState::Running;
    return s;
}

void clearCell(const std::string& dir, int id)
{
    for (const auto& path : {sweep_paths::resultsJson(dir, id), sweep_paths::resultsCsv(dir, id),
                             sweep_paths::log(dir, id), sweep_paths::exitStatus(dir, id)})
        std::remove(path.c_str());
}

} // namespace lcs
