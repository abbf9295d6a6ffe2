#include "cost_benefit_view.h"

#include <map>
#include <tuple>

#include "qcustomplot_compat.h"

#include "inference/method_catalog.h"
#include "method_style.h"

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
    // (method, rule) -> value -> (sum of cost, sum of rate, rows with a rate, rows)
    std::map<std::pair<std::string, std::string>, std::map<double, std::tuple<double, double, int, int>>> sums;
    std::vector<std::pair<std::string, std::string>> order;
    for (const auto& row : curve->value("rows", nlohmann::json::array())) {
        const auto key = std::make_pair(row.value("method", ""), row.value("rule", ""));
        if (!sums.count(key))
            order.push_back(key);
        auto& cell = sums[key][row.value("value", 0.0)];
        if (row.contains("cost") && row["cost"].is_number()) {
            std::get<0>(cell) += row["cost"].get<double>();
            ++std::get<3>(cell);
        }
        if (row.contains("referral_rate") && row["referral_rate"].is_number()) {
            std::get<1>(cell) += row["referral_rate"].get<double>();
            ++std::get<2>(cell);
        }
    }
    double lo = 1e300, hi = -1e300;
    bool ownPredictive = false;  // a user's P (no catalogue method): q re-trained on it, not on a posterior
    for (const auto& key : order) {
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
        QPen pen(colour, 1.6);
        QCPScatterStyle::ScatterShape shape = QCPScatterStyle::ssDisc;
        if (key.second == "uncorrected") {
            pen.setStyle(Qt::DashLine);
            shape = QCPScatterStyle::ssCircle;
        } else if (key.second == "corrected") {
            shape = QCPScatterStyle::ssSquare;
        } else {
            pen.setStyle(key.second == "temperature" ? Qt::DotLine : Qt::DashDotLine);
            shape = key.second == "temperature" ? QCPScatterStyle::ssTriangle : QCPScatterStyle::ssDiamond;
        }
        QVector<double> x, cost, xRate, rate;
        for (const auto& [value, cell] : sums[key]) {
            lo = std::min(lo, value);
            hi = std::max(hi, value);
            if (std::get<3>(cell) > 0) {
                x << value;
                cost << std::get<0>(cell) / std::get<3>(cell);
            }
            if (std::get<2>(cell) > 0) {
                xRate << value;
                rate << std::get<1>(cell) / std::get<2>(cell);
            }
        }
        const QString name = catalogued                    ? tr("%1, %2").arg(methodLabelOf(method), ruleLabel(key.second))
                             : key.second == "uncorrected" ? tr("your P")
                                                           : ruleLabel(key.second);
        auto* g = new QCPGraph(costRect->axis(QCPAxis::atBottom), costRect->axis(QCPAxis::atLeft));
        g->setName(name);
        g->setPen(pen);
        g->setScatterStyle(QCPScatterStyle(shape, colour, Qt::white, 7));
        g->setData(x, cost, /*alreadySorted=*/true);
        markMethod(g, method);
        legend->addItem(new QCPPlottableLegendItem(legend, g));
        if (rateRect && !rate.isEmpty()) {
            auto* r = new QCPGraph(rateRect->axis(QCPAxis::atBottom), rateRect->axis(QCPAxis::atLeft));
            r->setName(name);
            r->setPen(pen);
            r->setScatterStyle(QCPScatterStyle(shape, colour, Qt::white, 7));
            r->setData(xRate, rate, true);
            markMethod(r, method);
        }
    }
    for (auto* rect : {costRect, rateRect}) {
        if (!rect)
            continue;
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
        rect->axis(QCPAxis::atLeft)->setLabel(rect == costRect ? tr("test cost") : tr("referral rate"));
        bool found = false;
        rect->axis(QCPAxis::atLeft)->setRange(0, 1);
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
            rect->axis(QCPAxis::atLeft)->setRange(std::max(0.0, values.lower - pad), values.upper + pad);
        }
        // The run's own value.
        auto* line = new QCPItemStraightLine(m_plot);
        line->setClipAxisRect(rect);
        line->point1->setAxes(x, rect->axis(QCPAxis::atLeft));
        line->point2->setAxes(x, rect->axis(QCPAxis::atLeft));
        line->point1->setCoords(current, 0);
        line->point2->setCoords(current, 1);
        line->setPen(QPen(QColor(120, 120, 120), 1, Qt::DashDotDotLine));
    }
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
