#include "session.h"

#include <cmath>
#include <stdexcept>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>

namespace lcs::ui {

namespace {

constexpr auto kFormat = "lcstudio-session";

[[noreturn]] void fail(const QString& source, const QString& what)
{
    throw std::runtime_error((source + ": " + what).toStdString());
}

int intField(const QJsonObject& o, const char* key, int fallback, int lo, int hi, const QString& source)
{
    if (!o.contains(key))
        return fallback;
    const auto v = o.value(key);
    if (!v.isDouble() || v.toDouble() != std::floor(v.toDouble()) || v.toDouble() < lo || v.toDouble() > hi)
        fail(source, QString("field \"settings.%1\" must be an integer in %2..%3").arg(key).arg(lo).arg(hi));
    return v.toInt();
}

} // namespace

QByteArray sessionToJson(const Session& s)
{
    QJsonObject settings{{"replicates", s.settings.replicates},
                         {"methods", QJsonArray::fromStringList(s.settings.methods)},
                         {"seed", QString::number(s.settings.seed)},
                         {"threads", s.settings.threads},
                         {"correction_iterations", s.settings.correctionIterations},
                         {"grid_resolution", s.settings.gridResolution},
                         {"device", s.settings.device}};
    QJsonObject paths;
    for (auto it = s.dataPaths.begin(); it != s.dataPaths.end(); ++it)
        paths.insert(it.key(), it.value());
    const auto costs = QJsonDocument::fromJson(QByteArray::fromStdString(costMatrixToJson(s.costs))).object();
    QJsonObject root{{"format", kFormat}, {"version", 1}, {"experiment", s.experiment},
                     {"settings", settings}, {"cost_matrix", costs}, {"data_paths", paths}};
    return QJsonDocument(root).toJson(QJsonDocument::Indented);
}

Session sessionFromJson(const QByteArray& json, const QString& source)
{
    QJsonParseError error;
    const auto doc = QJsonDocument::fromJson(json, &error);
    if (error.error != QJsonParseError::NoError)
        fail(source, QString("not valid JSON (%1 at offset %2)").arg(error.errorString()).arg(error.offset));
    const auto root = doc.object();
    if (root.value("format").toString() != kFormat)
        fail(source, QString("field \"format\" must be \"%1\"").arg(kFormat));
    Session s;
    s.experiment = root.value("experiment").toString("synthetic");
    if (s.experiment != "synthetic")
        fail(source, QString("field \"experiment\": unknown experiment \"%1\"").arg(s.experiment));
    const auto o = root.value("settings").toObject();
    s.settings.replicates = intField(o, "replicates", s.settings.replicates, 1, 1000, source);
    s.settings.threads = intField(o, "threads", s.settings.threads, 1, 256, source);
    s.settings.correctionIterations = intField(o, "correction_iterations", s.settings.correctionIterations, 0, 10000000, source);
    s.settings.gridResolution = intField(o, "grid_resolution", s.settings.gridResolution, 2, 1000, source);
    if (o.contains("device")) {
        s.settings.device = o.value("device").toString();
        if (s.settings.device != "cpu" && !s.settings.device.startsWith("cuda"))
            fail(source, QString("field \"settings.device\": \"%1\" is not cpu or cuda[:N]").arg(s.settings.device));
    }
    if (o.contains("seed")) {
        bool ok = false;
        s.settings.seed = o.value("seed").toString().toULongLong(&ok);
        if (!ok)
            fail(source, "field \"settings.seed\" must be a decimal string");
    }
    if (o.contains("methods")) {
        s.settings.methods.clear();
        for (const auto& m : o.value("methods").toArray()) {
            const QString name = m.toString();
            if (name != "bbvi" && name != "sghmc" && name != "sgld" && name != "kfac_laplace")
                fail(source, QString("field \"settings.methods\": unknown method \"%1\"").arg(name));
            s.settings.methods << name;
        }
        if (s.settings.methods.isEmpty())
            fail(source, "field \"settings.methods\" is empty");
    }
    if (!root.contains("cost_matrix"))
        fail(source, "missing field \"cost_matrix\"");
    const auto costs = QJsonDocument(root.value("cost_matrix").toObject()).toJson();
    s.costs = costMatrixFromJson(costs.toStdString(), (source + " (cost_matrix)").toStdString());
    s.costs.validateFor(2);
    const auto paths = root.value("data_paths").toObject();
    for (auto it = paths.begin(); it != paths.end(); ++it)
        s.dataPaths.insert(it.key(), it.value().toString());
    return s;
}

QString saveSession(const Session& session, const QString& path)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return QObject::tr("cannot write %1: %2").arg(path, file.errorString());
    file.write(sessionToJson(session));
    if (!file.commit())
        return QObject::tr("cannot write %1: %2").arg(path, file.errorString());
    return {};
}

QString loadSession(const QString& path, Session& out)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return QObject::tr("cannot open %1: %2").arg(path, file.errorString());
    try {
        out = sessionFromJson(file.readAll(), path);
        return {};
    } catch (const std::exception& e) {
        return QString::fromStdString(e.what());
    }
}

} // namespace lcs::ui
