#include "base/io/npy.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <limits>

#include <xtensor/xadapt.hpp>
#include <xtensor/xarray.hpp>
#include <xtensor/xnpy.hpp>

#include "base/core/input_error.h"

namespace lcs {

namespace {

constexpr size_t kMaxHeaderBytes = 65536;

[[noreturn]] void refuse(const std::string& source, const std::string& what)
{
    throw InputError(source + ": " + what);
}

/// The header dictionary numpy writes, e.g. {'descr': '<f8', 'fortran_order': False,
/// 'shape': (3, 2), } padded with spaces to a newline: the three keys in any order, each
/// once, spaces allowed between tokens. Scanned by hand, once, left to right: nothing
/// here recurses or backtracks, so a header claiming 30,000 dimensions is refused at the
/// rank cap rather than on the stack.
struct NpyHeader {
    std::string descr;
    bool fortranOrder = false;
    std::vector<size_t> shape;
};

/// Ranks above this are refused while the shape is read (the callers ask for 1 to 3).
constexpr size_t kMaxNpyRank = 32;

/// The header's bytes read left to right; every refusal names the file and what numpy
/// writes.
class NpyHeaderScanner {
public:
    NpyHeaderScanner(const std::string& header, const std::string& source) : m_header(header), m_source(source) {}

    [[noreturn]] void fail(const std::string& what) const
    {
        refuse(m_source, "the .npy header " + what + " (numpy writes {'descr': '<f8', 'fortran_order': False, "
                                                     "'shape': (N, D), })");
    }
    char peek() const { return m_at < m_header.size() ? m_header[m_at] : '\0'; }
    size_t at() const { return m_at; }
    void skip(size_t bytes) { m_at += bytes; }
    void skipSpaces()
    {
        while (peek() == ' ')
            ++m_at;
    }
    void expect(char c, const std::string& where)
    {
        skipSpaces();
        if (peek() != c)
            fail(std::string("lacks '") + c + "' " + where);
        ++m_at;
    }
    /// A ',' and the spaces after it, or nothing before `close`; anything else is refused
    /// with `what` (and the byte it found, where `atByte`).
    void separator(char close, const std::string& what, bool atByte = false)
    {
        skipSpaces();
        if (peek() == ',') {
            ++m_at;
            skipSpaces();
        } else if (peek() != close) {
            fail(atByte ? what + " at byte " + std::to_string(m_at) : what);
        }
    }
    std::string quoted(const std::string& what)
    {
        skipSpaces();
        if (peek() != '\'')
            fail("has " + what + " that is not a quoted string at byte " + std::to_string(m_at));
        const size_t close = m_header.find('\'', m_at + 1);
        if (close == std::string::npos || close - m_at - 1 > 32)
            fail("has " + what + " without its closing quote");
        std::string text = m_header.substr(m_at + 1, close - m_at - 1);
        m_at = close + 1;
        return text;
    }
    /// A byte order, a kind and a size: '<f8'.
    std::string descr()
    {
        std::string d = quoted("a 'descr'");
        const bool form = d.size() >= 3 && d.size() <= 4 && std::string("<>|=").find(d[0]) != std::string::npos &&
                          std::isalpha(static_cast<unsigned char>(d[1])) &&
                          std::all_of(d.begin() + 2, d.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
        if (!form)
            fail("has 'descr' '" + d + "', not a byte order, a kind and a size such as '<f8'");
        return d;
    }
    bool fortranOrder()
    {
        if (m_header.compare(m_at, 4, "True") == 0) {
            m_at += 4;
            return true;
        }
        if (m_header.compare(m_at, 5, "False") == 0) {
            m_at += 5;
            return false;
        }
        fail("has a 'fortran_order' that is not True or False");
    }
    /// A tuple of whole numbers of at most 12 digits, at most kMaxNpyRank of them.
    std::vector<size_t> shape()
    {
        std::vector<size_t> dims;
        expect('(', "after 'shape'");
        skipSpaces();
        while (peek() != ')') {
            size_t digits = 0;
            uint64_t d = 0;
            while (std::isdigit(static_cast<unsigned char>(peek()))) {
                if (++digits > 12)
                    fail("has a dimension of more than 12 digits");
                d = d * 10 + static_cast<uint64_t>(peek() - '0');
                ++m_at;
            }
            if (digits == 0)
                fail("has a 'shape' that is not a tuple of whole numbers");
            if (dims.size() == kMaxNpyRank)
                fail("has more than " + std::to_string(kMaxNpyRank) + " dimensions");
            dims.push_back(static_cast<size_t>(d));
            separator(')', "has a 'shape' that is not a tuple of whole numbers");
        }
        ++m_at;  // ')'
        return dims;
    }

private:
    const std::string& m_header;
    const std::string& m_source;
    size_t m_at = 0;
};

NpyHeader parseNpyHeader(const std::string& header, const std::string& source)
{
    NpyHeaderScanner scan(header, source);
    if (header.empty() || header.back() != '\n')
        scan.fail("does not end in a newline");
    NpyHeader h;
    bool seenDescr = false, seenOrder = false, seenShape = false;
    const auto once = [&](bool& seen, const std::string& key) {
        if (seen)
            scan.fail("gives '" + key + "' twice");
        seen = true;
    };
    scan.expect('{', "at its start");
    scan.skipSpaces();
    while (scan.peek() != '}') {
        if (scan.peek() == '\n' || scan.peek() == '\0')
            scan.fail("lacks its closing '}'");
        const std::string key = scan.quoted("a key");
        scan.expect(':', "after '" + key + "'");
        scan.skipSpaces();
        if (key == "descr") {
            once(seenDescr, key);
            h.descr = scan.descr();
        } else if (key == "fortran_order") {
            once(seenOrder, key);
            h.fortranOrder = scan.fortranOrder();
        } else if (key == "shape") {
            once(seenShape, key);
            h.shape = scan.shape();
        } else {
            scan.fail("has an unknown key '" + key + "'");
        }
        scan.separator('}', "lacks ',' or '}'", /*atByte=*/true);
    }
    scan.skip(1);  // '}'
    scan.skipSpaces();
    if (scan.at() != header.size() - 1)
        scan.fail("has bytes after its dictionary");
    if (!seenDescr || !seenOrder || !seenShape)
        scan.fail(std::string("lacks '") + (!seenDescr ? "descr" : !seenOrder ? "fortran_order" : "shape") + "'");
    return h;
}

template <typename T>
std::vector<double> valuesOf(xt::detail::npy_file&& file)
{
    // xtensor applies the file's layout: a Fortran-order file comes out transposed back.
    const xt::xarray<double, xt::layout_type::row_major> array = std::move(file).cast<T>();
    return {array.begin(), array.end()};
}

} // namespace

NumericArray parseNpy(const std::string& bytes, const std::string& source, size_t minRank, size_t maxRank,
                      size_t maxValues)
{
    static const char magic[] = "\x93NUMPY";
    if (bytes.size() < 10 || bytes.compare(0, 6, magic, 6) != 0)
        refuse(source, "not a .npy file (it does not start with numpy's magic bytes)");
    const auto byte = [&](size_t i) { return static_cast<uint32_t>(static_cast<unsigned char>(bytes[i])); };
    const uint32_t major = byte(6), minor = byte(7);
    if ((major != 1 && major != 2) || minor != 0)
        refuse(source, ".npy format version " + std::to_string(major) + "." + std::to_string(minor) +
                           " is not supported (1.0 and 2.0 are)");
    const size_t lengthBytes = major == 1 ? 2 : 4;
    if (bytes.size() < 8 + lengthBytes)
        refuse(source, "the .npy header is cut off");
    uint32_t headerLength = 0;
    for (size_t i = 0; i < lengthBytes; ++i)
        headerLength |= byte(8 + i) << (8 * i);
    const size_t headerStart = 8 + lengthBytes;
    if (headerLength > kMaxHeaderBytes || headerStart + headerLength > bytes.size())
        refuse(source, "the .npy header length " + std::to_string(headerLength) + " does not fit the file");
    auto [descr, fortranOrder, shape] = parseNpyHeader(bytes.substr(headerStart, headerLength), source);
    // '=' (native order) and '|' (order not applicable) are this machine's: little-endian.
    static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the .npy reader assumes a little-endian machine");
    if (descr[0] == '=' || descr[0] == '|')
        descr[0] = '<';
    if (descr[0] == '>')
        refuse(source, "dtype " + descr + " is big-endian; save it little-endian (numpy's default: array.astype('<f8'))");
    // Floats, and integers as np.save writes labels and counts (int64 by default); an
    // integer beyond 2^53 would lose digits as a double, which no label or count reaches.
    static const char* const kReadable[] = {"<f4", "<f8", "<i1", "<i2", "<i4", "<i8", "<u1", "<u2", "<u4", "<u8"};
    if (std::find(std::begin(kReadable), std::end(kReadable), descr) == std::end(kReadable))
        refuse(source, "dtype " + descr + " is not a float or an integer (<f4, <f8, <i1 to <i8, <u1 to <u8); convert "
                                          "with array.astype('float64')");
    if (shape.size() < minRank || shape.size() > maxRank)
        refuse(source, "has " + std::to_string(shape.size()) + " dimensions, expected " +
                           (minRank == maxRank ? std::to_string(minRank)
                                               : std::to_string(minRank) + " to " + std::to_string(maxRank)));
    size_t count = 1;
    for (size_t d : shape) {
        if (d != 0 && count > maxValues / d)
            refuse(source, "holds more than " + std::to_string(maxValues) + " values");
        count *= d;
    }
    if (count > maxValues)
        refuse(source, "holds more than " + std::to_string(maxValues) + " values");
    const size_t word = static_cast<size_t>(descr[2] - '0');
    const size_t dataStart = headerStart + headerLength;
    if (bytes.size() - dataStart != count * word)
        refuse(source, "has " + std::to_string(bytes.size() - dataStart) + " bytes of data, but its header describes " +
                           std::to_string(count * word) + " (the file is cut off or has trailing bytes)");

    // One-byte types are '|' to numpy and xtensor alike (no byte order).
    xt::detail::npy_file file(shape, fortranOrder, word == 1 ? "|" + descr.substr(1) : descr);
    if (count > 0)
        std::memcpy(file.ptr(), bytes.data() + dataStart, count * word);
    NumericArray out;
    for (size_t d : shape)
        out.shape.push_back(static_cast<int64_t>(d));
    const char kind = descr[1];
    switch (word) {
    case 1: out.values = kind == 'i' ? valuesOf<int8_t>(std::move(file)) : valuesOf<uint8_t>(std::move(file)); break;
    case 2: out.values = kind == 'i' ? valuesOf<int16_t>(std::move(file)) : valuesOf<uint16_t>(std::move(file)); break;
    case 4:
        out.values = kind == 'f'   ? valuesOf<float>(std::move(file))
                     : kind == 'i' ? valuesOf<int32_t>(std::move(file))
                                   : valuesOf<uint32_t>(std::move(file));
        break;
    default:
        out.values = kind == 'f'   ? valuesOf<double>(std::move(file))
                     : kind == 'i' ? valuesOf<int64_t>(std::move(file))
                                   : valuesOf<uint64_t>(std::move(file));
    }
    for (size_t i = 0; i < out.values.size(); ++i)
        if (!std::isfinite(out.values[i]))
            refuse(source, "value " + std::to_string(i) + " (in C order) is not finite");
    return out;
}

std::string npyBytes(const NumericArray& array, bool asFloat32)
{
    std::vector<size_t> shape(array.shape.begin(), array.shape.end());
    if (asFloat32) {
        std::vector<float> values(array.values.begin(), array.values.end());
        return xt::dump_npy(xt::adapt(values, shape));
    }
    return xt::dump_npy(xt::adapt(array.values, shape));
}

} // namespace lcs
