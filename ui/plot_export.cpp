#include "ui/plot_export.h"

#include <algorithm>

#include <QBuffer>
#include <QFileInfo>
#include <QImage>
#include <QMenu>
#include <QMessageBox>
#include <QPainter>
#include <QPageSize>
#include <QPdfWriter>
#include <QSvgGenerator>

#include "base/core/atomic_file.h"

#include "ui/file_dialogs.h"
#include "ui/qcustomplot_compat.h"

namespace lcs::ui {

namespace {

/// Writes rendered bytes with the engine's checked atomic writer: a full disk or a
/// missing folder leaves the old file as it was and no partial file behind.
QString writeBytes(const QString& path, const QByteArray& bytes)
{
    try {
        writeFileAtomically(path.toStdString(), bytes.toStdString());
        return {};
    } catch (const std::exception& e) {
        return QString::fromStdString(e.what());
    }
}

/// Renders `plot` at w x h into a paint device writing to `buffer`.
bool paintInto(QCustomPlot* plot, QPaintDevice* device, int w, int h)
{
    QCPPainter painter;
    if (!painter.begin(device))
        return false;
    plot->toPainter(&painter, w, h);
    return painter.end();
}

} // namespace

QString exportPlot(QCustomPlot* plot, const QString& path)
{
    const QString suffix = QFileInfo(path).suffix().toLower();
    // At least its size on screen, and never below 900 x 700: a plot on a tab never shown
    // has Qt's default 640 x 480 or less, where a 7-class confusion matrix collapses and
    // legends and axis labels are cut.
    const int w = std::max(plot->width(), kMinimumExportWidth);
    const int h = std::max(plot->height(), kMinimumExportHeight);
    // Every format is rendered into memory first and written in one checked step.
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    bool rendered = false;
    if (suffix == "png") {
        rendered = plot->toPixmap(w, h, 2.0).save(&buffer, "PNG");
    } else if (suffix == "pdf") {
        QPdfWriter pdf(&buffer);
        pdf.setCreator("LC Studio");
        pdf.setTitle(plot->objectName());
        pdf.setPageSize(QPageSize(QSizeF(w, h), QPageSize::Point));
        pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
        pdf.setResolution(72);
        rendered = paintInto(plot, &pdf, w, h);
    } else if (suffix == "svg") {
        QSvgGenerator svg;
        svg.setOutputDevice(&buffer);
        svg.setSize(QSize(w, h));
        svg.setViewBox(QRect(0, 0, w, h));
        svg.setTitle(plot->objectName());
        rendered = paintInto(plot, &svg, w, h);
    } else {
        return QObject::tr("%1: unknown plot format \"%2\" (use .png, .svg or .pdf)").arg(path, suffix);
    }
    buffer.close();
    if (!rendered || bytes.isEmpty())
        return QObject::tr("cannot render the plot for %1").arg(path);
    return writeBytes(path, bytes);
}

QString exportPainting(const Painting& paint, const QSize& size, const QString& path, const QString& title)
{
    const QString suffix = QFileInfo(path).suffix().toLower();
    const int w = std::max(1, size.width()), h = std::max(1, size.height());
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    bool rendered = false;
    auto draw = [&](QPaintDevice* device) {
        QPainter painter;
        if (!painter.begin(device))
            return false;
        paint(painter);
        return painter.end();
    };
    if (suffix == "png") {
        QImage image(2 * w, 2 * h, QImage::Format_RGB32);  // 2x, as plots are exported
        image.fill(Qt::white);
        image.setDevicePixelRatio(2.0);
        rendered = draw(&image) && image.save(&buffer, "PNG");
    } else if (suffix == "pdf") {
        QPdfWriter pdf(&buffer);
        pdf.setCreator("LC Studio");
        pdf.setTitle(title);
        pdf.setPageSize(QPageSize(QSizeF(w, h), QPageSize::Point));
        pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
        pdf.setResolution(72);
        rendered = draw(&pdf);
    } else if (suffix == "svg") {
        QSvgGenerator svg;
        svg.setOutputDevice(&buffer);
        svg.setSize(QSize(w, h));
        svg.setViewBox(QRect(0, 0, w, h));
        svg.setTitle(title);
        rendered = draw(&svg);
    } else {
        return QObject::tr("%1: unknown plot format \"%2\" (use .png, .svg or .pdf)").arg(path, suffix);
    }
    buffer.close();
    if (!rendered || bytes.isEmpty())
        return QObject::tr("cannot render %1").arg(path);
    return writeBytes(path, bytes);
}

void installPaintingExportMenu(QWidget* widget, const std::function<QSize()>& size, const Painting& paint,
                               QWidget* dialogParent)
{
    widget->setContextMenuPolicy(Qt::CustomContextMenu);
    QObject::connect(widget, &QWidget::customContextMenuRequested, widget, [=](const QPoint& pos) {
        QMenu menu(widget);
        for (const QString& format : {QStringLiteral("png"), QStringLiteral("svg"), QStringLiteral("pdf")}) {
            menu.addAction(QObject::tr("Export as %1...").arg(format.toUpper()), widget, [=] {
                const QString name = widget->objectName().isEmpty() ? QStringLiteral("view") : widget->objectName();
                const QString path = askSavePath(dialogParent, QObject::tr("Export view"), "exportDir",
                                                 name + "." + format, format.toUpper() + " (*." + format + ")");
                if (path.isEmpty())
                    return;
                const QString error = exportPainting(paint, size(), path, name);
                if (!error.isEmpty())
                    QMessageBox::warning(dialogParent, QObject::tr("Export failed"), error);
            });
        }
        menu.exec(widget->mapToGlobal(pos));
    });
}

QString saveImageAtomically(const QImage& image, const QString& path)
{
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    if (image.isNull() || !image.save(&buffer, "PNG"))
        return QObject::tr("cannot encode the image for %1").arg(path);
    return writeBytes(path, bytes);
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
