#include "engine/experiments/correction_settings.h"

namespace lcs {

SettingSpec selectionSettingSpec(Selection defaultRule)
{
    return choiceSetting("select", "RULE",
                         "cv: keep the rule of P, q and the calibrations of P (temperature, class offsets, Platt, "
                         "isotonic or vector scaling, the cheapest constant decision) with the lowest cost in k-fold "
                         "cross-validation on the validation rows among those that beat P there by more than one "
                         "standard error (else P); cv-min: the lowest cost, unguarded; the older rules choose "
                         "between q and P only: "
                         "validation: the uncorrected decisions where q's validation cost is above theirs; "
                         "clear: q only where its validation cost is lower beyond the paired 95% interval; "
                         "none: q",
                         selectionName(defaultRule), selectionNames());
}

SettingSpec foldsSettingSpec()
{
    auto spec = integerSetting("folds", "K",
                               "folds of the cross-validation that chooses the kept rule (select cv): 0 chooses "
                               "five, fewer where a class has fewer validation rows; K >= 2 is refused where a "
                               "class has fewer than K",
                               0, 0, 100);
    spec.problem = [](const std::string& text) {
        return text == "1" ? std::string("is not 0 (choose) or 2 to 100: cross-validation needs two folds")
                           : std::string();
    };
    return spec;
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
