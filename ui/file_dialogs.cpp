#include "ui/file_dialogs.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>
#include <QSettings>

#include <vector>

#include "base/core/input_error.h"
#include "base/core/outputs.h"

namespace lcs::ui {

namespace {

QString settingsKey(const QString& folderKey)
{
    return "paths/" + folderKey;
}

/// Any dialog's last folder, for a kind of file never opened or saved before.
const char* const kLastFolderKey = "paths/last";

QString remember(const QString& folderKey, const QString& path, bool isFolder)
{
    if (!path.isEmpty()) {
        const QString folder = isFolder ? path : QFileInfo(path).absolutePath();
        QSettings().setValue(settingsKey(folderKey), folder);
        QSettings().setValue(kLastFolderKey, folder);
    }
    return path;
}

/// Where a dialog for `folderKey` starts: the folder last used for that kind of file,
/// else the last folder any dialog used, else the folder the window was started in
/// (never the file system's root, where an empty key would put a save dialog).
QString startFolder(const QString& folderKey)
{
    QSettings stored;
    for (const QString& key : {settingsKey(folderKey), QString::fromLatin1(kLastFolderKey)}) {
        const QString folder = stored.value(key).toString();
        if (!folder.isEmpty() && QFileInfo(folder).isDir())
            return folder;
    }
    return QDir::currentPath();
}

/// The window's inputs so far (GUI thread only).
std::vector<CommandPath>& windowInputs()
{
    static std::vector<CommandPath> inputs;
    return inputs;
}

/// `path`, or "" after explaining in a message box why the output policy refuses it.
QString checkedOutput(QWidget* parent, const QString& title, const QString& path, bool isFolder,
                      const QString& document = QString())
{
    if (path.isEmpty())
        return path;
    const QString problem = windowOutputProblem(title, path, isFolder, document);
    if (problem.isEmpty())
        return path;
    QMessageBox::warning(parent, title, problem);
    return {};
}

} // namespace

void noteWindowInput(const QString& what, const QString& path, bool isFolder)
{
    if (path.isEmpty())
        return;
    auto& inputs = windowInputs();
    const CommandPath input{what.toStdString(), path.toStdString(), isFolder ? PathKind::Folder : PathKind::File};
    for (const auto& known : inputs)
        if (known.path == input.path)
            return;
    inputs.push_back(input);
}

QString windowOutputProblem(const QString& what, const QString& path, bool isFolder, const QString& document)
{
    std::vector<CommandPath> inputs;
    for (const auto& input : windowInputs())
        if (document.isEmpty() || input.path != document.toStdString())
            inputs.push_back(input);
    try {
        checkOutputPolicy({{what.toStdString(), path.toStdString(), isFolder ? PathKind::Folder : PathKind::File}},
                          inputs);
    } catch (const InputError& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

QString askOpenPath(QWidget* parent, const QString& title, const QString& folderKey, const QString& filter)
{
    const QString start = startFolder(folderKey);
    const QString path = remember(folderKey, QFileDialog::getOpenFileName(parent, title, start, filter), false);
    noteWindowInput(title, path, false);
    if (path.endsWith(QLatin1String(".pt")))
        noteWindowInput(title, path + QLatin1String(".json"), false);
    return path;
}

QString askSavePath(QWidget* parent, const QString& title, const QString& folderKey, const QString& fileName,
                    const QString& filter, const QString& document)
{
    const QString start = startFolder(folderKey) + "/" + fileName;
    return checkedOutput(parent, title,
                         remember(folderKey, QFileDialog::getSaveFileName(parent, title, start, filter), false), false,
                         document);
}

QString askFolder(QWidget* parent, const QString& title, const QString& folderKey)
{
    const QString start = startFolder(folderKey);
    return checkedOutput(parent, title, remember(folderKey, QFileDialog::getExistingDirectory(parent, title, start), true),
                         true);
}

QStringList recentFiles()
{
    return QSettings().value("recentFiles").toStringList();
}

void rememberRecentFile(const QString& path)
{
    QStringList recent = recentFiles();
    recent.removeAll(path);
    recent.prepend(path);
    while (recent.size() > 8)
        recent.removeLast();
    QSettings().setValue("recentFiles", recent);
}

} // namespace lcs::ui
