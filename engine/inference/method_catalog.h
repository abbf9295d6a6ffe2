#pragma once

#include <optional>
#include <string>
#include <vector>

/// The one list of posterior approximations by name and label, shared by the engine,
/// the CLI, session files and the window. Plain C++ (no LibTorch).
namespace lcs {

enum class InferenceMethod { Bbvi, Sghmc, Sgld, KfacLaplace };

/// Every method, in the order menus and tables list them.
const std::vector<InferenceMethod>& allMethods();
std::string methodName(InferenceMethod m);            ///< "bbvi", "sghmc", "sgld", "kfac_laplace"
std::string methodLabel(InferenceMethod m);           ///< "VI (BBVI)", "SGHMC", ... for tables
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
std::string imageMethodName(ImageMethod m);   ///< "sgld_s", "sgld", "lc_sgld", "cw_sgd", "ours", ...
std::string imageMethodLabel(ImageMethod m);  ///< "SGLD + S", "LC-SGLD", "CW-SGD", "Ours (q on S)", ...
/// Parses a list of names among `allowed`; throws InputError naming `what` for an unknown
/// or repeated name or an empty list.
std::vector<ImageMethod> parseImageMethodList(const std::vector<std::string>& names, const std::string& what,
                                              const std::vector<ImageMethod>& allowed);

} // namespace lcs
