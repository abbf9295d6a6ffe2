#include "method_style.h"

#include "inference/method_catalog.h"

namespace lcs::ui {

QString methodLabelOf(const QString& id)
{
    const auto* m = findMethodInfo(id.toStdString());
    return m ? QString::fromStdString(m->label) : id;
}

QColor methodColourOf(const QString& id)
{
    const auto* m = findMethodInfo(id.toStdString());
    return m ? QColor(QString::fromStdString(m->colour)) : QColor(60, 60, 60);
}

} // namespace lcs::ui
