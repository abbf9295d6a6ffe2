#pragma once

#include <QImage>
#include <QMap>
#include <QWidget>

#include "ui/experiments/camvid/camvid_types.h"
#include "ui/plot_parts.h"

class QCPAxisRect;
class QCPBars;
class QCPGraph;
class QCPLegend;
class QCPTextElement;
class QCustomPlot;
class QComboBox;
class QLabel;
class QPainter;
class QScrollArea;
class QSlider;

/// The CamVid experiment's views: the overlay viewer (a painted widget) and three small
/// controllers around one QCustomPlot each. Data arrives through setters on the GUI
/// thread; every view exports to PNG / SVG / PDF from its right-click menu.
namespace lcs::ui {

/// The CamVid palette colour of a label or decision (0..11; larger values are void's).
QColor camvidClassColour(int label);
/// The 12 class names, void ("Unlabelled") last.
QStringList camvidClassNameList();

/// Labels or decisions (row-major H x W) in the palette's colours, RGB888. A vector of
/// the wrong length gives a null image.
QImage camvidLabelImage(const QVector<quint8>& labels, int width, int height);
/// The overlay on the frame: round((1 - opacity) * frame + opacity * overlay) per
/// channel, RGB888; opacity is clamped to [0, 1]. Null when the sizes differ.
QImage camvidBlend(const QImage& frame, const QImage& overlay, double opacity);
/// Where the two decision rules differ: pure white there, elsewhere the frame darkened
/// to a third (so no unchanged pixel can be white). RGB888; null on a size mismatch.
QImage camvidDifferenceImage(const QImage& frame, const QVector<quint8>& uncorrected,
                             const QVector<quint8>& corrected);

/// The overlay viewer: frame | truth | uncorrected | corrected | difference for one
/// validation frame, the class legend in the CamVid colours, a slider over the frames,
/// the overlay's opacity on the frame, and zoom. A re-correction refills the frames and
/// the viewer stays on the frame the user was looking at.
class CamvidOverlayViewer : public QWidget {
    Q_OBJECT
public:
    enum Panel { FramePanel, TruthPanel, UncorrectedPanel, CorrectedPanel, DifferencePanel, PanelCount };

    explicit CamvidOverlayViewer(QWidget* parent = nullptr);

    /// Drops the frames and any preview; `expected` frames are on their way (the slider's range).
    void clear(int expected = 0);
    void addFrames(const QVector<CamvidFrameView>& frames);
    /// A live preview while a job trains: its frames are shown in place of the evaluated
    /// ones with the same index (the latest preview replaces the previous one) until
    /// clear(). After an epoch of S the corrected and difference panels wait for q.
    void setPreview(const CamvidPreviewView& preview);
    const CamvidPreviewView& preview() const { return m_preview; }
    /// True when the panels show the current frame from the preview.
    bool showingPreview() const;
    /// Previews received since construction (tests).
    int previewsReceived() const { return m_previewsReceived; }
    int frameCount() const { return static_cast<int>(m_frames.size()); }
    const CamvidFrameView* frame(int index) const;
    int currentFrame() const { return m_current; }
    void setCurrentFrame(int index);
    double opacity() const { return m_opacity; }
    void setOpacity(double opacity);
    /// 0 fits the panels to the viewer (the default): the largest zoom at which they fit
    /// its width and height, in one row of five, or in two or three rows when that lets
    /// them grow; a fixed zoom lays them out in one row.
    void setZoomPercent(int percent);
    /// Times the panels were recomposed (a refresh the tests can see).
    int refreshes() const { return m_refreshes; }

    /// A panel of the current frame as drawn, at the frame's size (before zoom).
    QImage panelImage(Panel panel) const { return m_panels[panel]; }
    static QString panelTitle(Panel panel);

    /// Paints the panels with their titles and the legend (for the screen and export).
    void paintPanels(QPainter& painter) const;
    QSize panelsSize() const;

    QSlider* frameSlider() const { return m_frameSlider; }
    QSlider* opacitySlider() const { return m_opacitySlider; }

Q_SIGNALS:
    void currentFrameChanged(int index);

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void recompose();
    void fitZoom();
    void updateFrameLabel();
    /// The frame the panels show: the preview's where it has this index, else the evaluated one.
    const CamvidFrameView* shownFrame(int index) const;
    const CamvidFrameView* previewFrame(int index) const;
    int frameTotal() const;

    QVector<CamvidFrameView> m_frames;
    CamvidPreviewView m_preview;
    int m_previewsReceived = 0;
    int m_columns = PanelCount;
    int m_expected = 0;
    int m_current = 0;
    double m_opacity = 0.6;
    int m_zoom = 200;
    bool m_fit = true;
    int m_refreshes = 0;
    QImage m_panels[PanelCount];
    QWidget* m_canvas = nullptr;
    QScrollArea* m_scroll = nullptr;
    QSlider* m_frameSlider = nullptr;
    QSlider* m_opacitySlider = nullptr;
    QComboBox* m_zoomBox = nullptr;
    QLabel* m_frameLabel = nullptr;
};

/// Per-class IoU of the validation frames, uncorrected (S) vs corrected (q), as grouped
/// bars; the title gives mIoU and decision cost of both.
class CamvidIouPlot : public PlotView {
    Q_OBJECT
public:
    explicit CamvidIouPlot(QWidget* parent = nullptr);
    void setComparison(const CamvidIouView& view);
    void clear();

    /// 0 = uncorrected, 1 = corrected. A class with an undefined IoU has no bar.
    QCPBars* bars(int rule) const { return m_bars[rule]; }
    QString title() const;

private:
    QCPAxisRect* m_rect = nullptr;
    QCPTextElement* m_title = nullptr;
    QCPBars* m_bars[2] = {};
};

/// Validation mIoU and decision cost after every epoch of each network, live while the
/// run trains (a re-correction adds its own q curve). CW-SGD and MC dropout on one row
/// of axes; S and q, which start after CW-SGD and count their own epochs, on another.
class CamvidEpochPlot : public PlotView {
    Q_OBJECT
public:
    explicit CamvidEpochPlot(QWidget* parent = nullptr);
    void addEpochPoints(const QVector<CamvidEpochPoint>& points);
    /// Forgets one network's curve (the previous re-correction's, when a new one starts).
    void removeSeries(const QString& series);
    void clear();

    /// panel 0 = mIoU, 1 = cost; null when the series is absent.
    QCPGraph* graph(int panel, const QString& series) const { return m_graphs[panel].value(series); }

private:
    QCPAxisRect* rectFor(int panel, const QString& series) const;
    QCPGraph* graphFor(int panel, const QString& series);
    void rescale();

    QCPLegend* m_legend = nullptr;
    QCPAxisRect* m_rects[2][2] = {};  ///< [CW-SGD's epochs, S and q's epochs][mIoU, cost]
    QMap<QString, QCPGraph*> m_graphs[2];
};

/// Frames per second against ensemble size on log-log axes: the ensemble / MC-dropout
/// predictive with k passes, and q (one pass and a Bayes decision) as a horizontal line.
class CamvidFpsPlot : public PlotView {
    Q_OBJECT
public:
    explicit CamvidFpsPlot(QWidget* parent = nullptr);
    void setFps(const CamvidFpsView& view);
    void clear();

    QCPGraph* ensembleGraph() const { return m_ensemble; }
    QCPGraph* qLine() const { return m_q; }

private:
    /// The ensemble's line in the colour of the network it samples.
    void showEnsembleMethod(const QString& method);
    QCPAxisRect* m_rect = nullptr;
    QCPTextElement* m_title = nullptr;
    QCPGraph* m_ensemble = nullptr;
    QCPGraph* m_q = nullptr;
};

/// Display name, method and colour of a CamVid network series ("sghmc_s" -> "SGHMC +
/// S"); a re-correction's q is the method "ours".
QString camvidSeriesLabel(const QString& series);
QString camvidSeriesMethod(const QString& series);
QColor camvidSeriesColour(const QString& series);

} // namespace lcs::ui
