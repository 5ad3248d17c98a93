#include <memtune/io/parallel_for.hpp>
#include <memtune/templates/fdtd.hpp>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <stdexcept>

namespace memtune::templates {

std::vector<double> fdtd_reference(std::span<const float> in, std::int64_t nx, std::int64_t ny, std::int64_t nz,
                                   std::span<const float> c) {
  if (c.empty()) throw std::invalid_argument("fdtd_reference: no coefficients");
  if (nx <= 0 || ny <= 0 || nz <= 0 || static_cast<std::int64_t>(in.size()) != nx * ny * nz)
    throw std::invalid_argument("fdtd_reference: the input is not nx*ny*nz floats");
  const auto radius = static_cast<std::int64_t>(c.size()) - 1;
  const std::int64_t plane = nx * ny;
  std::vector<double> out(in.size());
  // One chunk = whole rows (y, z). A point whose whole star lies inside the
  // volume reads its neighbours directly; the others through guarded index
  // arithmetic (the plain definition). Both add the same terms in the same
  // order, so the values are identical. Every GPU of a run computes these
  // expected values before its first candidate; at 512x512x256 the direct
  // path takes 0.9-1.0 s against 1.3 s guarded on 2 cores.
  parallel_for(
      ny * nz,
      [&](std::int64_t begin, std::int64_t end) {
        // The star at one point, reading neighbour (dx, dy, dz) through `v`.
        auto star = [&](auto v) {
          double acc = static_cast<double>(c[0]) * v(0, 0, 0);
          for (std::int64_t r = 1; r <= radius; ++r) {
            const double sum = v(-r, 0, 0) + v(r, 0, 0) + v(0, -r, 0) + v(0, r, 0) + v(0, 0, -r) + v(0, 0, r);
            acc += static_cast<double>(c[static_cast<std::size_t>(r)]) * sum;
          }
          return acc;
        };
        for (std::int64_t row = begin; row < end; ++row) {
          const std::int64_t y = row % ny, z = row / ny;
          const std::int64_t base = z * plane + y * nx;
          const bool inner_row = y >= radius && y < ny - radius && z >= radius && z < nz - radius;
          const std::int64_t x0 = inner_row ? std::min(radius, nx) : nx; // [x0, x1): the direct path
          const std::int64_t x1 = inner_row ? std::max(x0, nx - radius) : nx;
          for (std::int64_t x = 0; x < nx; ++x) {
            const double value =
                x >= x0 && x < x1
                    ? star([&](std::int64_t dx, std::int64_t dy, std::int64_t dz) {
                        return static_cast<double>(in[static_cast<std::size_t>(base + x + dx + dy * nx + dz * plane)]);
                      })
                    : star([&](std::int64_t dx, std::int64_t dy, std::int64_t dz) {
                        const std::int64_t px = x + dx, py = y + dy, pz = z + dz;
                        if (px < 0 || px >= nx || py < 0 || py >= ny || pz < 0 || pz >= nz) return 0.0;
                        return static_cast<double>(in[static_cast<std::size_t>(pz * plane + py * nx + px)]);
                      });
            out[static_cast<std::size_t>(base + x)] = value;
          }
        }
      },
      std::max<std::int64_t>(1, (1 << 16) / nx));
  return out;
}

std::vector<float> random_fdtd_coefficients(int radius, std::uint64_t seed) {
  std::vector<float> c(static_cast<std::size_t>(radius + 1));
  std::uint64_t state = seed ^ 0x5851f42d4c957f2dULL;
  double weight = 0.0; // |c_0| + 6 sum |c_r|
  for (std::size_t i = 0; i < c.size(); ++i) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    // In [0.1, 1.1): never zero, so every point of the star contributes.
    float x = 0.1F + static_cast<float>((state >> 40) * (1.0 / 16777216.0));
    if ((state >> 20) & 1U) x = -x;
    c[i] = x;
    weight += (i == 0 ? 1.0 : 6.0) * std::fabs(x);
  }
  for (auto& x : c) x = static_cast<float>(x / weight);
  return c;
}

double fdtd_tolerance(int radius) {
  // 6R+1 float terms summed in any order: each adds at most one rounding of a
  // running sum bounded by |c_0| + 6 sum |c_r| = 1 (|in| <= 1). Twice that.
  return 2.0 * (6 * radius + 1) * FLT_EPSILON + 1e-30;
}

} // namespace memtune::templates
