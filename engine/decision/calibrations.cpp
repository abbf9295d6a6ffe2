#include "engine/decision/calibrations.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "engine/decision/baselines.h"

namespace lcs {

namespace {

constexpr double kLogFloor = 1e-12;  // log p of a zero stays finite, as logOf clamps

double safeLog(double p)
{
    return std::log(std::max(p, kLogFloor));
}

double sigmoid(double z)
{
    return z >= 0 ? 1 / (1 + std::exp(-z)) : std::exp(z) / (1 + std::exp(z));
}

void checkLabelled(const char* what, const ClassProbabilities& p, const std::vector<int64_t>& labels)
{
    if (p.rows == 0 || static_cast<int64_t>(labels.size()) != p.rows)
        throw std::invalid_argument(std::string(what) + ": needs one label per row and at least one row (" +
                                    std::to_string(labels.size()) + " labels, " + std::to_string(p.rows) + " rows)");
    for (auto y : labels)
        if (y < 0 || y >= p.classes)
            throw std::invalid_argument(std::string(what) + ": label " + std::to_string(y) + " is not one of the " +
                                        std::to_string(p.classes) + " classes");
}

void checkTwoClasses(const char* what, const ClassProbabilities& p)
{
    if (p.classes != 2)
        throw std::invalid_argument(std::string(what) + " calibrates two classes, not " + std::to_string(p.classes));
}

/// Solves A x = b (A n x n, row-major, symmetric positive definite) by Gaussian
/// elimination with partial pivoting; A and b are overwritten.
std::vector<double> solve(std::vector<double> a, std::vector<double> b)
{
    const size_t n = b.size();
    for (size_t c = 0; c < n; ++c) {
        size_t pivot = c;
        for (size_t r = c + 1; r < n; ++r)
            if (std::abs(a[r * n + c]) > std::abs(a[pivot * n + c]))
                pivot = r;
        if (pivot != c) {
            for (size_t k = 0; k < n; ++k)
                std::swap(a[c * n + k], a[pivot * n + k]);
            std::swap(b[c], b[pivot]);
        }
        const double d = a[c * n + c];
        if (std::abs(d) < 1e-300)
            throw std::runtime_error("calibration: a singular Newton system");
        for (size_t r = c + 1; r < n; ++r) {
            const double f = a[r * n + c] / d;
            if (f == 0)
                continue;
            for (size_t k = c; k < n; ++k)
                a[r * n + k] -= f * a[c * n + k];
            b[r] -= f * b[c];
        }
    }
    std::vector<double> x(n);
    for (size_t i = n; i-- > 0;) {
        double s = b[i];
        for (size_t k = i + 1; k < n; ++k)
            s -= a[i * n + k] * x[k];
        x[i] = s / a[i * n + i];
    }
    return x;
}

/// The Platt objective: the smoothed targets' cross-entropy of sigmoid(a s + b).
double plattLoss(const std::vector<double>& s, const std::vector<double>& t, double a, double b)
{
    double loss = 0;
    for (size_t i = 0; i < s.size(); ++i) {
        const double z = a * s[i] + b;
        // -t log sigmoid(z) - (1 - t) log(1 - sigmoid(z)) = log(1 + e^z) - t z, stably.
        loss += (z > 0 ? z + std::log1p(std::exp(-z)) : std::log1p(std::exp(z))) - t[i] * z;
    }
    return loss;
}

constexpr double kVectorRidge = 1e-4;

/// Vector scaling's objective at (w, b): mean NLL plus the ridge toward (1, 0).
double vectorLoss(const std::vector<double>& z, const std::vector<int64_t>& labels, int classes,
                  const std::vector<double>& theta)
{
    const size_t c = static_cast<size_t>(classes);
    double total = 0;
    std::vector<double> s(c);
    for (size_t i = 0; i < labels.size(); ++i) {
        double top = -INFINITY;
        for (size_t k = 0; k < c; ++k)
            top = std::max(top, s[k] = theta[k] * z[i * c + k] + theta[c + k]);
        double sum = 0;
        for (size_t k = 0; k < c; ++k)
            sum += std::exp(s[k] - top);
        total += top + std::log(sum) - s[static_cast<size_t>(labels[i])];
    }
    double ridge = 0;
    for (size_t k = 0; k < c; ++k)
        ridge += (theta[k] - 1) * (theta[k] - 1) + theta[c + k] * theta[c + k];
    return total / static_cast<double>(labels.size()) + kVectorRidge / 2 * ridge;
}

} // namespace

const char* calibrationName(CalibrationKind kind)
{
    switch (kind) {
    case CalibrationKind::Temperature: return "temperature";
    case CalibrationKind::Offsets: return "offsets";
    case CalibrationKind::Vector: return "vector";
    case CalibrationKind::Platt: return "platt";
    case CalibrationKind::Isotonic: return "isotonic";
    case CalibrationKind::Constant: return "constant";
    }
    return "temperature";
}

std::vector<CalibrationKind> calibrationsFor(int classes)
{
    if (classes == 2)
        return {CalibrationKind::Temperature, CalibrationKind::Offsets, CalibrationKind::Platt,
                CalibrationKind::Isotonic, CalibrationKind::Constant};
    return {CalibrationKind::Temperature, CalibrationKind::Offsets, CalibrationKind::Vector, CalibrationKind::Constant};
}

int64_t cheapestConstantDecision(const std::vector<int64_t>& labels, const CostMatrix& costs)
{
    if (labels.empty())
        throw std::invalid_argument("the cheapest constant decision: no labelled rows");
    int64_t best = 0;
    double bestCost = 0;
    for (int d = 0; d < costs.numDecisions(); ++d) {
        double total = 0;
        for (auto y : labels)
            total += costs.at(static_cast<int>(y), d);
        if (d == 0 || total < bestCost - 1e-12) {
            best = d;
            bestCost = total;
        }
    }
    return best;
}

PlattScaling fitPlatt(const ClassProbabilities& p, const std::vector<int64_t>& labels)
{
    checkTwoClasses("Platt scaling", p);
    checkLabelled("Platt scaling", p, labels);
    const size_t n = labels.size();
    double positives = 0;
    for (auto y : labels)
        positives += y == 1 ? 1 : 0;
    const double negatives = static_cast<double>(n) - positives;
    std::vector<double> s(n), t(n);
    for (size_t i = 0; i < n; ++i) {
        s[i] = safeLog(p.row(static_cast<int64_t>(i))[1]) - safeLog(p.row(static_cast<int64_t>(i))[0]);
        t[i] = labels[i] == 1 ? (positives + 1) / (positives + 2) : 1 / (negatives + 2);
    }
    PlattScaling fit;
    double loss = plattLoss(s, t, fit.a, fit.b);
    for (int it = 0; it < 100; ++it) {
        // The damping keeps the system solvable where every row has one log-odds (a and b
        // then fit one value together); it moves the path, not the optimum (g = 0).
        const double damping = 1e-9 * static_cast<double>(n);
        double ga = 0, gb = 0, haa = damping, hab = 0, hbb = damping;
        for (size_t i = 0; i < n; ++i) {
            const double q = sigmoid(fit.a * s[i] + fit.b), r = q - t[i], w = q * (1 - q);
            ga += r * s[i];
            gb += r;
            haa += w * s[i] * s[i];
            hab += w * s[i];
            hbb += w;
        }
        const double det = haa * hbb - hab * hab;
        if (!(det > 0))
            break;
        const double da = -(hbb * ga - hab * gb) / det, db = -(haa * gb - hab * ga) / det;
        double step = 1;
        bool moved = false;
        for (int half = 0; half < 40; ++half, step /= 2) {
            const double next = plattLoss(s, t, fit.a + step * da, fit.b + step * db);
            if (next <= loss) {
                moved = next < loss - 1e-15 * std::max(1.0, std::abs(loss));
                fit.a += step * da;
                fit.b += step * db;
                loss = next;
                break;
            }
        }
        if (!moved || std::abs(ga) + std::abs(gb) < 1e-12)
            break;
    }
    return fit;
}

double IsotonicMap::operator()(double p1) const
{
    if (x.empty())
        return p1;
    if (p1 <= x.front())
        return y.front();
    if (p1 >= x.back())
        return y.back();
    const auto hi = static_cast<size_t>(std::upper_bound(x.begin(), x.end(), p1) - x.begin());
    const size_t lo = hi - 1;
    return y[lo] + (p1 - x[lo]) / (x[hi] - x[lo]) * (y[hi] - y[lo]);
}

IsotonicMap fitIsotonic(const ClassProbabilities& p, const std::vector<int64_t>& labels)
{
    checkTwoClasses("Isotonic regression", p);
    checkLabelled("Isotonic regression", p, labels);
    std::vector<std::pair<double, double>> points;
    for (size_t i = 0; i < labels.size(); ++i)
        points.emplace_back(p.row(static_cast<int64_t>(i))[1], labels[i] == 1 ? 1.0 : 0.0);
    std::sort(points.begin(), points.end());
    // Blocks of (x, mean y, weight); equal x pooled first, as scikit-learn does.
    struct Block {
        double x, y, weight;
    };
    std::vector<Block> blocks;
    for (const auto& [x, y] : points) {
        if (!blocks.empty() && blocks.back().x == x) {
            auto& b = blocks.back();
            b.y = (b.y * b.weight + y) / (b.weight + 1);
            b.weight += 1;
        } else {
            blocks.push_back({x, y, 1});
        }
    }
    // Pool adjacent violators: a block whose mean falls below the one before merges into it.
    std::vector<Block> pooled;
    std::vector<std::pair<double, double>> spans;  // the x range of each pooled block
    for (const auto& b : blocks) {
        pooled.push_back(b);
        spans.emplace_back(b.x, b.x);
        while (pooled.size() > 1 && pooled[pooled.size() - 2].y > pooled.back().y) {
            auto last = pooled.back();
            const auto lastSpan = spans.back();
            pooled.pop_back();
            spans.pop_back();
            auto& prev = pooled.back();
            prev.y = (prev.y * prev.weight + last.y * last.weight) / (prev.weight + last.weight);
            prev.weight += last.weight;
            spans.back().second = lastSpan.second;
        }
    }
    // Knots at both ends of each pooled block: flat inside a block, linear between blocks.
    IsotonicMap map;
    for (size_t k = 0; k < pooled.size(); ++k) {
        map.x.push_back(spans[k].first);
        map.y.push_back(pooled[k].y);
        if (spans[k].second > spans[k].first) {
            map.x.push_back(spans[k].second);
            map.y.push_back(pooled[k].y);
        }
    }
    return map;
}

VectorScaling fitVectorScaling(const ClassProbabilities& p, const std::vector<int64_t>& labels)
{
    checkLabelled("Vector scaling", p, labels);
    const size_t c = static_cast<size_t>(p.classes), n = labels.size(), m = 2 * c;
    std::vector<double> z(n * c);
    for (size_t i = 0; i < n * c; ++i)
        z[i] = safeLog(p.values[i]);
    std::vector<double> theta(m, 0.0);
    std::fill(theta.begin(), theta.begin() + static_cast<std::ptrdiff_t>(c), 1.0);
    double loss = vectorLoss(z, labels, p.classes, theta);
    std::vector<double> s(c), q(c);
    for (int it = 0; it < 50; ++it) {
        // Gradient and Hessian of the mean NLL in (w, b): d/ds_k = q_k - y_k, the Hessian
        // in s diag(q) - q q^T, and s_k = w_k z_k + b_k.
        std::vector<double> g(m, 0.0), h(m * m, 0.0);
        for (size_t i = 0; i < n; ++i) {
            double top = -INFINITY;
            for (size_t k = 0; k < c; ++k)
                top = std::max(top, s[k] = theta[k] * z[i * c + k] + theta[c + k]);
            double sum = 0;
            for (size_t k = 0; k < c; ++k)
                sum += (q[k] = std::exp(s[k] - top));
            for (size_t k = 0; k < c; ++k)
                q[k] /= sum;
            for (size_t k = 0; k < c; ++k) {
                const double r = q[k] - (static_cast<size_t>(labels[i]) == k ? 1.0 : 0.0);
                g[k] += r * z[i * c + k];
                g[c + k] += r;
                for (size_t l = 0; l < c; ++l) {
                    const double w = (k == l ? q[k] : 0.0) - q[k] * q[l];
                    h[k * m + l] += w * z[i * c + k] * z[i * c + l];
                    h[k * m + c + l] += w * z[i * c + k];
                    h[(c + k) * m + l] += w * z[i * c + l];
                    h[(c + k) * m + c + l] += w;
                }
            }
        }
        double gradientSize = 0;
        for (size_t a = 0; a < m; ++a) {
            g[a] = g[a] / static_cast<double>(n) + kVectorRidge * (theta[a] - (a < c ? 1.0 : 0.0));
            for (size_t b = 0; b < m; ++b)
                h[a * m + b] /= static_cast<double>(n);
            h[a * m + a] += kVectorRidge;
            gradientSize = std::max(gradientSize, std::abs(g[a]));
        }
        if (gradientSize < 1e-10)
            break;
        std::vector<double> minusG(m);
        for (size_t a = 0; a < m; ++a)
            minusG[a] = -g[a];
        const auto step = solve(h, minusG);
        double t = 1;
        bool moved = false;
        for (int half = 0; half < 40; ++half, t /= 2) {
            std::vector<double> next = theta;
            for (size_t a = 0; a < m; ++a)
                next[a] += t * step[a];
            const double nextLoss = vectorLoss(z, labels, p.classes, next);
            if (nextLoss <= loss) {
                moved = nextLoss < loss - 1e-15;
                theta = std::move(next);
                loss = nextLoss;
                break;
            }
        }
        if (!moved)
            break;
    }
    VectorScaling fit;
    fit.scale.assign(theta.begin(), theta.begin() + static_cast<std::ptrdiff_t>(c));
    fit.shift.assign(theta.begin() + static_cast<std::ptrdiff_t>(c), theta.end());
    return fit;
}

FittedCalibration fitCalibration(CalibrationKind kind, const ClassProbabilities& p, const std::vector<int64_t>& labels,
                                 const CostMatrix& costs)
{
    checkLabelled(calibrationName(kind), p, labels);
    if (p.classes != costs.numClasses())
        throw std::invalid_argument(std::string(calibrationName(kind)) + ": " + std::to_string(p.classes) +
                                    " classes against a " + std::to_string(costs.numClasses()) + "-class cost matrix");
    if (kind != CalibrationKind::Constant &&
        std::all_of(labels.begin(), labels.end(), [&](int64_t y) { return y == labels.front(); }))
        throw std::invalid_argument(std::string(calibrationName(kind)) + ": the " + std::to_string(labels.size()) +
                                    " labelled rows are all of class \"" +
                                    costs.decisionName(static_cast<int>(labels.front())) +
                                    "\"; a calibration needs labelled rows of at least two classes");
    FittedCalibration f;
    f.kind = kind;
    switch (kind) {
    case CalibrationKind::Temperature: f.temperature = fitTemperature(logOf(p), labels); break;
    case CalibrationKind::Offsets: f.offsets = fitClassOffsets(logOf(p), labels, costs); break;
    case CalibrationKind::Vector: f.vector = fitVectorScaling(p, labels); break;
    case CalibrationKind::Platt: f.platt = fitPlatt(p, labels); break;
    case CalibrationKind::Isotonic: f.isotonic = fitIsotonic(p, labels); break;
    case CalibrationKind::Constant:
        f.constantDecision = cheapestConstantDecision(labels, costs);
        f.classShares.assign(static_cast<size_t>(p.classes), 0.0);
        for (auto y : labels)
            f.classShares[static_cast<size_t>(y)] += 1.0 / static_cast<double>(labels.size());
        break;
    }
    return f;
}

ClassProbabilities FittedCalibration::probabilities(const ClassProbabilities& p) const
{
    // Temperature, offsets, vector and Platt scaling through the one form a saved q's
    // forward computes (softmaxAffine), so the window, the CLI and PyTorch agree.
    std::vector<double> scale, shift;
    if (softmaxAffine(p.classes, scale, shift)) {
        ClassProbabilities out = p;
        for (int64_t i = 0; i < p.rows; ++i) {
            double* r = out.values.data() + i * p.classes;
            for (int k = 0; k < p.classes; ++k)
                r[k] = scale[static_cast<size_t>(k)] * safeLog(r[k]) + shift[static_cast<size_t>(k)];
            softmaxInPlace(r, p.classes);
        }
        return out;
    }
    if (kind == CalibrationKind::Isotonic) {
        ClassProbabilities out = p;
        for (int64_t i = 0; i < p.rows; ++i) {
            double* r = out.values.data() + i * 2;
            const double p1 = isotonic(r[1]);
            r[0] = 1 - p1;
            r[1] = p1;
        }
        return out;
    }
    throw std::logic_error("the constant decision has no probabilities");
}

std::vector<int64_t> FittedCalibration::decisions(const ClassProbabilities& p, const CostMatrix& costs) const
{
    if (kind == CalibrationKind::Constant)
        return std::vector<int64_t>(static_cast<size_t>(p.rows), constantDecision);
    return bayesDecisionsOf(probabilities(p), costs);
}

nlohmann::json FittedCalibration::toJson() const
{
    nlohmann::json j = {{"rule", name()}};
    switch (kind) {
    case CalibrationKind::Temperature: j["temperature"] = temperature; break;
    case CalibrationKind::Offsets: j["offsets"] = offsets; break;
    case CalibrationKind::Vector: j["scale"] = vector.scale; j["shift"] = vector.shift; break;
    case CalibrationKind::Platt: j["a"] = platt.a; j["b"] = platt.b; break;
    case CalibrationKind::Isotonic: j["knots_p1"] = isotonic.x; j["knots_calibrated"] = isotonic.y; break;
    case CalibrationKind::Constant: j["decision"] = constantDecision; j["class_shares"] = classShares; break;
    }
    return j;
}

bool FittedCalibration::softmaxAffine(int classes, std::vector<double>& scale, std::vector<double>& shift) const
{
    const auto k = static_cast<size_t>(classes);
    switch (kind) {
    case CalibrationKind::Temperature:
        scale.assign(k, 1 / temperature);
        shift.assign(k, 0.0);
        return true;
    case CalibrationKind::Offsets:
        scale.assign(k, 1.0);
        shift = offsets;
        return true;
    case CalibrationKind::Vector:
        scale = vector.scale;
        shift = vector.shift;
        return true;
    case CalibrationKind::Platt:
        scale.assign(2, platt.a);
        shift = {0.0, platt.b};
        return true;
    case CalibrationKind::Isotonic:
    case CalibrationKind::Constant: break;
    }
    return false;
}

} // namespace lcs
