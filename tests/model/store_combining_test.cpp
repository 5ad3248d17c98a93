#include <memtune/model/store_combining.hpp>

#include <doctest/doctest.h>

#include <stdexcept>

using namespace memtune::model;

namespace {

WarpAccess store(std::uint64_t base, std::int64_t stride, int width) {
  return WarpAccess::strided(base, stride, width, AccessKind::store);
}

} // namespace

TEST_CASE("coalesced stores: one write request per line") {
  StoreCombiner c;
  CHECK(c.store(store(0, 16, 16)) == 4); // 512 B: 4 lines
  CHECK(c.store(store(512, 16, 16)) == 4);
  CHECK(c.requests() == 8);
}

TEST_CASE("partial writes of the same 4 lines by consecutive instructions combine") {
  // A thread storing 4 consecutive floats with 4 scalar stores (filter items 4,
  // vec 1): every instruction touches the same 4 lines.
  StoreCombiner c;
  CHECK(c.store(store(0, 16, 4)) == 4);
  for (int q = 1; q < 4; ++q) CHECK(c.store(store(4 * static_cast<std::uint64_t>(q), 16, 4)) == 0);
  CHECK(c.requests() == 4);
}

TEST_CASE("an instruction spanning more lines than the window sends a request per line every time") {
  // 8 floats per thread in 4 float2 stores (filter items 8, vec 2): 8 lines per
  // instruction, the window keeps the last 4, the next instruction starts at
  // the first line again.
  StoreCombiner c;
  for (int q = 0; q < 4; ++q) CHECK(c.store(store(8 * static_cast<std::uint64_t>(q), 32, 8)) == 8);
  CHECK(c.requests() == 32);
}

TEST_CASE("the window holds write_combining_lines lines, least recently used out") {
  StoreCombiner c;
  for (int line = 0; line < write_combining_lines; ++line)
    CHECK(c.store(WarpAccess::strided(static_cast<std::uint64_t>(line) * 128, 0, 4, AccessKind::store)) == 1);
  CHECK(c.store(WarpAccess::strided(0, 0, 4, AccessKind::store)) == 0);        // line 0 still held, now newest
  CHECK(c.store(WarpAccess::strided(128 * 9, 0, 4, AccessKind::store)) == 1);  // evicts line 1
  CHECK(c.store(WarpAccess::strided(128, 0, 4, AccessKind::store)) == 1);      // line 1 again: a new request
  CHECK(c.store(WarpAccess::strided(0, 0, 4, AccessKind::store)) == 0);
}

TEST_CASE("loads and inactive warps send no write request; a misaligned store is rejected") {
  StoreCombiner c;
  CHECK(c.store(WarpAccess::strided(0, 4, 4)) == 0);
  CHECK(c.store(store(0, 4, 4).masked(0)) == 0);
  CHECK(c.requests() == 0);
  CHECK_THROWS_AS(c.store(store(2, 4, 4)), std::invalid_argument);
}

TEST_CASE("other sectors of a held line are a request of their own") {
  // A 16-wide transpose tile: each half-warp writes 64 bytes (two sectors)
  // of an output row, the next instruction the row's next 64 bytes, the same
  // line's other two sectors. Nsight Compute on an H200 counted 0.92 M write
  // requests for 0.52 M lines written (4096 x 4096): about two a line, where
  // combining them would give one.
  const auto half_rows = [](std::uint64_t offset) {
    WarpAccess a = store(0, 4, 4);
    for (int lane = 0; lane < 32; ++lane) // lanes 0-15: row 0, lanes 16-31: row 1 (16 KiB further)
      a.lanes[static_cast<std::size_t>(lane)] = (lane < 16 ? 0 : 16384) + offset + 4 * static_cast<std::uint64_t>(lane % 16);
    return a;
  };
  StoreCombiner c;
  CHECK(c.store(half_rows(0)) == 2);  // sectors 0-1 of two lines
  CHECK(c.store(half_rows(64)) == 2); // sectors 2-3 of the same two lines
  CHECK(c.store(half_rows(0)) == 2);  // sectors 0-1 again: the pending requests hold 2-3
  CHECK(c.store(half_rows(32)) == 0); // sectors 1-2: they overlap the pending 0-1, combined
  CHECK(c.requests() == 6);
}
