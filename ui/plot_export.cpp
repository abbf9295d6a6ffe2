#include "plot_export.h"

#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>
#include <QPainter>
#include <QSaveFile>
#include <QSvgGenerator>

#include "file_dialogs.h"
#include "qcustomplot_compat.h"

namespace lcs::ui {

namespace {

/// QCustomPlot writes by path; write next to the target and rename so a failed export
/// never leaves a truncated file behind.
QString writeVia(const QString& path, const std::function<bool(const QString&)>& writer)
{
    const QString tmp = path + ".tmp-export";
    QFile::remove(tmp);
    if (!writer(tmp)) {
        QFile::remove(tmp);
        return QObject::tr("cannot write %1").arg(path);
    }
    QFile::remove(path);
    if (!QFile::rename(tmp, path)) {
        QFile::remove(tmp);
        return QObject::tr("cannot replace %1").arg(path);
    }
    return {};
}

} // namespace

QString exportPlot(QCustomPlot* plot, const QString& path)
{
    const QString suffix = QFileInfo(path).suffix().toLower();
    const int w = plot->width() > 50 ? plot->width() : 800;
    const int h = plot->height() > 50 ? plot->height() : 600;
    if (suffix == "png")
        return writeVia(path, [&](const QString& tmp) { return plot->savePng(tmp, w, h, 2.0, -1, -1, QCP::ruDotsPerInch); });
    if (suffix == "pdf")
        return writeVia(path, [&](const QString& tmp) { return plot->savePdf(tmp, w, h); });
    if (suffix == "svg") {
        return writeVia(path, [&](const QString& tmp) {
            QSvgGenerator svg;
            svg.setFileName(tmp);
            svg.setSize(QSize(w, h));
            svg.setViewBox(QRect(0, 0, w, h));
            svg.setTitle(plot->objectName());
            QCPPainter painter;
            if (!painter.begin(&svg))
                return false;
            plot->toPainter(&painter, w, h);
            return painter.end();
        });
    }
    return QObject::tr("%1: unknown plot format \"%2\" (use .png, .svg or .pdf)").arg(path, suffix);
}

void installExportMenu(QCustomPlot* plot, QWidget* dialogParent)
{
    plot->setContextMenuPolicy(Qt::CustomContextMenu);
    QObject::connect(plot, &QWidget::customContextMenuRequested, plot, [plot, dialogParent](const QPoint& pos) {
        QMenu menu(plot);
        for (const QString& format : {QStringLiteral("png"), QStringLiteral("svg"), QStringLiteral("pdf")}) {
            menu.addAction(QObject::tr("Export as %1...").arg(format.toUpper()), plot, [=] {
                const QString name = plot->objectName().isEmpty() ? QStringLiteral("plot") : plot->objectName();
                const QString path = askSavePath(dialogParent, QObject::tr("Export plot"), "exportDir",
                                                 name + "." + format, format.toUpper() + " (*." + format + ")");
                if (path.isEmpty())
                    return;
                const QString error = exportPlot(plot, path);
                if (!error.isEmpty())
                    QMessageBox::warning(dialogParent, QObject::tr("Export failed"), error);
            });
        }
        menu.exec(plot->mapToGlobal(pos));
    });
}

} // namespace lcs::ui
