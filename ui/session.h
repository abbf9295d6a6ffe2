#pragma once

#include <QMap>
#include <QString>

#include "camvid_types.h"
#include "image_types.h"
#include "ui_types.h"

namespace lcs::ui {

/// Everything needed to reproduce a run: experiment, settings (seeds included), cost
/// matrix, data paths. Opening a session and pressing Run repeats the run exactly.
struct Session {
    QString experiment = QStringLiteral("synthetic");  ///< or "corruption", "selective", "camvid"
    ExperimentSettings settings;       ///< the synthetic experiment's
    ImageExperimentSettings image;     ///< the image experiments' (intra-op threads are not saved)
    CamvidSettings camvid;             ///< the CamVid experiment's (with its 12 x 12 matrix in costs)
    CostMatrix costs = costPreset("synthetic");
    QMap<QString, QString> dataPaths;  ///< none for the synthetic experiment
};

QByteArray sessionToJson(const Session& session);
/// Throws InputError (CostMatrixError for the matrix) naming `source` and the bad field.
/// The format and its checks live in the engine (io/session_file.h), shared with the CLI.
Session sessionFromJson(const QByteArray& json, const QString& source);

/// Atomic write; returns an error message, empty on success (the old file is kept).
QString saveSession(const Session& session, const QString& path);
/// Returns an error message, empty on success; `out` is untouched on failure.
QString loadSession(const QString& path, Session& out);

} // namespace lcs::ui
