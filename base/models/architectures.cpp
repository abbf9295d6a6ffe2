#include "base/models/architectures.h"

namespace lcs {

const std::vector<Architecture>& architectures()
{
    static const std::vector<Architecture> table{
        {"mlp", ArchitectureFamily::Mlp, {}, {}},
        {"resnet18", ArchitectureFamily::ResNet, {}, {}},
        // The paper's SegNet: VGG-16's encoder.
        {"segnet", ArchitectureFamily::SegNet, {64, 128, 256, 512, 512}, {2, 2, 3, 3, 3}},
        // For CPUs: about 1/40 of the full network's multiply-adds per pixel (16k against 650k).
        {"segnet_light", ArchitectureFamily::SegNet, {16, 32, 64, 64}, {1, 1, 2, 2}},
        // The light layout with two convs in every stage (23k multiply-adds per pixel):
        // the cpu preset's network (why: CamvidTrainConfig::preset).
        {"segnet_light2", ArchitectureFamily::SegNet, {16, 32, 64, 64}, {2, 2, 2, 2}},
    };
    return table;
}

const Architecture* findArchitecture(const std::string& name)
{
    for (const auto& a : architectures())
        if (a.name == name)
            return &a;
    return nullptr;
}

bool isSegNetArchitecture(const std::string& name)
{
    const auto* a = findArchitecture(name);
    return a && a->family == ArchitectureFamily::SegNet;
}

std::string architectureNames()
{
    const auto& table = architectures();
    std::string out;
    for (size_t i = 0; i < table.size(); ++i)
        out += (i == 0 ? "" : i + 1 == table.size() ? " or " : ", ") + table[i].name;
    return out;
}

} // namespace lcs
