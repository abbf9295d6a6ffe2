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

} // namespace lcs
