#include "ui/cost_benefit_view.h"

#include <map>
#include <utility>
#include <vector>

#include "ui/qcustomplot_compat.h"

#include "base/inference/method_catalog.h"
#include "ui/method_style.h"

namespace lcs::ui {

namespace {

QString ruleLabel(const std::string& rule)
{
    if (rule == "uncorrected")
        return QObject::tr("P");
    if (rule == "corrected")
        return QObject::tr("kept rule");
    return QString::fromStdString(rule);
}

/// The sums behind one point of a rule's curve: its mean cost and referral rate over
/// the replicates that have them.
struct PointSums {
    double cost = 0, rate = 0;
    int costs = 0, rates = 0;
};

/// The curve's rows summed by (method, rule) and swept value; `order` keeps the pairs
/// as the rows first name them.
struct CurveSums {
    std::map<std::pair<std::string, std::string>, std::map<double, PointSums>> sums;
    std::vector<std::pair<std::string, std::string>> order;
};

CurveSums sumCurveRows(const nlohmann::json& curve)
{
    CurveSums out;
    for (const auto& row : curve.value("rows", nlohmann::json::array())) {
        const auto key = std::make_pair(row.value("method", ""), row.value("rule", ""));
        if (!out.sums.count(key))
            out.order.push_back(key);
        auto& cell = out.sums[key][row.value("value", 0.0)];
        if (row.contains("cost") && row["cost"].is_number()) {
            cell.cost += row["cost"].get<double>();
            ++cell.costs;
        }
        if (row.contains("referral_rate") && row["referral_rate"].is_number()) {
            cell.rate += row["referral_rate"].get<double>();
            ++cell.rates;
        }
    }
    return out;
}

/// How a rule's curve is drawn: P dashed with circles, the kept rule solid with squares,
/// temperature dotted with triangles, offsets dash-dotted with diamonds.
std::pair<QPen, QCPScatterStyle::ScatterShape> ruleStyle(const std::string& rule, const QColor& colour)
{
    QPen pen(colour, 1.6);
    if (rule == "uncorrected") {
        pen.setStyle(Qt::DashLine);
        return {pen, QCPScatterStyle::ssCircle};
    }
    if (rule == "corrected")
        return {pen, QCPScatterStyle::ssSquare};
    pen.setStyle(rule == "temperature" ? Qt::DotLine : Qt::DashDotLine);
    return {pen, rule == "temperature" ? QCPScatterStyle::ssTriangle : QCPScatterStyle::ssDiamond};
}

/// One rule's curves, its cost in `costRect` and its referral rate in `rateRect` (where
/// there is one), each point a mean over the replicates, with its legend entry; widens
/// [lo, hi] to the rule's values.
void addRuleCurves(QCPLegend* legend, QCPAxisRect* costRect, QCPAxisRect* rateRect, const QString& name,
                   const QString& method, const std::map<double, PointSums>& points,
                   const std::pair<QPen, QCPScatterStyle::ScatterShape>& style, const QColor& colour, double& lo,
                   double& hi)
{
    QVector<double> x, cost, xRate, rate;
    for (const auto& [value, cell] : points) {
        lo = std::min(lo, value);
        hi = std::max(hi, value);
        if (cell.costs > 0) {
            x << value;
            cost << cell.cost / cell.costs;
        }
        if (cell.rates > 0) {
            xRate << value;
            rate << cell.rate / cell.rates;
        }
    }
    const auto draw = [&](QCPAxisRect* rect, const QVector<double>& keys, const QVector<double>& values) {
        auto* g = new QCPGraph(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
        g->setName(name);
        g->setPen(style.first);
        g->setScatterStyle(QCPScatterStyle(style.second, colour, Qt::white, 7));
        g->setData(keys, values, /*alreadySorted=*/true);
        markMethod(g, method);
        return g;
    };
    legend->addItem(new QCPPlottableLegendItem(legend, draw(costRect, x, cost)));
    if (rateRect && !rate.isEmpty())
        draw(rateRect, xRate, rate);
}

/// One panel's axes: the swept setting along x (a cost ratio on a log scale) over
/// [lo, hi], y fitted to the panel's graphs, and the run's own value as a grey line.
void fitPanel(QCustomPlot* plot, QCPAxisRect* rect, const QString& yLabel, const QString& xLabel, bool referral,
              double lo, double hi, double current)
{
    auto* x = rect->axis(QCPAxis::atBottom);
    x->setLabel(xLabel);
    if (!referral) {
        x->setScaleType(QCPAxis::stLogarithmic);
        x->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
        x->setRange(lo / 1.3, hi * 1.3);
    } else {
        const double pad = hi > lo ? 0.04 * (hi - lo) : 0.5;
        x->setRange(lo - pad, hi + pad);
    }
    auto* y = rect->axis(QCPAxis::atLeft);
    y->setLabel(yLabel);
    bool found = false;
    y->setRange(0, 1);
    QCPRange values;
    for (auto* plottable : rect->plottables())
        if (auto* g = qobject_cast<QCPGraph*>(plottable)) {
            bool ok = false;
            const auto range = g->getValueRange(ok);
            if (ok)
                values = found ? QCPRange(std::min(values.lower, range.lower), std::max(values.upper, range.upper))
                               : range;
            found |= ok;
        }
    if (found) {
        const double pad = values.size() > 0 ? 0.08 * values.size() : 0.01;
        y->setRange(std::max(0.0, values.lower - pad), values.upper + pad);
    }
    auto* line = new QCPItemStraightLine(plot);
    line->setClipAxisRect(rect);
    line->point1->setAxes(x, y);
    line->point2->setAxes(x, y);
    line->point1->setCoords(current, 0);
    line->point2->setCoords(current, 1);
    line->setPen(QPen(QColor(120, 120, 120), 1, Qt::DashDotDotLine));
}

} // namespace

CostBenefitView::CostBenefitView(QWidget* parent) : PlotView(QStringLiteral("cost_benefit"), 240, parent)
{
    setResults(nlohmann::json::object(), QString());
}

bool CostBenefitView::setResults(const nlohmann::json& results, const QString& experiment)
{
    // The layout (legend included) first: a legend item must not outlive its plottable.
    m_plot->plotLayout()->clear();
    m_plot->clearPlottables();
    m_plot->clearItems();
    const auto curve = results.find("cost_benefit");
    m_hasCurve = curve != results.end() && curve->is_object();
    if (!m_hasCurve) {
        m_plot->plotLayout()->addElement(
            0, 0,
            new QCPTextElement(m_plot,
                               tr("No cost-benefit curve in this run: set \"cost benefit points\" in the Experiment "
                                  "dock (a matrix with referral, or two classes) and Run"),
                               QFont("sans", 9)));
        m_plot->replot(QCustomPlot::rpQueuedReplot);
        return false;
    }
    const std::string setting = curve->value("setting", "");
    const double current = curve->value("current", 0.0);
    const bool referral = setting == "referral_cost";
    m_plot->plotLayout()->addElement(
        0, 0,
        new QCPTextElement(m_plot,
                           referral ? tr("Test cost and referral rate as the referral cost moves (mean over replicates)")
                                    : tr("Test cost as the ratio of the errors' costs moves (mean over replicates)"),
                           QFont("sans", 10, QFont::Bold)));
    auto* legend = makeLegend(m_plot, 1, 4);
    legend->setFont(QFont("sans", 8));
    auto* costRect = makeRect(m_plot);
    m_plot->plotLayout()->addElement(2, 0, costRect);
    QCPAxisRect* rateRect = nullptr;
    if (referral) {
        rateRect = makeRect(m_plot);
        m_plot->plotLayout()->addElement(3, 0, rateRect);
        if (!m_margins)
            m_margins = new QCPMarginGroup(m_plot);
        costRect->setMarginGroup(QCP::msLeft | QCP::msRight, m_margins);
        rateRect->setMarginGroup(QCP::msLeft | QCP::msRight, m_margins);
        m_plot->plotLayout()->setRowStretchFactor(3, 0.6);
    }
    const QString xLabel = referral ? tr("referral cost") : tr("cost ratio L[0][1] / L[1][0] (log scale)");
    auto curveSums = sumCurveRows(*curve);
    double lo = 1e300, hi = -1e300;
    bool ownPredictive = false;  // a user's P (no catalogue method): q re-trained on it, not on a posterior
    for (const auto& key : curveSums.order) {
        // P, the kept rule and the two one-parameter recalibrations: every calibration of
        // every method would bury the curves (the results file and the evidence tab have them all).
        if (key.second != "uncorrected" && key.second != "corrected" && key.second != "temperature" &&
            key.second != "offsets")
            continue;
        const QString method = QString::fromStdString(key.first);
        // A user's predictive is no catalogue method: its rules are told apart by style,
        // q in the correction's colour.
        const bool catalogued = findMethodInfo(key.first) != nullptr;
        ownPredictive |= !catalogued;
        const QColor colour = catalogued                  ? methodColourOf(methodIn(method, experiment))
                              : key.second == "corrected" ? methodColourOf(QStringLiteral("ours"))
                                                          : QColor(80, 80, 80);
        const QString name = catalogued                    ? tr("%1, %2").arg(methodLabelOf(method), ruleLabel(key.second))
                             : key.second == "uncorrected" ? tr("your P")
                                                           : ruleLabel(key.second);
        addRuleCurves(legend, costRect, rateRect, name, method, curveSums.sums[key], ruleStyle(key.second, colour),
                      colour, lo, hi);
    }
    fitPanel(m_plot, costRect, tr("test cost"), xLabel, referral, lo, hi, current);
    if (rateRect)
        fitPanel(m_plot, rateRect, tr("referral rate"), xLabel, referral, lo, hi, current);
    auto* note = new QCPTextElement(m_plot,
                                    tr("grey line: this run's %1 (%2); q re-trained at every point on %3")
                                        .arg(referral ? tr("referral cost") : tr("cost ratio"))
                                        .arg(current)
                                        .arg(ownPredictive ? tr("your P") : tr("the cached posterior")),
                                    QFont("sans", 8));
    m_plot->plotLayout()->addElement(m_plot->plotLayout()->rowCount(), 0, note);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
    return true;
}

} // namespace lcs::ui
