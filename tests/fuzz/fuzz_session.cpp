// Session files: only InputError may come out; a session that was read writes and
// reads back with the same settings, cost matrix and data paths. The experiments are
// stand-ins declaring every kind of setting (the real declarations need LibTorch),
// under the paper's names so that version 1 files are converted too.
#include "base/core/input_error.h"
#include "base/core/settings.h"
#include "base/io/session_file.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

const lcs::SessionCatalogue& catalogue()
{
    static const lcs::SessionCatalogue experiments = [] {
        using namespace lcs;
        const std::vector<std::string> methods{"bbvi", "sghmc", "sgld_s", "ours"};
        std::vector<SettingSpec> every{integerSetting("replicates", "N", "replicates", 10, 1, 10000),
                                       integerSetting("seed", "S", "seed", 0, 0, 9223372036854775807LL),
                                       integerSetting("max_train", "N", "subset", nullptr, 1, 100000000),
                                       numberSetting("correction_lr", "X", "rate", 0.03, 0, 10, true),
                                       choiceSetting("preset", "P", "preset", "cpu", {"cpu", "paper", "demo"}),
                                       methodsSetting("methods", "methods", std::vector<std::string>{"ours"}, methods),
                                       numbersSetting("rates", "rates", std::vector<double>{0.5}, 0, 1),
                                       switchSetting("mc_dropout", "switch"),
                                       deviceSetting()};
        auto data = textSetting("data", "D", "data", nullptr);
        data.required = true;
        auto withData = every;
        withData.push_back(data);
        auto twoClasses = [](const CostMatrix& c) {
            c.validateFor(2);
            return c;
        };
        return SessionCatalogue{{"synthetic", every, twoClasses},
                                {"corruption", withData, {}},
                                {"selective", withData, {}},
                                {"camvid", withData, {}}};
    }();
    return experiments;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, size_t size)
{
    lcs::SessionData s;
    try {
        s = lcs::sessionFromJson(fuzzText(data, size), "fuzz.lcsession", catalogue());
    } catch (const lcs::InputError&) {
        return 0;
    }
    const auto again = lcs::sessionFromJson(lcs::sessionToJson(s), "round trip", catalogue());
    LCS_FUZZ_REQUIRE(again.experiment == s.experiment);
    LCS_FUZZ_REQUIRE(again.settings == s.settings);
    LCS_FUZZ_REQUIRE(again.costs == s.costs);
    LCS_FUZZ_REQUIRE(again.dataPaths == s.dataPaths);
    return 0;
}
