#pragma once

#include <QCoreApplication>
#include <QStandardPaths>

#include "engine/core/threads.h"

/// What every window test sets up first: one engine thread (the tests run side by side)
/// and QSettings in a throw-away place, so a test never reads or writes a user's.
inline void isolateWindowTest()
{
    lcs::configureThreads(1);
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName("LCStudioTests");
}
