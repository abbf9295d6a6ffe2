#include "base/core/outputs.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/core/atomic_file.h"
#include "base/core/input_error.h"
#include "base/core/settings.h"

namespace lcs {

std::vector<OutputSpec> resultsOutputs(const std::string& csvHelp)
{
    return {{"json", "FILE", PathKind::File, "write results as JSON (atomically)", "json"},
            {"csv", "FILE", PathKind::File, csvHelp, "csv"}};
}

OutputSpec reliabilityOutput(const std::string& whose)
{
    return {"reliability", "FILE", PathKind::File,
            "write " + whose + ": 15 bins of top-label confidence, count, mean confidence, accuracy) as CSV "
            "(atomically)",
            "csv"};
}

OutputSpec costBenefitOutput(const std::string& when)
{
    return {"cost_benefit", "FILE", PathKind::File,
            "write the cost-benefit curve (cost_benefit_points, 9 when unset" + when +
                ") as CSV (atomically): setting, value, current, method, replicate, rule, cost, referral_rate",
            "csv"};
}

std::string outputFormatProblem(const OutputSpec& spec, const std::string& path)
{
    if (spec.format.empty() || spec.kind != PathKind::File)
        return {};
    const std::string ending = "." + spec.format;
    std::string tail = path.size() >= ending.size() ? path.substr(path.size() - ending.size()) : std::string();
    std::transform(tail.begin(), tail.end(), tail.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (tail == ending)
        return {};
    std::string upper = spec.format;
    std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    return outputFlag(spec) + " " + path + ": this file is written as " + upper + "; give a name ending in " + ending;
}

std::string outputFlag(const OutputSpec& spec)
{
    std::string flag = "--" + spec.name;
    std::replace(flag.begin(), flag.end(), '_', '-');
    return flag;
}

std::string outputsHelp(const std::vector<OutputSpec>& specs)
{
    std::string out;
    for (const auto& s : specs)
        out += helpEntry("  " + outputFlag(s) + " " + s.valueName, s.help);
    return out;
}

namespace {

namespace fs = std::filesystem;

/// lstat without following a final symlink; false when nothing is there.
bool statPath(const std::string& path, struct stat& info)
{
    return ::lstat(path.c_str(), &info) == 0;
}

std::string folderOf(const std::string& path)
{
    const fs::path p(path);
    return p.has_parent_path() ? p.parent_path().string() : std::string(".");
}

/// An absolute, normalised spelling (symlinks in existing parents resolved), for the
/// "inside a folder" tests and for outputs that do not exist yet.
fs::path canonicalSpelling(const std::string& path)
{
    std::error_code ec;
    auto p = fs::weakly_canonical(fs::absolute(path, ec), ec);
    return ec ? fs::path(path).lexically_normal() : p;
}

bool inside(const fs::path& path, const fs::path& folder)
{
    auto p = path.begin();
    for (auto f = folder.begin(); f != folder.end(); ++f, ++p) {
        if (f->empty())
            continue;  // a trailing separator
        if (p == path.end() || *p != *f)
            return false;
    }
    return true;
}

bool sameFile(const std::string& a, const std::string& b)
{
    struct stat x {}, y {};
    if (::stat(a.c_str(), &x) == 0 && ::stat(b.c_str(), &y) == 0)
        return x.st_dev == y.st_dev && x.st_ino == y.st_ino;
    return canonicalSpelling(a) == canonicalSpelling(b);
}

/// Whether a file can be created in `folder`: a probe file is made and removed (the
/// permission bits say nothing for root, nor on read-only or virtual file systems).
bool canCreateIn(const std::string& folder)
{
    const std::string probe = temporaryPathFor(folder + "/.lcstudio-probe");
    const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return false;
    ::close(fd);
    ::unlink(probe.c_str());
    return true;
}

[[noreturn]] void refuse(const CommandPath& out, const std::string& why)
{
    throw InputError(out.flag + ": " + out.path + " " + why);
}

/// The kinds of file the commands write into output folders; an entry of such a name that
/// is not a regular file would stop the move into place at the end of the run.
bool writtenKind(const std::string& name)
{
    for (const char* ext : {".pt", ".json", ".png", ".svg", ".pdf", ".csv"}) {
        const size_t n = std::strlen(ext);
        if (name.size() > n && name.compare(name.size() - n, n, ext) == 0)
            return true;
    }
    return false;
}

void checkFolderEntries(const CommandPath& out)
{
    std::error_code ec;
    size_t seen = 0;
    for (const auto& entry : fs::directory_iterator(out.path, ec)) {
        if (++seen > 100000)
            break;
        const std::string name = entry.path().filename().string();
        struct stat info {};
        if (writtenKind(name) && ::lstat(entry.path().c_str(), &info) == 0 && !S_ISREG(info.st_mode))
            refuse(out, "holds " + name + ", which is not a regular file (a folder, link or FIFO); the run would "
                                          "replace files of such names: move it away first");
    }
}

/// Room for the ".tmp.PID.N" a temporary beside the file adds, within NAME_MAX (255).
constexpr size_t kMaxOutputNameLength = 200;

/// Whether `folder` is the path of one of the folder outputs `outputs` (a file given
/// inside it is staged into that folder, so the folder need not exist yet).
bool isFolderOutput(const std::string& folder, const std::vector<CommandPath>& outputs)
{
    for (const auto& o : outputs) {
        std::string path = o.path;
        while (path.size() > 1 && path.back() == '/')
            path.pop_back();  // "dir/" names dir
        if (o.kind == PathKind::Folder && canonicalSpelling(path) == canonicalSpelling(folder))
            return true;
    }
    return false;
}

void checkOne(const CommandPath& outIn, const std::vector<CommandPath>& outputs)
{
    if (outIn.path.empty())
        throw InputError(outIn.flag + ": the path is empty");
    if (outIn.path == "-")
        throw InputError(outIn.flag + ": \"-\" (standard output) is not a file; give a file name");
    if (outIn.kind == PathKind::File && outIn.path.back() == '/')
        throw InputError(outIn.flag + ": " + outIn.path + " ends in /, so it names a folder; give a file name");
    CommandPath out = outIn;
    while (out.path.size() > 1 && out.path.back() == '/')
        out.path.pop_back();  // "dir/" names dir
    const std::string name = fs::path(out.path).filename().string();
    if (name.size() > kMaxOutputNameLength)
        refuse(out, "has a name of " + std::to_string(name.size()) + " characters; at most " +
                        std::to_string(kMaxOutputNameLength) + " can be written safely");
    if (out.path.size() > 3800)
        refuse(out, "is longer than 3800 characters");
    struct stat info {};
    if (statPath(out.path, info)) {
        if (S_ISLNK(info.st_mode))
            refuse(out, "is a symbolic link; give the path it points to, or a new file");
        if (out.kind == PathKind::File) {
            if (S_ISDIR(info.st_mode))
                refuse(out, "is a folder, not a file");
            if (!S_ISREG(info.st_mode))
                refuse(out, "is not a regular file (a FIFO, socket or device); refusing to replace it");
        } else {
            if (!S_ISDIR(info.st_mode))
                refuse(out, "exists and is not a folder");
            if (!canCreateIn(out.path))
                refuse(out, "is a folder that is not writable");
            checkFolderEntries(out);
            return;
        }
    }
    const std::string parent = folderOf(out.path);
    if (out.kind == PathKind::File && isFolderOutput(parent, outputs))
        return;  // written into that folder's staging, checked as the folder output is
    std::error_code ec;
    if (!fs::is_directory(parent, ec))
        refuse(out, "cannot be written: " + parent +
                        (fs::exists(parent, ec) ? " is not a folder" : std::string(" does not exist")));
    if (!canCreateIn(parent))
        refuse(out, "cannot be written: folder " + parent + " is not writable");
}

} // namespace

void checkOutputPolicy(const std::vector<CommandPath>& outputs, const std::vector<CommandPath>& inputs)
{
    for (const auto& out : outputs)
        checkOne(out, outputs);
    for (size_t i = 0; i < outputs.size(); ++i) {
        const auto& out = outputs[i];
        const auto outPath = canonicalSpelling(out.path);
        for (const auto& in : inputs) {
            if (in.path.empty())
                continue;
            std::error_code ec;
            if (!fs::exists(in.path, ec))
                continue;  // a name such as fashion-mnist, or a file its own reader refuses
            if (sameFile(out.path, in.path))
                refuse(out, "is also the input of " + in.flag + "; writing it would destroy the input");
            const auto inPath = canonicalSpelling(in.path);
            if (fs::is_directory(in.path, ec) && inside(outPath, inPath))
                refuse(out, "lies inside " + in.path + ", the input of " + in.flag + "; write it elsewhere");
            if (out.kind == PathKind::Folder && inside(inPath, outPath))
                refuse(out, "holds " + in.path + ", the input of " + in.flag + "; write it elsewhere");
        }
        for (size_t j = 0; j < i; ++j) {
            const auto& other = outputs[j];
            if (sameFile(out.path, other.path) || outPath == canonicalSpelling(other.path))
                refuse(out, "is also the output of " + other.flag + "; give each output its own path");
        }
    }
}

} // namespace lcs
