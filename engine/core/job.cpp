#include "engine/core/job.h"

#include <algorithm>

#include <c10/util/Exception.h>

namespace lcs {

std::string errorMessage(const std::exception& e)
{
    if (const auto* torchError = dynamic_cast<const c10::Error*>(&e))
        return torchError->what_without_backtrace();
    return e.what();
}


PlanProgress::PlanProgress(TaskPlan plan, Order order) : m_plan(std::move(plan)), m_order(order)
{
    m_done.assign(m_plan.size(), 0.0);
    for (const auto& t : m_plan)
        m_total += t.weight;
}

double PlanProgress::update(const TaskIdentity& task, long long step, long long total)
{
    if (m_total <= 0)
        return m_fraction;
    const double within = total > 0 ? std::clamp(double(step) / double(total), 0.0, 1.0) : 0.0;
    double before = 0;  // the weight of the tasks planned before this one
    for (size_t i = 0; i < m_plan.size(); ++i) {
        const auto& t = m_plan[i];
        if (t.task != task) {
            before += t.weight;
            continue;
        }
        if (m_order == Order::Sequential) {
            m_fraction = std::max(m_fraction, (before + within * t.weight) / m_total);
        } else {
            m_done[i] = std::max(m_done[i], within);
            double sum = 0;
            for (size_t j = 0; j < m_plan.size(); ++j)
                sum += m_done[j] * m_plan[j].weight;
            m_fraction = std::max(m_fraction, sum / m_total);
        }
        return m_fraction;
    }
    return m_fraction;
}

void PlanTracker::setPlan(const TaskPlan& plan, PlanProgress::Order order)
{
    m_plan = PlanProgress(plan, order);
    m_fallback = plan.size() == 1 ? std::optional<TaskIdentity>(plan.front().task) : std::nullopt;
}

double PlanTracker::report(const Progress& p)
{
    std::optional<TaskIdentity> task = p.task ? p.task : m_fallback;
    if (!task && m_byPhase)
        task = TaskIdentity{p.phase, std::nullopt, 0};
    if (task)
        m_plan.update(*task, p.step, p.total);
    return m_plan.fraction();
}

std::optional<double> etaSeconds(double elapsedSeconds, double fraction)
{
    if (!(fraction > 0.02) || fraction >= 1.0)
        return std::nullopt;
    return elapsedSeconds * (1.0 - fraction) / fraction;
}

} // namespace lcs
