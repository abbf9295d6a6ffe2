// lcstudio-cli decide: Bayes decisions from a saved network at given points.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "app/cli_commands.h"
#include "app/cli_flags.h"
#include "app/cli_support.h"
#include "base/core/input_error.h"
#include "base/core/number_format.h"
#include "base/io/table_csv.h"
#include "base/io/tabular_csv.h"
#include "base/models/architectures.h"
#include "engine/calibration/own_predictive.h"
#include "engine/decision/decisions.h"
#include "engine/io/model_io.h"

namespace cli {
namespace {

const char* kDecideHelp = R"(lcstudio-cli decide - Bayes decisions from a saved network

Options:
  --model FILE        a network saved by --save-models or by LC Studio (FILE.json beside it):
                      q, S, a MAP or CW-SGD network, an MLP or ResNet-18 on images
  --points FILE       CSV of input rows (one input per line, comma-separated features;
                      a non-numeric first line is taken as a header); an image is one row
                      of its C*H*W raw pixel values in [0, 1], in C order. A network of a
                      table with text (categorical) columns reads the columns by the
                      header's names, as in training; a category it never saw is an error
  --point X,Y,...     one input point (repeatable; the table's cells in column order)
  --costs FILE        decide under this matrix instead of the one saved with the model
  --predictive FILE   the predictive P at each point (.npy or .csv, one row of class
                      probabilities per point): required by a residual q, which corrects
                      P (and first calibrates it where it was trained on a calibrated P),
                      and by correct's kept_rule.pt (P, q or a calibration of P)
  -h, --help          this text
Prints one line per point: the features, the class probabilities and the decision.
)";


/// The rows `decide` was given, as the network's inputs, and each row as it was given
/// (a table's cells) where that differs from the numbers.
struct DecidePoints {
    std::vector<std::vector<double>> rows;
    std::vector<std::string> shown;  ///< empty for numeric inputs (printed from `rows`)
};

/// Rows of a table with categorical columns: read by the sidecar's column names and
/// encoded as training encoded them.
DecidePoints encodedPoints(const std::vector<lcs::InputColumn>& columns, const std::vector<std::string>& pointFlags,
                           const std::string& pointsPath, const std::string& modelPath)
{
    DecidePoints out;
    std::vector<double> encoded;
    auto encode = [&](const std::vector<std::string>& cells, const std::string& where) {
        std::string shown;
        for (const auto& c : cells)
            shown += (shown.empty() ? "" : ",") + lcs::csvText(c);
        lcs::appendEncodedRow(columns, cells, where, encoded);
        out.rows.emplace_back(encoded.begin(), encoded.end());
        encoded.clear();
        out.shown.push_back(shown);
    };
    for (const auto& value : pointFlags) {
        std::vector<std::string> cells;
        for (const auto& c : lcs::splitCsvLine(value))
            cells.push_back(lcs::trimmedField(c));
        encode(cells, "--point " + value.substr(0, 80));
    }
    if (pointsPath.empty())
        return out;
    std::vector<size_t> at;  // the file's column of each of the model's columns
    lcs::forEachCsvRow(lcs::readFile(pointsPath, size_t{256} << 20), [&](size_t line, const std::vector<std::string>& fields) {
        if (out.rows.size() >= (size_t{1} << 22))
            throw lcs::InputError(pointsPath + ": more than " + std::to_string(size_t{1} << 22) + " rows");
        if (at.empty()) {
            for (const auto& column : columns) {
                size_t c = 0;
                while (c < fields.size() && lcs::trimmedField(fields[c]) != column.name)
                    ++c;
                if (c == fields.size())
                    throw lcs::InputError(pointsPath + " line " + std::to_string(line) + ": no column named \"" +
                                          column.name.substr(0, 40) + "\"; " + modelPath +
                                          " reads its rows by the header's names (the training table's)");
                at.push_back(c);
            }
            return;
        }
        std::vector<std::string> cells;
        for (size_t c : at) {
            if (c >= fields.size())
                throw lcs::InputError(pointsPath + " line " + std::to_string(line) + ": " +
                                      std::to_string(fields.size()) + " columns, fewer than the header's");
            cells.push_back(lcs::trimmedField(fields[c]));
        }
        encode(cells, pointsPath + " line " + std::to_string(line));
    }, pointsPath);
    return out;
}

/// Numeric rows: --point X,Y,... and a headed numeric CSV.
DecidePoints numericPoints(const std::vector<std::string>& pointFlags, const std::string& pointsPath)
{
    DecidePoints out;
    for (const auto& value : pointFlags)
        out.rows.push_back(parseNumbers("--point", value));
    if (!pointsPath.empty()) {
        const auto table = lcs::parseNumericCsv(lcs::readFile(pointsPath, size_t{256} << 20), pointsPath,
                                                size_t{64} << 20);
        const auto columnCount = static_cast<size_t>(table.values.dim(1));
        for (size_t i = 0; i < table.values.values.size(); i += columnCount)
            out.rows.emplace_back(table.values.values.begin() + static_cast<std::ptrdiff_t>(i),
                                  table.values.values.begin() + static_cast<std::ptrdiff_t>(i + columnCount));
    }
    return out;
}

/// The matrix `decide` decides under: --costs, else the sidecar's; it must fit the network.
lcs::CostMatrix decideCosts(const lcs::LoadedClassifier& loaded, const std::string& modelPath,
                            const std::string& costsPath)
{
    lcs::CostMatrix costs = loaded.info.costs;
    if (!costsPath.empty())
        costs = lcs::loadCostMatrix(costsPath);
    if (costs.empty())
        throw UsageError("decide: " + modelPath + ".json has no cost matrix; pass --costs FILE");
    if (costs.numClasses() != loaded.info.classes)
        throw UsageError((costsPath.empty() ? modelPath + ".json: its cost matrix" : "--costs " + costsPath) +
                         " has " + std::to_string(costs.numClasses()) + " classes, the network " + modelPath +
                         " decides " + std::to_string(loaded.info.classes));
    return costs;
}

/// The rows as one input tensor [N, *inputDims], each row checked for its width and the
/// float range.
torch::Tensor decideInputs(const std::vector<std::vector<double>>& rows, const std::vector<int64_t>& inputDims)
{
    int64_t features = 1;
    for (auto d : inputDims)
        features *= d;
    std::vector<float> flat;
    for (size_t i = 0; i < rows.size(); ++i) {
        if (static_cast<int64_t>(rows[i].size()) != features)
            throw UsageError("decide: point " + std::to_string(i + 1) + " has " + std::to_string(rows[i].size()) +
                             " features, the model takes " + std::to_string(features));
        for (double v : rows[i])
            if (std::abs(v) > std::numeric_limits<float>::max())
                throw UsageError("decide: point " + std::to_string(i + 1) + ": " + lcs::formatNumber(v) +
                                 " is beyond the network's float range");
        flat.insert(flat.end(), rows[i].begin(), rows[i].end());
    }
    std::vector<int64_t> shape{static_cast<int64_t>(rows.size())};
    shape.insert(shape.end(), inputDims.begin(), inputDims.end());
    return torch::tensor(flat).reshape(shape);
}

/// One CSV line per row: the row as given, each class's probability, the decision.
void printDecisions(const DecidePoints& points, const torch::Tensor& probs, const lcs::CostMatrix& costs)
{
    auto decisions = lcs::bayesDecisions(probs, lcs::costTensor(costs));
    const auto probsCpu = probs.to(torch::kDouble).contiguous();
    const double* p = probsCpu.data_ptr<double>();
    for (size_t i = 0; i < points.rows.size(); ++i) {
        std::string row = points.shown.empty() ? std::string() : points.shown[i] + ",";
        if (points.shown.empty())
            for (double v : points.rows[i])
                row += lcs::formatNumber(v) + ",";
        for (int64_t c = 0; c < probs.size(1); ++c)
            row += lcs::formatNumber(p[static_cast<int64_t>(i) * probs.size(1) + c]) + ",";
        row += costs.decisionName(static_cast<int>(decisions[i].item<int64_t>()));
        std::puts(row.c_str());
    }
}


/// The predictive a residual q corrects at `decide`'s points: one row of `classes`
/// probabilities per point, each non-negative and summing to 1.
torch::Tensor decidePredictive(const std::string& path, size_t points, int64_t classes)
{
    const auto p = lcs::readNumericArray(path, "--predictive", 2, 2, size_t{64} << 20);
    if (p.dim(0) != static_cast<int64_t>(points) || p.dim(1) != classes)
        throw lcs::InputError("--predictive " + path + ": " + std::to_string(p.dim(0)) + " x " +
                              std::to_string(p.dim(1)) + ", but there are " + std::to_string(points) +
                              " points and the model has " + std::to_string(classes) + " classes");
    for (int64_t i = 0; i < p.dim(0); ++i) {
        double sum = 0;
        for (int64_t c = 0; c < classes; ++c) {
            const double v = p.values[static_cast<size_t>(i * classes + c)];
            if (!(v >= 0))
                throw lcs::InputError("--predictive " + path + ": row " + std::to_string(i + 1) + ", class " +
                                      std::to_string(c + 1) + ": " + lcs::formatNumber(v) + " is not a probability");
            sum += v;
        }
        if (std::abs(sum - 1) > lcs::kRowSumTolerance)
            throw lcs::InputError("--predictive " + path + ": row " + std::to_string(i + 1) + " sums to " +
                                  lcs::formatNumber(sum) + ", not 1; give probabilities, not logits or scores");
    }
    return torch::tensor(p.values, torch::kDouble).reshape({p.dim(0), classes}).to(torch::kFloat);
}
} // namespace

int runDecideCommand(int argc, char** argv)
{
    const auto parsed = parseFlags(argc, argv, 2, "decide", {},
                                   {{"--model", true}, {"--points", true}, {"--point", true, /*repeatable=*/true},
                                    {"--costs", true}, {"--predictive", true}},
                                   kDecideHelp);
    if (parsed.help) {
        std::fputs(kDecideHelp, stdout);
        return kExitOk;
    }
    auto given = [&](const char* flag) {
        const auto it = parsed.values.find(flag);
        return it == parsed.values.end() ? std::string() : it->second;
    };
    const std::string modelPath = given("--model"), pointsPath = given("--points"), costsPath = given("--costs");
    const std::string predictivePath = given("--predictive");
    if (modelPath.empty())
        throw UsageError("decide: --model FILE is required");
    const auto loaded = lcs::loadClassifier(modelPath);
    const auto pointFlags = parsed.repeated.count("--point") ? parsed.repeated.at("--point") : std::vector<std::string>{};
    const auto points = loaded.info.inputColumns.empty()
                            ? numericPoints(pointFlags, pointsPath)
                            : encodedPoints(loaded.info.inputColumns, pointFlags, pointsPath, modelPath);
    if (points.rows.empty() && !pointsPath.empty())
        throw UsageError("decide: " + pointsPath + " has no data row (at most a header line without numbers)");
    if (points.rows.empty())
        throw UsageError("decide: no points (use --points FILE or --point X,Y)");

    if (lcs::isSegNetArchitecture(loaded.info.architecture))
        throw UsageError("decide: " + modelPath + " is a segmentation network (" + loaded.info.architecture +
                         "); decide on frames with `lcstudio-cli camvid eval`");
    if (loaded.info.residualOnPredictive && predictivePath.empty())
        throw UsageError("decide: " + modelPath + " is a model of the predictive (" +
                         (loaded.info.decisionRule.empty() ? std::string("a residual q")
                                                           : "the kept rule " + loaded.info.decisionRule) +
                         "): it needs P at every point; give it with --predictive FILE (one row of class "
                         "probabilities per point)");
    if (!loaded.info.residualOnPredictive && !predictivePath.empty())
        throw UsageError("decide: " + modelPath + " takes its inputs alone (it is not a model of the predictive); leave out "
                         "--predictive " + predictivePath);
    if (loaded.info.collapsed)
        std::fprintf(stderr, "lcstudio-cli: warning: %s collapsed to one class when it was trained\n",
                     modelPath.c_str());
    const auto costs = decideCosts(loaded, modelPath, costsPath);
    const auto inputs = decideInputs(points.rows, loaded.info.inputDims());
    const auto probs = predictivePath.empty()
                           ? loaded.probabilities(inputs)
                           : loaded.probabilities(inputs, decidePredictive(predictivePath, points.rows.size(),
                                                                           loaded.info.classes));
    // A result that is not finite is an error, never printed as a decision.
    const auto finiteRows = torch::isfinite(probs).all(1);
    for (int64_t i = 0; i < finiteRows.size(0); ++i)
        if (!finiteRows[i].item<bool>())
            throw lcs::InputError("decide: " + modelPath + " gives non-finite probabilities for point " +
                                  std::to_string(i + 1) + " (its weights or the input overflow)");
    printDecisions(points, probs, costs);
    return kExitOk;
}

} // namespace cli
