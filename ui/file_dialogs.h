#pragma once

#include <QString>
#include <QStringList>

class QWidget;

namespace lcs::ui {

/// File dialogs that start in the folder last used for the same kind of file (kept in
/// QSettings under `folderKey`) and remember the folder chosen. Empty when cancelled.
/// A file opened is noted as one of the window's inputs (a model with its sidecar).
QString askOpenPath(QWidget* parent, const QString& title, const QString& folderKey, const QString& filter);
/// Save dialogs apply the command line's output policy (lcs::checkOutputPolicy) to the
/// path chosen, against the window's inputs: a refused path is explained in a message box
/// and gives "" (nothing is written).
/// `document`, when given, is the file being saved again (the session the window
/// opened): it may be replaced.
QString askSavePath(QWidget* parent, const QString& title, const QString& folderKey, const QString& fileName,
                    const QString& filter, const QString& document = QString());
/// A folder to write into (exports), checked like askSavePath.
QString askFolder(QWidget* parent, const QString& title, const QString& folderKey);

/// Notes a file or folder the window has read from (a session, a cost matrix, a model,
/// a run's data): the output policy keeps the window's outputs off it.
void noteWindowInput(const QString& what, const QString& path, bool isFolder);
/// Why the output policy refuses `path` as an output named `what` (a file, or a folder
/// when isFolder), or "" when it may be written.
QString windowOutputProblem(const QString& what, const QString& path, bool isFolder,
                            const QString& document = QString());

/// The files the window opened last, newest first (QSettings "recentFiles", at most 8);
/// rememberRecentFile puts `path` first.
QStringList recentFiles();
void rememberRecentFile(const QString& path);

} // namespace lcs::ui
