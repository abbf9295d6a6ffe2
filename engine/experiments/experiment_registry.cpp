#include "experiments/experiment.h"

#include <stdexcept>

#include "core/input_error.h"
#include "inference/method_catalog.h"

namespace lcs {

std::vector<std::string> Experiment::methods() const
{
    return methodIdsFor(name());
}

ExperimentRegistry& ExperimentRegistry::global()
{
    // Built on first use, so the built-ins are there before any caller looks.
    static ExperimentRegistry registry = [] {
        ExperimentRegistry r;
        addBuiltinExperiments(r);
        return r;
    }();
    return registry;
}

void ExperimentRegistry::add(std::shared_ptr<const Experiment> experiment)
{
    if (!experiment || experiment->name().empty())
        throw std::logic_error("an experiment needs a name");
    if (find(experiment->name()))
        throw std::logic_error("experiment \"" + experiment->name() + "\" is registered twice");
    m_experiments.push_back(std::move(experiment));
}

const Experiment* ExperimentRegistry::find(const std::string& name) const
{
    for (const auto& e : m_experiments)
        if (e->name() == name)
            return e.get();
    return nullptr;
}

const Experiment& ExperimentRegistry::get(const std::string& name) const
{
    if (const auto* e = find(name))
        return *e;
    std::string known;
    for (const auto& e : m_experiments)
        known += (known.empty() ? "" : ", ") + e->name();
    throw InputError("unknown experiment \"" + name.substr(0, 40) + "\" (known: " + known + ")");
}

std::vector<const Experiment*> ExperimentRegistry::all() const
{
    std::vector<const Experiment*> out;
    for (const auto& e : m_experiments)
        out.push_back(e.get());
    return out;
}

} // namespace lcs
