#include "io/npy.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <limits>

#include <xtensor/xadapt.hpp>
#include <xtensor/xarray.hpp>
#include <xtensor/xnpy.hpp>

#include "core/input_error.h"

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

NpyHeader parseNpyHeader(const std::string& header, const std::string& source)
{
    size_t i = 0;
    const auto fail = [&](const std::string& what) {
        refuse(source, "the .npy header " + what + " (numpy writes {'descr': '<f8', 'fortran_order': False, "
                                                   "'shape': (N, D), })");
    };
    const auto peek = [&] { return i < header.size() ? header[i] : '\0'; };
    const auto skipSpaces = [&] {
        while (peek() == ' ')
            ++i;
    };
    const auto expect = [&](char c, const std::string& where) {
        skipSpaces();
        if (peek() != c)
            fail(std::string("lacks '") + c + "' " + where);
        ++i;
    };
    const auto quoted = [&](const std::string& what) {
        skipSpaces();
        if (peek() != '\'')
            fail("has " + what + " that is not a quoted string at byte " + std::to_string(i));
        const size_t close = header.find('\'', i + 1);
        if (close == std::string::npos || close - i - 1 > 32)
            fail("has " + what + " without its closing quote");
        std::string text = header.substr(i + 1, close - i - 1);
        i = close + 1;
        return text;
    };
    if (header.empty() || header.back() != '\n')
        fail("does not end in a newline");
    NpyHeader h;
    bool seenDescr = false, seenOrder = false, seenShape = false;
    expect('{', "at its start");
    skipSpaces();
    while (peek() != '}') {
        if (peek() == '\n' || peek() == '\0')
            fail("lacks its closing '}'");
        const std::string key = quoted("a key");
        expect(':', "after '" + key + "'");
        skipSpaces();
        if (key == "descr") {
            if (seenDescr)
                fail("gives 'descr' twice");
            seenDescr = true;
            h.descr = quoted("a 'descr'");
            const bool form = h.descr.size() >= 3 && h.descr.size() <= 4 &&
                              std::string("<>|=").find(h.descr[0]) != std::string::npos &&
                              std::isalpha(static_cast<unsigned char>(h.descr[1])) &&
                              std::all_of(h.descr.begin() + 2, h.descr.end(),
                                          [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
            if (!form)
                fail("has 'descr' '" + h.descr + "', not a byte order, a kind and a size such as '<f8'");
        } else if (key == "fortran_order") {
            if (seenOrder)
                fail("gives 'fortran_order' twice");
            seenOrder = true;
            if (header.compare(i, 4, "True") == 0) {
                h.fortranOrder = true;
                i += 4;
            } else if (header.compare(i, 5, "False") == 0) {
                i += 5;
            } else {
                fail("has a 'fortran_order' that is not True or False");
            }
        } else if (key == "shape") {
            if (seenShape)
                fail("gives 'shape' twice");
            seenShape = true;
            expect('(', "after 'shape'");
            skipSpaces();
            while (peek() != ')') {
                size_t digits = 0;
                uint64_t d = 0;
                while (std::isdigit(static_cast<unsigned char>(peek()))) {
                    if (++digits > 12)
                        fail("has a dimension of more than 12 digits");
                    d = d * 10 + static_cast<uint64_t>(peek() - '0');
                    ++i;
                }
                if (digits == 0)
                    fail("has a 'shape' that is not a tuple of whole numbers");
                if (h.shape.size() == kMaxNpyRank)
                    fail("has more than " + std::to_string(kMaxNpyRank) + " dimensions");
                h.shape.push_back(static_cast<size_t>(d));
                skipSpaces();
                if (peek() == ',') {
                    ++i;
                    skipSpaces();
                } else if (peek() != ')') {
                    fail("has a 'shape' that is not a tuple of whole numbers");
                }
            }
            ++i;  // ')'
        } else {
            fail("has an unknown key '" + key + "'");
        }
        skipSpaces();
        if (peek() == ',') {
            ++i;
            skipSpaces();
        } else if (peek() != '}') {
            fail("lacks ',' or '}' at byte " + std::to_string(i));
        }
    }
    ++i;  // '}'
    skipSpaces();
    if (i != header.size() - 1)
        fail("has bytes after its dictionary");
    if (!seenDescr || !seenOrder || !seenShape)
        fail(std::string("lacks '") + (!seenDescr ? "descr" : !seenOrder ? "fortran_order" : "shape") + "'");
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
