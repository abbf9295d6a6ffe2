#pragma once

#include <ATen/core/Tensor.h>

#include "engine/models/mlp.h"

/// The plane a table of more than two features is drawn in: its first two principal
/// components, fitted on the rows the networks learn from, each column standardised as
/// the networks see it (so a column in large units does not take the plane by itself).
namespace lcs {

struct PrincipalPlane {
    InputStandardisation standardisation;
    at::Tensor components;          ///< [2, D] double, orthonormal rows, largest variance first
    double explained[2] = {0, 0};   ///< each component's share of the total variance
};

/// From x [N, D], N >= 2, D >= 2: the eigenvectors of the standardised columns'
/// covariance with the two largest eigenvalues. Each component's sign is fixed so that its
/// entry of largest magnitude (the first of ties) is positive: the same data always gives
/// the same picture.
PrincipalPlane fitPrincipalPlane(const at::Tensor& x);

/// x [M, D] standardised and projected: [M, 2] double.
at::Tensor projectOntoPlane(const PrincipalPlane& plane, const at::Tensor& x);

} // namespace lcs
