#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

/// CIFAR-10 in its canonical binary format: records of one label byte followed by
/// 3,072 pixel bytes (1,024 red, 1,024 green, 1,024 blue, each 32x32 row-major). A
/// directory in the documented layout holds `data_batch_1.bin` .. `data_batch_5.bin`
/// (any non-empty subset), `test_batch.bin` and optionally `batches.meta.txt` (one class
/// name per line). No LibTorch here (fuzzed alone).
namespace lcs {

inline constexpr int kCifarSide = 32;
inline constexpr int kCifarChannels = 3;
inline constexpr size_t kCifarImageBytes = size_t{kCifarSide} * kCifarSide * kCifarChannels;
inline constexpr size_t kCifarRecordBytes = 1 + kCifarImageBytes;
inline constexpr int kCifarClasses = 10;
/// One canonical batch is 30,730,000 bytes; a few times that is still a batch.
inline constexpr size_t kMaxCifarBatchBytes = size_t{256} << 20;

struct CifarBatch {
    std::vector<uint8_t> labels;  ///< N labels in [0, 10)
    std::vector<uint8_t> pixels;  ///< N * 3072 bytes, channel-major per image (as on disk)
    size_t size() const { return labels.size(); }
};

/// Parses one batch file's bytes. Refuses an empty file, a size that is not a whole
/// number of 3,073-byte records (naming the record that is cut short) and labels >= 10.
CifarBatch parseCifarBatch(const std::string& bytes, const std::string& source);

/// Class names from `batches.meta.txt`: non-empty lines, trimmed; exactly 10 are needed.
std::vector<std::string> parseCifarClassNames(const std::string& text, const std::string& source);

/// The default CIFAR-10 names, used when a directory has no batches.meta.txt.
std::vector<std::string> cifar10ClassNames();

enum class CifarSplit { Train, Test };

struct CifarFiles {
    std::vector<std::string> batches;   ///< paths, in order
    std::string classNamesFile;         ///< empty when absent
};

/// The files of `split` in `dir`: for Train every `data_batch_K.bin` present (K = 1..5,
/// in order, at least one), for Test `test_batch.bin`. Throws InputError naming the
/// directory and what is missing.
CifarFiles findCifarFiles(const std::string& dir, CifarSplit split);

/// Reads every batch of `split` in `dir` into one, with its class names.
struct CifarData {
    CifarBatch batch;
    std::vector<std::string> classNames;
};
CifarData readCifarDirectory(const std::string& dir, CifarSplit split);

} // namespace lcs
