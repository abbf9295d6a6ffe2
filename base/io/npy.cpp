#include "io/npy.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <regex>

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

/// numpy's header dictionary, spaces removed: descr, fortran_order and shape in this
/// order (numpy writes them sorted), shape a tuple of at most 12-digit integers. Checked
/// before xtensor's parser sees it, which assumes this form.
bool headerHasNumpyForm(std::string header)
{
    if (header.empty() || header.back() != '\n')
        return false;
    header.erase(std::remove(header.begin(), header.end(), ' '), header.end());
    static const std::regex form(R"(\{'descr':'[<>|=][a-zA-Z]\d{1,2}','fortran_order':(True|False),)"
                                 R"('shape':\((\d{1,12},)*(\d{1,12})?\),?\}\n)");
    return std::regex_match(header, form);
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
    const std::string header = bytes.substr(headerStart, headerLength);
    if (!headerHasNumpyForm(header))
        refuse(source, "the .npy header is not numpy's {'descr': ..., 'fortran_order': ..., 'shape': (...)}");

    std::string descr;
    bool fortranOrder = false;
    std::vector<size_t> shape;
    try {
        xt::detail::parse_header(header, descr, &fortranOrder, shape);
    } catch (const std::exception& e) {
        refuse(source, std::string("the .npy header cannot be read (") + e.what() + ")");
    }
    if (descr == ">f4" || descr == ">f8")
        refuse(source, "dtype " + descr + " is big-endian; save it little-endian (numpy's default: array.astype('<f8'))");
    if (descr != "<f4" && descr != "<f8")
        refuse(source, "dtype " + descr + " is not float32 or float64 (<f4, <f8); convert with array.astype('float64')");
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
    const size_t word = descr == "<f4" ? 4 : 8;
    const size_t dataStart = headerStart + headerLength;
    if (bytes.size() - dataStart != count * word)
        refuse(source, "has " + std::to_string(bytes.size() - dataStart) + " bytes of data, but its header describes " +
                           std::to_string(count * word) + " (the file is cut off or has trailing bytes)");

    xt::detail::npy_file file(shape, fortranOrder, descr);
    if (count > 0)
        std::memcpy(file.ptr(), bytes.data() + dataStart, count * word);
    NumericArray out;
    for (size_t d : shape)
        out.shape.push_back(static_cast<int64_t>(d));
    out.values = word == 4 ? valuesOf<float>(std::move(file)) : valuesOf<double>(std::move(file));
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
