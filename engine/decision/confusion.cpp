#include "engine/decision/confusion.h"

#include <limits>
#include <stdexcept>
#include <string>

namespace lcs {

ConfusionFigures confusionFigures(const std::vector<int64_t>& confusion, const CostMatrix& costs)
{
    const int C = costs.numClasses();
    const int D = costs.numDecisions();
    if (confusion.size() != static_cast<size_t>(C) * static_cast<size_t>(D))
        throw std::invalid_argument("confusionFigures: " + std::to_string(confusion.size()) + " counts for " +
                                    std::to_string(C) + " classes x " + std::to_string(D) + " decisions");
    const double nan = std::numeric_limits<double>::quiet_NaN();
    auto at = [&](int y, int d) { return confusion[static_cast<size_t>(y) * static_cast<size_t>(D) + static_cast<size_t>(d)]; };
    ConfusionFigures f;
    double cost = 0;
    int64_t correct = 0;
    for (int y = 0; y < C; ++y)
        for (int d = 0; d < D; ++d) {
            const int64_t n = at(y, d);
            f.count += n;
            cost += static_cast<double>(n) * costs.at(y, d);
            if (d == y)
                correct += n;
            if (costs.hasReferral() && d == C)
                f.referred += n;
        }
    const int64_t decided = f.count - f.referred;
    f.averageCost = f.count > 0 ? cost / static_cast<double>(f.count) : nan;
    f.referralRate = f.count > 0 ? static_cast<double>(f.referred) / static_cast<double>(f.count) : nan;
    f.accuracy = decided > 0 ? static_cast<double>(correct) / static_cast<double>(decided) : nan;
    f.perClassIoU.assign(static_cast<size_t>(C), nan);
    double iouSum = 0;
    int defined = 0;
    for (int c = 0; c < C; ++c) {
        const int64_t tp = at(c, c);
        int64_t truth = 0, decidedAsC = 0;
        for (int d = 0; d < D; ++d)
            truth += at(c, d);  // includes referrals: a referred point of class c is a miss
        for (int y = 0; y < C; ++y)
            decidedAsC += at(y, c);
        const int64_t unionCount = truth + decidedAsC - tp;
        if (unionCount == 0)
            continue;
        f.perClassIoU[static_cast<size_t>(c)] = static_cast<double>(tp) / static_cast<double>(unionCount);
        iouSum += f.perClassIoU[static_cast<size_t>(c)];
        ++defined;
    }
    f.meanIoU = defined > 0 ? iouSum / defined : nan;
    return f;
}

} // namespace lcs
