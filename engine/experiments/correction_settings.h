#pragma once

#include <string>

#include "base/core/settings.h"
#include "engine/decision/correction_evidence.h"

/// The settings every experiment with a correction declares alike, each in one place:
/// how the run chooses between q and the uncorrected decisions, and q's form. The
/// experiments bind them to their own configuration fields.
namespace lcs {

/// `select`: cv, validation, clear or none (selectionNames), defaulting to `defaultRule`.
SettingSpec selectionSettingSpec(Selection defaultRule);
/// `folds`: the cross-validation's folds (0 chooses: five, fewer where a class has fewer
/// validation rows).
SettingSpec foldsSettingSpec();

/// `q_form`: "standalone" (the paper's q, a network on the inputs alone) or "residual"
/// (q = P x exp(f(x)), which needs P where it decides).
SettingSpec qFormSettingSpec(bool residualByDefault);
const char* qFormName(bool residual);
/// True for "residual"; the setting's choices have been checked before this is called.
bool qFormIsResidual(const std::string& name);

} // namespace lcs
