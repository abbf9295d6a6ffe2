#include "file_dialogs.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>
#include <QSettings>

#include <vector>

#include "core/input_error.h"
#include "core/outputs.h"

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
    const QString start = QSettings().value(settingsKey(folderKey)).toString();
    const QString path = remember(folderKey, QFileDialog::getOpenFileName(parent, title, start, filter), false);
    noteWindowInput(title, path, false);
    if (path.endsWith(QLatin1String(".pt")))
        noteWindowInput(title, path + QLatin1String(".json"), false);
    return path;
}

QString askSavePath(QWidget* parent, const QString& title, const QString& folderKey, const QString& fileName,
                    const QString& filter, const QString& document)
{
    const QString start = QSettings().value(settingsKey(folderKey)).toString() + "/" + fileName;
    return checkedOutput(parent, title,
                         remember(folderKey, QFileDialog::getSaveFileName(parent, title, start, filter), false), false,
                         document);
}

QString askFolder(QWidget* parent, const QString& title, const QString& folderKey)
{
    const QString start = QSettings().value(settingsKey(folderKey)).toString();
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
