#include "io/session_file.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "core/input_error.h"
#include "core/json_input.h"
#include "core/number_format.h"
#include "inference/method_catalog.h"

namespace lcs {

namespace {

constexpr const char* kFormat = "lcstudio-session";
constexpr size_t kMaxSessionBytes = size_t{16} << 20;
constexpr size_t kMaxDataPaths = 64;
constexpr size_t kMaxPathLength = 4096;

bool validDevice(const std::string& d)
{
    if (d == "cpu" || d == "cuda")
        return true;
    return d.rfind("cuda:", 0) == 0 && parseInteger(d.substr(5), 0, 64).has_value();
}

constexpr size_t kMaxListLength = 64;

} // namespace

const std::vector<std::string>& sessionExperiments()
{
    static const std::vector<std::string> all{"synthetic", "corruption", "selective", "camvid"};
    return all;
}

std::vector<std::string> defaultSessionMethods(const std::string& experiment)
{
    if (experiment == "corruption")
        return {"sgld_s", "lc_sgld", "cw_sgd", "ours"};
    if (experiment == "selective")
        return {"sghmc", "lc_sghmc", "ours", "ours_no_s"};
    if (experiment == "camvid")
        return {"cw_sgd", "sghmc_s", "ours"};
    return {"bbvi", "sghmc", "kfac_laplace"};
}

bool SessionSettings::operator==(const SessionSettings& o) const
{
    return replicates == o.replicates && methods == o.methods && seed == o.seed && threads == o.threads
           && correctionIterations == o.correctionIterations && gridResolution == o.gridResolution
           && device == o.device && data == o.data && preset == o.preset && rates == o.rates
           && referralCosts == o.referralCosts && trials == o.trials && maxTrain == o.maxTrain
           && maxTest == o.maxTest && epochs == o.epochs && mcDropout == o.mcDropout;
}

std::string sessionToJson(const SessionData& s)
{
    nlohmann::json settings = {{"replicates", s.settings.replicates},
                               {"methods", s.settings.methods},
                               // A string: JSON readers elsewhere hold numbers as doubles,
                               // which cannot carry every 64-bit seed.
                               {"seed", std::to_string(s.settings.seed)},
                               {"threads", s.settings.threads},
                               {"correction_iterations", s.settings.correctionIterations},
                               {"grid_resolution", s.settings.gridResolution},
                               {"device", s.settings.device},
                               {"data", s.settings.data},
                               {"preset", s.settings.preset},
                               {"rates", s.settings.rates},
                               {"referral_costs", s.settings.referralCosts},
                               {"trials", s.settings.trials},
                               {"max_train", s.settings.maxTrain},
                               {"max_test", s.settings.maxTest},
                               {"epochs", s.settings.epochs}};
    if (s.experiment == "camvid")
        settings["mc_dropout"] = s.settings.mcDropout;
    nlohmann::json root = {{"format", kFormat},
                           {"version", 1},
                           {"experiment", s.experiment},
                           {"settings", settings},
                           {"cost_matrix", nlohmann::json::parse(costMatrixToJson(s.costs))},
                           {"data_paths", s.dataPaths}};
    return root.dump(4) + "\n";
}

SessionData sessionFromJson(const std::string& text, const std::string& source)
{
    const auto j = parseJsonInput(text, source, JsonLimits{kMaxSessionBytes, 16});
    const JsonObjectReader r(j, source);
    r.refuseUnknown({"format", "version", "experiment", "settings", "cost_matrix", "data_paths"});
    if (r.stringOr("format", "") != kFormat)
        r.fail("format", std::string("must be \"") + kFormat + "\"");
    if (r.has("version"))
        r.integer("version", 1, 1);
    SessionData s;
    s.experiment = r.stringOr("experiment", "synthetic");
    const auto& known = sessionExperiments();
    if (std::find(known.begin(), known.end(), s.experiment) == known.end())
        r.fail("experiment", "names an unknown experiment \"" + s.experiment.substr(0, 40) +
                                 "\" (known: synthetic, corruption, selective, camvid)");
    const bool synthetic = s.experiment == "synthetic";
    const bool camvid = s.experiment == "camvid";
    s.settings.methods = defaultSessionMethods(s.experiment);
    if (camvid)
        s.settings.preset = "demo";

    if (r.has("settings")) {
        const auto o = r.object("settings");
        o.refuseUnknown({"replicates", "methods", "seed", "threads", "correction_iterations", "grid_resolution",
                         "device", "data", "preset", "rates", "referral_costs", "trials", "max_train", "max_test",
                         "epochs", "mc_dropout"});
        auto& st = s.settings;
        st.replicates = static_cast<int>(o.integerOr("replicates", st.replicates, 1, 1000));
        st.threads = static_cast<int>(o.integerOr("threads", st.threads, 1, 64));
        st.correctionIterations =
            static_cast<int>(o.integerOr("correction_iterations", st.correctionIterations, 1, 1000000));
        st.gridResolution = static_cast<int>(o.integerOr("grid_resolution", st.gridResolution, 10, 400));
        if (o.has("device")) {
            st.device = o.string("device");
            if (!validDevice(st.device))
                o.fail("device", "is \"" + st.device.substr(0, 40) + "\", not cpu or cuda[:N]");
        }
        if (o.has("seed")) {
            const auto& v = o.require("seed");
            if (v.is_string()) {
                // Decimal text carries the whole 64-bit range.
                const auto& t = v.get_ref<const std::string&>();
                unsigned long long value = 0;
                bool ok = !t.empty() && t.size() <= 20 && t.find_first_not_of("0123456789") == std::string::npos;
                for (char c : t) {
                    if (!ok)
                        break;
                    const unsigned long long digit = static_cast<unsigned long long>(c - '0');
                    ok = value <= (~0ULL - digit) / 10;
                    value = value * 10 + digit;
                }
                if (!ok)
                    o.fail("seed", "must be a decimal string of a 64-bit unsigned integer, got " + jsonExcerpt(v));
                st.seed = value;
            } else if (v.is_number_unsigned() || (v.is_number_integer() && v.get<long long>() >= 0)) {
                st.seed = v.get<unsigned long long>();
            } else {
                o.fail("seed", "must be a decimal string of a 64-bit unsigned integer, got " + jsonExcerpt(v));
            }
        }
        if (o.has("methods")) {
            st.methods = o.strings("methods", 16);
            if (camvid) {
                if (st.methods != defaultSessionMethods("camvid"))
                    o.fail("methods", "must be [\"cw_sgd\", \"sghmc_s\", \"ours\"] for camvid (the window's chain; "
                                      "MC dropout is settings.mc_dropout)");
            } else if (synthetic)
                parseMethodList(st.methods, source + ": field \"settings.methods\"");
            else
                parseImageMethodList(st.methods, source + ": field \"settings.methods\"",
                                     imageMethodsFor(s.experiment));
        }
        if (o.has("data")) {
            st.data = o.string("data");
            if (st.data.size() > kMaxPathLength)
                o.fail("data", "is longer than " + std::to_string(kMaxPathLength) + " characters");
        }
        if (o.has("preset")) {
            st.preset = o.string("preset");
            if (camvid && st.preset != "demo" && st.preset != "cpu")
                o.fail("preset", "is \"" + st.preset.substr(0, 40) + "\", not demo or cpu (CamVid window presets)");
            if (!camvid && st.preset != "cpu" && st.preset != "paper")
                o.fail("preset", "is \"" + st.preset.substr(0, 40) + "\", not cpu or paper");
        }
        if (o.has("mc_dropout")) {
            if (!camvid)
                o.fail("mc_dropout", "is for camvid sessions only");
            st.mcDropout = o.boolean("mc_dropout");
        }
        auto numbers = [&](const char* field, double lo, double hi) {
            const auto& v = o.require(field);
            if (!v.is_array() || v.empty() || v.size() > kMaxListLength)
                o.fail(field, "must be a list of 1 to " + std::to_string(kMaxListLength) + " numbers");
            std::vector<double> out;
            for (const auto& item : v) {
                if (!item.is_number() || !(item.get<double>() >= lo && item.get<double>() <= hi))
                    o.fail(field, "holds " + jsonExcerpt(item) + ", not a number in [" + formatNumber(lo) + ", " +
                                      formatNumber(hi) + "]");
                out.push_back(item.get<double>());
            }
            return out;
        };
        if (o.has("rates"))
            st.rates = numbers("rates", 0.0, 1.0);
        if (o.has("referral_costs"))
            st.referralCosts = numbers("referral_costs", 0.0, 1e6);
        st.trials = static_cast<int>(o.integerOr("trials", st.trials, 1, 1000));
        st.maxTrain = o.integerOr("max_train", st.maxTrain, 0, 100000000);
        st.maxTest = o.integerOr("max_test", st.maxTest, 0, 100000000);
        st.epochs = static_cast<int>(o.integerOr("epochs", st.epochs, 0, 100000));
    }
    if (camvid && s.settings.data.empty())
        throw InputError(source + ": field \"settings.data\" is missing or empty (a camvid session names its "
                                  "CamVid folder)");

    if (!r.hasValue("cost_matrix"))
        throw InputError(source + ": missing field \"cost_matrix\"");
    s.costs = costMatrixFromJson(r.require("cost_matrix").dump(), source + " (cost_matrix)");
    if (synthetic) {
        try {
            s.costs.validateFor(2);
        } catch (const CostMatrixError& e) {
            throw CostMatrixError(source + " (cost_matrix): " + e.what());
        }
    } else if (s.experiment == "corruption" && s.costs.hasReferral()) {
        r.fail("cost_matrix", "has a referral column; label corruption decides classes only");
    } else if (s.experiment == "selective") {
        s.costs.setReferral(std::nullopt);
    } else if (camvid) {
        if (s.costs.hasReferral())
            r.fail("cost_matrix", "has a referral column; CamVid decides classes only");
        if (s.costs.numClasses() != 12 && s.costs.numClasses() != 11)
            r.fail("cost_matrix", "has " + std::to_string(s.costs.numClasses()) +
                                      " classes; a camvid session needs 12 (void last) or 11");
    }
    if (r.has("data_paths")) {
        const auto paths = r.object("data_paths");
        if (paths.json().size() > kMaxDataPaths)
            r.fail("data_paths", "has more than " + std::to_string(kMaxDataPaths) + " entries");
        for (auto it = paths.json().begin(); it != paths.json().end(); ++it) {
            if (!it.value().is_string() || it.value().get_ref<const std::string&>().size() > kMaxPathLength)
                paths.fail(it.key().substr(0, 40), "must be a path string");
            s.dataPaths[it.key()] = it.value().get<std::string>();
        }
    }
    return s;
}

void saveSessionFile(const SessionData& session, const std::string& path)
{
    writeFileAtomically(path, sessionToJson(session));
}

SessionData loadSessionFile(const std::string& path)
{
    return sessionFromJson(readFile(path, kMaxSessionBytes), path);
}

} // namespace lcs
