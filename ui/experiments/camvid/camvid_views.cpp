#include "camvid_views.h"

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

#include "qcustomplot_compat.h"

#include "camvid_reader.h"
#include "image_types.h"
#include "method_style.h"
#include "plot_export.h"
#include "plot_parts.h"

namespace lcs::ui {

namespace {

const QFont kTitleFont("sans", 9, QFont::Bold);
constexpr int kPanelGap = 8;
constexpr int kTitleHeight = 18;
constexpr int kLegendRowHeight = 18;
constexpr int kLegendColumns = 4;  // 4 x 118 px: the legend fits the viewer beside the docks on a 1366 px screen
constexpr int kLegendColumnWidth = 118;
constexpr int kScoredClasses = kCamvidClasses - 1;  ///< void (last) is never decided or scored

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
    painter.setFont(kTitleFont);
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

QString camvidSeriesLabel(const QString& series)
{
    if (series == QLatin1String(kRecorrectedSeries))
        return QObject::tr("Ours, re-corrected");
    return methodLabelOf(series);
}

QString camvidSeriesMethod(const QString& series)
{
    // A re-correction is q again under new costs: the same method, drawn dashed.
    return series == QLatin1String(kRecorrectedSeries) ? QStringLiteral("ours") : series;
}

QColor camvidSeriesColour(const QString& series)
{
    return methodColourOf(camvidSeriesMethod(series));
}

CamvidIouPlot::CamvidIouPlot(QWidget* parent) : PlotView(QStringLiteral("camvid_iou"), 200, parent)
{
    m_title = new QCPTextElement(m_plot, tr("Per-class IoU on the validation frames"), kTitleFont);
    m_plot->plotLayout()->addElement(0, 0, m_title);
    m_rect = makeRect(m_plot);
    m_plot->plotLayout()->addElement(1, 0, m_rect);
    m_plot->plotLayout()->setRowStretchFactor(0, 0.001);
    auto* legend = makeLegend(m_plot, 1, 2);
    m_rect->axis(QCPAxis::atLeft)->setLabel(tr("IoU"));
    m_rect->axis(QCPAxis::atLeft)->setRange(0, 1);
    auto* group = new QCPBarsGroup(m_plot);
    group->setSpacingType(QCPBarsGroup::stAbsolute);
    group->setSpacing(1);
    for (int rule = 0; rule < 2; ++rule) {
        auto* bars = new QCPBars(m_rect->axis(QCPAxis::atBottom), m_rect->axis(QCPAxis::atLeft));
        bars->setWidth(0.38);
        bars->setBarsGroup(group);
        // S and q in their colours in every plot (the epoch curves name them too).
        const QString method = rule == 0 ? QStringLiteral("sghmc_s") : QStringLiteral("ours");
        markMethod(bars, method);
        bars->setPen(QPen(methodColourOf(method).darker(130)));
        bars->setBrush(methodColourOf(method));
        bars->setName(rule == 0 ? tr("uncorrected (S)") : tr("corrected (q)"));
        bars->addToLegend(legend);
        m_bars[rule] = bars;
    }
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    const auto names = camvidClassNameList();
    for (int c = 0; c < kScoredClasses; ++c)
        ticker->addTick(c, names[c]);
    m_rect->axis(QCPAxis::atBottom)->setTicker(ticker);
    // Each label ends at its tick: one running right past the widget's edge would not be
    // drawn at all (the last class, "Bicyclist").
    m_rect->axis(QCPAxis::atBottom)->setTickLabelRotation(-35);
    m_rect->axis(QCPAxis::atBottom)->setRange(-0.6, kScoredClasses - 0.4);
    clear();
}

void CamvidIouPlot::clear()
{
    for (auto* b : m_bars)
        b->data()->clear();
    m_title->setText(tr("Per-class IoU on the validation frames"));
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void CamvidIouPlot::setComparison(const CamvidIouView& view)
{
    for (int rule = 0; rule < 2; ++rule) {
        const auto& iou = rule == 0 ? view.before.iou : view.after.iou;
        QVector<double> keys, values;
        for (int c = 0; c < iou.size(); ++c)
            if (std::isfinite(iou[c])) {  // a class neither truth nor decisions hold has no IoU
                keys << c;
                values << iou[c];
            }
        m_bars[rule]->setData(keys, values, /*alreadySorted=*/true);
    }
    if (!view.classNames.isEmpty()) {
        QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
        for (int c = 0; c < view.classNames.size(); ++c)
            ticker->addTick(c, view.classNames[c]);
        m_rect->axis(QCPAxis::atBottom)->setTicker(ticker);
    }
    // Short lines: the panel is about a fifth of the window wide (under 300 px at 1800).
    m_title->setText(tr("IoU per class, %1 frames\nS → q: mIoU %2 → %3\ncost %4 → %5%6")
                         .arg(view.frames)
                         .arg(view.before.meanIou, 0, 'f', 3).arg(view.after.meanIou, 0, 'f', 3)
                         .arg(view.before.cost, 0, 'f', 3).arg(view.after.cost, 0, 'f', 3)
                         .arg(view.recorrected ? tr(" (re-corrected)") : QString()));
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

QString CamvidIouPlot::title() const
{
    return m_title->text();
}

CamvidFpsPlot::CamvidFpsPlot(QWidget* parent) : PlotView(QStringLiteral("camvid_fps"), 200, parent)
{
    m_title = new QCPTextElement(m_plot, tr("Frames per second vs ensemble size"), kTitleFont);
    m_plot->plotLayout()->addElement(0, 0, m_title);
    m_rect = makeRect(m_plot);
    m_plot->plotLayout()->addElement(1, 0, m_rect);
    m_plot->plotLayout()->setRowStretchFactor(0, 0.001);
    for (auto type : {QCPAxis::atBottom, QCPAxis::atLeft}) {
        auto* axis = m_rect->axis(type);
        axis->setScaleType(QCPAxis::stLogarithmic);
        QSharedPointer<QCPAxisTickerLog> ticker(new QCPAxisTickerLog);
        ticker->setSubTickCount(8);
        axis->setTicker(ticker);
    }
    m_rect->axis(QCPAxis::atBottom)->setLabel(tr("ensemble size k (passes per frame)"));
    m_rect->axis(QCPAxis::atLeft)->setLabel(tr("frames / s"));
    auto* legend = makeLegend(m_plot, 1, 1);  // long entries, one a line
    m_ensemble = m_plot->addGraph(m_rect->axis(QCPAxis::atBottom), m_rect->axis(QCPAxis::atLeft));
    m_ensemble->setName(tr("ensemble / MC dropout"));
    m_ensemble->addToLegend(legend);
    m_q = m_plot->addGraph(m_rect->axis(QCPAxis::atBottom), m_rect->axis(QCPAxis::atLeft));
    markMethod(m_q, QStringLiteral("ours"));
    m_q->setPen(QPen(camvidSeriesColour("ours"), 1.8, Qt::DashLine));
    m_q->setName(tr("q (one pass + Bayes decision)"));
    m_q->addToLegend(legend);
    clear();
}

void CamvidFpsPlot::showEnsembleMethod(const QString& method)
{
    markMethod(m_ensemble, method);
    m_ensemble->setPen(QPen(camvidSeriesColour(method), 1.8));
    m_ensemble->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, camvidSeriesColour(method), 6));
}

void CamvidFpsPlot::clear()
{
    showEnsembleMethod(QStringLiteral("sghmc_s"));
    m_ensemble->data()->clear();
    m_q->data()->clear();
    m_rect->axis(QCPAxis::atBottom)->setRange(0.8, 40);
    m_rect->axis(QCPAxis::atLeft)->setRange(1, 1000);
    m_title->setText(tr("Frames per second vs ensemble size"));
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void CamvidFpsPlot::setFps(const CamvidFpsView& view)
{
    QVector<double> k, fps;
    double lo = view.qFps, hi = view.qFps;
    for (int i = 0; i < view.ensembles.size(); ++i) {
        k << view.ensembles[i];
        fps << view.ensembleFps[i];
        lo = std::min(lo, view.ensembleFps[i]);
        hi = std::max(hi, view.ensembleFps[i]);
    }
    m_ensemble->setData(k, fps, /*alreadySorted=*/true);
    showEnsembleMethod(view.ensembleMethod);
    m_ensemble->setName(view.ensembleLabel.isEmpty() ? tr("ensemble / MC dropout") : view.ensembleLabel);
    const double kMax = k.isEmpty() ? 30 : k.back();
    // q does one pass whatever k the ensemble needs: a horizontal line.
    m_q->setData(QVector<double>{0.8, kMax * 1.3}, QVector<double>{view.qFps, view.qFps}, /*alreadySorted=*/true);
    m_rect->axis(QCPAxis::atBottom)->setRange(0.8, kMax * 1.3);
    if (lo > 0)
        m_rect->axis(QCPAxis::atLeft)->setRange(lo / 1.6, hi * 1.6);
    m_title->setText(tr("Frames per second at %1x%2\nq %3 · k = %4 passes: %5")
                         .arg(view.width).arg(view.height).arg(view.qFps, 0, 'f', 1)
                         .arg(k.isEmpty() ? 0 : int(k.back())).arg(fps.isEmpty() ? 0.0 : fps.back(), 0, 'f', 1));
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

} // namespace lcs::ui
