#include <memtune/description/random_data.hpp>
#include <memtune/measure/verify.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <vector>

using namespace memtune;

TEST_CASE("comparison with the reference: tolerance, NaN and the first bad index") {
  std::vector<double> ref(300000);
  for (std::size_t i = 0; i < ref.size(); ++i) ref[i] = std::sin(static_cast<double>(i));
  std::vector<float> out(ref.begin(), ref.end());
  CHECK(compare_with_reference(out, ref, 1e-6).ok);

  out[123456] += 1e-3F;
  out[200000] = std::numeric_limits<float>::quiet_NaN(); // an element never written (poisoned)
  const Verification v = compare_with_reference(out, ref, 1e-6);
  CHECK_FALSE(v.ok);
  CHECK(v.bad_count == 2);
  CHECK(v.first_bad == 123456);
  CHECK(std::isinf(v.max_abs_error));
  CHECK_FALSE(compare_with_reference(std::vector<float>(3), std::vector<double>(4), 1.0).ok);
}

TEST_CASE("random data is reproducible, never zero and in range") {
  std::vector<float> a(100000), b(100000), c(100000);
  fill_random(a, 7);
  fill_random(b, 7);
  fill_random(c, 8);
  CHECK(a == b);
  CHECK(a != c);
  for (float x : a) {
    CHECK(std::fabs(x) >= 0.01F);
    CHECK(std::fabs(x) <= 1.0F);
  }
}
