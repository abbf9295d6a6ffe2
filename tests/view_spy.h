#pragma once

#include <QList>
#include <QVariant>

#include "ui/job_runner.h"

/// The views of type T a JobRunner sends, recorded as QSignalSpy records a signal's
/// arguments (each entry a one-element list holding the value), so a test reads them
/// the same way: count(), wait()-free checks, first().at(0).value<T>().
template <class T>
class ViewSpy : public QList<QList<QVariant>> {
public:
    explicit ViewSpy(lcs::ui::JobRunner* runner)
        : m_connection(lcs::ui::onView<T>(runner, runner, [this](const T& value) {
              append(QList<QVariant>{QVariant::fromValue(value)});
          }))
    {
    }
    ~ViewSpy() { QObject::disconnect(m_connection); }
    ViewSpy(const ViewSpy&) = delete;
    ViewSpy& operator=(const ViewSpy&) = delete;

private:
    QMetaObject::Connection m_connection;
};
