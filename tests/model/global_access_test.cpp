#include <memtune/model/bank_patterns.hpp>
#include <memtune/model/global_access.hpp>

#include <doctest/doctest.h>

#include <stdexcept>

using namespace memtune::model;

TEST_CASE("coalesced floats: 4 sectors of one line, nothing wasted") {
  const GlobalAccess g = analyze_global(linear(0, 4));
  CHECK(g.sectors == 4);
  CHECK(g.lines == 1);
  CHECK(g.bytes_requested == 128);
  CHECK(g.bytes_moved == 128);
  CHECK(g.efficiency == doctest::Approx(1.0));
}

TEST_CASE("float2 and float4 per lane: 8 and 16 sectors") {
  CHECK(analyze_global(linear(0, 8)).sectors == 8);
  const GlobalAccess g = analyze_global(linear(0, 16));
  CHECK(g.sectors == 16);
  CHECK(g.lines == 4);
  CHECK(g.efficiency == doctest::Approx(1.0));
}

TEST_CASE("floats offset by one word straddle 5 sectors and 2 lines") {
  const GlobalAccess g = analyze_global(linear(4, 4));
  CHECK(g.sectors == 5);
  CHECK(g.lines == 2);
  CHECK(g.efficiency == doctest::Approx(0.8));
}

TEST_CASE("strided floats: stride 2 moves twice the data, stride 32 a sector per lane") {
  const GlobalAccess s2 = analyze_global(strided_elems(0, 2, 4));
  CHECK(s2.sectors == 8);
  CHECK(s2.lines == 2);
  CHECK(s2.efficiency == doctest::Approx(0.5));
  const GlobalAccess s32 = analyze_global(strided_elems(0, 32, 4));
  CHECK(s32.sectors == 32);
  CHECK(s32.lines == 32);
  CHECK(s32.bytes_moved == 1024);
  CHECK(s32.efficiency == doctest::Approx(0.125));
}

TEST_CASE("a broadcast moves one sector; its requested bytes exceed the unique ones") {
  const GlobalAccess g = analyze_global(broadcast(64, 4));
  CHECK(g.sectors == 1);
  CHECK(g.bytes_requested == 128);
  CHECK(g.unique_bytes == 4);
  CHECK(g.efficiency == doctest::Approx(4.0 / 32.0));
}

TEST_CASE("inactive lanes move nothing") {
  CHECK(analyze_global(linear(0, 4).masked(0x0000FFFFu)).sectors == 2);
  const GlobalAccess none = analyze_global(linear(0, 4).masked(0));
  CHECK(none.sectors == 0);
  CHECK(none.efficiency == 0.0);
}

TEST_CASE("misaligned vector accesses are rejected") {
  CHECK_THROWS_AS((void)analyze_global(linear(4, 16)), std::invalid_argument);
}
