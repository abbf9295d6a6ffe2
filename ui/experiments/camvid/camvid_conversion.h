#pragma once

#include <QVector>

#include "ui/experiments/camvid/camvid_types.h"
#include "ui/job_runner.h"

/// The CamVid page's side of the job runner: the run's views (data checked, previews of
/// the networks as they train, the evaluated frames, S against q, frames per second, an
/// opened model folder) and its epoch points as the values the CamVid views draw,
/// converted on the job's thread. Frames and epoch points go out in batches; of the
/// previews only a network's latest, at most about 10 a second. Never included by a
/// moc'd header.
namespace lcs::ui {

class CamvidViewAdapter : public ViewAdapter {
public:
    void begin(JobKind job, const JobRequest& request) override;
    void show(const ViewEvent& event, const ViewSink& sink) override;
    void collect(const Progress& report) override;
    void flush(const ViewSink& sink) override;

private:
    /// Appended to every epoch point's series (", re-corrected" in a re-correction).
    QString m_suffix;
    QVector<CamvidEpochPoint> m_epochs;
    QVector<CamvidFrameView> m_frames;
    CamvidPreviewView m_preview;
    bool m_hasPreview = false;
};

} // namespace lcs::ui
