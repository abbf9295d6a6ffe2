// A CamVid model folder: its manifest, the checks on loading its networks, and the
// writer `camvid train` fills.
#include "engine/experiments/camvid/camvid_model_folder.h"

#include <cmath>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "base/core/atomic_file.h"
#include "base/core/input_error.h"
#include "base/core/json_input.h"
#include "base/core/number_format.h"

namespace lcs {

namespace {
constexpr const char* kManifest = kCamvidManifestFile;
constexpr const char* kManifestFormat = kCamvidManifestFormat;
} // namespace

CamvidManifest readCamvidManifest(const std::string& dir)
{
    const auto path = dir + "/" + kManifest;
    const auto j = parseJsonInput(readFile(path, 1 << 20), path, JsonLimits{1 << 20, 8});
    const JsonObjectReader r(j, path);
    r.refuseUnknown({"format", "version", "height", "width", "mean", "std", "methods"});
    if (r.stringOr("format", "") != kManifestFormat)
        r.fail("format", std::string("must be \"") + kManifestFormat + "\"");
    r.integer("version", 1, 1);
    CamvidManifest m;
    m.height = static_cast<int>(r.integer("height", 16, kMaxCamvidSide));
    m.width = static_cast<int>(r.integer("width", 16, kMaxCamvidSide));
    for (const char* key : {"mean", "std"}) {
        const auto& v = r.require(key);
        if (!v.is_array() || v.size() != 3)
            r.fail(key, "must hold 3 numbers");
        for (size_t c = 0; c < 3; ++c) {
            // A std below 1e-6 of the [0, 1] pixel range divides the frames into overflow.
            if (!v[c].is_number() || !(v[c].get<double>() >= (std::string(key) == "std" ? 1e-6 : -1.0)) ||
                v[c].get<double>() > 1.0)
                r.fail(key, "holds " + jsonExcerpt(v[c]) + ", not a number in range");
            (std::string(key) == "mean" ? m.norm.mean : m.norm.std)[c] = v[c].get<double>();
        }
    }
    const auto methods = r.object("methods");
    for (auto it = methods.json().begin(); it != methods.json().end(); ++it) {
        const auto& known = camvidMethods();
        if (std::find(known.begin(), known.end(), it.key()) == known.end())
            methods.fail(it.key().substr(0, 40), "is not a CamVid method");
        if (!it.value().is_string() || it.value().get<std::string>().find('/') != std::string::npos ||
            it.value().get<std::string>().size() > 200)
            methods.fail(it.key(), "must be a file name in the model folder");
        m.files[it.key()] = it.value().get<std::string>();
    }
    if (m.files.empty())
        r.fail("methods", "lists no networks");
    return m;
}

void writeCamvidManifest(const std::string& dir, const CamvidManifest& m)
{
    nlohmann::json files = nlohmann::json::object();
    for (const auto& [method, file] : m.files)
        files[method] = file;
    const nlohmann::json manifest = {{"format", kManifestFormat},
                                     {"version", 1},
                                     {"height", m.height},
                                     {"width", m.width},
                                     {"mean", {m.norm.mean[0], m.norm.mean[1], m.norm.mean[2]}},
                                     {"std", {m.norm.std[0], m.norm.std[1], m.norm.std[2]}},
                                     {"methods", files}};
    writeFileAtomically(dir + "/" + kManifest, manifest.dump(2) + "\n");
}

/// Loads the network a manifest lists for `method` and checks it is that method's (by its
/// sidecar), decides the 11 classes on frames of the manifest's size, and standardises
/// its input as the manifest says.
LoadedClassifier loadManifestNetwork(const std::string& dir, const CamvidManifest& manifest, const std::string& method)
{
    const std::string& file = manifest.files.at(method);
    auto loaded = loadClassifier(dir + "/" + file);
    const auto& spec = loaded.spec;
    if (spec.classes != kCamvidRealClasses || spec.inputShape.size() != 3 || spec.inputShape[1] != manifest.height ||
        spec.inputShape[2] != manifest.width)
        throw InputError(dir + "/" + file + ": not an 11-class network for " + std::to_string(manifest.width) + "x" +
                         std::to_string(manifest.height) + " frames");
    if (loaded.info.method != method)
        throw InputError(dir + "/" + kManifest + ": lists " + file + " for method \"" + method + "\", but " + file +
                         ".json says it is \"" + loaded.info.method.substr(0, 40) + "\"");
    if (loaded.info.torchScript) {
        bool same = loaded.info.inputMean.size() == 3 && loaded.info.inputStd.size() == 3;
        for (size_t c = 0; same && c < 3; ++c)
            same = std::abs(loaded.info.inputMean[c] - manifest.norm.mean[c]) <= 1e-9 &&
                   std::abs(loaded.info.inputStd[c] - manifest.norm.std[c]) <= 1e-9;
        if (!same)
            throw InputError(dir + "/" + file + ".json: its input standardisation is not the mean and std of " + dir +
                             "/" + kManifest);
    }
    return loaded;
}

/// The sidecar of a network the CamVid commands save: raw RGB in [0, 1] standardised
/// with the training split's statistics, the 11 real classes.
ModelInfo camvidModelInfo(const std::string& method, const std::string& role, uint64_t seed, const CostMatrix& costs,
                          const CamvidNormalisation& norm, bool collapsed)
{
    ModelInfo info;
    info.experiment = kCamvidExperiment;
    info.method = method;
    info.role = role;
    info.seed = seed;
    info.costs = costs;
    info.collapsed = collapsed;
    info.inputMean.assign(norm.mean.begin(), norm.mean.end());
    info.inputStd.assign(norm.std.begin(), norm.std.end());
    return info;
}

void checkIsDirectory(const std::string& dir, const std::string& what)
{
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec))
        throw InputError(dir + ": no such folder (" + what + ")");
}

/// An output folder, created once the inputs have been read (its parent was checked
/// by the output policy before any work).
void ensureOutputFolder(const std::string& dir, const std::string& what)
{
    std::error_code ec;
    std::filesystem::create_directory(dir, ec);
    if (ec || !std::filesystem::is_directory(dir, ec))
        throw OutputError("cannot create " + dir + " (" + what + ")" + (ec ? ": " + ec.message() : std::string()));
}

CamvidModelFolderWriter::CamvidModelFolderWriter(std::string dir, ModelSpec spec, const CamvidNormalisation& norm,
                                                 uint64_t seed, CostMatrix costs)
    : m_dir(std::move(dir)), m_spec(std::move(spec)), m_norm(norm), m_seed(seed), m_costs(std::move(costs))
{
    if (m_spec.inputShape.size() != 3)
        throw std::invalid_argument("CamvidModelFolderWriter: the networks' input shape is not {3, H, W}");
}

std::string CamvidModelFolderWriter::save(const std::string& method, const ClassifierImpl& net, const std::string& role,
                                          bool collapsed)
{
    const auto path = m_dir + "/" + method + ".pt";
    saveModel(net, m_spec, camvidModelInfo(method, role, m_seed, m_costs, m_norm, collapsed), path);
    m_files[method] = method + ".pt";
    return path;
}

void CamvidModelFolderWriter::finish() const
{
    CamvidManifest manifest;
    manifest.height = static_cast<int>(m_spec.inputShape[1]);
    manifest.width = static_cast<int>(m_spec.inputShape[2]);
    manifest.norm = m_norm;
    manifest.files = m_files;
    writeCamvidManifest(m_dir, manifest);
}

std::string checkCamvidModelFolder(const std::string& dir)
{
    checkIsDirectory(dir, "a CamVid model folder");
    const auto manifest = readCamvidManifest(dir);
    std::string networks;
    for ([[maybe_unused]] const auto& [method, file] : manifest.files) {
        const auto loaded = loadManifestNetwork(dir, manifest, method);
        networks += (networks.empty() ? "" : ", ") + method + " (" + loaded.spec.describe() + ")";
    }
    return "CamVid model folder for " + std::to_string(manifest.width) + "x" + std::to_string(manifest.height) +
           " frames: " + networks + "; every network matches its sidecar";
}

} // namespace lcs
