#include "base/core/atomic_file.h"

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

#include "base/core/input_error.h"
#include "base/core/number_format.h"

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

namespace {

/// Writes `contents` to the new file `tmp` and flushes it to disk (so a crash cannot
/// leave a renamed empty file); on failure removes `tmp` and throws OutputError naming
/// `path`, the output it stands for.
void writeSynced(const std::string& tmp, const std::string& path, const std::string& contents)
{
    auto fail = [&](const std::string& what, int error) {
        discardTemporary(tmp);
        throw OutputError("cannot write " + path + ": " + what + (error ? ": " + errnoText(error) : std::string()));
    };
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
    if (::fsync(file.fd) != 0)
        fail("flush failed", errno);
    const int fd = file.fd;
    file.fd = -1;
    if (::close(fd) != 0)
        fail("close failed", errno);
}

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

namespace {

/// One move of a commit: `from` renamed to `to`; where `to` existed, `backup` is a hard
/// link to its old contents (empty where the file system has none), so the move can be
/// undone.
struct Move {
    std::string from, to, backup;
    bool existed = false;
    bool folder = false;  ///< a whole staging folder renamed to a folder that did not exist
    bool done = false;
    bool keepBackup = false;  ///< its restore failed: the backup holds the only old copy
};

/// Undoes the moves made, last first: an old file comes back from its backup, a new
/// one (or a new folder, back to its staging name) goes. Returns what could not be put
/// back; such a file's backup is kept (and named), never removed. Never throws.
std::vector<std::string> undoMoves(std::vector<Move>& moves) noexcept
{
    std::vector<std::string> notRestored;
    for (auto it = moves.rbegin(); it != moves.rend(); ++it) {
        if (!it->done)
            continue;
        it->done = false;
        if (it->folder) {
            if (std::rename(it->to.c_str(), it->from.c_str()) != 0)
                notRestored.push_back(it->to);
        } else if (it->existed) {
            if (std::rename(it->backup.c_str(), it->to.c_str()) == 0) {
                it->backup.clear();  // it is the target again
            } else {
                it->keepBackup = true;
                notRestored.push_back(it->to + " (its old contents are in " + it->backup + ")");
            }
        } else {
            std::remove(it->to.c_str());
        }
    }
    return notRestored;
}

/// A copy of `path` at `backup`, for file systems without hard links; false on failure
/// (nothing left at `backup`).
bool copyAsBackup(const std::string& path, const std::string& backup) noexcept
{
    std::error_code ec;
    if (std::filesystem::copy_file(path, backup, ec) && !ec)
        return true;
    std::remove(backup.c_str());
    return false;
}

/// Every move, or none: each target is checked (a regular file or nothing; nothing for a
/// folder) and backed up before the first move; a failed move undoes the ones before it.
void moveAllOrNone(std::vector<Move>& moves)
{
    for (auto& m : moves) {
        struct stat info {};
        if (::lstat(m.to.c_str(), &info) != 0)
            continue;
        if (m.folder || !S_ISREG(info.st_mode))
            throw OutputError("cannot write " + m.to + ": it is " +
                              (S_ISDIR(info.st_mode) ? "a folder" : S_ISLNK(info.st_mode) ? "a symbolic link"
                                                                                           : "not a regular file") +
                              ", and is left as it is (no output of the run was written)");
        m.existed = true;
    }
    const auto dropBackups = [&] {
        for (auto& m : moves)
            if (!m.backup.empty() && !m.keepBackup) {
                std::remove(m.backup.c_str());
                m.backup.clear();
            }
    };
    // Every old file kept before anything moves: a hard link (instant), or where the
    // file system has none (FAT, some network mounts) a copy. Without either, nothing moves.
    for (auto& m : moves) {
        if (!m.existed)
            continue;
        m.backup = temporaryPathFor(m.to);
        if (::link(m.to.c_str(), m.backup.c_str()) != 0 && !copyAsBackup(m.to, m.backup)) {
            const int error = errno;
            m.backup.clear();
            dropBackups();
            throw OutputError("cannot write " + m.to + ": cannot keep its old version to put back should the commit "
                              "fail (" + errnoText(error) + "); no output of the run was written");
        }
    }
    for (auto& m : moves) {
        if (std::rename(m.from.c_str(), m.to.c_str()) != 0) {
            const int error = errno;
            const auto notRestored = undoMoves(moves);
            dropBackups();  // all but those holding the only old copy
            std::string what = "cannot write " + m.to + ": " + errnoText(error);
            if (notRestored.empty()) {
                what += "; every output of the run is left as it was";
            } else {
                what += "; could not put back:";
                for (const auto& n : notRestored)
                    what += " " + n;
            }
            throw OutputError(what);
        }
        m.done = true;
    }
    dropBackups();
}

/// The moves that put the files of `staging` into `dir`: the folder itself where `dir`
/// does not exist, else each file.
std::vector<Move> folderMoves(const std::string& staging, const std::string& dir)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    struct stat info {};
    if (::lstat(dir.c_str(), &info) != 0)
        return {Move{staging, dir, {}, false, true, false, false}};
    if (!S_ISDIR(info.st_mode))
        throw OutputError("cannot write " + dir + ": it is not a folder, and is left as it is");
    std::vector<Move> moves;
    for (const auto& entry : fs::directory_iterator(staging, ec)) {
        // Backups a killed commit left beside this file.
        removeStaleTemporaries(dir + "/" + entry.path().filename().string());
        moves.push_back(Move{entry.path().string(), dir + "/" + entry.path().filename().string(), {}, false, false, false, false});
    }
    if (ec)
        throw OutputError("cannot write " + dir + ": " + ec.message());
    return moves;
}

} // namespace

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
    auto moves = folderMoves(m_staging, m_dir);
    moveAllOrNone(moves);
    std::error_code ec;
    std::filesystem::remove(m_staging, ec);  // emptied (or renamed away)
    m_committed = true;
}

OutputSet::~OutputSet()
{
    if (m_committed)
        return;
    for (const auto& [tmp, path] : m_files)
        discardTemporary(tmp);
    std::error_code ec;
    for (const auto& [dir, staging] : m_folders)
        std::filesystem::remove_all(staging, ec);
}

void OutputSet::stageFile(const std::string& path, const std::string& contents)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path target(path);
    const fs::path parent = fs::absolute(target.has_parent_path() ? target.parent_path() : fs::path("."), ec)
                                .lexically_normal();
    for (const auto& [dir, staging] : m_folders) {
        auto folder = fs::absolute(dir, ec).lexically_normal();
        if (!folder.has_filename())
            folder = folder.parent_path();  // "dir/"
        auto within = parent;
        if (!within.has_filename())
            within = within.parent_path();
        if (within == folder) {
            // Written into the staging folder as the folder's own files are, but never
            // over one of them (a results file named like a model would replace it).
            const std::string staged = staging + "/" + target.filename().string();
            if (fs::exists(staged, ec))
                throw OutputError(path + ": the run writes a file of that name into " + dir +
                                  " itself; give this output another name (nothing was written)");
            const std::string tmp = temporaryPathFor(staged);
            writeSynced(tmp, path, contents);  // a failure names the user's path
            commitTemporary(tmp, staged);
            return;
        }
    }
    removeStaleTemporaries(path);
    const std::string tmp = temporaryPathFor(path);
    writeSynced(tmp, path, contents);
    m_files.emplace_back(tmp, path);
}

std::string OutputSet::stageFolder(const std::string& dirIn)
{
    std::string dir = dirIn;
    while (dir.size() > 1 && dir.back() == '/')
        dir.pop_back();
    for (const auto& [target, staging] : m_folders)
        if (target == dir)
            return staging;
    removeStaleTemporaries(dir);
    const std::string staging = temporaryPathFor(dir);
    if (::mkdir(staging.c_str(), 0755) != 0)
        throw OutputError("cannot write " + dir + ": cannot create " + staging + ": " + errnoText(errno));
    m_folders.emplace_back(dir, staging);
    return m_folders.back().second;
}

void OutputSet::commit()
{
    std::vector<Move> moves;
    for (const auto& [tmp, path] : m_files)
        moves.push_back(Move{tmp, path, {}, false, false, false, false});
    for (const auto& [dir, staging] : m_folders) {
        auto more = folderMoves(staging, dir);
        moves.insert(moves.end(), more.begin(), more.end());
    }
    moveAllOrNone(moves);
    std::error_code ec;
    for (const auto& [dir, staging] : m_folders)
        std::filesystem::remove(staging, ec);  // emptied (or renamed away)
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
    writeSynced(tmp, path, contents);
    commitTemporary(tmp, path);
}

std::string readFile(const std::string& path, size_t maxBytes)
{
    if (path == "-")
        throw InputError("\"-\" (standard input) is not read; give a file name");
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
