#include "experiments/correction_settings.h"

namespace lcs {

SettingSpec selectionSettingSpec(Selection defaultRule)
{
    return choiceSetting("select", "RULE",
                         "validation: use the uncorrected decisions where q's validation cost is above theirs; "
                         "clear: keep q only where its validation cost is lower beyond the paired 95% interval; "
                         "none: keep q",
                         selectionName(defaultRule), selectionNames());
}

SettingSpec qFormSettingSpec(bool residualByDefault)
{
    return choiceSetting("q_form", "FORM",
                         "standalone: the paper's q, a network on the inputs alone distilled from the predictive "
                         "first; residual: q = P x exp(f(x)), starting as P everywhere, needs P where it decides",
                         qFormName(residualByDefault), {"standalone", "residual"});
}

const char* qFormName(bool residual)
{
    return residual ? "residual" : "standalone";
}

bool qFormIsResidual(const std::string& name)
{
    return name == "residual";
}

} // namespace lcs
