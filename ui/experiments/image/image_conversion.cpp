#include "ui/experiments/image/image_conversion.h"

#include <algorithm>
#include <cmath>

#include <QObject>

#include "base/inference/method_catalog.h"
#include "engine/experiments/experiment_names.h"
#include "engine/experiments/image/image_experiment_support.h"
#include "ui/method_style.h"

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

QString describeShape(const std::vector<int64_t>& shape)
{
    QStringList parts;
    for (auto s : shape)
        parts << QString::number(s);
    return parts.join(QStringLiteral(" x "));
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

// ---------------------------------------------------------------------------------------
// ImageViewAdapter

void ImageViewAdapter::begin(JobKind job, const JobRequest& request)
{
    m_job = job;
    m_selective = request.experiment == QLatin1String(kSelectiveExperiment);
    m_run.clear();
    m_series = job == JobKind::Recorrect ? QString::fromLatin1(kRecorrectedSeries) : QString();
    m_epochs.clear();
    m_training.clear();
}

void ImageViewAdapter::planned(const TaskPlan& plan)
{
    // A re-correction declares the one task it trains: its curve joins that run's, named
    // as the engine's progress details name it ("rate 0.5, trial 1"; selective: "trial 1").
    if (m_job != JobKind::Recorrect || plan.size() != 1 || !plan.front().task.setting)
        return;
    const auto& task = plan.front().task;
    const QString trial = QStringLiteral("trial %1").arg(task.trial);
    m_run = m_selective ? trial
                        : QStringLiteral("rate %1, %2").arg(QString::fromStdString(settingText(*task.setting)), trial);
}

void ImageViewAdapter::collect(const Progress& p)
{
    QString run, series;
    splitProgressDetail(p.detail, run, series);
    if (!m_run.isEmpty())
        run = m_run;
    if (!m_series.isEmpty())
        series = m_series;
    if (p.test) {
        EpochPoint e;
        e.run = run;
        e.series = series;
        e.epoch = p.test->epoch;
        e.cost = p.test->cost;
        e.accuracy = p.test->accuracy;
        e.nll = p.test->nll;
        m_epochs.push_back(e);
        return;
    }
    for (const auto& [name, value] : p.training.named()) {
        if (name == "samples")  // a count of kept networks, not a curve
            continue;
        m_training.push_back({run, series, QString::fromStdString(name), p.step, value});
    }
}

void ImageViewAdapter::flush(const ViewSink& sink)
{
    if (!m_epochs.isEmpty())
        sink.send(std::exchange(m_epochs, {}));
    if (!m_training.isEmpty())
        sink.send(std::exchange(m_training, {}));
}

void ImageViewAdapter::show(const ViewEvent& event, const ViewSink& sink)
{
    const auto handle = viewHandlers(
        [&](const ImageRunStarted& e) {
            ImageDataInfo i;
            i.experiment = QString::fromStdString(e.experiment);
            i.name = QString::fromStdString(e.dataset);
            for (const auto& n : e.classNames)
                i.classNames << QString::fromStdString(n);
            i.inputShape = describeShape(e.inputShape);
            i.trainCount = e.trainImages;
            i.testCount = e.testImages;
            i.model = QString::fromStdString(e.model);
            i.costs = e.costs;
            sink.send(i);
        },
        [&](const ComparisonShown& e) {
            sink.flush();  // the curves that led to this q first
            auto view = comparisonView(e.comparison, e.classNames, e.comparison.costs, e.changedImages);
            const QString experiment = QString::fromStdString(e.experiment);
            const QString uncorrected = QString::fromStdString(e.uncorrectedMethod);
            view.experiment = experiment;
            view.recorrected = e.recorrected;
            view.seconds = e.seconds;
            view.collapsed = e.collapsed;
            view.uncorrectedLabel = uncorrected == QLatin1String("sghmc_s") ? QObject::tr("S (SGHMC student)")
                                                                            : imageSeriesLabel(uncorrected);
            view.uncorrectedMethod = methodIn(uncorrected, experiment);
            view.correctedLabel = imageSeriesLabel(QStringLiteral("ours"));
            sink.send(view);
        },
        [&](const CorruptionResult& r) {
            sink.send(summaryView(r));
            sink.send(TrainingTimeView{});
        },
        [&](const SelectiveResult& r) {
            sink.send(summaryView(r));
            sink.send(trainingTimeView(r));
            sink.send(riskCoverageView(r));
        });
    handle(event);
}

} // namespace lcs::ui
