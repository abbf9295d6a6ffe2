#include "io/model_io.h"

#include <fstream>
#include <stdexcept>

#include <nlohmann/json.hpp>
#include <torch/serialize.h>

#include "core/atomic_file.h"

namespace lcs {

std::string modelInfoToJson(const ModelInfo& info)
{
    nlohmann::json j;
    j["format"] = "lcstudio-model";
    j["version"] = 1;
    j["role"] = info.role;
    j["experiment"] = info.experiment;
    j["method"] = info.method;
    j["replicate"] = info.replicate;
    j["seed"] = info.seed;
    j["architecture"] = {{"type", "mlp"}, {"inputs", info.inputs}, {"hidden", info.hidden},
                         {"classes", info.classes}, {"activation", "relu"}};
    j["class_names"] = info.costs.empty() ? nlohmann::json::array() : nlohmann::json(info.costs.classNames());
    if (!info.costs.empty()) {
        j["cost_matrix"] = nlohmann::json::parse(costMatrixToJson(info.costs));
        j["preset"] = info.costs.name();
    }
    return j.dump(2) + "\n";
}

ModelInfo modelInfoFromJson(const std::string& text, const std::string& source)
{
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
        throw std::runtime_error(source + ": not valid JSON (" + e.what() + ")");
    }
    auto need = [&](const nlohmann::json& obj, const char* key, const std::string& where) -> const nlohmann::json& {
        if (!obj.contains(key))
            throw std::runtime_error(source + ": missing field \"" + where + key + "\"");
        return obj[key];
    };
    if (j.value("format", "") != "lcstudio-model")
        throw std::runtime_error(source + ": field \"format\" must be \"lcstudio-model\"");
    ModelInfo info;
    try {
        info.role = j.value("role", "");
        info.experiment = j.value("experiment", "");
        info.method = j.value("method", "");
        info.replicate = j.value("replicate", -1);
        info.seed = j.value("seed", 0ULL);
        const auto& arch = need(j, "architecture", "");
        if (need(arch, "type", "architecture.").get<std::string>() != "mlp")
            throw std::runtime_error(source + ": field \"architecture.type\" is not \"mlp\"");
        info.inputs = need(arch, "inputs", "architecture.").get<int64_t>();
        info.hidden = need(arch, "hidden", "architecture.").get<std::vector<int64_t>>();
        info.classes = need(arch, "classes", "architecture.").get<int64_t>();
    } catch (const nlohmann::json::exception& e) {
        throw std::runtime_error(source + ": bad field type (" + e.what() + ")");
    }
    if (info.inputs < 1 || info.classes < 1)
        throw std::runtime_error(source + ": architecture needs positive inputs and classes");
    if (j.contains("cost_matrix"))
        info.costs = costMatrixFromJson(j["cost_matrix"].dump(), source + " (cost_matrix)");
    return info;
}

void saveMlp(const Mlp& model, const ModelInfo& infoIn, const std::string& path)
{
    ModelInfo info = infoIn;
    info.inputs = model->inputs;
    info.hidden = model->hidden;
    info.classes = model->classes;
    // Weights first: a sidecar must never describe weights that are not there.
    writeAtomicallyWith(path, [&](const std::string& tmp) {
        torch::serialize::OutputArchive archive;
        model->save(archive);
        archive.save_to(tmp);
    });
    writeFileAtomically(path + ".json", modelInfoToJson(info));
}

LoadedMlp loadMlp(const std::string& path)
{
    const std::string sidecar = path + ".json";
    LoadedMlp out;
    out.info = modelInfoFromJson(readFile(sidecar), sidecar);
    out.model = Mlp(out.info.inputs, out.info.hidden, out.info.classes);
    // InputArchive replaces tensors wholesale (set_), so a file of another shape would load
    // "successfully"; compare against the architecture the sidecar promises.
    std::vector<std::pair<std::string, std::vector<int64_t>>> expected;
    for (const auto& item : out.model->named_parameters())
        expected.emplace_back(item.key(), item.value().sizes().vec());
    try {
        torch::serialize::InputArchive archive;
        archive.load_from(path);
        out.model->load(archive);
    } catch (const c10::Error& e) {
        throw std::runtime_error(path + ": cannot load weights for the architecture in " + sidecar + " ("
                                 + e.what_without_backtrace() + ")");
    }
    for (const auto& [name, sizes] : expected) {
        const auto actual = out.model->named_parameters()[name].sizes().vec();
        if (actual != sizes)
            throw std::runtime_error(path + ": weight \"" + name + "\" has shape " + c10::str(c10::IntArrayRef(actual))
                                     + " but " + sidecar + " describes " + c10::str(c10::IntArrayRef(sizes)));
    }
    out.model->eval();
    return out;
}

} // namespace lcs
