#pragma once

#include <QString>

#include "base/io/session_file.h"

namespace lcs::ui {

/// Everything needed to reproduce a run: experiment, its declared settings (seeds
/// included), cost matrix, data paths. Opening a session and pressing Run repeats the run
/// exactly. The format and its checks live in the engine, shared with the CLI.
using Session = lcs::SessionData;

/// Checks the settings against the experiment's declarations, then writes atomically;
/// returns an error message, empty on success (the old file is kept).
QString saveSession(const Session& session, const QString& path);
/// Returns an error message, empty on success; `out` is untouched on failure.
QString loadSession(const QString& path, Session& out);

} // namespace lcs::ui
