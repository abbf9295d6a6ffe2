#include "ui/session.h"

#include <stdexcept>

#include "engine/experiments/experiment.h"

namespace lcs::ui {

QString saveSession(const Session& session, const QString& path)
{
    try {
        // What the file will be read back as, so a session that saves also opens.
        const auto& experiment = ExperimentRegistry::global().get(session.experiment);
        Session checked = session;
        checked.settings = checkedSettings(experiment.settings(), session.settings, experiment.name());
        checked.costs = experiment.acceptedCosts(session.costs);
        saveSessionFile(checked, path.toStdString());
        return {};
    } catch (const std::exception& e) {
        return QString::fromStdString(e.what());
    }
}

QString loadSession(const QString& path, Session& out)
{
    try {
        out = loadSessionFile(path.toStdString(), sessionCatalogue());
        return {};
    } catch (const std::exception& e) {
        return QString::fromStdString(e.what());
    }
}

} // namespace lcs::ui
