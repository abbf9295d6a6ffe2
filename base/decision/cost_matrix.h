#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/core/input_error.h"

/// Cost matrices: plain C++ with no LibTorch or Qt, so that the GUI's table model and
/// the file readers can use them without heavy headers.
namespace lcs {

/// A malformed or invalid cost matrix; the message names the file, field or value.
class CostMatrixError : public InputError {
public:
    using InputError::InputError;
};

/// Largest class count any reader accepts (ImageNet has 1000); larger files are refused
/// before anything is allocated for them.
constexpr int kMaxCostClasses = 1000;

/// L[y, d]: one row per true class y, one column per decision d. With a referral
/// option the matrix has C+1 columns and the last is the referral decision.
class CostMatrix {
public:
    CostMatrix() = default;
    /// Row-major values, numClasses rows and numClasses (+1 with referral) columns.
    CostMatrix(int numClasses, std::vector<double> values, bool referral,
               std::vector<std::string> classNames = {});

    /// 0 on the diagonal, 1 elsewhere (Weka's "Defaults").
    static CostMatrix zeroOne(int numClasses, std::vector<std::string> classNames = {});

    int numClasses() const { return m_classes; }
    int numDecisions() const { return m_classes + (m_referral ? 1 : 0); }
    bool hasReferral() const { return m_referral; }
    bool empty() const { return m_classes == 0; }

    double at(int trueClass, int decision) const;
    void set(int trueClass, int decision, double cost);
    const std::vector<double>& values() const { return m_values; }

    /// Adds (cost given) or removes (nullopt) the referral column; adding fills it
    /// with the constant cost.
    void setReferral(std::optional<double> cost);
    /// Cost of the referral decision for the first class (the column is normally
    /// constant); nullopt without referral.
    std::optional<double> referralCost() const;

    const std::vector<std::string>& classNames() const { return m_names; }
    void setClassNames(std::vector<std::string> names);
    /// Name of a decision column: the class name, or "refer" for the referral column.
    std::string decisionName(int decision) const;

    std::string name() const { return m_name; }
    void setName(std::string name) { m_name = std::move(name); }

    /// The constant M in u = M - L; nullopt means "use the largest cost".
    std::optional<double> utilityConstantSetting() const { return m_utilityConstant; }
    void setUtilityConstant(std::optional<double> m) { m_utilityConstant = m; }
    /// M actually used: the setting, or the largest cost.
    double utilityConstant() const;

    double maxCost() const;

    /// Throws CostMatrixError when an entry is not finite or negative, names do not
    /// match the class count, or M is smaller than the largest cost (or not positive).
    void validate() const;
    /// validate() plus a check that the class count is the one an experiment needs.
    void validateFor(int expectedClasses) const;

    bool operator==(const CostMatrix& other) const;
    bool operator!=(const CostMatrix& other) const { return !(*this == other); }

private:
    int index(int trueClass, int decision) const;

    int m_classes = 0;
    bool m_referral = false;
    std::vector<double> m_values;
    std::vector<std::string> m_names;
    std::string m_name;
    std::optional<double> m_utilityConstant;
};

/// True when the matrix's classes have names of their own, not the generic "class k".
bool namesItsClasses(const CostMatrix& costs);

/// True when `costs` can decide for data whose classes `data` describes (its count, and
/// names when it has its own): the same count, and the same names in the same order
/// unless either side has only the generic ones. The one rule every front end and
/// requireClassNames apply.
bool fitsClassesOf(const CostMatrix& costs, const CostMatrix& data);

/// Throws CostMatrixError when `costs` names its classes (not the generic "class k") and
/// the names are not `names` in this order: rows are matched to the data's classes by
/// place, so other names would silently put one class's costs on another. `data` names
/// the data in the message.
void requireClassNames(const CostMatrix& costs, const std::vector<std::string>& names, const std::string& data);

/// JSON text (format "lcstudio-cost-matrix") <-> CostMatrix. `source` names the file in
/// error messages. The reader caps size and nesting depth, refuses unknown fields and
/// throws only CostMatrixError.
CostMatrix costMatrixFromJson(const std::string& text, const std::string& source = "JSON");
std::string costMatrixToJson(const CostMatrix& costs);

/// Weka `.cost` text: `%` comment lines, then "R C", then R rows of C numbers
/// (rows = actual class, columns = predicted class). C = R+1 means a referral column.
/// The header must be two integers and each of the R rows exactly C numbers.
CostMatrix costMatrixFromWeka(const std::string& text, const std::string& source = ".cost");
std::string costMatrixToWeka(const CostMatrix& costs);

/// Reads a file by extension (.json or .cost); throws CostMatrixError naming the file.
CostMatrix loadCostMatrix(const std::string& path);
/// Writes by extension, atomically (temporary file, then rename). Throws CostMatrixError
/// for an invalid matrix or path, OutputError when the file cannot be written.
void saveCostMatrix(const CostMatrix& costs, const std::string& path);

/// The paper's matrices: "synthetic", "mnist", "cifar10", "selective", "camvid".
std::vector<std::string> costPresetNames();
CostMatrix costPreset(const std::string& name);

} // namespace lcs
