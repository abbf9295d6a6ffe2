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
    if (s.experiment == QLatin1String("camvid")) {
        const auto& c = s.camvid;
        d.settings.methods = defaultSessionMethods("camvid");
        d.settings.data = c.data.trimmed().toStdString();
        d.settings.preset = c.preset.toStdString();
        d.settings.maxTrain = c.maxFrames;
        d.settings.maxTest = c.maxEvalFrames;
        d.settings.mcDropout = c.mcDropout;
        d.settings.seed = c.seed;
        d.settings.device = c.device.toStdString();
    } else if (s.experiment != QLatin1String("synthetic")) {
        const auto& im = s.image;
        d.settings.methods.clear();
        for (const auto& m : im.methods)
            d.settings.methods.push_back(m.toStdString());
        if (d.settings.methods.empty())
            d.settings.methods = defaultSessionMethods(d.experiment);
        d.settings.seed = im.seed;
        d.settings.device = im.device.toStdString();
        d.settings.data = im.data.toStdString();
        d.settings.preset = im.preset.toStdString();
        const std::vector<double> values(im.values.begin(), im.values.end());
        if (!values.empty())
            (im.isSelective() ? d.settings.referralCosts : d.settings.rates) = values;
        d.settings.trials = im.trials;
        d.settings.maxTrain = im.maxTrain;
        d.settings.maxTest = im.maxTest;
        d.settings.epochs = im.epochs;
    }
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
    if (d.experiment == "camvid") {
        auto& c = s.camvid;
        c.data = QString::fromStdString(d.settings.data);
        c.preset = QString::fromStdString(d.settings.preset);
        c.maxFrames = d.settings.maxTrain;
        c.maxEvalFrames = d.settings.maxTest;
        c.mcDropout = d.settings.mcDropout;
        c.seed = d.settings.seed;
        c.device = QString::fromStdString(d.settings.device);
    } else if (d.experiment != "synthetic") {
        auto& im = s.image;
        im.experiment = s.experiment;
        im.methods.clear();
        for (const auto& m : d.settings.methods)
            im.methods << QString::fromStdString(m);
        im.seed = d.settings.seed;
        im.device = QString::fromStdString(d.settings.device);
        im.data = QString::fromStdString(d.settings.data);
        im.preset = QString::fromStdString(d.settings.preset);
        const auto& values = im.isSelective() ? d.settings.referralCosts : d.settings.rates;
        im.values = QVector<double>(values.begin(), values.end());
        im.trials = d.settings.trials;
        im.maxTrain = d.settings.maxTrain;
        im.maxTest = d.settings.maxTest;
        im.epochs = d.settings.epochs;
    }
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
