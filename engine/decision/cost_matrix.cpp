#include "decision/cost_matrix.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <iomanip>
#include <limits>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "decision/embedded_presets.h"

namespace lcs {

namespace {

constexpr const char* kJsonFormat = "lcstudio-cost-matrix";

std::string formatNumber(double v)
{
    std::ostringstream s;
    s << std::setprecision(std::numeric_limits<double>::max_digits10) << v;
    // Shortest form that still round-trips keeps files readable: try fewer digits first.
    for (int digits = 6; digits < std::numeric_limits<double>::max_digits10; ++digits) {
        std::ostringstream t;
        t << std::setprecision(digits) << v;
        if (std::stod(t.str()) == v)
            return t.str();
    }
    return s.str();
}

bool endsWith(const std::string& s, const std::string& suffix)
{
    if (s.size() < suffix.size())
        return false;
    return std::equal(suffix.rbegin(), suffix.rend(), s.rbegin(), [](char a, char b) {
        return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
    });
}

} // namespace

CostMatrix::CostMatrix(int numClasses, std::vector<double> values, bool referral,
                       std::vector<std::string> classNames)
    : m_classes(numClasses), m_referral(referral), m_values(std::move(values))
{
    if (numClasses < 1)
        throw CostMatrixError("cost matrix needs at least one class, got " + std::to_string(numClasses));
    const size_t expected = static_cast<size_t>(numClasses) * static_cast<size_t>(numDecisions());
    if (m_values.size() != expected)
        throw CostMatrixError("cost matrix with " + std::to_string(numClasses) + " classes and "
                              + std::to_string(numDecisions()) + " decisions needs "
                              + std::to_string(expected) + " entries, got "
                              + std::to_string(m_values.size()));
    setClassNames(std::move(classNames));
}

CostMatrix CostMatrix::zeroOne(int numClasses, std::vector<std::string> classNames)
{
    std::vector<double> v(static_cast<size_t>(numClasses) * numClasses, 1.0);
    for (int i = 0; i < numClasses; ++i)
        v[static_cast<size_t>(i) * numClasses + i] = 0.0;
    return CostMatrix(numClasses, std::move(v), false, std::move(classNames));
}

int CostMatrix::index(int trueClass, int decision) const
{
    if (trueClass < 0 || trueClass >= m_classes || decision < 0 || decision >= numDecisions())
        throw std::out_of_range("cost matrix index (" + std::to_string(trueClass) + ", "
                                + std::to_string(decision) + ") outside "
                                + std::to_string(m_classes) + "x" + std::to_string(numDecisions()));
    return trueClass * numDecisions() + decision;
}

double CostMatrix::at(int trueClass, int decision) const
{
    return m_values[static_cast<size_t>(index(trueClass, decision))];
}

void CostMatrix::set(int trueClass, int decision, double cost)
{
    m_values[static_cast<size_t>(index(trueClass, decision))] = cost;
}

void CostMatrix::setReferral(std::optional<double> cost)
{
    const int oldD = numDecisions();
    const bool on = cost.has_value();
    std::vector<double> v;
    const int newD = m_classes + (on ? 1 : 0);
    v.reserve(static_cast<size_t>(m_classes) * newD);
    for (int y = 0; y < m_classes; ++y) {
        for (int d = 0; d < m_classes; ++d)
            v.push_back(m_values[static_cast<size_t>(y) * oldD + d]);
        if (on)
            v.push_back(*cost);
    }
    m_values = std::move(v);
    m_referral = on;
}

std::optional<double> CostMatrix::referralCost() const
{
    if (!m_referral || m_classes == 0)
        return std::nullopt;
    return at(0, m_classes);
}

void CostMatrix::setClassNames(std::vector<std::string> names)
{
    if (names.empty()) {
        for (int i = 0; i < m_classes; ++i)
            names.push_back("class " + std::to_string(i));
    }
    if (static_cast<int>(names.size()) != m_classes)
        throw CostMatrixError("cost matrix has " + std::to_string(m_classes) + " classes but "
                              + std::to_string(names.size()) + " class names");
    m_names = std::move(names);
}

std::string CostMatrix::decisionName(int decision) const
{
    if (m_referral && decision == m_classes)
        return "refer";
    return m_names.at(static_cast<size_t>(decision));
}

double CostMatrix::maxCost() const
{
    double m = 0.0;
    for (double v : m_values)
        m = std::max(m, v);
    return m;
}

double CostMatrix::utilityConstant() const
{
    return m_utilityConstant.value_or(maxCost());
}

void CostMatrix::validate() const
{
    if (m_classes < 1)
        throw CostMatrixError("cost matrix is empty");
    for (int y = 0; y < m_classes; ++y) {
        for (int d = 0; d < numDecisions(); ++d) {
            const double v = at(y, d);
            const std::string where = "cost[" + m_names[static_cast<size_t>(y)] + ", "
                                      + decisionName(d) + "] (row " + std::to_string(y + 1)
                                      + ", column " + std::to_string(d + 1) + ")";
            if (!std::isfinite(v))
                throw CostMatrixError(where + " is not a finite number");
            if (v < 0)
                throw CostMatrixError(where + " is negative (" + formatNumber(v) + "); costs must be >= 0");
        }
    }
    const double maxL = maxCost();
    if (m_utilityConstant) {
        const double m = *m_utilityConstant;
        if (!std::isfinite(m) || m <= 0)
            throw CostMatrixError("M = " + formatNumber(m) + " must be a positive finite number");
        if (m < maxL)
            throw CostMatrixError("M = " + formatNumber(m) + " is smaller than the largest cost "
                                  + formatNumber(maxL) + "; utilities M - L would be negative");
    } else if (maxL <= 0) {
        throw CostMatrixError("all costs are zero: there is no decision to calibrate (set M or a cost)");
    }
}

void CostMatrix::validateFor(int expectedClasses) const
{
    validate();
    if (m_classes != expectedClasses)
        throw CostMatrixError("cost matrix has " + std::to_string(m_classes)
                              + " classes but the experiment has " + std::to_string(expectedClasses));
}

bool CostMatrix::operator==(const CostMatrix& o) const
{
    return m_classes == o.m_classes && m_referral == o.m_referral && m_values == o.m_values
           && m_names == o.m_names && m_utilityConstant == o.m_utilityConstant;
}

// ---------------------------------------------------------------------------- JSON

CostMatrix costMatrixFromJson(const std::string& text, const std::string& source)
{
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
        throw CostMatrixError(source + ": not valid JSON (" + e.what() + ")");
    }
    if (!j.is_object())
        throw CostMatrixError(source + ": top level must be an object");
    if (j.contains("format") && j["format"] != kJsonFormat)
        throw CostMatrixError(source + ": field \"format\" is " + j["format"].dump() + ", expected \""
                              + kJsonFormat + "\"");
    if (!j.contains("costs") || !j["costs"].is_array() || j["costs"].empty())
        throw CostMatrixError(source + ": field \"costs\" must be a non-empty array of rows");

    const auto& rows = j["costs"];
    const int classes = static_cast<int>(rows.size());
    size_t cols = 0;
    std::vector<double> values;
    for (size_t r = 0; r < rows.size(); ++r) {
        const auto& row = rows[r];
        if (!row.is_array())
            throw CostMatrixError(source + ": costs row " + std::to_string(r + 1) + " is not an array");
        if (r == 0)
            cols = row.size();
        if (row.size() != cols)
            throw CostMatrixError(source + ": costs row " + std::to_string(r + 1) + " has "
                                  + std::to_string(row.size()) + " entries, row 1 has " + std::to_string(cols));
        for (size_t c = 0; c < row.size(); ++c) {
            if (!row[c].is_number())
                throw CostMatrixError(source + ": costs[" + std::to_string(r + 1) + "][" + std::to_string(c + 1)
                                      + "] = " + row[c].dump() + " is not a number");
            values.push_back(row[c].get<double>());
        }
    }
    bool referral = false;
    if (cols == static_cast<size_t>(classes) + 1)
        referral = true;
    else if (cols != static_cast<size_t>(classes))
        throw CostMatrixError(source + ": costs has " + std::to_string(classes) + " rows and "
                              + std::to_string(cols) + " columns; expected " + std::to_string(classes)
                              + " or " + std::to_string(classes + 1) + " (with referral)");

    std::vector<std::string> names;
    if (j.contains("classes")) {
        if (!j["classes"].is_array())
            throw CostMatrixError(source + ": field \"classes\" must be an array of names");
        for (const auto& n : j["classes"]) {
            if (!n.is_string())
                throw CostMatrixError(source + ": class name " + n.dump() + " is not a string");
            names.push_back(n.get<std::string>());
        }
    }
    CostMatrix m;
    try {
        m = CostMatrix(classes, std::move(values), referral, std::move(names));
    } catch (const CostMatrixError& e) {
        throw CostMatrixError(source + ": " + e.what());
    }
    if (j.contains("referral_cost") && !j["referral_cost"].is_null()) {
        if (!j["referral_cost"].is_number())
            throw CostMatrixError(source + ": field \"referral_cost\" must be a number");
        if (referral)
            throw CostMatrixError(source + ": give either a referral column or \"referral_cost\", not both");
        m.setReferral(j["referral_cost"].get<double>());
    }
    if (j.contains("M") && !j["M"].is_null()) {
        if (!j["M"].is_number())
            throw CostMatrixError(source + ": field \"M\" must be a number or null");
        m.setUtilityConstant(j["M"].get<double>());
    }
    if (j.contains("name") && j["name"].is_string())
        m.setName(j["name"].get<std::string>());
    try {
        m.validate();
    } catch (const CostMatrixError& e) {
        throw CostMatrixError(source + ": " + e.what());
    }
    return m;
}

std::string costMatrixToJson(const CostMatrix& costs)
{
    // Written by hand rather than json::dump so rows stay one per line.
    std::ostringstream s;
    s << "{\n  \"format\": \"" << kJsonFormat << "\",\n  \"version\": 1,\n";
    if (!costs.name().empty())
        s << "  \"name\": " << nlohmann::json(costs.name()).dump() << ",\n";
    s << "  \"classes\": " << nlohmann::json(costs.classNames()).dump() << ",\n";
    s << "  \"referral\": " << (costs.hasReferral() ? "true" : "false") << ",\n";
    if (costs.utilityConstantSetting())
        s << "  \"M\": " << formatNumber(*costs.utilityConstantSetting()) << ",\n";
    s << "  \"costs\": [";
    for (int y = 0; y < costs.numClasses(); ++y) {
        s << (y ? ",\n            [" : "[");
        for (int d = 0; d < costs.numDecisions(); ++d)
            s << (d ? ", " : "") << formatNumber(costs.at(y, d));
        s << "]";
    }
    s << "]\n}\n";
    return s.str();
}

// ---------------------------------------------------------------------------- Weka

CostMatrix costMatrixFromWeka(const std::string& text, const std::string& source)
{
    std::istringstream in(text);
    std::string line;
    std::vector<std::string> tokens;
    int lineNo = 0;
    std::vector<int> tokenLine;
    while (std::getline(in, line)) {
        ++lineNo;
        const auto first = line.find_first_not_of(" \t\r");
        if (first == std::string::npos || line[first] == '%')
            continue;
        std::istringstream ls(line);
        std::string tok;
        while (ls >> tok) {
            tokens.push_back(tok);
            tokenLine.push_back(lineNo);
        }
    }
    auto number = [&](size_t i, const std::string& what) {
        if (i >= tokens.size())
            throw CostMatrixError(source + ": file ends before " + what);
        const std::string& t = tokens[i];
        size_t used = 0;
        double v = 0;
        try {
            v = std::stod(t, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (used != t.size())
            throw CostMatrixError(source + ": line " + std::to_string(tokenLine[i]) + ": " + what + " \"" + t
                                  + "\" is not a number");
        return v;
    };
    const double rowsD = number(0, "the row count");
    const double colsD = number(1, "the column count");
    if (rowsD < 1 || rowsD != std::floor(rowsD) || colsD < 1 || colsD != std::floor(colsD))
        throw CostMatrixError(source + ": size \"" + tokens[0] + " " + tokens[1] + "\" is not two positive integers");
    const int rows = static_cast<int>(rowsD);
    const int cols = static_cast<int>(colsD);
    if (cols != rows && cols != rows + 1)
        throw CostMatrixError(source + ": " + std::to_string(rows) + "x" + std::to_string(cols)
                              + " matrix; expected square, or one extra referral column");
    const size_t expected = static_cast<size_t>(rows) * cols;
    if (tokens.size() - 2 != expected)
        throw CostMatrixError(source + ": header says " + std::to_string(rows) + "x" + std::to_string(cols) + " = "
                              + std::to_string(expected) + " entries, file has " + std::to_string(tokens.size() - 2));
    std::vector<double> values;
    values.reserve(expected);
    for (size_t i = 0; i < expected; ++i) {
        const int r = static_cast<int>(i) / cols, c = static_cast<int>(i) % cols;
        values.push_back(number(i + 2, "entry (" + std::to_string(r + 1) + ", " + std::to_string(c + 1) + ")"));
    }
    CostMatrix m(rows, std::move(values), cols == rows + 1);
    try {
        m.validate();
    } catch (const CostMatrixError& e) {
        throw CostMatrixError(source + ": " + e.what());
    }
    return m;
}

std::string costMatrixToWeka(const CostMatrix& costs)
{
    std::ostringstream s;
    s << "% Rows\tColumns\n" << costs.numClasses() << "\t" << costs.numDecisions() << "\n% Matrix elements\n";
    for (int y = 0; y < costs.numClasses(); ++y) {
        for (int d = 0; d < costs.numDecisions(); ++d)
            s << (d ? "\t" : "") << formatNumber(costs.at(y, d));
        s << "\n";
    }
    return s.str();
}

// ---------------------------------------------------------------------------- files

CostMatrix loadCostMatrix(const std::string& path)
{
    std::string text;
    try {
        text = readFile(path);
    } catch (const std::exception& e) {
        throw CostMatrixError(e.what());
    }
    if (endsWith(path, ".cost"))
        return costMatrixFromWeka(text, path);
    if (endsWith(path, ".json"))
        return costMatrixFromJson(text, path);
    throw CostMatrixError(path + ": unknown cost matrix format (use .json or .cost)");
}

void saveCostMatrix(const CostMatrix& costs, const std::string& path)
{
    costs.validate();
    std::string text;
    if (endsWith(path, ".cost"))
        text = costMatrixToWeka(costs);
    else if (endsWith(path, ".json"))
        text = costMatrixToJson(costs);
    else
        throw CostMatrixError(path + ": unknown cost matrix format (use .json or .cost)");
    try {
        writeFileAtomically(path, text);
    } catch (const std::exception& e) {
        throw CostMatrixError(e.what());
    }
}

// ---------------------------------------------------------------------------- presets

std::vector<std::string> costPresetNames()
{
    std::vector<std::string> names;
    for (const auto& p : embeddedCostPresets())
        names.emplace_back(p.name);
    return names;
}

CostMatrix costPreset(const std::string& name)
{
    for (const auto& p : embeddedCostPresets()) {
        if (name == p.name)
            return costMatrixFromJson(p.json, "preset " + name);
    }
    std::string known;
    for (const auto& n : costPresetNames())
        known += (known.empty() ? "" : ", ") + n;
    throw CostMatrixError("unknown cost preset \"" + name + "\" (known: " + known + ")");
}

} // namespace lcs
