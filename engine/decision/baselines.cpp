#include "engine/decision/baselines.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace lcs {

std::vector<int64_t> bayesDecisionsOf(const ClassProbabilities& p, const CostMatrix& costs)
{
    if (p.classes != costs.numClasses())
        throw std::invalid_argument("bayesDecisionsOf: " + std::to_string(p.classes) + " classes against a " +
                                    std::to_string(costs.numClasses()) + "-class cost matrix");
    const int d = costs.numDecisions();
    std::vector<int64_t> out(static_cast<size_t>(p.rows));
    for (int64_t i = 0; i < p.rows; ++i) {
        const double* r = p.row(i);
        int best = 0;
        double bestCost = 0;
        for (int k = 0; k < d; ++k) {
            double risk = 0;
            for (int y = 0; y < p.classes; ++y)
                risk += r[y] * costs.at(y, k);
            if (k == 0 || risk < bestCost) {
                best = k;
                bestCost = risk;
            }
        }
        out[static_cast<size_t>(i)] = best;
    }
    return out;
}

void softmaxInPlace(double* row, int classes)
{
    double top = -INFINITY;
    for (int k = 0; k < classes; ++k)
        top = std::max(top, row[k]);
    double sum = 0;
    for (int k = 0; k < classes; ++k)
        sum += (row[k] = std::exp(row[k] - top));
    for (int k = 0; k < classes; ++k)
        row[k] /= sum;
}

ClassProbabilities adjustedProbabilities(const ClassProbabilities& logP, double temperature,
                                         const std::vector<double>& offsets)
{
    if (!(temperature > 0) || (!offsets.empty() && static_cast<int>(offsets.size()) != logP.classes))
        throw std::invalid_argument("adjustedProbabilities: a positive temperature and one offset per class");
    ClassProbabilities out = logP;
    for (int64_t i = 0; i < logP.rows; ++i) {
        double* r = out.values.data() + i * logP.classes;
        for (int k = 0; k < logP.classes; ++k)
            r[k] = r[k] / temperature + (offsets.empty() ? 0.0 : offsets[static_cast<size_t>(k)]);
        softmaxInPlace(r, logP.classes);
    }
    return out;
}

ClassProbabilities logOf(const ClassProbabilities& p)
{
    ClassProbabilities out = p;
    for (double& v : out.values)
        v = std::log(std::max(v, 1e-12));
    return out;
}

double temperatureNll(const ClassProbabilities& logP, const std::vector<int64_t>& labels, double temperature)
{
    if (static_cast<int64_t>(labels.size()) != logP.rows || logP.rows == 0)
        throw std::invalid_argument("temperatureNll: one label per row is needed");
    double total = 0;
    for (int64_t i = 0; i < logP.rows; ++i) {
        const double* r = logP.row(i);
        double top = -INFINITY;
        for (int k = 0; k < logP.classes; ++k)
            top = std::max(top, r[k] / temperature);
        double sum = 0;
        for (int k = 0; k < logP.classes; ++k)
            sum += std::exp(r[k] / temperature - top);
        total += top + std::log(sum) - r[labels[static_cast<size_t>(i)]] / temperature;
    }
    return total / static_cast<double>(logP.rows);
}

double fitTemperature(const ClassProbabilities& logP, const std::vector<int64_t>& labels)
{
    const double ratio = (std::sqrt(5.0) - 1) / 2;
    double a = std::log(0.05), b = std::log(20.0);
    double c = b - ratio * (b - a), d = a + ratio * (b - a);
    double fc = temperatureNll(logP, labels, std::exp(c)), fd = temperatureNll(logP, labels, std::exp(d));
    for (int it = 0; it < 80; ++it) {
        if (fc <= fd) {
            b = d;
            d = c;
            fd = fc;
            c = b - ratio * (b - a);
            fc = temperatureNll(logP, labels, std::exp(c));
        } else {
            a = c;
            c = d;
            fc = fd;
            d = a + ratio * (b - a);
            fd = temperatureNll(logP, labels, std::exp(d));
        }
    }
    return std::exp((a + b) / 2);
}

namespace {

double realisedCost(const ClassProbabilities& logP, const std::vector<int64_t>& labels, const CostMatrix& costs,
                    const std::vector<double>& offsets)
{
    const auto decisions = bayesDecisionsOf(adjustedProbabilities(logP, 1.0, offsets), costs);
    double total = 0;
    for (size_t i = 0; i < labels.size(); ++i)
        total += costs.at(static_cast<int>(labels[i]), static_cast<int>(decisions[i]));
    return total / static_cast<double>(labels.size());
}

} // namespace

std::vector<double> fitClassOffsets(const ClassProbabilities& logP, const std::vector<int64_t>& labels,
                                    const CostMatrix& costs)
{
    if (static_cast<int64_t>(labels.size()) != logP.rows || logP.rows == 0)
        throw std::invalid_argument("fitClassOffsets: one label per row is needed");
    std::vector<double> offsets(static_cast<size_t>(logP.classes), 0.0);
    double best = realisedCost(logP, labels, costs, offsets);
    for (int sweep = 0; sweep < 3; ++sweep) {
        bool moved = false;
        for (int k = 1; k < logP.classes; ++k) {
            const double start = offsets[static_cast<size_t>(k)];
            double chosen = start;
            // Candidates nearest the current value first, so a tie keeps the smaller move.
            std::vector<double> grid;
            for (int g = -24; g <= 24; ++g)
                grid.push_back(g * 0.25);
            std::stable_sort(grid.begin(), grid.end(), [&](double x, double y) {
                return std::abs(x - start) < std::abs(y - start);
            });
            for (double v : grid) {
                offsets[static_cast<size_t>(k)] = v;
                const double c = realisedCost(logP, labels, costs, offsets);
                if (c < best - 1e-12) {
                    best = c;
                    chosen = v;
                }
            }
            offsets[static_cast<size_t>(k)] = chosen;
            moved = moved || chosen != start;
        }
        if (!moved)
            break;
    }
    return offsets;
}

} // namespace lcs
