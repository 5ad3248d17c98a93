#include <memtune/model/traffic.hpp>

#include <doctest/doctest.h>

#include <stdexcept>

using namespace memtune::model;

TEST_CASE("halo reads: sectors counted per block, footprint once") {
  // 1024 floats in tiles of 256 with 4 halo elements per side. Block byte
  // ranges: [0,1040) 33 sectors, [1008,2064) 34, [2032,3088) 34, [3056,4096) 33.
  const ArrayTraffic a = halo_read_1d("in", 1024, 4, 256, 4, 8192);
  CHECK(a.footprint_bytes == doctest::Approx(4096));
  CHECK(a.requested_bytes == doctest::Approx(134 * 32));
  CHECK(halo_read_1d("in", 1024, 4, 256, 0, 8192).requested_bytes == doctest::Approx(4096));
  CHECK(halo_read_1d("in", 1024, 4, 256, 0, 8192).reuse_window_bytes == 0);
}

TEST_CASE("re-reads are served by L2 while the reuse window fits") {
  const ArrayTraffic in = halo_read_1d("in", 1024, 4, 256, 4, 8192);
  const ArrayTraffic out{"out", 4096, 4096, 0, true};
  const Traffic fits = estimate_traffic({in, out}, 1 << 20);
  CHECK(fits.dram_bytes == doctest::Approx(4096 + 4096));
  CHECK(fits.l2_bytes == doctest::Approx(134 * 32 + 4096));
  CHECK(fits.per_array[0].reuse_hits_l2);
  // An L2 of 8 KiB keeps only 4 KiB for reuse: the 8 KiB window misses.
  const Traffic misses = estimate_traffic({in, out}, 8192);
  CHECK_FALSE(misses.per_array[0].reuse_hits_l2);
  CHECK(misses.dram_bytes == doctest::Approx(134 * 32 + 4096));
  CHECK(estimate_traffic({in}, 8192, 1.0).per_array[0].reuse_hits_l2);
}

TEST_CASE("traffic rejects inconsistent input") {
  CHECK_THROWS_AS((void)estimate_traffic({ArrayTraffic{"x", 100, 50, 0, false}}, 1 << 20), std::invalid_argument);
  CHECK_THROWS_AS((void)estimate_traffic({}, 1 << 20, 0.0), std::invalid_argument);
  CHECK_THROWS_AS((void)halo_read_1d("x", 0, 4, 256, 1, 0), std::invalid_argument);
}
