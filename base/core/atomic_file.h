#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace lcs {

/// Writes `contents` to `path` through a temporary file in the same directory (written,
/// flushed to disk, then renamed over `path`), so a reader never sees a half-written
/// file and a failed write (disk full, no permission) leaves the old file as it was and
/// no temporary behind. Temporaries that killed processes left next to `path` are
/// removed first. Throws OutputError naming the path.
void writeFileAtomically(const std::string& path, const std::string& contents);

/// Whole file as a string. Throws InputError naming the path when it cannot be read,
/// is not a regular file, or is larger than `maxBytes`.
std::string readFile(const std::string& path, size_t maxBytes = size_t{64} << 20);

/// A fresh temporary name next to `path` ("<path>.tmp.<pid>.<n>"), for writers that
/// must be given a path (Qt's image and PDF writers); commit with commitTemporary.
std::string temporaryPathFor(const std::string& path);
/// Renames tmpPath over path (atomic on POSIX); throws OutputError, removing tmpPath.
void commitTemporary(const std::string& tmpPath, const std::string& path);
void discardTemporary(const std::string& tmpPath) noexcept;

/// A folder of outputs written all or not at all: files go into a fresh staging folder
/// next to `dir` ("<dir>.tmp.<pid>.<n>"); commit() moves them into place (renaming the
/// staging folder to `dir` when `dir` does not exist, else renaming each file into it,
/// each an atomic replacement, all or none: a failed move undoes the ones before it);
/// without a commit (an error, a cancel) the staging
/// folder and everything in it are removed, and `dir` is as it was.
class StagedFolder {
public:
    /// Creates the staging folder; throws OutputError naming `dir`.
    explicit StagedFolder(std::string dir);
    ~StagedFolder();
    StagedFolder(const StagedFolder&) = delete;
    StagedFolder& operator=(const StagedFolder&) = delete;
    /// Where to write the folder's files.
    const std::string& path() const { return m_staging; }
    /// Moves the files into `dir`; throws OutputError naming the file that could not be moved.
    void commit();

private:
    std::string m_dir, m_staging;
    bool m_committed = false;
};

/// Outputs of one run committed together, last (--json, --csv, --save-models, --out and
/// the rest): each file is written now to a temporary beside its target (a full disk
/// fails here, before any output moves), each folder staged as a StagedFolder's files
/// are; commit() moves every one into place and, should a move fail (a file made
/// immutable, a disk gone), undoes the moves already made, so that every old output is
/// as it was and none is half new. Without a commit every temporary is removed.
class OutputSet {
public:
    OutputSet() = default;
    ~OutputSet();
    OutputSet(const OutputSet&) = delete;
    OutputSet& operator=(const OutputSet&) = delete;
    /// Writes `contents` to a temporary beside `path` (flushed to disk); throws
    /// OutputError naming `path`. A `path` directly inside a folder staged before is
    /// written into that folder's staging instead, so it goes into place with the
    /// folder, which need not exist yet; a file of that name the run wrote there is
    /// never replaced (OutputError).
    void stageFile(const std::string& path, const std::string& contents);
    /// A fresh staging folder for the folder `dir` (its files are written there); the
    /// same `dir` twice gives the same staging folder. Throws OutputError naming `dir`.
    std::string stageFolder(const std::string& dir);
    /// Every staged output into place, all or none; throws OutputError naming the output
    /// that could not be moved (and saying the others are as they were).
    void commit();

private:
    std::vector<std::pair<std::string, std::string>> m_files;  ///< (temporary, target)
    std::vector<std::pair<std::string, std::string>> m_folders;  ///< (target, staging)
    bool m_committed = false;
};

/// Removes "<path>.tmp.<pid>.<n>" files and staging folders whose process no longer runs
/// (left by a run that was killed mid-write). Never throws.
void removeStaleTemporaries(const std::string& path) noexcept;

} // namespace lcs
