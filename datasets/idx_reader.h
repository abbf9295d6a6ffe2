#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

/// IDX files (LeCun's MNIST format, also Fashion-MNIST): a 4-byte magic (0, 0, type,
/// number of dimensions), the dimensions as big-endian uint32, then the values in
/// row-major order. Only unsigned bytes (type 0x08) are read: every MNIST-like set uses
/// them. Files may be gzip-compressed (Debian ships `*.gz`); decompression is capped.
/// No LibTorch here, so the fuzz harnesses can link it alone.
namespace lcs {

struct IdxArray {
    std::vector<int64_t> shape;  ///< e.g. {60000, 28, 28} or {60000}
    std::vector<uint8_t> values; ///< product(shape) bytes
};

/// Largest IDX payload read (after decompression): 60,000 28x28 images are 47 MB.
inline constexpr size_t kMaxIdxBytes = size_t{1} << 30;
inline constexpr int kMaxIdxDimensions = 4;

/// Parses IDX bytes (already decompressed). `source` names the file in messages.
/// Throws InputError for a wrong magic, a type other than unsigned byte, a zero or
/// oversized dimension, and data shorter or longer than the dimensions say.
IdxArray parseIdx(const std::string& bytes, const std::string& source);

/// Returns `bytes` inflated when they start with the gzip magic (1f 8b), else as they
/// are. Refuses output larger than maxBytes and corrupt or truncated streams. With
/// `declaredSize` (given the output so far, the total size it declares, or 0 while
/// unknown), inflation stops one byte past the declared size, so a small file that
/// inflates to gigabytes costs no more memory than its header claims.
using DeclaredSize = size_t (*)(const std::string& prefix);
std::string gunzipIfCompressed(const std::string& bytes, const std::string& source,
                               size_t maxBytes = kMaxIdxBytes, DeclaredSize declaredSize = nullptr);

/// The total size (header + values) an IDX header declares, or 0 when `prefix` is too
/// short or not an IDX header.
size_t idxDeclaredSize(const std::string& prefix);

/// Reads an IDX file, gzip-compressed or not.
IdxArray readIdxFile(const std::string& path);

} // namespace lcs
