#include "ui/experiments/image/image_views.h"

#include <algorithm>
#include <cmath>

#include <QEvent>
#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>
#include <QVBoxLayout>

#include "ui/qcustomplot_compat.h"

#include "ui/method_style.h"
#include "ui/plot_export.h"
#include "ui/plot_parts.h"

/// The image experiments' gallery of the decisions q changed (the confusion matrices
/// beside it are ui/confusion_plot's).
namespace lcs::ui {

// ---------------------------------------------------------------------------------------
// Gallery

namespace {

constexpr int kTileWidth = 196;  // two columns in the 1920 x 1080 dock
constexpr int kTileHeight = 136;
constexpr int kHeaderHeight = 22;
constexpr int kSpacing = 6;
constexpr int kLabelWidth = 31;  ///< "before" and a gap, in the tiles' 7-point font
/// q's colour, as in every plot (read when drawn: the catalogue is not a constant here).
QColor afterColour()
{
    return methodColourOf(QStringLiteral("ours"));
}

QString nameOf(const QStringList& names, int i)
{
    return i >= 0 && i < names.size() ? names[i] : QString::number(i);
}

} // namespace

GalleryView::GalleryView(QWidget* parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("changed_decisions"));
    setAttribute(Qt::WA_OpaquePaintEvent);
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Preferred);
    setMinimumHeight(kHeaderHeight + kTileHeight);
    installPaintingExportMenu(
        this, [this] { return QSize(width(), heightForWidth(width())); },
        [this](QPainter& painter) { paintGallery(painter, width()); }, this);
}

void GalleryView::setComparison(const ComparisonView& view)
{
    m_view = view;
    setMinimumHeight(heightForWidth(std::max(width(), kTileWidth + 2 * kSpacing)));
    updateGeometry();
    update();
}

void GalleryView::clear()
{
    setComparison(ComparisonView{});
}

QFont GalleryView::headerFont()
{
    return QFont("sans", 8, QFont::Bold);
}

int GalleryView::headerHeightFor(int width) const
{
    const QFontMetrics metrics(headerFont());
    const int text = metrics
                         .boundingRect(QRect(0, 0, std::max(1, width - 2 * kSpacing), 10000),
                                       Qt::AlignLeft | Qt::TextWordWrap, header())
                         .height();
    return std::max(kHeaderHeight, text + 6);
}

QString GalleryView::header() const
{
    if (m_view.classNames.isEmpty())
        return tr("Changed decisions: run an image experiment with \"ours\"");
    if (m_view.changed.isEmpty())
        return tr("%1: the correction changed no test decision").arg(m_view.title());
    return tr("%1: %2 of %3 test decisions changed (%4 shown) · left bars %5, right %6 · green frame: now right, "
              "red: now wrong")
        .arg(m_view.title())
        .arg(m_view.changedCount)
        .arg(m_view.testCount)
        .arg(m_view.changed.size())
        .arg(m_view.uncorrectedLabel, m_view.correctedLabel);
}

QString GalleryView::caption(int item) const
{
    const auto& it = m_view.changed.at(item);
    return tr("#%1 true %2: %3 %4 -> %5 %6")
        .arg(it.index)
        .arg(nameOf(m_view.classNames, it.label), m_view.uncorrectedLabel, nameOf(m_view.decisionNames, it.before),
             m_view.correctedLabel, nameOf(m_view.decisionNames, it.after));
}

int GalleryView::columnsFor(int width) const
{
    return std::max(1, (width - kSpacing) / (kTileWidth + kSpacing));
}

int GalleryView::heightForWidth(int width) const
{
    const int n = static_cast<int>(m_view.changed.size());
    const int rows = n == 0 ? 0 : (n + columnsFor(width) - 1) / columnsFor(width);
    return headerHeightFor(width) + rows * (kTileHeight + kSpacing) + kSpacing;
}

QSize GalleryView::sizeHint() const
{
    return QSize(4 * (kTileWidth + kSpacing) + kSpacing, heightForWidth(4 * (kTileWidth + kSpacing) + kSpacing));
}

void GalleryView::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    const int h = heightForWidth(width());
    if (minimumHeight() != h)
        setMinimumHeight(h);
}

void GalleryView::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    paintGallery(painter, width());
}

void GalleryView::paintGallery(QPainter& painter, int width) const
{
    painter.save();
    painter.fillRect(QRect(0, 0, width, heightForWidth(width)), Qt::white);
    painter.setRenderHint(QPainter::Antialiasing, false);
    painter.setFont(headerFont());
    painter.setPen(QColor(30, 30, 30));
    // Wrapped, not cut: the header is the gallery's legend (which bars are which, what
    // the frames mean), and a narrow dock at 1920 x 1080 cut it after the counts.
    painter.drawText(QRect(kSpacing, 0, width - 2 * kSpacing, headerHeightFor(width)),
                     Qt::AlignVCenter | Qt::AlignLeft | Qt::TextWordWrap, header());
    const int columns = columnsFor(width);
    const QColor beforeColour = methodColourOf(m_view.uncorrectedMethod);
    const QFont small("sans", 7);
    const QFont smallBold("sans", 7, QFont::Bold);
    for (int i = 0; i < m_view.changed.size(); ++i) {
        const auto& item = m_view.changed[i];
        const QRect tile(kSpacing + (i % columns) * (kTileWidth + kSpacing),
                         headerHeightFor(width) + (i / columns) * (kTileHeight + kSpacing), kTileWidth, kTileHeight);
        const bool nowRight = item.after == item.label, wasRight = item.before == item.label;
        const QColor frame = nowRight && !wasRight ? QColor(44, 160, 44)
                             : wasRight && !nowRight ? QColor(214, 39, 40)
                                                     : QColor(170, 170, 170);
        painter.setPen(QPen(frame, 2));
        painter.setBrush(QColor(250, 250, 250));
        painter.drawRect(tile.adjusted(1, 1, -1, -1));
        // The image, scaled by whole pixels so digits and garments stay crisp.
        const QRect imageRect(tile.left() + 6, tile.top() + 6, 64, 64);
        if (!item.image.isNull())
            painter.drawImage(imageRect, item.image.scaled(64, 64, Qt::KeepAspectRatio, Qt::FastTransformation));
        else
            painter.fillRect(imageRect, QColor(225, 225, 225));
        // Text: index, true class, both decisions with their probabilities.
        const int tx = imageRect.right() + 8, tw = tile.right() - tx - 4;
        auto prob = [](const QVector<float>& p, int k) { return k >= 0 && k < p.size() ? p[k] : -1.0f; };
        auto line = [&](int row, const QString& label, const QString& value, const QColor& colour, bool bold) {
            painter.setFont(small);
            painter.setPen(QColor(90, 90, 90));
            painter.drawText(QRect(tx, tile.top() + 6 + 15 * row, kLabelWidth, 14), Qt::AlignLeft | Qt::AlignVCenter, label);
            painter.setFont(bold ? smallBold : small);
            painter.setPen(colour);
            painter.drawText(QRect(tx + kLabelWidth, tile.top() + 6 + 15 * row, tw - kLabelWidth, 14),
                             Qt::AlignLeft | Qt::AlignVCenter,
                             painter.fontMetrics().elidedText(value, Qt::ElideRight, tw - kLabelWidth));
        };
        auto withProb = [&](int decision, const QVector<float>& p) {
            const float v = prob(p, decision);
            return nameOf(m_view.decisionNames, decision) + (v >= 0 ? QStringLiteral(" %1").arg(v, 0, 'f', 2) : QString());
        };
        line(0, tr("test"), QStringLiteral("#%1").arg(item.index), QColor(90, 90, 90), false);
        line(1, tr("true"), nameOf(m_view.classNames, item.label), QColor(20, 20, 20), true);
        line(2, tr("before"), withProb(item.before, item.probsBefore), beforeColour.darker(130), false);
        line(3, tr("after"), withProb(item.after, item.probsAfter), afterColour().darker(130), true);
        // Probabilities of every class: before and after side by side, each in its method's colour.
        const int classes = static_cast<int>(std::max(item.probsBefore.size(), item.probsAfter.size()));
        if (classes == 0)
            continue;
        const QRect bars(tile.left() + 6, tile.top() + 76, tile.width() - 12, tile.height() - 82);
        painter.setPen(QColor(200, 200, 200));
        painter.drawLine(bars.bottomLeft(), bars.bottomRight());
        const double slot = double(bars.width()) / classes;
        for (int k = 0; k < classes; ++k) {
            const double x0 = bars.left() + k * slot;
            const double w = std::max(1.0, slot / 2 - 1);
            const double hb = bars.height() * std::clamp<double>(prob(item.probsBefore, k), 0, 1);
            const double ha = bars.height() * std::clamp<double>(prob(item.probsAfter, k), 0, 1);
            painter.fillRect(QRectF(x0 + 1, bars.bottom() - hb, w, hb), beforeColour);
            painter.fillRect(QRectF(x0 + 1 + w, bars.bottom() - ha, w, ha), afterColour());
            if (k == item.label) {
                painter.setPen(QPen(QColor(20, 20, 20), 1, Qt::DotLine));
                painter.setBrush(Qt::NoBrush);
                painter.drawRect(QRectF(x0, bars.top(), slot - 1, bars.height()));
            }
        }
    }
    painter.restore();
}

} // namespace lcs::ui
