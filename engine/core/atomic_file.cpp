#include "core/atomic_file.h"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <unistd.h>

namespace lcs {

std::string temporaryPathFor(const std::string& path)
{
    static std::atomic<unsigned> counter{0};
    return path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
}

void commitTemporary(const std::string& tmpPath, const std::string& path)
{
    if (std::rename(tmpPath.c_str(), path.c_str()) != 0)
        throw std::runtime_error("cannot replace " + path + ": " + std::strerror(errno));
}

void discardTemporary(const std::string& tmpPath) noexcept
{
    std::remove(tmpPath.c_str());
}

void writeFileAtomically(const std::string& path, const std::string& contents)
{
    writeAtomicallyWith(path, [&](const std::string& tmp) {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out)
            throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
        out << contents;
        out.flush();
        if (!out)
            throw std::runtime_error("cannot write " + path + ": write failed");
    });
}

std::string readFile(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw std::runtime_error("cannot open " + path + ": " + std::strerror(errno));
    std::ostringstream buffer;
    buffer << in.rdbuf();
    return buffer.str();
}

} // namespace lcs
