#include <memtune/io/parallel_for.hpp>
#include <memtune/measure/verify.hpp>

#include <cmath>
#include <limits>
#include <mutex>

namespace memtune {

Verification compare_with_reference(std::span<const float> out, std::span<const double> ref, double tolerance) {
  Verification v;
  v.tolerance = tolerance;
  if (out.size() != ref.size()) {
    v.ok = false;
    v.max_abs_error = std::numeric_limits<double>::infinity();
    return v;
  }
  std::mutex merge;
  v.first_bad = -1;
  parallel_for(static_cast<std::int64_t>(out.size()), [&](std::int64_t begin, std::int64_t end) {
    double worst = 0.0;
    std::int64_t first_bad = -1, bad = 0;
    for (std::int64_t i = begin; i < end; ++i) {
      const double err = std::fabs(static_cast<double>(out[static_cast<std::size_t>(i)]) - ref[static_cast<std::size_t>(i)]);
      // Written so that NaN fails: !(NaN <= tol) is true.
      if (!(err <= tolerance)) {
        ++bad;
        if (first_bad < 0) first_bad = i;
        worst = std::isnan(err) ? std::numeric_limits<double>::infinity() : std::max(worst, err);
      } else {
        worst = std::max(worst, err);
      }
    }
    std::lock_guard lock(merge);
    v.max_abs_error = std::max(v.max_abs_error, worst);
    v.bad_count += bad;
    if (first_bad >= 0 && (v.first_bad < 0 || first_bad < v.first_bad)) v.first_bad = first_bad;
  });
  v.ok = v.bad_count == 0;
  return v;
}

} // namespace memtune
