#include "datasets/idx_reader.h"

#include <limits>

#include <zlib.h>

#include "base/core/atomic_file.h"
#include "base/core/input_error.h"

namespace lcs {
namespace {

uint32_t bigEndian32(const std::string& bytes, size_t offset)
{
    uint32_t v = 0;
    for (size_t i = 0; i < 4; ++i)
        v = (v << 8) | static_cast<unsigned char>(bytes[offset + i]);
    return v;
}

} // namespace

IdxArray parseIdx(const std::string& bytes, const std::string& source)
{
    if (bytes.size() < 4)
        throw InputError(source + ": not an IDX file (" + std::to_string(bytes.size()) +
                         " bytes, shorter than the 4-byte header)");
    const auto b = [&](size_t i) { return static_cast<unsigned char>(bytes[i]); };
    if (b(0) != 0 || b(1) != 0)
        throw InputError(source + ": not an IDX file (the magic number must start with two zero bytes; "
                                  "is it still gzip-compressed or another format?)");
    if (b(2) != 0x08)
        throw InputError(source + ": IDX value type 0x" + [&] {
            const char* digits = "0123456789abcdef";
            return std::string{digits[b(2) >> 4], digits[b(2) & 15]};
        }() + " is not supported (only unsigned bytes, 0x08, as in MNIST)");
    const int dims = b(3);
    if (dims < 1 || dims > kMaxIdxDimensions)
        throw InputError(source + ": IDX header says " + std::to_string(dims) +
                         " dimensions (expected 1 to " + std::to_string(kMaxIdxDimensions) + ")");
    const size_t header = 4 + 4 * static_cast<size_t>(dims);
    if (bytes.size() < header)
        throw InputError(source + ": truncated IDX header (" + std::to_string(bytes.size()) + " bytes, " +
                         std::to_string(header) + " needed for " + std::to_string(dims) + " dimensions)");
    IdxArray out;
    uint64_t count = 1;
    for (int d = 0; d < dims; ++d) {
        const uint32_t n = bigEndian32(bytes, 4 + 4 * static_cast<size_t>(d));
        if (n == 0)
            throw InputError(source + ": IDX dimension " + std::to_string(d) + " is 0");
        count *= n;  // at most 4 factors below 2^32 each, checked against the cap step by step
        if (count > kMaxIdxBytes)
            throw InputError(source + ": IDX dimensions describe more than " + std::to_string(kMaxIdxBytes) +
                             " values");
        out.shape.push_back(static_cast<int64_t>(n));
    }
    const size_t payload = bytes.size() - header;
    if (payload != count)
        throw InputError(source + ": IDX data has " + std::to_string(payload) + " bytes but the header's " +
                         "dimensions need " + std::to_string(count) +
                         (payload < count ? " (truncated file)" : " (extra bytes after the data)"));
    out.values.assign(reinterpret_cast<const uint8_t*>(bytes.data()) + header,
                      reinterpret_cast<const uint8_t*>(bytes.data()) + bytes.size());
    return out;
}

size_t idxDeclaredSize(const std::string& prefix)
{
    if (prefix.size() < 4 || prefix[0] != 0 || prefix[1] != 0)
        return 0;
    const int dims = static_cast<unsigned char>(prefix[3]);
    const size_t header = 4 + 4 * static_cast<size_t>(dims);
    if (dims < 1 || dims > kMaxIdxDimensions || prefix.size() < header)
        return 0;
    uint64_t count = 1;
    for (int d = 0; d < dims; ++d) {
        count *= bigEndian32(prefix, 4 + 4 * static_cast<size_t>(d));
        if (count > kMaxIdxBytes)
            return 0;
    }
    return header + count;
}

std::string gunzipIfCompressed(const std::string& bytes, const std::string& source, size_t maxBytes,
                               DeclaredSize declaredSize)
{
    if (bytes.size() < 2 || static_cast<unsigned char>(bytes[0]) != 0x1f ||
        static_cast<unsigned char>(bytes[1]) != 0x8b)
        return bytes;
    std::string out;
    z_stream zs{};
    // 15 + 16: gzip wrapper only.
    if (inflateInit2(&zs, 15 + 16) != Z_OK)
        throw InputError(source + ": cannot start gzip decompression");
    size_t consumed = 0;
    char chunk[1 << 16];
    int rc = Z_OK;
    for (;;) {
        const size_t left = bytes.size() - consumed;
        zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data() + consumed));
        zs.avail_in = static_cast<uInt>(std::min<size_t>(left, std::numeric_limits<uInt>::max()));
        const uInt availBefore = zs.avail_in;
        zs.next_out = reinterpret_cast<Bytef*>(chunk);
        zs.avail_out = sizeof chunk;
        rc = inflate(&zs, Z_NO_FLUSH);
        consumed += availBefore - zs.avail_in;
        const size_t produced = sizeof chunk - zs.avail_out;
        if (out.size() + produced > maxBytes) {
            inflateEnd(&zs);
            throw InputError(source + ": decompresses to more than " + std::to_string(maxBytes) +
                             " bytes (the limit for a data file)");
        }
        out.append(chunk, produced);
        if (declaredSize) {
            const size_t declared = declaredSize(out);
            if (declared != 0 && out.size() > declared)
                break;  // the reader reports the extra bytes
        }
        if (rc == Z_STREAM_END) {
            // gzip allows several members one after another (as `cat a.gz b.gz` makes).
            if (consumed == bytes.size())
                break;
            if (inflateReset(&zs) != Z_OK)
                break;
            continue;
        }
        if (rc != Z_OK && rc != Z_BUF_ERROR) {
            const std::string why = zs.msg ? zs.msg : "corrupt data";
            inflateEnd(&zs);
            throw InputError(source + ": gzip data is corrupt (" + why + ")");
        }
        // No progress with output space left: the input ran out before the end marker.
        if (produced == 0 && zs.avail_in == availBefore) {
            inflateEnd(&zs);
            throw InputError(source + ": gzip data is truncated (the stream ends before its end marker)");
        }
    }
    inflateEnd(&zs);
    return out;
}

IdxArray readIdxFile(const std::string& path)
{
    // A compressed file is smaller than its content; allow the same cap for both.
    return parseIdx(gunzipIfCompressed(readFile(path, kMaxIdxBytes), path, kMaxIdxBytes, idxDeclaredSize), path);
}

} // namespace lcs
