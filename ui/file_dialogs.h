#pragma once

#include <QString>

class QWidget;

namespace lcs::ui {

/// File dialogs that start in the folder last used for the same kind of file (kept in
/// QSettings under `folderKey`) and remember the folder chosen. Empty when cancelled.
QString askOpenPath(QWidget* parent, const QString& title, const QString& folderKey, const QString& filter);
QString askSavePath(QWidget* parent, const QString& title, const QString& folderKey, const QString& fileName,
                    const QString& filter);
QString askFolder(QWidget* parent, const QString& title, const QString& folderKey);

} // namespace lcs::ui
