#include "file_dialogs.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QSettings>

namespace lcs::ui {

namespace {

QString settingsKey(const QString& folderKey)
{
    return "paths/" + folderKey;
}

QString remember(const QString& folderKey, const QString& path, bool isFolder)
{
    if (!path.isEmpty())
        QSettings().setValue(settingsKey(folderKey), isFolder ? path : QFileInfo(path).absolutePath());
    return path;
}

} // namespace

QString askOpenPath(QWidget* parent, const QString& title, const QString& folderKey, const QString& filter)
{
    const QString start = QSettings().value(settingsKey(folderKey)).toString();
    return remember(folderKey, QFileDialog::getOpenFileName(parent, title, start, filter), false);
}

QString askSavePath(QWidget* parent, const QString& title, const QString& folderKey, const QString& fileName,
                    const QString& filter)
{
    const QString start = QSettings().value(settingsKey(folderKey)).toString() + "/" + fileName;
    return remember(folderKey, QFileDialog::getSaveFileName(parent, title, start, filter), false);
}

QString askFolder(QWidget* parent, const QString& title, const QString& folderKey)
{
    const QString start = QSettings().value(settingsKey(folderKey)).toString();
    return remember(folderKey, QFileDialog::getExistingDirectory(parent, title, start), true);
}

} // namespace lcs::ui
