#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

/// NumPy's .npy files, read and written through xtensor (xtensor/xnpy.hpp). xtensor's
/// loader trusts the file: it allocates what the header claims, does not notice a
/// truncated file, and misreads some header lengths. So the header is checked here
/// first: the magic and version, a header dictionary of numpy's own form, a
/// little-endian float dtype, the shape's rank and size against caps, and a data part
/// of exactly the size the header gives. Only then does xtensor parse it and lay the
/// values out (C or Fortran order). Plain C++, no LibTorch: the reader is fuzzed.
namespace lcs {

/// A dense array of doubles in row-major (C) order.
struct NumericArray {
    std::vector<int64_t> shape;
    std::vector<double> values;
    int64_t dim(size_t i) const { return shape.at(i); }
};

/// Parses the bytes of a .npy file. `source` names it in messages; the array must have
/// a rank in [minRank, maxRank] and at most maxValues values; its dtype must be float32 or
/// float64, little-endian; every value must be finite. Throws InputError.
NumericArray parseNpy(const std::string& bytes, const std::string& source, size_t minRank, size_t maxRank,
                      size_t maxValues);

/// The .npy bytes of `array` (float64, or float32 when `asFloat32`).
std::string npyBytes(const NumericArray& array, bool asFloat32 = false);

} // namespace lcs
