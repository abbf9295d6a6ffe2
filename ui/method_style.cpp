#include "ui/method_style.h"

#include <algorithm>

#include <QObject>
#include <QTableWidgetItem>
#include <QVariant>

#include "base/inference/method_catalog.h"

namespace lcs::ui {

namespace {

constexpr const char* kMethodProperty = "lcsMethod";

bool offers(const MethodInfo& m, const std::string& experiment)
{
    return std::find(m.experiments.begin(), m.experiments.end(), experiment) != m.experiments.end();
}

} // namespace

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

QString methodIn(const QString& id, const QString& experiment)
{
    const std::string e = experiment.toStdString();
    const auto* m = findMethodInfo(id.toStdString());
    if (!m || m->experiments.empty() || offers(*m, e) || !id.endsWith(QLatin1String("_s")))
        return id;
    const QString base = id.chopped(2);
    const auto* b = findMethodInfo(base.toStdString());
    return b && offers(*b, e) ? base : id;
}

void markMethod(QObject* drawn, const QString& id)
{
    drawn->setProperty(kMethodProperty, id);
}

QString markedMethod(const QObject* drawn)
{
    return drawn->property(kMethodProperty).toString();
}

QTableWidgetItem* methodItem(const QString& id, const QString& label)
{
    auto* item = new QTableWidgetItem(label.isEmpty() ? methodLabelOf(id) : label);
    if (!findMethodInfo(id.toStdString()))
        return item;  // not a method (a user's predictive): no colour of its own
    item->setData(kMethodRole, id);
    item->setData(Qt::DecorationRole, methodColourOf(id));  // a swatch: the text stays black and readable
    return item;
}

} // namespace lcs::ui
