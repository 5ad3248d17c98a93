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
  // order, so the values are identical; the direct path makes a 512x512x256
  // volume's expected values several times cheaper, which every GPU of a run
  // computes before its first candidate.
  parallel_for(
      ny * nz,
      [&](std::int64_t begin, std::int64_t end) {
        auto at = [&](std::int64_t x, std::int64_t y, std::int64_t z) -> double {
          if (x < 0 || x >= nx || y < 0 || y >= ny || z < 0 || z >= nz) return 0.0;
          return static_cast<double>(in[static_cast<std::size_t>(z * plane + y * nx + x)]);
        };
        auto guarded = [&](std::int64_t x, std::int64_t y, std::int64_t z) {
          double acc = static_cast<double>(c[0]) * at(x, y, z);
          for (std::int64_t r = 1; r <= radius; ++r) {
            const double sum = at(x - r, y, z) + at(x + r, y, z) + at(x, y - r, z) + at(x, y + r, z) +
                               at(x, y, z - r) + at(x, y, z + r);
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
          for (std::int64_t x = 0; x < x0; ++x) out[static_cast<std::size_t>(base + x)] = guarded(x, y, z);
          const float* p = in.data() + base;
          for (std::int64_t x = x0; x < x1; ++x) {
            auto v = [&](std::int64_t offset) { return static_cast<double>(p[x + offset]); };
            double acc = static_cast<double>(c[0]) * v(0);
            for (std::int64_t r = 1; r <= radius; ++r) {
              const double sum = v(-r) + v(r) + v(-r * nx) + v(r * nx) + v(-r * plane) + v(r * plane);
              acc += static_cast<double>(c[static_cast<std::size_t>(r)]) * sum;
            }
            out[static_cast<std::size_t>(base + x)] = acc;
          }
          for (std::int64_t x = x1; x < nx; ++x) out[static_cast<std::size_t>(base + x)] = guarded(x, y, z);
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
