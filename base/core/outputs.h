#pragma once

#include <string>
#include <vector>

/// What a command writes, declared beside its settings (an experiment's outputs(), a
/// command's table), and the one output policy every command applies to those paths
/// before any work starts. No LibTorch, no Qt.
namespace lcs {

enum class PathKind { File, Folder };

/// One output of a command: the flag is --name with dashes ("save_models" -> --save-models).
struct OutputSpec {
    std::string name;
    std::string valueName = "FILE";   ///< FILE or DIR, in help
    PathKind kind = PathKind::File;
    std::string help;
    /// The file's one format ("csv", "json"), which its name must end in (any case): a
    /// `--cost-benefit x.json` that would hold CSV is refused. Empty: any name.
    std::string format = {};
};

/// Why `path` does not fit `spec`'s format ("--cost-benefit x.json: this file is written
/// as CSV; name it ....csv"), or "" where it does or the spec has none.
std::string outputFormatProblem(const OutputSpec& spec, const std::string& path);

/// The results files every experiment writes: JSON and CSV (csvHelp says what a row is).
std::vector<OutputSpec> resultsOutputs(const std::string& csvHelp = "write results as CSV (atomically)");
/// --reliability FILE: reliability diagrams as CSV; `whose` says which ("each replicate's
/// reliability diagrams (uncorrected and corrected").
OutputSpec reliabilityOutput(const std::string& whose);
/// --cost-benefit FILE: the cost-benefit curve as CSV; `when` says what it needs beyond
/// the default number of points ("; needs --labels"), or nothing.
OutputSpec costBenefitOutput(const std::string& when = "");

/// --name with dashes.
std::string outputFlag(const OutputSpec& spec);

/// Aligned help lines, one per output, in the settings' help format.
std::string outputsHelp(const std::vector<OutputSpec>& specs);

/// A path a command was given, with the flag it came from and what it is.
struct CommandPath {
    std::string flag;
    std::string path;
    PathKind kind = PathKind::File;
};

/// The output policy. Throws InputError naming the flag and the path unless, for every
/// output:
///  - a file output is new or an existing regular file (never a folder, symlink, FIFO or
///    device), and its folder exists and is writable;
///  - a folder output is new (its parent exists and is writable; it is created only once
///    the inputs have been read) or an existing, writable folder (not a symlink);
///  - it is none of the inputs (the same file by identity: device and inode, so another
///    spelling or a hard link of an input is caught), and lies inside no input folder;
///    an output folder holds no input;
///  - it is no other output of the same command (a file may go inside an output folder:
///    the folder's own files have names the command chooses; the file is then staged
///    into that folder, which may be new, and refused where the run writes a file of
///    that name there).
void checkOutputPolicy(const std::vector<CommandPath>& outputs, const std::vector<CommandPath>& inputs);

} // namespace lcs
