#pragma once

#include <QTableWidget>
#include <QWidget>

#include "ui/experiments/camvid/camvid_types.h"

class QCustomPlot;

namespace lcs::ui {

class CamvidEpochPlot;
class CamvidFpsPlot;
class CamvidIouPlot;
class CamvidOverlayViewer;

/// Per-class IoU uncorrected vs corrected, with mIoU and decision cost, for the results dock.
class CamvidIouTable : public QTableWidget {
    Q_OBJECT
public:
    explicit CamvidIouTable(QWidget* parent = nullptr);
    void setComparison(const CamvidIouView& view);
    void clearRows();
};

/// The central page of the CamVid experiment: the overlay viewer on top; IoU bars,
/// the live mIoU / cost curves and frames per second below.
class CamvidResultsPage : public QWidget {
    Q_OBJECT
public:
    explicit CamvidResultsPage(QWidget* parent = nullptr);

    /// Clears every view for a new training run.
    void startRun();
    /// Drops the previous re-correction's curve before a new one trains.
    void startRecorrection();

    CamvidOverlayViewer* viewer() const { return m_viewer; }
    CamvidIouPlot* iou() const { return m_iou; }
    CamvidEpochPlot* epochs() const { return m_epochs; }
    CamvidFpsPlot* fps() const { return m_fps; }
    QList<QCustomPlot*> plots() const;

public Q_SLOTS:
    void addEpochPoints(const QVector<lcs::ui::CamvidEpochPoint>& points);
    void startEvaluation(int frames);
    void addFrames(const QVector<lcs::ui::CamvidFrameView>& frames);
    /// A live preview from the running job (the viewer shows it until evaluation).
    void setPreview(const lcs::ui::CamvidPreviewView& preview);
    void setComparison(const lcs::ui::CamvidIouView& view);
    void setFps(const lcs::ui::CamvidFpsView& view);

private:
    CamvidOverlayViewer* m_viewer = nullptr;
    CamvidIouPlot* m_iou = nullptr;
    CamvidEpochPlot* m_epochs = nullptr;
    CamvidFpsPlot* m_fps = nullptr;
};

} // namespace lcs::ui
