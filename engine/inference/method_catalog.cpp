#include "inference/method_catalog.h"

#include <algorithm>

#include "core/input_error.h"

namespace lcs {

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
    switch (m) {
    case InferenceMethod::Bbvi: return "VI (BBVI)";
    case InferenceMethod::Sghmc: return "SGHMC";
    case InferenceMethod::Sgld: return "SGLD";
    case InferenceMethod::KfacLaplace: return "KFAC-Laplace";
    }
    return "unknown";
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
    if (names.empty())
        throw InputError(what + ": empty list (choose from " + methodNameList() + ")");
    std::vector<InferenceMethod> out;
    for (const auto& name : names) {
        const auto m = parseMethod(name);
        if (!m)
            throw InputError(what + ": unknown method \"" + name.substr(0, 40) + "\" (choose from " + methodNameList()
                             + ")");
        // A method listed twice would double its rows and understate the spread.
        if (std::find(out.begin(), out.end(), *m) != out.end())
            throw InputError(what + ": method \"" + name + "\" is listed twice");
        out.push_back(*m);
    }
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
    switch (m) {
    case ImageMethod::SgldS: return "SGLD + S";
    case ImageMethod::Sgld: return "SGLD (MC)";
    case ImageMethod::LcSgld: return "LC-SGLD";
    case ImageMethod::CwSgd: return "CW-SGD";
    case ImageMethod::Ours: return "Ours (q on S)";
    case ImageMethod::OursNoS: return "Ours (q, no S)";
    case ImageMethod::Sghmc: return "SGHMC";
    case ImageMethod::LcSghmc: return "LC-SGHMC";
    }
    return "unknown";
}

std::vector<ImageMethod> parseImageMethodList(const std::vector<std::string>& names, const std::string& what,
                                              const std::vector<ImageMethod>& allowed)
{
    std::string choices;
    for (auto m : allowed)
        choices += (choices.empty() ? "" : ", ") + imageMethodName(m);
    if (names.empty())
        throw InputError(what + ": empty list (choose from " + choices + ")");
    std::vector<ImageMethod> out;
    for (const auto& name : names) {
        auto it = std::find_if(allowed.begin(), allowed.end(), [&](ImageMethod m) { return imageMethodName(m) == name; });
        if (it == allowed.end())
            throw InputError(what + ": unknown method \"" + name.substr(0, 40) + "\" (choose from " + choices + ")");
        if (std::find(out.begin(), out.end(), *it) != out.end())
            throw InputError(what + ": method \"" + name + "\" is listed twice");
        out.push_back(*it);
    }
    return out;
}

} // namespace lcs
