#include "base/inference/method_catalog.h"

#include <algorithm>
#include <stdexcept>

#include "base/core/input_error.h"

namespace lcs {

namespace {

// Rows in the order every experiment lists its methods. Colours: the Okabe-Ito palette
// (colour-blind safe), told apart within each experiment under simulated protanopia,
// deuteranopia and tritanopia (a test checks); "ours" is always vermillion, and no method
// beside it is orange (the two merge for deuteranopes and on small swatches). Seed tags: synthetic methods keep the streams they have had since the first
// release (100 + their old position); the others were numbered when seeds stopped
// following list positions. Never renumber a tag.
const std::vector<MethodInfo>& catalog()
{
    // Built on first use, so that other files' static initialisers may read it.
    static const std::vector<MethodInfo> rows{
        {"map", "MAP (SGD)", "#999999", {}, 300},
        {"bbvi", "VI (BBVI)", "#0072B2", {"synthetic"}, 100},
        {"sghmc", "SGHMC", "#009E73", {"synthetic", "selective"}, 101},
        {"sgld_s", "SGLD + S", "#0072B2", {"corruption"}, 301},
        {"sgld", "SGLD", "#56B4E9", {"synthetic", "corruption"}, 102},
        {"kfac_laplace", "KFAC-Laplace", "#CC79A7", {"synthetic"}, 103},
        {"lc_sgld", "LC-SGLD", "#009E73", {"corruption"}, 303},
        {"lc_sghmc", "LC-SGHMC", "#0072B2", {"selective"}, 304},
        {"mc_dropout", "MC dropout", "#56B4E9", {"camvid"}, 306},
        {"lc_mc_dropout", "LC-MC-dropout", "#009E73", {"camvid"}, 307},
        {"cw_sgd", "CW-SGD", "#CC79A7", {"corruption", "camvid"}, 305},
        {"sghmc_s", "SGHMC + S", "#0072B2", {"camvid"}, 302},
        {"ours", "Ours (q on S)", "#D55E00", {"corruption", "selective", "camvid"}, 308},
        {"ours_no_s", "Ours (q, no S)", "#000000", {"selective"}, 309},
    };
    return rows;
}

std::string idList(const std::vector<std::string>& ids)
{
    std::string out;
    for (const auto& id : ids)
        out += (out.empty() ? "" : ", ") + id;
    return out;
}

} // namespace

const std::vector<MethodInfo>& methodCatalog()
{
    return catalog();
}

const MethodInfo* findMethodInfo(const std::string& id)
{
    for (const auto& m : catalog())
        if (m.id == id)
            return &m;
    return nullptr;
}

const MethodInfo& methodInfo(const std::string& id)
{
    if (const auto* m = findMethodInfo(id))
        return *m;
    throw std::logic_error("method \"" + id + "\" is not in the method catalogue");
}

std::vector<std::string> methodIdsFor(const std::string& experiment)
{
    std::vector<std::string> out;
    for (const auto& m : catalog())
        if (std::find(m.experiments.begin(), m.experiments.end(), experiment) != m.experiments.end())
            out.push_back(m.id);
    return out;
}

std::vector<std::string> parseMethodIds(const std::vector<std::string>& names, const std::string& what,
                                        const std::vector<std::string>& allowed)
{
    if (names.empty())
        throw InputError(what + ": empty list (choose from " + idList(allowed) + ")");
    std::vector<std::string> out;
    for (const auto& name : names) {
        if (std::find(allowed.begin(), allowed.end(), name) == allowed.end())
            throw InputError(what + ": unknown method \"" + name.substr(0, 40) + "\" (choose from " + idList(allowed)
                             + ")");
        // A method listed twice would double its rows and understate the spread.
        if (std::find(out.begin(), out.end(), name) != out.end())
            throw InputError(what + ": method \"" + name + "\" is listed twice");
        out.push_back(name);
    }
    return out;
}

const std::vector<InferenceMethod>& allMethods()
{
    static const std::vector<InferenceMethod> all{InferenceMethod::Bbvi, InferenceMethod::Sghmc, InferenceMethod::Sgld,
                                                  InferenceMethod::KfacLaplace};
    return all;
}

std::string methodName(InferenceMethod m)
{
    switch (m) {
    case InferenceMethod::Bbvi: return "bbvi";
    case InferenceMethod::Sghmc: return "sghmc";
    case InferenceMethod::Sgld: return "sgld";
    case InferenceMethod::KfacLaplace: return "kfac_laplace";
    }
    return "unknown";
}

std::string methodLabel(InferenceMethod m)
{
    return methodInfo(methodName(m)).label;
}

uint64_t methodSeedTag(InferenceMethod m)
{
    return methodInfo(methodName(m)).seedTag;
}

std::optional<InferenceMethod> parseMethod(const std::string& name)
{
    for (auto m : allMethods())
        if (methodName(m) == name)
            return m;
    return std::nullopt;
}

std::vector<InferenceMethod> paperMethods()
{
    return {InferenceMethod::Bbvi, InferenceMethod::Sghmc, InferenceMethod::KfacLaplace};
}

std::string methodNameList()
{
    std::string out;
    for (auto m : allMethods())
        out += (out.empty() ? "" : ", ") + methodName(m);
    return out;
}

std::vector<InferenceMethod> parseMethodList(const std::vector<std::string>& names, const std::string& what)
{
    std::vector<std::string> allowed;
    for (auto m : allMethods())
        allowed.push_back(methodName(m));
    std::vector<InferenceMethod> out;
    for (const auto& id : parseMethodIds(names, what, allowed))
        out.push_back(*parseMethod(id));
    return out;
}

const std::vector<ImageMethod>& allImageMethods()
{
    static const std::vector<ImageMethod> all{ImageMethod::SgldS, ImageMethod::Sgld,  ImageMethod::LcSgld,
                                              ImageMethod::CwSgd, ImageMethod::Ours,  ImageMethod::OursNoS,
                                              ImageMethod::Sghmc, ImageMethod::LcSghmc};
    return all;
}

std::string imageMethodName(ImageMethod m)
{
    switch (m) {
    case ImageMethod::SgldS: return "sgld_s";
    case ImageMethod::Sgld: return "sgld";
    case ImageMethod::LcSgld: return "lc_sgld";
    case ImageMethod::CwSgd: return "cw_sgd";
    case ImageMethod::Ours: return "ours";
    case ImageMethod::OursNoS: return "ours_no_s";
    case ImageMethod::Sghmc: return "sghmc";
    case ImageMethod::LcSghmc: return "lc_sghmc";
    }
    return "unknown";
}

std::string imageMethodLabel(ImageMethod m)
{
    return methodInfo(imageMethodName(m)).label;
}

std::vector<ImageMethod> imageMethodsFor(const std::string& experiment)
{
    std::vector<ImageMethod> out;
    for (const auto& id : methodIdsFor(experiment))
        for (auto m : allImageMethods())
            if (imageMethodName(m) == id)
                out.push_back(m);
    return out;
}

std::vector<ImageMethod> parseImageMethodList(const std::vector<std::string>& names, const std::string& what,
                                              const std::vector<ImageMethod>& allowed)
{
    std::vector<std::string> allowedIds;
    for (auto m : allowed)
        allowedIds.push_back(imageMethodName(m));
    std::vector<ImageMethod> out;
    for (const auto& id : parseMethodIds(names, what, allowedIds))
        for (auto m : allowed)
            if (imageMethodName(m) == id)
                out.push_back(m);
    return out;
}

} // namespace lcs
