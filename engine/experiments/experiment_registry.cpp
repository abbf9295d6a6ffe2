#include "engine/experiments/experiment.h"
#include "engine/experiments/saved_model_request.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "base/core/input_error.h"
#include "base/inference/method_catalog.h"
#include "engine/core/threads.h"

namespace lcs {

std::vector<std::string> Experiment::methods() const
{
    return methodIdsFor(name());
}

std::vector<CommandPath> Experiment::inputPaths(const nlohmann::json& values) const
{
    return inputPaths(values, settings());
}

std::vector<CommandPath> Experiment::inputPaths(const nlohmann::json& values, const std::vector<SettingSpec>& specs) const
{
    std::vector<CommandPath> paths;
    for (const auto& spec : specs) {
        if (spec.browse == SettingBrowse::None)
            continue;
        const auto it = values.find(spec.name);
        if (it != values.end() && it->is_string() && !it->get<std::string>().empty())
            paths.push_back(spec.browse == SettingBrowse::File
                                ? CommandPath{settingFlag(spec), it->get<std::string>(), PathKind::File}
                                : CommandPath{settingFlag(spec), inputFolder(it->get<std::string>()), PathKind::Folder});
    }
    return paths;
}

int runThreads(const Experiment& experiment, const nlohmann::json& settings, CoreShare share)
{
    const int cores = std::max(1, physicalCores() - (share == CoreShare::LeaveOneForGui ? 1 : 0));
    return std::clamp(experiment.intraOpThreads(settings, cores), 1, 256);
}

ExperimentOutput RecorrectionState::recorrect(const CostMatrix& costs, const nlohmann::json&, const JobContext& ctx)
{
    return recorrect(costs, ctx);
}

std::vector<std::string> RecorrectionState::saveModel(int replicate, const std::string& series, const std::string&) const
{
    throw InputError("no model to save for " + series + ", replicate " + std::to_string(replicate) +
                     " here: a page's run saves its networks with save_models");
}

std::string OutputPaths::path(const std::string& name) const
{
    const auto it = find(name);
    return it == end() ? std::string() : it->second;
}

OutputFolder::OutputFolder(const OutputPaths& outputs, const std::string& name) : m_target(outputs.path(name))
{
    if (m_target.empty())
        return;
    if (outputs.together) {
        m_path = outputs.together->stageFolder(m_target);
    } else {
        m_own.emplace(m_target);
        m_path = m_own->path();
    }
}

void OutputFolder::commit()
{
    if (m_own)
        m_own->commit();
}

void writeOutputFile(const OutputPaths& outputs, const std::string& name, const std::string& contents)
{
    const std::string path = outputs.path(name);
    if (path.empty())
        return;
    if (outputs.together)
        outputs.together->stageFile(path, contents);
    else
        writeFileAtomically(path, contents);
}

void configureRunThreads(const Experiment& experiment, const nlohmann::json& settings, CoreShare share)
{
    const auto threads = settings.find("threads");  // null where the form or file left it to the run
    const bool asked = threads != settings.end() && threads->is_number_integer();
    configureThreads(runThreads(experiment, settings, share), asked ? ThreadLoad::Ignore : ThreadLoad::Follow);
}

ExperimentRun runExperiment(const Experiment& experiment, const nlohmann::json& settings,
                            const std::optional<CostMatrix>& costs, const JobContext& ctx, const OutputPaths& outputs,
                            CoreShare share)
{
    configureRunThreads(experiment, settings, share);
    return experiment.run(settings, costs, ctx, outputs);
}

ExperimentRun runExperimentAction(const Experiment& experiment, const std::string& action,
                                  const nlohmann::json& settings, const std::optional<CostMatrix>& costs,
                                  const JobContext& ctx, const OutputPaths& outputs, CoreShare share)
{
    configureRunThreads(experiment, settings, share);
    return experiment.act(action, settings, costs, ctx, outputs);
}

std::string Experiment::checkInputs(const nlohmann::json&, const std::optional<CostMatrix>& costs) const
{
    if (costs)
        acceptedCosts(*costs);
    return {};
}

ExperimentRun Experiment::act(const std::string& action, const nlohmann::json&, const std::optional<CostMatrix>&,
                              const JobContext&, const OutputPaths&) const
{
    throw InputError(name() + ": no action \"" + action.substr(0, 40) + "\"");
}

SettingSpec savedModelSetting(const std::string& help, bool folder)
{
    SettingSpec s;
    s.name = kSavedModelSetting;
    s.kind = SettingKind::Text;
    s.valueName = folder ? "DIR" : "FILE";
    s.help = help;
    s.browse = folder ? SettingBrowse::Folder : SettingBrowse::File;
    s.required = true;
    return s;
}

SavedModelRequest savedModelRequest(const nlohmann::json& settings)
{
    if (!settings.is_object() || !settings.contains(kSavedModelSetting) || !settings.at(kSavedModelSetting).is_string()
        || settings.at(kSavedModelSetting).get<std::string>().empty())
        throw InputError(std::string(kEvaluateAction) + ": no saved model given (" + kSavedModelSetting + ")");
    SavedModelRequest request{settings.at(kSavedModelSetting).get<std::string>(), settings};
    request.runSettings.erase(kSavedModelSetting);
    return request;
}

std::vector<std::string> RecorrectionState::saveModels(const std::string&) const
{
    throw InputError("this run keeps no networks to save as a model folder");
}

std::vector<ExperimentAction> commandLineActions(const Experiment& experiment)
{
    std::vector<ExperimentAction> out;
    for (auto& action : experiment.actions())
        if (action.onCommandLine)
            out.push_back(std::move(action));
    return out;
}

std::optional<ExperimentAction> findAction(const Experiment& experiment, const std::string& name)
{
    for (auto& action : experiment.actions())
        if (action.name == name)
            return action;
    return std::nullopt;
}

CostMatrix Experiment::acceptedCosts(const CostMatrix& costs) const
{
    CostMatrix expected;
    try {
        expected = defaultCosts(checkedSettings(settings(), nlohmann::json::object(), name()));
    } catch (const InputError&) {
        return costs;  // no defaults to compare with (a required setting): the run checks
    }
    if (costs.numClasses() != expected.numClasses() || costs.hasReferral() != expected.hasReferral())
        throw InputError("has " + std::to_string(costs.numClasses()) + " classes" +
                         (costs.hasReferral() ? " and a referral column" : "") + "; " + name() + " decides among " +
                         std::to_string(expected.numClasses()) + " classes" +
                         (expected.hasReferral() ? " and referral" : " without referral"));
    return costs;
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

void ExperimentRegistry::replace(std::shared_ptr<const Experiment> experiment)
{
    for (auto& e : m_experiments)
        if (experiment && e->name() == experiment->name()) {
            m_replaced.push_back(std::exchange(e, std::move(experiment)));
            return;
        }
    throw std::logic_error("no experiment to replace by that name");
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

SessionCatalogue sessionCatalogue(const ExperimentRegistry& registry)
{
    SessionCatalogue out;
    for (const auto* e : registry.all())
        out.push_back({e->name(), e->settings(), [e](const CostMatrix& costs) { return e->acceptedCosts(costs); }});
    return out;
}

} // namespace lcs
