#include "core/job.h"

#include <algorithm>

namespace lcs {

PlanProgress::PlanProgress(TaskPlan plan) : m_plan(std::move(plan))
{
    for (const auto& t : m_plan)
        m_total += t.weight;
}

double PlanProgress::update(const TaskIdentity& task, long long step, long long total)
{
    double before = 0;  // the weight of the tasks planned before this one
    for (const auto& t : m_plan) {
        if (t.task == task) {
            const double within = total > 0 ? std::clamp(double(step) / double(total), 0.0, 1.0) : 0.0;
            if (m_total > 0)
                m_fraction = std::max(m_fraction, (before + within * t.weight) / m_total);
            return m_fraction;
        }
        before += t.weight;
    }
    return m_fraction;
}

} // namespace lcs
