#include "ui/experiments/experiment_page.h"

#include "engine/experiments/experiment.h"

#include <QUndoStack>

#include "base/core/atomic_file.h"
#include "base/core/nearest_names.h"

#include "ui/cost_editor.h"
#include "ui/cost_matrix_model.h"
#include "ui/file_dialogs.h"
#include "ui/plot_export.h"
#include "ui/qcustomplot_compat.h"

namespace lcs::ui {

ExperimentEntry ExperimentEntry::of(const Experiment& experiment)
{
    QString title = QString::fromStdString(experiment.title());
    if (!title.isEmpty())
        title[0] = title[0].toUpper();
    return {QString::fromStdString(experiment.name()), title};
}

ExperimentPage::ExperimentPage(CostMatrixModel* costs, CostEditor* costEditor, QObject* parent)
    : QObject(parent), m_costs(costs), m_costEditor(costEditor)
{
    // A new cost matrix after a run re-runs only the correction, on the cached state.
    // The short delay folds a burst of edits into one job.
    m_recorrectTimer.setSingleShot(true);
    m_recorrectTimer.setInterval(300);
    connect(&m_recorrectTimer, &QTimer::timeout, this, &ExperimentPage::onRecorrectTimer);
    connect(m_costs, &CostMatrixModel::matrixChanged, this, &ExperimentPage::onCostsChanged);
}

ExperimentPage::~ExperimentPage() = default;

bool ExperimentPage::serves(const QString& experiment) const
{
    for (const auto& entry : experiments())
        if (entry.id == experiment)
            return true;
    return false;
}

QString ExperimentPage::experiment() const
{
    if (!m_experiment.isEmpty())
        return m_experiment;
    const auto all = experiments();
    return all.isEmpty() ? QString() : all.front().id;
}

void ExperimentPage::activate(const QString& experiment)
{
    m_experiment = experiment;
    const CostMatrix matrix = m_costsByExperiment.value(experiment, defaultCosts(experiment));
    m_costsChosen = m_chosenByExperiment.value(experiment, false);
    m_costs->undoStack()->clear();
    setCostsQuietly(matrix);
    m_costEditor->setExpectedClasses(matrix.numClasses());
    if (const auto names = presetClassNames())
        m_costs->setPresetClassNames(*names);
    m_active = true;
}

void ExperimentPage::deactivate()
{
    if (m_active) {
        m_costsByExperiment.insert(m_experiment, m_costs->matrix());
        m_chosenByExperiment.insert(m_experiment, m_costsChosen);
    }
    m_active = false;
    m_recorrectTimer.stop();
    m_recorrectPending = false;
}

void ExperimentPage::setCostsQuietly(const CostMatrix& costs)
{
    m_quietCosts = true;
    m_costs->setMatrixDirect(costs);
    m_quietCosts = false;
}

void ExperimentPage::onCostsChanged()
{
    // The window or the page set the matrix (experiment switch, a run's data): not an edit.
    if (!m_active || m_quietCosts)
        return;
    m_costsChosen = true;
    if (canRecorrect())
        m_recorrectTimer.start();
}

void ExperimentPage::onRecorrectTimer()
{
    if (!canRecorrect())
        return;
    if (isBusy()) {
        // The running job ends first; a re-correction for an older matrix is not worth finishing.
        m_recorrectPending = true;
        if (recorrecting())
            cancelJob();
        return;
    }
    recorrect();
}

void ExperimentPage::cancel()
{
    m_recorrectPending = false;
    cancelJob();
}

bool ExperimentPage::takePendingRecorrection()
{
    const bool pending = m_recorrectPending;
    m_recorrectPending = false;
    return pending;
}

void ExperimentPage::setResults(const QString& json, const QString& csv, const QString& name)
{
    m_resultsJson = json;
    m_resultsCsv = csv;
    m_resultsName = name;
}

QStringList ExperimentPage::exportPlots(const QString& dir, int& written) const
{
    QStringList errors;
    // "tabular_kfac_laplace_r9_regions_corrected.png": the experiment, task and plot (the
    // plot's name says the rule: uncorrected, corrected, ...).
    const QString context = plotFileContext();
    for (auto* plot : plots())
        for (const char* format : {"png", "svg", "pdf"}) {
            const QString error =
                exportPlot(plot, dir + "/" + context + "_" + plot->objectName() + "." + format);
            if (error.isEmpty())
                ++written;
            else
                errors << error;
        }
    return errors;
}

void ExperimentPage::exportPlotsAsked(QWidget* dialogParent)
{
    const QString dir = askFolder(dialogParent, tr("Export all plots to"), "exportDir");
    if (dir.isEmpty())
        return;
    const QString error = exportPlotsStaged(dir);
    if (error.isEmpty())
        Q_EMIT logLine(tr("Exported the plots to %1").arg(dir));
    else
        Q_EMIT errorRaised(tr("Export plots"), error);
}

QString ExperimentPage::exportPlotsStaged(const QString& dir) const
{
    // All the files or none: they are written into a staging folder beside `dir` and
    // moved in once every one of them was written.
    try {
        StagedFolder staged(dir.toStdString());
        int written = 0;
        const QStringList errors = exportPlots(QString::fromStdString(staged.path()), written);
        if (!errors.isEmpty())
            return tr("Nothing was written to %1:\n%2").arg(dir, errors.join("\n"));
        if (written == 0)
            return tr("This experiment's page has no plots to export; its results export as JSON or CSV.");
        staged.commit();
    } catch (const std::exception& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

void ExperimentPage::exportResultsAsked(QWidget* dialogParent)
{
    if (m_resultsJson.isEmpty())
        return;
    const QString path = askSavePath(dialogParent, tr("Export results"), "exportDir", m_resultsName + ".json",
                                     tr("JSON (*.json);;CSV (*.csv)"));
    if (path.isEmpty())
        return;
    const QString error = exportResults(path);
    if (error.isEmpty())
        Q_EMIT logLine(tr("Results written to %1").arg(path));
    else
        Q_EMIT errorRaised(tr("Export results"), error);
}

QString ExperimentPage::exportResults(const QString& path) const
{
    if (m_resultsJson.isEmpty())
        return tr("no results yet: run the experiment first");
    // The name says the format, as on the command line: .csv or .json, nothing else.
    const bool csv = path.endsWith(".csv", Qt::CaseInsensitive);
    if (!csv && !path.endsWith(".json", Qt::CaseInsensitive))
        return tr("%1: results are written as JSON or CSV; give a name ending in .json or .csv").arg(path);
    try {
        writeFileAtomically(path.toStdString(), (csv ? m_resultsCsv : m_resultsJson).toStdString());
    } catch (const std::exception& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

void ExperimentPage::exportPaintedView(const std::function<void(QPainter&)>& paint, const QSize& size,
                                       const QString& name, const QString& dir, int& written, QStringList& errors)
{
    for (const char* format : {"png", "svg", "pdf"}) {
        const QString error = exportPainting(paint, size, dir + "/" + name + "." + format, name);
        if (error.isEmpty())
            ++written;
        else
            errors << error;
    }
}

void ExperimentPage::startDemo()
{
    m_demo = true;
    // Settings refused before any job starts end the demo as bad input (exit 2).
    const auto refused = connect(this, &ExperimentPage::errorRaised, this,
                                 [this](const QString& title, const QString& text) {
                                     Q_EMIT demoFailed(2, title + QStringLiteral(": ") + text);
                                 });
    run();
    disconnect(refused);
}

void ExperimentPage::reportDemoFailure(const QString& what, const QString& hint, const QString& message,
                                       bool dataUnavailable)
{
    if (!m_demo)
        return;
    if (dataUnavailable)
        Q_EMIT demoFailed(2, tr("no %1 data for the demo: %2\nlcstudio: %3").arg(what, message, hint));
    else
        Q_EMIT demoFailed(1, tr("demo run failed: %1").arg(message));
}

void ExperimentPage::reportDemoCancelled()
{
    if (m_demo)
        Q_EMIT demoFailed(1, tr("demo run cancelled"));
}

bool ExperimentPage::costsUsable(int classes)
{
    try {
        if (classes > 0)
            m_costs->matrix().validateFor(classes);
        else
            m_costs->matrix().validate();
        return true;
    } catch (const CostMatrixError& e) {
        Q_EMIT errorRaised(tr("Invalid cost matrix"), QString::fromStdString(e.what()));
        return false;
    }
}

CostMatrix ExperimentPage::declaredDefaultCosts(const Experiment& experiment, const nlohmann::json& values) const
{
    const auto declared = experiment.settings();
    try {
        return experiment.defaultCosts(checkedSettings(declared, values, experiment.name()));
    } catch (const std::exception&) {
    }
    try {  // a form that does not parse yet: the declared defaults decide
        return experiment.defaultCosts(checkedSettings(declared, nlohmann::json::object(), experiment.name()));
    } catch (const std::exception&) {
        return m_costs->matrix();
    }
}

bool ExperimentPage::adoptDataClasses(const Experiment& experiment, const nlohmann::json& settings)
{
    try {
        const CostMatrix fromData = experiment.defaultCosts(settings);
        const CostMatrix& current = m_costs->matrix();
        if (fitsClassesOf(current, fromData))
            return true;  // the run uses it as the CLI would
        const auto names = [](const CostMatrix& m) { return QString::fromStdString(nameList(m.classNames(), 12)); };
        // Only a matrix nobody chose (the page's default for other data) or a plain 0/1
        // one is replaced: a matrix a user edited, imported or a session brought is kept
        // until the user says otherwise.
        const bool plainDefault = !current.hasReferral() &&
                                  current.values() == CostMatrix::zeroOne(current.numClasses()).values();
        if (m_costsChosen && !plainDefault) {
            m_offeredCosts = fromData;
            Q_EMIT costsNeedReset(tr("The cost matrix's classes (%1) do not fit the data's (%2). Reset the costs to "
                                     "0/1 over the data's classes and run, or keep your matrix (the run needs one "
                                     "for the data's classes: File > Import Cost Matrix, or edit it).")
                                      .arg(names(current), names(fromData)));
            return false;
        }
        setCostsQuietly(fromData);
        m_costsChosen = false;
        m_costEditor->setExpectedClasses(fromData.numClasses());
        const QString note = tr("Cost matrix: the data's %1 classes (%2), 0/1 costs; edit them, then re-correct")
                                 .arg(fromData.numClasses())
                                 .arg(names(fromData));
        Q_EMIT logLine(note);
        Q_EMIT statusNote(note);
    } catch (const std::exception&) {
        // the run itself reports what is wrong with the settings
    }
    return true;
}

bool ExperimentPage::acceptOfferedCosts()
{
    if (!m_offeredCosts)
        return false;
    const CostMatrix costs = *m_offeredCosts;
    m_offeredCosts.reset();
    setCostsQuietly(costs);
    m_costsChosen = false;
    m_costEditor->setExpectedClasses(costs.numClasses());
    Q_EMIT logLine(tr("Cost matrix reset to 0/1 over the data's %1 classes").arg(costs.numClasses()));
    return true;
}

} // namespace lcs::ui
