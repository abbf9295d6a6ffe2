#include "base/decision/cost_matrix.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <sstream>

#include <nlohmann/json.hpp>

#include "base/core/atomic_file.h"
#include "base/core/json_input.h"
#include "base/core/number_format.h"
#include "base/core/utf8.h"
#include "base/decision/embedded_presets.h"

namespace lcs {

namespace {

constexpr const char* kJsonFormat = "lcstudio-cost-matrix";
/// A 1000-class matrix with referral written by costMatrixToJson is about 4 MB.
constexpr size_t kMaxCostFileBytes = size_t{8} << 20;
constexpr size_t kMaxClassNameLength = 200;

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
    // Names are how decisions are printed and matched to data: each must say which.
    for (size_t i = 0; i < names.size(); ++i) {
        if (names[i].empty())
            throw CostMatrixError("class name " + std::to_string(i + 1) + " is empty");
        for (size_t j = 0; j < i; ++j)
            if (names[i] == names[j])
                throw CostMatrixError("class name \"" + names[i].substr(0, 40) + "\" is given twice (classes " +
                                      std::to_string(j + 1) + " and " + std::to_string(i + 1) + ")");
    }
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

namespace {

/// Costs, and M, that float32 arithmetic holds with room to spare: sums of K
/// probability-weighted costs neither overflow (float's largest is 3.4e38) nor fall to
/// subnormals (below 1.2e-38) when weighted by small probabilities.
constexpr double kSmallestCost = 1e-30;
constexpr double kLargestCost = 1e30;
constexpr const char* kFloatRangeReason =
    "the networks decide in float32, where such costs overflow or underflow; scale the whole matrix (decisions "
    "depend only on the costs' ratios)";

} // namespace

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
            if (v != 0 && (v < kSmallestCost || v > kLargestCost))
                throw CostMatrixError(where + " = " + formatNumber(v) + " is outside " + formatNumber(kSmallestCost) +
                                      " to " + formatNumber(kLargestCost) + " (or 0): " + kFloatRangeReason);
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
    const double m = utilityConstant();
    if (m < kSmallestCost || m > kLargestCost)
        throw CostMatrixError("M = " + formatNumber(m) + " is outside " + formatNumber(kSmallestCost) + " to " +
                              formatNumber(kLargestCost) + ": " + kFloatRangeReason);
}

bool namesItsClasses(const CostMatrix& costs)
{
    return costs.classNames() != CostMatrix::zeroOne(costs.numClasses()).classNames();
}

bool fitsClassesOf(const CostMatrix& costs, const CostMatrix& data)
{
    return costs.numClasses() == data.numClasses() &&
           (!namesItsClasses(costs) || !namesItsClasses(data) || costs.classNames() == data.classNames());
}

void requireClassNames(const CostMatrix& costs, const std::vector<std::string>& names, const std::string& data)
{
    const auto& named = costs.classNames();
    if (named == names || !namesItsClasses(costs))
        return;
    const auto list = [](const std::vector<std::string>& v) {
        std::string s;
        for (const auto& n : v)
            s += (s.empty() ? "" : ", ") + n;
        return s.substr(0, 200);
    };
    throw CostMatrixError("cost matrix classes (" + list(named) + ") are not the classes of " + data + " (" +
                          list(names) + ", in this order)");
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

namespace {

/// The "costs" of a cost file: its rows' values, row by row.
struct CostRows {
    std::vector<double> values;
    size_t rows = 0, columns = 0;
};

/// The "costs" rows: a non-empty array of at most kMaxCostClasses rows of numbers, all
/// as long as the first.
CostRows costRows(const JsonObjectReader& r, const std::string& source)
{
    const auto& rows = r.require("costs");
    if (!rows.is_array() || rows.empty())
        r.fail("costs", "must be a non-empty array of rows, got " + jsonExcerpt(rows));
    if (rows.size() > static_cast<size_t>(kMaxCostClasses))
        r.fail("costs", "has " + std::to_string(rows.size()) + " rows; at most "
                            + std::to_string(kMaxCostClasses) + " classes are supported");
    size_t cols = 0;
    std::vector<double> values;
    for (size_t row = 0; row < rows.size(); ++row) {
        const auto& entries = rows[row];
        const std::string rowName = "costs[" + std::to_string(row + 1) + "]";
        if (!entries.is_array())
            throw CostMatrixError(source + ": " + rowName + " is not an array: " + jsonExcerpt(entries));
        if (row == 0)
            cols = entries.size();
        if (entries.size() != cols)
            throw CostMatrixError(source + ": " + rowName + " (row " + std::to_string(row + 1) + ") has "
                                  + std::to_string(entries.size()) + " entries, row 1 has " + std::to_string(cols));
        for (size_t c = 0; c < entries.size(); ++c) {
            if (!entries[c].is_number())
                throw CostMatrixError(source + ": " + rowName + "[" + std::to_string(c + 1)
                                      + "] = " + jsonExcerpt(entries[c]) + " is not a number");
            values.push_back(entries[c].get<double>());
        }
    }
    return {values, rows.size(), cols};
}

} // namespace

CostMatrix costMatrixFromJson(const std::string& text, const std::string& source)
{
    try {
        const nlohmann::json j = parseJsonInput(text, source, JsonLimits{kMaxCostFileBytes, 8});
        const JsonObjectReader r(j, source);
        r.refuseUnknown({"format", "version", "name", "description", "classes", "referral", "referral_cost", "M", "costs"});
        if (r.has("format") && r.stringOr("format", "") != kJsonFormat)
            r.fail("format", "is \"" + r.string("format").substr(0, 40) + "\", expected \"" + kJsonFormat + "\"");
        if (r.has("version"))
            r.integer("version", 1, 1);
        auto [values, rowCount, cols] = costRows(r, source);
        const int classes = static_cast<int>(rowCount);
        bool referral = false;
        if (cols == static_cast<size_t>(classes) + 1)
            referral = true;
        else if (cols != static_cast<size_t>(classes))
            throw CostMatrixError(source + ": costs has " + std::to_string(classes) + " rows and "
                                  + std::to_string(cols) + " columns; expected " + std::to_string(classes) + " or "
                                  + std::to_string(classes + 1) + " (with referral)");
        if (r.has("referral") && r.boolean("referral") != referral && !r.hasValue("referral_cost"))
            r.fail("referral", std::string("is ") + (referral ? "false" : "true") + " but costs has "
                                   + std::to_string(cols) + " columns for " + std::to_string(classes) + " classes");

        std::vector<std::string> names;
        if (r.has("classes")) {
            names = r.strings("classes", static_cast<size_t>(kMaxCostClasses));
            for (auto& n : names)
                if (utf8Length(n) > kMaxClassNameLength)
                    r.fail("classes", "has a name longer than " + std::to_string(kMaxClassNameLength) + " characters");
        }
        CostMatrix m;
        try {
            m = CostMatrix(classes, std::move(values), referral, std::move(names));
        } catch (const CostMatrixError& e) {
            throw CostMatrixError(source + ": " + e.what());
        }
        if (r.hasValue("referral_cost")) {
            if (referral)
                throw CostMatrixError(source + ": give either a referral column or \"referral_cost\", not both");
            m.setReferral(r.number("referral_cost"));
        }
        if (r.hasValue("M"))
            m.setUtilityConstant(r.number("M"));
        if (r.has("name")) {
            // Kept whole or refused: a name cut mid-character would not be UTF-8.
            const auto name = r.string("name");
            if (utf8Length(name) > kMaxClassNameLength)
                r.fail("name", "is longer than " + std::to_string(kMaxClassNameLength) + " characters");
            m.setName(name);
        }
        try {
            m.validate();
        } catch (const CostMatrixError& e) {
            throw CostMatrixError(source + ": " + e.what());
        }
        return m;
    } catch (const CostMatrixError&) {
        throw;
    } catch (const InputError& e) {
        throw CostMatrixError(e.what());
    }
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

CostMatrix costMatrixFromWeka(const std::string& textIn, const std::string& source)
{
    // A byte-order mark (Notepad's UTF-8) is no token, as the JSON reader also skips it.
    const std::string text = textIn.compare(0, 3, "\xEF\xBB\xBF") == 0 ? textIn.substr(3) : textIn;
    if (text.size() > kMaxCostFileBytes)
        throw CostMatrixError(source + ": " + std::to_string(text.size()) + " bytes; at most "
                              + std::to_string(kMaxCostFileBytes) + " are read");
    // Non-comment lines with their numbers and tokens: the header, then one line a row.
    struct Line {
        int number;
        std::vector<std::string> tokens;
    };
    std::vector<Line> lines;
    {
        std::istringstream in(text);
        std::string line;
        int lineNo = 0;
        while (std::getline(in, line)) {
            ++lineNo;
            // Tokens split on any whitespace (\v and \f too); blank and '%' lines are skipped.
            std::istringstream ls(line);
            Line l{lineNo, {}};
            std::string tok;
            while (ls >> tok)
                l.tokens.push_back(tok);
            if (l.tokens.empty() || l.tokens.front()[0] == '%')
                continue;
            lines.push_back(std::move(l));
        }
    }
    if (lines.empty())
        throw CostMatrixError(source + ": no header line \"ROWS COLUMNS\"");
    const auto& header = lines.front();
    // The header as written (each token shortened, at most four), so that "2 2 2" is
    // reported as itself and not as the "2 2" it starts with.
    std::string headerText;
    for (size_t i = 0; i < std::min<size_t>(header.tokens.size(), 4); ++i)
        headerText += (i ? " " : "") + header.tokens[i].substr(0, 20);
    if (header.tokens.size() > 4)
        headerText += " ...";
    const auto rows = header.tokens.size() == 2 ? parseInteger(header.tokens[0], 1, kMaxCostClasses) : std::nullopt;
    const auto cols = header.tokens.size() == 2 ? parseInteger(header.tokens[1], 1, kMaxCostClasses + 1) : std::nullopt;
    if (!rows || !cols)
        throw CostMatrixError(source + ": line " + std::to_string(header.number) + ": header \"" + headerText
                              + "\" is not two integers ROWS COLUMNS with 1 <= ROWS <= "
                              + std::to_string(kMaxCostClasses));
    if (*cols != *rows && *cols != *rows + 1)
        throw CostMatrixError(source + ": " + std::to_string(*rows) + "x" + std::to_string(*cols)
                              + " matrix; expected square, or one extra referral column");
    if (lines.size() - 1 != static_cast<size_t>(*rows))
        throw CostMatrixError(source + ": header says " + std::to_string(*rows) + " rows, file has "
                              + std::to_string(lines.size() - 1));
    std::vector<double> values;
    values.reserve(static_cast<size_t>(*rows * *cols));
    for (long long r = 0; r < *rows; ++r) {
        const auto& line = lines[static_cast<size_t>(r + 1)];
        if (line.tokens.size() != static_cast<size_t>(*cols))
            throw CostMatrixError(source + ": line " + std::to_string(line.number) + ": row " + std::to_string(r + 1)
                                  + " has " + std::to_string(line.tokens.size()) + " numbers, the header says "
                                  + std::to_string(*cols));
        for (long long c = 0; c < *cols; ++c) {
            const std::string& t = line.tokens[static_cast<size_t>(c)];
            const auto v = parseFiniteNumber(t);
            if (!v)
                throw CostMatrixError(source + ": line " + std::to_string(line.number) + ": entry ("
                                      + std::to_string(r + 1) + ", " + std::to_string(c + 1) + ") \""
                                      + t.substr(0, 40) + "\" is not a finite number");
            values.push_back(*v);
        }
    }
    CostMatrix m(static_cast<int>(*rows), std::move(values), *cols == *rows + 1);
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
        text = readFile(path, kMaxCostFileBytes);
    } catch (const InputError& e) {
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
    writeFileAtomically(path, text);
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
