#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

/// Methods as data: the one catalogue of every method (and of the MAP network the image
/// experiments train first) with its label, colour, the experiments that offer it and its
/// seed tag. The engine, the CLI, session files, every plot and every results table read
/// it. Plain C++ (no LibTorch, no Qt).
namespace lcs {

/// One row of the catalogue.
struct MethodInfo {
    std::string id;        ///< the name in files, flags and results: "sgld_s"
    std::string label;     ///< tables and legends: "SGLD + S"
    std::string colour;    ///< "#RRGGBB" (Okabe-Ito, colour-blind safe); distinct within each experiment
    std::vector<std::string> experiments;  ///< the experiments that offer it (none: a shared network)
    /// Names the method's random streams (core/seeds.h): fixed for ever, so adding a
    /// method or reordering the catalogue never changes another method's numbers.
    uint64_t seedTag = 0;
};

/// Every row, in the order menus, legends and tables list them.
const std::vector<MethodInfo>& methodCatalog();
/// The row of `id`, or nullptr.
const MethodInfo* findMethodInfo(const std::string& id);
/// The row of `id`; a name outside the catalogue is a programming error (std::logic_error).
const MethodInfo& methodInfo(const std::string& id);
/// The ids an experiment offers, in catalogue order.
std::vector<std::string> methodIdsFor(const std::string& experiment);
/// Parses a list of ids among `allowed`; throws InputError naming `what` for an unknown or
/// repeated id or an empty list.
std::vector<std::string> parseMethodIds(const std::vector<std::string>& names, const std::string& what,
                                        const std::vector<std::string>& allowed);

enum class InferenceMethod { Bbvi, Sghmc, Sgld, KfacLaplace };

/// Every method, in the order menus and tables list them.
const std::vector<InferenceMethod>& allMethods();
std::string methodName(InferenceMethod m);            ///< the catalogue id: "bbvi", "sghmc", "sgld", "kfac_laplace"
std::string methodLabel(InferenceMethod m);           ///< the catalogue label: "VI (BBVI)", "SGHMC", ...
uint64_t methodSeedTag(InferenceMethod m);            ///< the catalogue seed tag
std::optional<InferenceMethod> parseMethod(const std::string& name);
std::vector<InferenceMethod> paperMethods();           ///< bbvi, sghmc, kfac_laplace
/// "bbvi, sghmc, sgld, kfac_laplace", for messages and help text.
std::string methodNameList();

/// Parses a list of method names; throws InputError naming `what` for an unknown name,
/// a name given twice, or an empty list.
std::vector<InferenceMethod> parseMethodList(const std::vector<std::string>& names, const std::string& what);

/// The methods the image experiments compare (paper Figs. 3-5): posterior predictives
/// with and without the student S, the loss-calibrated and class-weighted baselines, and
/// the correction q on S ("ours") or on the stored MC predictive ("ours_no_s").
enum class ImageMethod { SgldS, Sgld, LcSgld, CwSgd, Ours, OursNoS, Sghmc, LcSghmc };

const std::vector<ImageMethod>& allImageMethods();
std::string imageMethodName(ImageMethod m);   ///< the catalogue id: "sgld_s", "sgld", "lc_sgld", "cw_sgd", "ours", ...
std::string imageMethodLabel(ImageMethod m);  ///< the catalogue label: "SGLD + S", "LC-SGLD", "CW-SGD", ...
/// The image methods an experiment offers (the catalogue's rows for it), in catalogue order.
std::vector<ImageMethod> imageMethodsFor(const std::string& experiment);
/// Parses a list of names among `allowed`; throws InputError naming `what` for an unknown
/// or repeated name or an empty list.
std::vector<ImageMethod> parseImageMethodList(const std::vector<std::string>& names, const std::string& what,
                                              const std::vector<ImageMethod>& allowed);

} // namespace lcs
