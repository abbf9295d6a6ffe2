#pragma once

// QCustomPlot's header uses the `signals`, `slots` and `foreach` keywords, which the
// project switches off (QT_NO_KEYWORDS: LibTorch's headers use `slots` as a name).
// Map them for this one header and take them away again.
#define signals Q_SIGNALS
#define slots Q_SLOTS
#define foreach Q_FOREACH
#include <qcustomplot.h>
#undef foreach
#undef slots
#undef signals
