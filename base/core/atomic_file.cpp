#include "core/atomic_file.h"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <utility>
#include <vector>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/input_error.h"
#include "core/number_format.h"

namespace lcs {

namespace {

std::string errnoText(int error)
{
    return std::strerror(error);
}

/// Closes a descriptor on every path out of a scope.
struct FileDescriptor {
    int fd = -1;
    ~FileDescriptor()
    {
        if (fd >= 0)
            ::close(fd);
    }
};

} // namespace

std::string temporaryPathFor(const std::string& path)
{
    static std::atomic<unsigned> counter{0};
    return path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
}

void commitTemporary(const std::string& tmpPath, const std::string& path)
{
    // A rename replaces whatever is at `path`: a symlink, FIFO or device node would be
    // swapped for a regular file, so only a regular file (or nothing) is replaced.
    struct stat info {};
    if (::lstat(path.c_str(), &info) == 0 && !S_ISREG(info.st_mode)) {
        discardTemporary(tmpPath);
        throw OutputError("cannot write " + path + ": it is " +
                          (S_ISDIR(info.st_mode) ? "a folder" : S_ISLNK(info.st_mode) ? "a symbolic link"
                                                                                       : "not a regular file") +
                          ", and is left as it is");
    }
    if (std::rename(tmpPath.c_str(), path.c_str()) != 0) {
        const int error = errno;
        discardTemporary(tmpPath);
        throw OutputError("cannot replace " + path + ": " + errnoText(error));
    }
}

StagedFolder::StagedFolder(std::string dir) : m_dir(std::move(dir))
{
    while (m_dir.size() > 1 && m_dir.back() == '/')
        m_dir.pop_back();
    removeStaleTemporaries(m_dir);
    m_staging = temporaryPathFor(m_dir);
    if (::mkdir(m_staging.c_str(), 0755) != 0)
        throw OutputError("cannot write " + m_dir + ": cannot create " + m_staging + ": " + errnoText(errno));
}

StagedFolder::~StagedFolder()
{
    if (m_committed)
        return;
    std::error_code ec;
    std::filesystem::remove_all(m_staging, ec);
}

void StagedFolder::commit()
{
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::exists(m_dir, ec)) {
        if (std::rename(m_staging.c_str(), m_dir.c_str()) != 0)
            throw OutputError("cannot write " + m_dir + ": " + errnoText(errno));
        m_committed = true;
        return;
    }
    // An existing folder: each file replaces its namesake atomically, and only regular
    // files are replaced (as writeFileAtomically). Every target is checked before the
    // first one moves, so a folder in the way leaves the destination as it was.
    std::vector<std::pair<fs::path, std::string>> moves;
    for (const auto& entry : fs::directory_iterator(m_staging, ec)) {
        const std::string target = m_dir + "/" + entry.path().filename().string();
        struct stat info {};
        if (::lstat(target.c_str(), &info) == 0 && !S_ISREG(info.st_mode))
            throw OutputError("cannot write " + target + ": it is not a regular file, and is left as it is");
        moves.emplace_back(entry.path(), target);
    }
    if (ec)
        throw OutputError("cannot write " + m_dir + ": " + ec.message());
    for (const auto& [from, target] : moves)
        if (std::rename(from.c_str(), target.c_str()) != 0)
            throw OutputError("cannot write " + target + ": " + errnoText(errno));
    fs::remove(m_staging, ec);
    m_committed = true;
}

void discardTemporary(const std::string& tmpPath) noexcept
{
    std::remove(tmpPath.c_str());
}

void removeStaleTemporaries(const std::string& path) noexcept
{
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path target(path);
    const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
    const std::string prefix = target.filename().string() + ".tmp.";
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.compare(0, prefix.size(), prefix) != 0)
            continue;
        const std::string rest = name.substr(prefix.size());
        const auto dot = rest.find('.');
        const auto pid = parseInteger(rest.substr(0, dot), 1, 1LL << 31);
        if (!pid || dot == std::string::npos)
            continue;
        // Only those of processes that are gone: a concurrent writer's are its own. A
        // staging folder (StagedFolder) goes with its contents.
        if (::kill(static_cast<pid_t>(*pid), 0) != 0 && errno == ESRCH)
            fs::remove_all(it->path(), ec);
    }
}

void writeFileAtomically(const std::string& path, const std::string& contents)
{
    removeStaleTemporaries(path);
    const std::string tmp = temporaryPathFor(path);
    auto fail = [&](const std::string& what, int error) {
        discardTemporary(tmp);
        throw OutputError("cannot write " + path + ": " + what + (error ? ": " + errnoText(error) : std::string()));
    };
    {
        FileDescriptor file;
        file.fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (file.fd < 0)
            throw OutputError("cannot write " + path + ": " + errnoText(errno));
        const char* data = contents.data();
        size_t left = contents.size();
        while (left > 0) {
            const ssize_t n = ::write(file.fd, data, left);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                fail("write failed", n < 0 ? errno : 0);
            data += n;
            left -= static_cast<size_t>(n);
        }
        // Data on disk before the rename, so a crash cannot leave a renamed empty file.
        if (::fsync(file.fd) != 0)
            fail("flush failed", errno);
        const int fd = file.fd;
        file.fd = -1;
        if (::close(fd) != 0)
            fail("close failed", errno);
    }
    commitTemporary(tmp, path);
}

std::string readFile(const std::string& path, size_t maxBytes)
{
    struct stat info {};
    if (::stat(path.c_str(), &info) != 0)
        throw InputError("cannot open " + path + ": " + errnoText(errno));
    if (!S_ISREG(info.st_mode))
        throw InputError(path + ": not a regular file");
    if (static_cast<unsigned long long>(info.st_size) > maxBytes)
        throw InputError(path + ": " + std::to_string(info.st_size) + " bytes; at most " + std::to_string(maxBytes)
                         + " are read");
    FileDescriptor file;
    file.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (file.fd < 0)
        throw InputError("cannot open " + path + ": " + errnoText(errno));
    std::string out;
    char buffer[1 << 16];
    for (;;) {
        const ssize_t n = ::read(file.fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            throw InputError("cannot read " + path + ": " + errnoText(errno));
        if (n == 0)
            break;
        out.append(buffer, static_cast<size_t>(n));
        // The file may grow after stat: the cap holds for what is read.
        if (out.size() > maxBytes)
            throw InputError(path + ": larger than " + std::to_string(maxBytes) + " bytes");
    }
    return out;
}

} // namespace lcs
