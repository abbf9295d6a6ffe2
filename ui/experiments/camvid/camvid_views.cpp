#include "ui/experiments/camvid/camvid_views.h"

#include <algorithm>
#include <cmath>

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QResizeEvent>
#include <QScrollArea>
#include <QSlider>
#include <QVBoxLayout>

#include "ui/qcustomplot_compat.h"

#include "datasets/camvid_reader.h"
#include "ui/method_style.h"
#include "ui/plot_export.h"
#include "ui/plot_parts.h"

namespace lcs::ui {

namespace {

constexpr int kPanelGap = 8;
constexpr int kTitleHeight = 18;
constexpr int kLegendRowHeight = 18;
constexpr int kLegendColumns = 4;  // 4 x 118 px: the legend fits the viewer beside the docks on a 1366 px screen
constexpr int kLegendColumnWidth = 118;

/// The canvas inside the viewer's scroll area: paints what the viewer composed.
class PanelsCanvas : public QWidget {
public:
    explicit PanelsCanvas(const CamvidOverlayViewer* viewer, QWidget* parent) : QWidget(parent), m_viewer(viewer) {}
    QSize sizeHint() const override { return m_viewer->panelsSize(); }

protected:
    void paintEvent(QPaintEvent*) override
    {
        QPainter p(this);
        p.fillRect(rect(), palette().window());
        m_viewer->paintPanels(p);
    }

private:
    const CamvidOverlayViewer* m_viewer;
};

} // namespace

QColor camvidClassColour(int label)
{
    const auto& colours = camvidColours();
    const auto& c = colours[static_cast<size_t>(std::clamp(label, 0, kCamvidClasses - 1))];
    return QColor(c[0], c[1], c[2]);
}

QStringList camvidClassNameList()
{
    QStringList names;
    for (const char* n : camvidClassNames())
        names << QString::fromLatin1(n);
    return names;
}

QImage camvidLabelImage(const QVector<quint8>& labels, int width, int height)
{
    if (width <= 0 || height <= 0 || labels.size() != qsizetype(width) * height)
        return {};
    QImage out(width, height, QImage::Format_RGB888);
    const auto& colours = camvidColours();
    for (int r = 0; r < height; ++r) {
        uchar* line = out.scanLine(r);
        for (int c = 0; c < width; ++c) {
            const int label = std::min<int>(labels[qsizetype(r) * width + c], kCamvidClasses - 1);
            const auto& rgb = colours[static_cast<size_t>(label)];
            line[3 * c] = rgb[0];
            line[3 * c + 1] = rgb[1];
            line[3 * c + 2] = rgb[2];
        }
    }
    return out;
}

QImage camvidBlend(const QImage& frame, const QImage& overlay, double opacity)
{
    if (frame.isNull() || frame.size() != overlay.size())
        return {};
    const double a = std::clamp(opacity, 0.0, 1.0);
    const QImage f = frame.convertToFormat(QImage::Format_RGB888);
    const QImage o = overlay.convertToFormat(QImage::Format_RGB888);
    QImage out(f.size(), QImage::Format_RGB888);
    for (int r = 0; r < f.height(); ++r) {
        const uchar* fl = f.constScanLine(r);
        const uchar* ol = o.constScanLine(r);
        uchar* line = out.scanLine(r);
        for (int i = 0; i < 3 * f.width(); ++i)
            line[i] = static_cast<uchar>(std::lround((1.0 - a) * fl[i] + a * ol[i]));
    }
    return out;
}

QImage camvidDifferenceImage(const QImage& frame, const QVector<quint8>& uncorrected, const QVector<quint8>& corrected)
{
    const qsizetype n = qsizetype(frame.width()) * frame.height();
    if (frame.isNull() || uncorrected.size() != n || corrected.size() != n)
        return {};
    const QImage f = frame.convertToFormat(QImage::Format_RGB888);
    QImage out(f.size(), QImage::Format_RGB888);
    for (int r = 0; r < f.height(); ++r) {
        const uchar* fl = f.constScanLine(r);
        uchar* line = out.scanLine(r);
        for (int c = 0; c < f.width(); ++c) {
            const qsizetype i = qsizetype(r) * f.width() + c;
            const bool differ = uncorrected[i] != corrected[i];
            for (int k = 0; k < 3; ++k)
                line[3 * c + k] = differ ? 255 : static_cast<uchar>(fl[3 * c + k] / 3);
        }
    }
    return out;
}

// ---------------------------------------------------------------------------------

CamvidOverlayViewer::CamvidOverlayViewer(QWidget* parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("camvid_overlays"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* controls = new QHBoxLayout;
    m_frameSlider = new QSlider(Qt::Horizontal, this);
    m_frameSlider->setObjectName(QStringLiteral("camvidFrameSlider"));
    m_frameSlider->setRange(0, 0);
    m_frameLabel = new QLabel(tr("no frames yet"), this);
    m_frameLabel->setMinimumWidth(190);
    m_opacitySlider = new QSlider(Qt::Horizontal, this);
    m_opacitySlider->setObjectName(QStringLiteral("camvidOpacitySlider"));
    m_opacitySlider->setRange(0, 100);
    m_opacitySlider->setValue(static_cast<int>(std::lround(m_opacity * 100)));
    m_opacitySlider->setMaximumWidth(140);
    m_opacitySlider->setToolTip(tr("Opacity of the class colours over the frame (0: the frame, 100: the labels)"));
    m_zoomBox = new QComboBox(this);
    m_zoomBox->addItem(tr("Fit"), 0);
    for (int z : {100, 150, 200, 300, 400, 600, 800})
        m_zoomBox->addItem(QStringLiteral("%1%").arg(z), z);
    m_zoomBox->setCurrentIndex(0);
    controls->addWidget(new QLabel(tr("Frame"), this));
    controls->addWidget(m_frameSlider, 1);
    controls->addWidget(m_frameLabel);
    controls->addWidget(new QLabel(tr("Opacity"), this));
    controls->addWidget(m_opacitySlider);
    controls->addWidget(new QLabel(tr("Zoom"), this));
    controls->addWidget(m_zoomBox);
    layout->addLayout(controls);
    m_scroll = new QScrollArea(this);
    m_scroll->setFrameShape(QFrame::NoFrame);
    m_canvas = new PanelsCanvas(this, m_scroll);
    m_scroll->setWidget(m_canvas);
    layout->addWidget(m_scroll, 1);
    connect(m_frameSlider, &QSlider::valueChanged, this, &CamvidOverlayViewer::setCurrentFrame);
    connect(m_opacitySlider, &QSlider::valueChanged, this, [this](int v) { setOpacity(v / 100.0); });
    connect(m_zoomBox, &QComboBox::currentIndexChanged, this,
            [this](int i) { setZoomPercent(m_zoomBox->itemData(i).toInt()); });
    installPaintingExportMenu(
        m_canvas, [this] { return panelsSize(); }, [this](QPainter& p) { paintPanels(p); }, this);
    m_canvas->resize(panelsSize());
}

const CamvidFrameView* CamvidOverlayViewer::frame(int index) const
{
    return index >= 0 && index < m_frames.size() ? &m_frames[index] : nullptr;
}

void CamvidOverlayViewer::clear(int expected)
{
    m_frames.clear();
    m_preview = {};
    m_expected = std::max(0, expected);
    {
        const QSignalBlocker block(m_frameSlider);
        m_frameSlider->setRange(0, std::max(0, frameTotal() - 1));
    }
    // The current index is kept: a re-correction refills the same frames and the user
    // keeps looking at the one they chose.
    recompose();
}

void CamvidOverlayViewer::addFrames(const QVector<CamvidFrameView>& frames)
{
    const bool hadCurrent = shownFrame(m_current) != nullptr;
    for (const auto& f : frames)
        if (f.isValid())
            m_frames.push_back(f);
    {
        const QSignalBlocker block(m_frameSlider);
        m_frameSlider->setRange(0, std::max(0, frameTotal() - 1));
    }
    if (!hadCurrent && shownFrame(m_current))
        recompose();
    else
        updateFrameLabel();
}

void CamvidOverlayViewer::setPreview(const CamvidPreviewView& preview)
{
    ++m_previewsReceived;
    m_preview = preview;
    // Keep only frames whose decisions match their size (corrected may wait for q).
    m_preview.frames.erase(std::remove_if(m_preview.frames.begin(), m_preview.frames.end(),
                                          [&](const CamvidFrameView& f) {
                                              const qsizetype n = qsizetype(f.width()) * f.height();
                                              return n <= 0 || f.truth.size() != n || f.uncorrected.size() != n
                                                     || f.corrected.size() != (m_preview.hasCorrected() ? n : 0);
                                          }),
                           m_preview.frames.end());
    {
        const QSignalBlocker block(m_frameSlider);
        m_frameSlider->setRange(0, std::max(0, frameTotal() - 1));
    }
    if (previewFrame(m_current))
        recompose();
    else
        updateFrameLabel();
}

const CamvidFrameView* CamvidOverlayViewer::previewFrame(int index) const
{
    for (const auto& f : m_preview.frames)
        if (f.index == index)
            return &f;
    return nullptr;
}

const CamvidFrameView* CamvidOverlayViewer::shownFrame(int index) const
{
    if (const auto* p = previewFrame(index))
        return p;
    return frame(index);
}

bool CamvidOverlayViewer::showingPreview() const
{
    return previewFrame(m_current) != nullptr;
}

int CamvidOverlayViewer::frameTotal() const
{
    int total = std::max(m_expected, frameCount());
    for (const auto& f : m_preview.frames)
        total = std::max(total, f.index + 1);
    return total;
}

void CamvidOverlayViewer::setCurrentFrame(int index)
{
    index = std::clamp(index, 0, std::max(0, frameTotal() - 1));
    if (index == m_current && !m_panels[FramePanel].isNull())
        return;
    m_current = index;
    {
        const QSignalBlocker block(m_frameSlider);
        m_frameSlider->setValue(index);
    }
    recompose();
    Q_EMIT currentFrameChanged(index);
}

void CamvidOverlayViewer::setOpacity(double opacity)
{
    m_opacity = std::clamp(opacity, 0.0, 1.0);
    {
        const QSignalBlocker block(m_opacitySlider);
        m_opacitySlider->setValue(static_cast<int>(std::lround(m_opacity * 100)));
    }
    recompose();
}

void CamvidOverlayViewer::setZoomPercent(int percent)
{
    m_fit = percent <= 0;
    if (m_fit) {
        const QSignalBlocker block(m_zoomBox);
        m_zoomBox->setCurrentIndex(0);
        fitZoom();
        return;
    }
    m_zoom = std::clamp(percent, 25, 1600);
    m_columns = PanelCount;
    const int index = m_zoomBox->findData(m_zoom);
    if (index >= 0) {
        const QSignalBlocker block(m_zoomBox);
        m_zoomBox->setCurrentIndex(index);
    }
    m_canvas->resize(panelsSize());
    m_canvas->update();
}

void CamvidOverlayViewer::fitZoom()
{
    const auto* f = shownFrame(m_current);
    const int w = std::max(1, f ? f->width() : 120), h = std::max(1, f ? f->height() : 90);
    const QSize viewport = m_scroll->maximumViewportSize();
    const int legendRows = (kCamvidClasses + kLegendColumns - 1) / kLegendColumns;
    // The largest zoom at which the panels fit both ways, over one, two or three rows:
    // a tall viewer gets bigger panels in more rows instead of an empty band below them.
    int bestZoom = 0, bestColumns = PanelCount;
    for (int columns : {int(PanelCount), 3, 2}) {
        const int rows = (PanelCount + columns - 1) / columns;
        const int availableWidth = viewport.width() - (columns + 1) * kPanelGap;
        const int availableHeight =
            viewport.height() - rows * (kTitleHeight + kPanelGap) - legendRows * kLegendRowHeight - kPanelGap;
        const int zoom = std::min(100 * availableWidth / (columns * w), 100 * availableHeight / (rows * h));
        if (zoom > bestZoom) {
            bestZoom = zoom;
            bestColumns = columns;
        }
    }
    m_columns = bestColumns;
    m_zoom = std::clamp(bestZoom, 25, 1600);
    m_canvas->resize(panelsSize());
    m_canvas->update();
}

void CamvidOverlayViewer::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    if (m_fit)
        fitZoom();
}

QString CamvidOverlayViewer::panelTitle(Panel panel)
{
    switch (panel) {
    case FramePanel: return tr("Frame");
    case TruthPanel: return tr("Truth");
    case UncorrectedPanel: return tr("Uncorrected (S)");
    case CorrectedPanel: return tr("Corrected (q)");
    case DifferencePanel: return tr("Where they differ");
    case PanelCount: break;
    }
    return {};
}

void CamvidOverlayViewer::recompose()
{
    ++m_refreshes;
    const auto* f = shownFrame(m_current);
    if (!f) {
        for (auto& p : m_panels)
            p = QImage();
    } else {
        const int w = f->width(), h = f->height();
        m_panels[FramePanel] = f->frame.convertToFormat(QImage::Format_RGB888);
        m_panels[TruthPanel] = camvidBlend(f->frame, camvidLabelImage(f->truth, w, h), m_opacity);
        m_panels[UncorrectedPanel] = camvidBlend(f->frame, camvidLabelImage(f->uncorrected, w, h), m_opacity);
        // A preview after an epoch of S has no q yet: both q panels stay empty.
        m_panels[CorrectedPanel] = camvidBlend(f->frame, camvidLabelImage(f->corrected, w, h), m_opacity);
        m_panels[DifferencePanel] = camvidDifferenceImage(f->frame, f->uncorrected, f->corrected);
    }
    updateFrameLabel();
    if (m_fit)
        fitZoom();
    m_canvas->resize(panelsSize());
    m_canvas->update();
}

void CamvidOverlayViewer::updateFrameLabel()
{
    const auto* f = shownFrame(m_current);
    const int total = frameTotal();
    if (!f) {
        m_frameLabel->setText(total > 0 ? tr("frame %1 of %2 (loading)").arg(m_current + 1).arg(total)
                                        : tr("no frames yet"));
        return;
    }
    const QString live = showingPreview() ? tr(" · live: %1").arg(m_preview.caption()) : QString();
    if (f->corrected.isEmpty()) {
        m_frameLabel->setText(tr("%1 (%2/%3)%4").arg(f->name).arg(m_current + 1).arg(total).arg(live));
        return;
    }
    qsizetype changed = 0;
    for (qsizetype i = 0; i < f->corrected.size(); ++i)
        changed += f->uncorrected[i] != f->corrected[i];
    m_frameLabel->setText(tr("%1 (%2/%3), %4% changed%5")
                              .arg(f->name).arg(m_current + 1).arg(total)
                              .arg(100.0 * double(changed) / double(std::max<qsizetype>(1, f->corrected.size())), 0, 'f', 1)
                              .arg(live));
}

QSize CamvidOverlayViewer::panelsSize() const
{
    const auto* f = shownFrame(m_current);
    const int w = f ? f->width() : 120, h = f ? f->height() : 90;
    const int pw = w * m_zoom / 100, ph = h * m_zoom / 100;
    const int rows = (PanelCount + m_columns - 1) / m_columns;
    const int legendRows = (kCamvidClasses + kLegendColumns - 1) / kLegendColumns;
    const int width = std::max(m_columns * pw + (m_columns - 1) * kPanelGap, kLegendColumns * kLegendColumnWidth);
    return QSize(width + 2 * kPanelGap,
                 rows * (kTitleHeight + ph + kPanelGap) + legendRows * kLegendRowHeight + kPanelGap);
}

void CamvidOverlayViewer::paintPanels(QPainter& painter) const
{
    const auto* f = shownFrame(m_current);
    const int w = f ? f->width() : 120, h = f ? f->height() : 90;
    const int pw = w * m_zoom / 100, ph = h * m_zoom / 100;
    const int rows = (PanelCount + m_columns - 1) / m_columns;
    const bool waitingForQ = f && f->corrected.isEmpty();
    painter.save();
    painter.setRenderHint(QPainter::SmoothPixmapTransform, false);  // labels stay crisp when zoomed
    painter.setFont(plotTitleFont());
    for (int i = 0; i < PanelCount; ++i) {
        const int column = i % m_columns, row = i / m_columns;
        const int top = row * (kTitleHeight + ph + kPanelGap);
        const QRect target(kPanelGap + column * (pw + kPanelGap), top + kTitleHeight, pw, ph);
        painter.setPen(QColor(40, 40, 40));
        painter.drawText(QRect(target.left(), top, pw, kTitleHeight), Qt::AlignLeft | Qt::AlignVCenter,
                         panelTitle(static_cast<Panel>(i)));
        if (m_panels[i].isNull()) {
            painter.fillRect(target, QColor(235, 235, 235));
            painter.setPen(QColor(130, 130, 130));
            painter.drawText(target, Qt::AlignCenter, waitingForQ ? tr("q trains after S") : tr("no frame"));
        } else {
            painter.drawImage(target, m_panels[i]);
        }
    }
    // Legend: the 12 classes in their colours (void included: truth shows it).
    painter.setFont(QFont("sans", 8));
    const auto names = camvidClassNameList();
    const int top = rows * (kTitleHeight + ph + kPanelGap);
    for (int c = 0; c < kCamvidClasses; ++c) {
        const int x = kPanelGap + (c % kLegendColumns) * kLegendColumnWidth;
        const int y = top + (c / kLegendColumns) * kLegendRowHeight;
        painter.fillRect(QRect(x, y + 3, 14, 12), camvidClassColour(c));
        painter.setPen(QColor(90, 90, 90));
        painter.drawRect(QRect(x, y + 3, 14, 12));
        painter.setPen(QColor(30, 30, 30));
        painter.drawText(QRect(x + 19, y, kLegendColumnWidth - 20, kLegendRowHeight), Qt::AlignLeft | Qt::AlignVCenter,
                         names[c] + (c == kCamvidVoid ? tr(" (void)") : QString()));
    }
    painter.restore();
}

// ---------------------------------------------------------------------------------

} // namespace lcs::ui
