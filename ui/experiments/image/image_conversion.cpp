#include "ui/experiments/image/image_conversion.h"

#include <algorithm>
#include <cmath>

#include <QObject>

#include "base/inference/method_catalog.h"

namespace lcs::ui {

namespace {

QVector<float> floats(const std::vector<float>& v)
{
    return QVector<float>(v.begin(), v.end());
}

QVector<qint64> counts(const std::vector<int64_t>& v)
{
    return QVector<qint64>(v.begin(), v.end());
}

} // namespace

QImage imageOf(const Pixels& pixels)
{
    if (pixels.empty() || (pixels.channels != 1 && pixels.channels != 3)
        || pixels.bytes.size() != static_cast<size_t>(pixels.width) * pixels.height * pixels.channels)
        return {};
    QImage image(pixels.width, pixels.height, pixels.channels == 1 ? QImage::Format_Grayscale8 : QImage::Format_RGB888);
    const size_t line = static_cast<size_t>(pixels.width) * static_cast<size_t>(pixels.channels);
    for (int y = 0; y < pixels.height; ++y)
        std::copy_n(pixels.bytes.data() + static_cast<size_t>(y) * line, line, image.scanLine(y));
    return image;
}

ComparisonView comparisonView(const DecisionComparison& comparison, const std::vector<std::string>& classNames,
                              const CostMatrix& costs, const std::vector<Pixels>& images)
{
    ComparisonView v;
    v.value = comparison.rate;
    v.trial = comparison.trial;
    for (const auto& name : classNames)
        v.classNames << QString::fromStdString(name);
    for (int d = 0; d < costs.numDecisions(); ++d)
        v.decisionNames << (d < static_cast<int>(classNames.size()) ? v.classNames[d]
                                                                    : QString::fromStdString(costs.decisionName(d)));
    v.before = counts(comparison.uncorrected.confusion);
    v.after = counts(comparison.corrected.confusion);
    v.costBefore = comparison.uncorrected.averageCost;
    v.costAfter = comparison.corrected.averageCost;
    v.accuracyBefore = comparison.uncorrected.accuracy;
    v.accuracyAfter = comparison.corrected.accuracy;
    v.referralBefore = comparison.uncorrected.referralRate;
    v.referralAfter = comparison.corrected.referralRate;
    v.testCount = comparison.uncorrected.count;
    v.changedCount = comparison.changedCount;
    v.evidence = comparison.evidence;
    v.costs = costs;
    v.reliabilityBefore = comparison.uncorrected.reliability;
    v.reliabilityAfter = comparison.corrected.reliability;
    v.eceBefore = comparison.uncorrected.ece;
    v.eceAfter = comparison.corrected.ece;
    for (const auto& c : comparison.changed) {
        GalleryItem item;
        item.index = c.index;
        item.label = static_cast<int>(c.label);
        item.before = static_cast<int>(c.before);
        item.after = static_cast<int>(c.after);
        item.probsBefore = floats(c.probsBefore);
        item.probsAfter = floats(c.probsAfter);
        if (v.changed.size() < static_cast<qsizetype>(images.size()))
            item.image = imageOf(images[static_cast<size_t>(v.changed.size())]);
        v.changed.push_back(std::move(item));
    }
    return v;
}

namespace {

/// One (method, swept value) of a summary: the figures both image experiments report.
template <class Summary>
SummaryPoint summaryPoint(const Summary& s, double x, int trials)
{
    SummaryPoint p;
    p.method = QString::fromStdString(imageMethodName(s.method));
    p.x = x;
    p.costMean = s.cost.mean;
    p.costStd = s.cost.std;
    p.accuracyMean = s.accuracy.mean;
    p.accuracyStd = s.accuracy.std;
    p.trials = trials;
    p.collapsed = s.collapsed;
    return p;
}

} // namespace

SummaryView summaryView(const CorruptionResult& result)
{
    SummaryView v;
    v.experiment = QString::fromLatin1(kCorruptionExperiment);
    v.xLabel = QObject::tr("label corruption rate");
    for (const auto& s : result.summary)
        v.points.push_back(summaryPoint(s, s.rate, result.trials));
    return v;
}

SummaryView summaryView(const SelectiveResult& result)
{
    SummaryView v;
    v.experiment = QString::fromLatin1(kSelectiveExperiment);
    v.xLabel = QObject::tr("referral cost r");
    for (const auto& s : result.summary) {
        auto p = summaryPoint(s, s.referralCost, result.trials);
        p.referralMean = s.referralRate.mean;
        p.referralStd = s.referralRate.std;
        v.points.push_back(p);
    }
    return v;
}

RiskCoverageView riskCoverageView(const SelectiveResult& result)
{
    RiskCoverageView view;
    if (result.rows.empty())
        return view;
    for (const auto& row : result.rows)
        view.referralCost = std::max(view.referralCost, row.setting);
    for (const auto& row : result.rows) {
        if (row.trial != 0 || row.setting != view.referralCost)
            continue;
        RiskCoverageCurve curve;
        curve.method = QString::fromStdString(imageMethodName(row.method));
        curve.coverage = QVector<double>(row.riskCoverage.coverage.begin(), row.riskCoverage.coverage.end());
        curve.risk = QVector<double>(row.riskCoverage.risk.begin(), row.riskCoverage.risk.end());
        curve.aurc = row.riskCoverage.aurc;
        view.curves.push_back(curve);
    }
    return view;
}

TrainingTimeView trainingTimeView(const SelectiveResult& result)
{
    TrainingTimeView v;
    for (const auto& t : result.trainingTime)
        v.push_back({t.costFunctions, t.ours, t.oursNoS, t.lcSghmc});
    return v;
}

void splitProgressDetail(const std::string& detail, QString& run, QString& series)
{
    QStringList runParts, seriesParts;
    for (const QString& part : QString::fromStdString(detail).split(QStringLiteral(", "), Qt::SkipEmptyParts)) {
        if (part.startsWith(QLatin1String("rate ")) || part.startsWith(QLatin1String("trial ")))
            runParts << part;
        else if (!part.startsWith(QLatin1String("epoch ")))
            seriesParts << part;
    }
    run = runParts.join(QStringLiteral(", "));
    series = seriesParts.join(QStringLiteral(", "));
}

} // namespace lcs::ui
