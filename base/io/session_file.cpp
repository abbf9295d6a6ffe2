#include "base/io/session_file.h"

#include <algorithm>
#include <limits>
#include <map>

#include <nlohmann/json.hpp>

#include "base/core/atomic_file.h"
#include "base/core/input_error.h"
#include "base/core/json_input.h"
#include "base/core/number_format.h"

namespace lcs {

namespace {

constexpr const char* kFormat = "lcstudio-session";
constexpr size_t kMaxSessionBytes = size_t{16} << 20;
constexpr size_t kMaxDataPaths = 64;
constexpr size_t kMaxPathLength = 4096;

const SessionExperiment& experimentOf(const JsonObjectReader& r, const SessionCatalogue& experiments)
{
    const std::string name = r.string("experiment");
    std::string known;
    for (const auto& e : experiments) {
        if (e.name == name)
            return e;
        known += (known.empty() ? "" : ", ") + e.name;
    }
    r.fail("experiment", "names an unknown experiment \"" + name.substr(0, 40) + "\" (known: " + known + ")");
}

/// Version 1 held one settings record for every experiment, each reading the fields it
/// used; 0 and "" meant "the preset's" / "none". Here each experiment's fields become its
/// declared settings (renamed where the declaration's name differs), and the declared
/// checks then apply as to any session.
nlohmann::json version1Settings(const JsonObjectReader& o, const std::string& experiment,
                                const std::map<std::string, std::string>& dataPaths)
{
    o.refuseUnknown({"replicates", "methods", "seed", "threads", "correction_iterations", "grid_resolution", "device",
                     "data", "preset", "rates", "referral_costs", "trials", "max_train", "max_test", "epochs",
                     "mc_dropout"});
    // version 1 field -> declared setting, per experiment; "0 or empty: unset" where marked.
    struct Field {
        const char* from;
        const char* to;
        bool zeroUnset;
    };
    std::vector<Field> fields;
    if (experiment == "synthetic")
        fields = std::vector<Field>{{"replicates", "replicates", false},   {"methods", "methods", false},
                  {"seed", "seed", false},               {"threads", "threads", false},
                  {"correction_iterations", "correction_iterations", false},
                  {"grid_resolution", "grid_resolution", false}, {"device", "device", false}};
    else if (experiment == "camvid")
        fields = std::vector<Field>{{"data", "data", true},           {"preset", "preset", false},  {"max_train", "max_train", true},
                  {"max_test", "max_eval", true},   {"mc_dropout", "mc_dropout", false},
                  {"seed", "seed", false},          {"device", "device", false}};
    else if (experiment == "corruption" || experiment == "selective")
        fields = std::vector<Field>{{experiment == "corruption" ? "rates" : "referral_costs",
                   experiment == "corruption" ? "rates" : "referral_costs", false},
                  {"methods", "methods", false},     {"trials", "trials", false},    {"preset", "preset", false},
                  {"epochs", "epochs", true},        {"seed", "seed", false},        {"device", "device", false},
                  {"data", "data", true},            {"max_train", "max_train", true},
                  {"max_test", "max_test", true}};
    else
        o.fail("experiment", "\"" + experiment + "\" has no version 1 sessions; save it again with this program");
    auto out = nlohmann::json::object();
    for (const auto& f : fields) {
        if (!o.has(f.from))
            continue;
        nlohmann::json v = o.require(f.from);
        // Version 1 wrote the seed as decimal text (a 64-bit value).
        if (std::string(f.from) == "seed" && v.is_string()) {
            const auto seed = parseInteger(v.get<std::string>(), 0, std::numeric_limits<long long>::max());
            if (!seed)
                o.fail("seed", "is " + jsonExcerpt(v) + ", not a decimal integer in 0..9223372036854775807");
            v = *seed;
        }
        const bool unset = (v.is_number() && v.get<double>() == 0) || (v.is_string() && v.get<std::string>().empty());
        if (f.zeroUnset && unset)
            continue;
        out[f.to] = v;
    }
    // Version 1 image sessions could name their data only among the data paths.
    if ((experiment == "corruption" || experiment == "selective") && !out.contains("data") &&
        dataPaths.count("images"))
        out["data"] = dataPaths.at("images");
    return out;
}

/// CamVid sessions before version 3: "cpu" named another run than it does now (kSessionVersion),
/// so such a session is refused rather than repeated as a different run; without a preset
/// it meant "demo", which it keeps.
void version2CamvidSettings(const JsonObjectReader& r, nlohmann::json& settings)
{
    if (!settings.contains("preset") || settings.at("preset").is_null()) {
        settings["preset"] = "demo";
        return;
    }
    if (settings.at("preset") == "cpu")
        r.fail("settings", "preset is \"cpu\", which before session version 3 named a 120-frame SegNet-light "
                           "run; version 3's \"cpu\" is the measured CPU preset (SegNet-light2 at 180x240, every "
                           "training frame): say \"preset\": \"demo\" for a short run, or mark the file version 3 "
                           "for the new cpu preset (\"version\": 3 in a session file, \"session_version\": 3 in a "
                           "results file's run record)");
}

/// The session a results file repeats: its run record's experiment, settings and cost
/// matrix, as a session of the version the record names (records before version 3 name
/// none: they are version 2's).
std::string sessionOfRunRecord(const nlohmann::json& record, const std::string& source)
{
    const JsonObjectReader run(record, source + " (run)");
    // An action's figures (camvid eval on a model folder) are not a run of the
    // experiment: its settings are the action's, which a session does not hold.
    if (run.has("action"))
        run.fail("action", "is " + jsonExcerpt(run.require("action")) +
                               ": the record of an action on saved models, not of a run; repeat it with "
                               "lcstudio-cli EXPERIMENT ACTION and the settings under run.settings");
    long long recordVersion = 2;
    if (run.has("session_version")) {
        const auto& v = run.require("session_version");
        if (!v.is_number_integer() || v.get<long long>() < 2 || v.get<long long>() > kSessionVersion)
            run.fail("session_version", "is " + jsonExcerpt(v) + "; this program reads 2 to " +
                                            std::to_string(kSessionVersion));
        recordVersion = v.get<long long>();
    }
    nlohmann::json session{{"format", kFormat}, {"version", recordVersion}};
    for (const char* field : {"experiment", "settings", "cost_matrix"})
        session[field] = run.require(field);
    return session.dump();
}

/// The session's "data_paths": at most kMaxDataPaths names, each a path string.
std::map<std::string, std::string> dataPathsOf(const JsonObjectReader& session)
{
    const auto paths = session.object("data_paths");
    if (paths.json().size() > kMaxDataPaths)
        session.fail("data_paths", "has more than " + std::to_string(kMaxDataPaths) + " entries");
    std::map<std::string, std::string> out;
    for (auto it = paths.json().begin(); it != paths.json().end(); ++it) {
        if (!it.value().is_string() || it.value().get_ref<const std::string&>().size() > kMaxPathLength)
            paths.fail(it.key().substr(0, 40), "must be a path string");
        out[it.key()] = it.value().get<std::string>();
    }
    return out;
}

} // namespace

std::string sessionToJson(const SessionData& s)
{
    nlohmann::json root = {{"format", kFormat},
                           {"version", kSessionVersion},
                           {"experiment", s.experiment},
                           {"settings", s.settings},
                           {"cost_matrix", nlohmann::json::parse(costMatrixToJson(s.costs))},
                           {"data_paths", s.dataPaths}};
    return root.dump(4) + "\n";
}

SessionData sessionFromJson(const std::string& text, const std::string& source, const SessionCatalogue& experiments)
{
    const auto j = parseJsonInput(text, source, JsonLimits{kMaxSessionBytes, 16});
    // A results file (every experiment's starts with its "run" record) is the session that
    // repeats it: its experiment, declared settings and cost matrix, checked as a session's.
    if (j.is_object() && !j.contains("format") && j.contains("run") && j["run"].is_object())
        return sessionFromJson(sessionOfRunRecord(j["run"], source), source + " (its run record)", experiments);
    const JsonObjectReader r(j, source);
    r.refuseUnknown({"format", "version", "experiment", "settings", "cost_matrix", "data_paths"});
    if (r.stringOr("format", "") != kFormat)
        r.fail("format", std::string("must be \"") + kFormat + "\"");
    // Version 1 files may leave the version out.
    const long long version = r.has("version") ? r.require("version").is_number_integer()
                                                     ? r.require("version").get<long long>()
                                                     : 0
                                               : 1;
    if (version < 1 || version > kSessionVersion)
        r.fail("version", "is " + jsonExcerpt(r.require("version")) + "; this program reads session versions 1 to " +
                              std::to_string(kSessionVersion) + (version > kSessionVersion ? " (the file is newer)" : ""));
    SessionData s;
    if (!r.has("experiment") && version == 1)
        s.experiment = "synthetic";  // version 1's default
    else
        s.experiment = experimentOf(r, experiments).name;
    const SessionExperiment* experiment = nullptr;
    for (const auto& e : experiments)
        if (e.name == s.experiment)
            experiment = &e;
    if (!experiment)
        r.fail("experiment", "is missing and this program has no synthetic experiment");

    if (r.has("data_paths"))
        s.dataPaths = dataPathsOf(r);
    auto given = nlohmann::json::object();
    if (r.has("settings")) {
        const auto o = r.object("settings");
        given = version == 1 ? version1Settings(o, s.experiment, s.dataPaths) : o.json();
    }
    if (version <= 2 && s.experiment == "camvid")
        version2CamvidSettings(r, given);
    s.settings = checkedSettings(experiment->settings, given,
                                 source + (version == 1 ? " (version 1 settings)" : " (settings)"));

    if (!r.hasValue("cost_matrix"))
        throw InputError(source + ": missing field \"cost_matrix\"");
    s.costs = costMatrixFromJson(r.require("cost_matrix").dump(), source + " (cost_matrix)");
    if (experiment->acceptedCosts) {
        try {
            s.costs = experiment->acceptedCosts(s.costs);
        } catch (const CostMatrixError& e) {
            throw CostMatrixError(source + " (cost_matrix): " + e.what());
        } catch (const InputError& e) {
            throw InputError(source + " (cost_matrix): " + e.what());
        }
    }
    return s;
}

void saveSessionFile(const SessionData& session, const std::string& path)
{
    writeFileAtomically(path, sessionToJson(session));
}

SessionData loadSessionFile(const std::string& path, const SessionCatalogue& experiments)
{
    return sessionFromJson(readFile(path, kMaxSessionBytes), path, experiments);
}

} // namespace lcs
