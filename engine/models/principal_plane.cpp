#include "engine/models/principal_plane.h"

#include <cmath>
#include <stdexcept>

#include <ATen/ATen.h>

namespace lcs {

namespace {

/// (x - mean) / std by column in double (the networks' own standardisation is float).
at::Tensor standardised(const InputStandardisation& s, const at::Tensor& x)
{
    const auto options = at::TensorOptions().dtype(at::kDouble);
    const auto mean = at::tensor(s.mean, options), std = at::tensor(s.std, options);
    return (x.to(at::kDouble) - mean) / std;
}

} // namespace

PrincipalPlane fitPrincipalPlane(const at::Tensor& x)
{
    if (x.dim() != 2 || x.size(0) < 2 || x.size(1) < 2)
        throw std::invalid_argument("fitPrincipalPlane: x must be [N >= 2, D >= 2]");
    PrincipalPlane plane;
    plane.standardisation = fitInputStandardisation(x);
    const auto z = standardised(plane.standardisation, x);
    const auto centred = z - z.mean(0, /*keepdim=*/true);
    const auto covariance = centred.t().matmul(centred) / static_cast<double>(x.size(0));
    // Eigenvalues ascending: the last two columns are the components.
    const auto [values, vectors] = at::linalg_eigh(covariance);
    const int64_t d = x.size(1);
    auto components = at::stack({vectors.select(1, d - 1), vectors.select(1, d - 2)}).contiguous();
    for (int64_t k = 0; k < 2; ++k) {
        auto row = components[k];
        const auto largest = row.abs().argmax().item<int64_t>();
        if (row[largest].item<double>() < 0)
            row.mul_(-1);
    }
    plane.components = components;
    const double total = values.clamp_min(0).sum().item<double>();
    for (int64_t k = 0; k < 2; ++k)
        plane.explained[k] = total > 0 ? std::max(0.0, values[d - 1 - k].item<double>()) / total : 0.0;
    return plane;
}

at::Tensor projectOntoPlane(const PrincipalPlane& plane, const at::Tensor& x)
{
    return standardised(plane.standardisation, x).matmul(plane.components.t());
}

} // namespace lcs
