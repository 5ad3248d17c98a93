#include <memtune/model/sector_cache.hpp>
#include <memtune/model/store_combining.hpp>

#include <doctest/doctest.h>

using namespace memtune::model;

namespace {

// Field f of 32 consecutive structs of three floats: lane i reads float 3i + f.
WarpAccess aos_field(int f) { return WarpAccess::strided(static_cast<std::uint64_t>(4 * f), 12, 4); }

} // namespace

TEST_CASE("a cache that holds the warp's sectors serves an AoS struct's later fields") {
  SectorCache l1(128);
  CHECK(l1.access(aos_field(0)) == 12); // 384 bytes: 12 sectors fetched
  CHECK(l1.access(aos_field(1)) == 0);
  CHECK(l1.access(aos_field(2)) == 0);
}

TEST_CASE("with global loads not cached (Kepler's L1), every field fetches every sector again") {
  SectorCache l2_only(0);
  CHECK(l2_only.access(aos_field(0)) == 12);
  CHECK(l2_only.access(aos_field(1)) == 12);
  CHECK(l2_only.access(aos_field(2)) == 12);
}

TEST_CASE("a sector reused after more than the capacity's worth of other sectors misses again") {
  SectorCache small(12);
  CHECK(small.access(WarpAccess::strided(0, 4, 4)) == 4);       // sectors 0-3
  CHECK(small.access(WarpAccess::strided(4096, 4, 4)) == 4);    // 4 more
  CHECK(small.access(WarpAccess::strided(8192, 4, 4)) == 4);    // 12 accesses since sectors 0-3: gone
  CHECK(small.access(WarpAccess::strided(0, 4, 4)) == 4);
  CHECK(small.access(WarpAccess::strided(8192, 4, 4)) == 0);    // 4 accesses ago: still there
}

TEST_CASE("without L1 write combining every line of every store instruction is a request") {
  StoreCombiner none(0);
  for (int q = 0; q < 4; ++q) none.store(WarpAccess::strided(4 * q, 16, 4, AccessKind::store)); // 4 lines each
  CHECK(none.requests() == 16);
  StoreCombiner h100; // the 4-line window: the same 4 lines combine
  for (int q = 0; q < 4; ++q) h100.store(WarpAccess::strided(4 * q, 16, 4, AccessKind::store));
  CHECK(h100.requests() == 4);
}
