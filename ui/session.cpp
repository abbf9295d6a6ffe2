#include "session.h"

#include <stdexcept>

#include "core/atomic_file.h"
#include "io/session_file.h"

namespace lcs::ui {

namespace {

SessionData toData(const Session& s)
{
    SessionData d;
    d.experiment = s.experiment.toStdString();
    d.settings.replicates = s.settings.replicates;
    d.settings.methods.clear();
    for (const auto& m : s.settings.methods)
        d.settings.methods.push_back(m.toStdString());
    d.settings.seed = s.settings.seed;
    d.settings.threads = s.settings.threads;
    d.settings.correctionIterations = s.settings.correctionIterations;
    d.settings.gridResolution = s.settings.gridResolution;
    d.settings.device = s.settings.device.toStdString();
    d.costs = s.costs;
    for (auto it = s.dataPaths.begin(); it != s.dataPaths.end(); ++it)
        d.dataPaths[it.key().toStdString()] = it.value().toStdString();
    return d;
}

Session fromData(const SessionData& d)
{
    Session s;
    s.experiment = QString::fromStdString(d.experiment);
    s.settings.replicates = d.settings.replicates;
    s.settings.methods.clear();
    for (const auto& m : d.settings.methods)
        s.settings.methods << QString::fromStdString(m);
    s.settings.seed = d.settings.seed;
    s.settings.threads = d.settings.threads;
    s.settings.correctionIterations = d.settings.correctionIterations;
    s.settings.gridResolution = d.settings.gridResolution;
    s.settings.device = QString::fromStdString(d.settings.device);
    s.costs = d.costs;
    for (const auto& [k, v] : d.dataPaths)
        s.dataPaths.insert(QString::fromStdString(k), QString::fromStdString(v));
    return s;
}

} // namespace

QByteArray sessionToJson(const Session& session)
{
    return QByteArray::fromStdString(lcs::sessionToJson(toData(session)));
}

Session sessionFromJson(const QByteArray& json, const QString& source)
{
    return fromData(lcs::sessionFromJson(json.toStdString(), source.toStdString()));
}

QString saveSession(const Session& session, const QString& path)
{
    try {
        saveSessionFile(toData(session), path.toStdString());
        return {};
    } catch (const std::exception& e) {
        return QString::fromStdString(e.what());
    }
}

QString loadSession(const QString& path, Session& out)
{
    try {
        out = fromData(loadSessionFile(path.toStdString()));
        return {};
    } catch (const std::exception& e) {
        return QString::fromStdString(e.what());
    }
}

} // namespace lcs::ui
