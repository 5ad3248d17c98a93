#pragma once
// The fdtd template: a 3D star stencil of radius R (default 4: 25 points) on
// an nx*ny*nz float volume, zero outside the volume, coefficients in constant
// memory (source: templates/fdtd/fdtd.cu, which defines the operation).
// Problem: nx, ny, nz (default 512 x 512 x 256), radius (1..4).
//
// Two schemes (axis `scheme`). classic: a 2D block marches along z; each
// thread keeps its column's z neighbours in a register queue, the block stages
// the current plane plus halo in shared memory. ring (sm_80+): every plane's
// box reaches a ring of shared-memory stages by asynchronous copies (axis
// `copy`: per-thread cp.async, or bulk copies by the copy engine on sm_90+),
// ky rows per thread, the z loop unrolled zu times. Common axes: block shape
// (bx, by), vx (x points per thread = vector width), zsplit (z-chunks per
// column: blocks per column), prefetch (planes of look-ahead) and min_warps
// (the warps per SM __launch_bounds__ asks for: the register cap).
#include <memtune/description/kernel_description.hpp>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace memtune::templates {

// The fdtd as a kernel description (templates/fdtd/fdtd.cpp).
const KernelDescription& fdtd_description();

// The `scheme` axis's values, in order, and their labels.
enum class FdtdScheme : std::int64_t { classic = 0, ring = 1 };
const std::vector<std::string>& fdtd_scheme_labels();
// The `copy` axis's labels (ring only): 0 cp_async, 1 bulk.
const std::vector<std::string>& fdtd_copy_labels();

// The CPU reference, accumulated in double: for every point of the volume
// (x fastest), c[0] * in + sum_{r=1..R} c[r] * (the six neighbours at
// distance r, zero outside the volume), R = c.size() - 1. Runs on all cores.
// Throws std::invalid_argument when in.size() != nx*ny*nz or c is empty.
std::vector<double> fdtd_reference(std::span<const float> in, std::int64_t nx, std::int64_t ny, std::int64_t nz,
                                   std::span<const float> c);

// What the kernel's float sum of 6R+1 terms may differ from the reference by (|in| <= 1).
double fdtd_tolerance(int radius);

// Random coefficients c_0..c_R, never zero, normalised so that
// |c_0| + 6 * sum_{r>=1} |c_r| = 1 (outputs stay in [-1, 1] for |in| <= 1).
std::vector<float> random_fdtd_coefficients(int radius, std::uint64_t seed);

// The best time of each block shape ("32x8") among the successful
// candidates, with its warps/SM and limiter, as one note. Empty when fewer
// than two shapes succeeded.
std::string fdtd_shape_note(const TuningResult& result);

// Where nx is not a multiple of 4 (rows not 16-byte aligned): which of the
// ring's loops the size takes, and that rows padded with zero columns to the
// next multiple of 4 leave every output inside the volume unchanged and
// take the aligned one. Empty for aligned rows or a problem without nx.
std::string fdtd_alignment_note(const Problem& problem);

// What the fdtd adds to a run's rationale: the shape note, then the alignment note.
std::string fdtd_note(const TuningResult& result);

} // namespace memtune::templates
