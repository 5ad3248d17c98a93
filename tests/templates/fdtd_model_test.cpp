// The fdtd's access patterns (templates/fdtd/fdtd_access.cpp and
// fdtd_ring_access.cpp) as the model replays them: coalescing, bank
// conflicts, every output stored once, and the ring's loops for rows that
// are not 16-byte aligned. No GPU, no NVRTC.
#include "fdtd_test_support.hpp"

#include <memtune/model/bank_replay.hpp>
#include <memtune/model/global_access.hpp>
#include <memtune/templates/catalogue.hpp>
#include <memtune/templates/fdtd.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>

using namespace memtune;
using namespace memtune::fdtd_test;

TEST_CASE("fdtd access pattern: coalesced float4 columns, conflict-free shared memory, every output once") {
  const auto& t = templates::fdtd_description();
  const Problem p = default_problem();
  {
    const search::Config c = config(32, 8, 4, 4, 1, 0);
    const AccessPattern a = t.hooks.access_pattern(c, p, h100_like());
    CHECK(a.block_threads == 256);
    CHECK(a.blocks == 4 * 64 * 4);
    // The column loads and the output stores: 512 contiguous bytes per warp, every sector used.
    // One replayed plane per instruction, repeated: a chunk of 64 planes
    // stores 64, loads its column 63 times in the loop (the last look-ahead
    // plane lies past what the chunk needs) and 9 before it (2R + prefetch).
    std::map<std::string, std::int64_t> repeats;
    for (const auto& g : a.global) {
      repeats[g.name] = g.repeat;
      if (g.name.find("column") == std::string::npos && g.name.find("output") == std::string::npos) continue;
      CHECK(g.width_bytes == 16);
      CHECK(g.iterations == 1);
      const auto ga = model::analyze_global(warp_access(g, 3, 0));
      CHECK(ga.efficiency == doctest::Approx(1.0));
    }
    CHECK(repeats["store output"] == 64);
    CHECK(repeats["load column (plane z+R+prefetch)"] == 63);
    CHECK(repeats["load queue start"] == 9);
    CHECK(repeats["load halo 0"] == 63);
    // The y halo rows are whole rows; the x halo of R=4 floats is half a sector.
    const auto replay = model::replay_block(a.shared, 8, model::BankConfig::fixed_4byte());
    CHECK(replay.total.conflicts() == 0);
    CHECK(a.loads_in_flight_per_thread == doctest::Approx(1.0 + 272.0 / 256.0));
    CHECK(a.bytes_per_load == 16);
    CHECK_FALSE(a.barrier_between_load_and_compute);
    CHECK(t.hooks.access_pattern(config(32, 8, 4, 4, 0, 0), p, h100_like()).barrier_between_load_and_compute);
    // Traffic by resident blocks (the registers decide them): input, the
    // z-chunk overlap, output.
    REQUIRE(a.arrays_by_residency);
    const auto arrays = a.arrays_by_residency(132);
    REQUIRE(arrays.size() == 3);
    CHECK(arrays[1].requested_bytes == doctest::Approx(3.0 * 2 * 4 * 512 * 512 * 4));
    // One z-slice (4 x 64 blocks of 32x8 x 4 floats) against the blocks running
    // at once: the neighbouring chunk re-reads its planes |256 / resident - 1|
    // lifetimes later, so the window is smallest when the two are equal.
    CHECK(a.arrays_by_residency(256)[1].reuse_window_bytes < arrays[1].reuse_window_bytes);
    CHECK(a.arrays_by_residency(256)[1].reuse_window_bytes < a.arrays_by_residency(528)[1].reuse_window_bytes);
  }
  {
    // The article's 32x4 with floats: coalesced, but 8 halo rows for 4 rows
    // of tile; the 32 x-halo floats of a plane are one warp's store, whose
    // two sides share banks once (one extra wavefront per plane).
    const AccessPattern a = t.hooks.access_pattern(config(32, 4, 1, 1, 0, 0), p, h100_like());
    const auto replay = model::replay_block(a.shared, 4, model::BankConfig::fixed_4byte());
    CHECK(replay.total.conflicts() == 256); // one per plane
    for (const auto& i : replay.per_instruction) CHECK(i.worst_ways <= (i.name == "store halo 2" ? 2 : 1));
    const auto arrays = a.arrays_by_residency(528);
    REQUIRE(arrays.size() == 2);
    CHECK(arrays[0].requested_bytes > 2.5 * arrays[0].footprint_bytes);
  }
  // Every configuration: accesses aligned to their width, and the block's
  // stores write its tile of a plane exactly once, for every plane of its chunk.
  for (const Problem& q : {problem(96, 40, 20, 4), problem(64, 33, 16, 2)}) {
    const search::Space s = t.space(q, h100_like());
    for (const auto& c : s.enumerate()) {
      if (c.at("zsplit") != 2 || c.at("min_warps") != 0) continue; // the rest changes no address
      CAPTURE(format_problem(q));
      CAPTURE(s.format(c));
      const AccessPattern a = t.hooks.access_pattern(c, q, h100_like());
      const int warps = a.block_threads / 32;
      std::map<std::uint64_t, int> written;
      bool aligned = true;
      for (const auto& g : a.global)
        for (int w = 0; w < warps; ++w)
          for (std::int64_t it = 0; it < g.iterations; ++it) {
            for (int lane = 0; lane < 32; ++lane) {
              const auto addr = g.address(w, lane, it);
              if (!addr) continue;
              aligned &= *addr % static_cast<std::uint64_t>(g.width_bytes) == 0;
              if (g.kind == model::AccessKind::store) ++written[*addr];
            }
          }
      CHECK(aligned);
      const std::int64_t tx = c.at("bx") * c.at("vx"), ty = c.at("by") * c.at("ky"), chunk = (q.at("nz") + 1) / 2;
      // The replayed block: the middle one of each grid axis, rounded down (FdtdGeometry::sample_x0).
      const std::int64_t x0 = ((q.at("nx") + tx - 1) / tx - 1) / 2 * tx, y0 = ((q.at("ny") + ty - 1) / ty - 1) / 2 * ty;
      const std::int64_t vectors_per_row = (std::min(q.at("nx"), x0 + tx) - x0 + c.at("vx") - 1) / c.at("vx");
      const std::int64_t rows = std::min(q.at("ny"), y0 + ty) - y0;
      const std::int64_t z0 = ((q.at("nz") + chunk - 1) / chunk - 1) / 2 * chunk;
      const std::int64_t planes = std::min(q.at("nz"), z0 + chunk) - z0;
      CHECK(static_cast<std::int64_t>(written.size()) == vectors_per_row * rows);
      CHECK(a.global.back().repeat == planes);
      bool once = true;
      for (const auto& [addr, count] : written) once &= count == 1;
      CHECK(once);
    }
  }
}

TEST_CASE("fdtd ring: spill code runs once per unrolled loop body (zu planes), not once a run") {
  // ptxas reports the bytes of the spill code; the ring's z loop holds zu
  // planes, so a chunk of 256 planes runs its body 256 / zu times. Without a
  // trip count the model took the spills of a 128-register cap (H100: 496
  // bytes, 366 us measured against 209 us without the cap) as free.
  const auto& t = templates::fdtd_description();
  const Problem p = default_problem();
  for (const std::int64_t zu : {3, 9}) {
    CAPTURE(zu);
    const AccessPattern a = t.hooks.access_pattern(ring(32, 8, 4, 2, 3, zu, 1, 0, 16), p, h100_like());
    CHECK(a.main_loop_trips_per_thread == doctest::Approx(256.0 / static_cast<double>(zu)));
    // zfill 2: 128 tile columns of 128x16 on 132 SMs, two chunks.
    CHECK(t.hooks.access_pattern(ring(32, 8, 4, 2, 3, zu, 1, 2, 16), p, h100_like()).main_loop_trips_per_thread ==
          doctest::Approx(128.0 / static_cast<double>(zu)));
  }
}

namespace {
// The ring's box copies where rows are not 16-byte aligned: checks that each
// copy is `width` bytes a lane and that its lanes read consecutive pieces of
// a row; returns how many copies a thread issues a plane.
int row_copies(const AccessPattern& a, int width) {
  int copies = 0;
  for (const GlobalInstruction& g : a.global) {
    if (g.name.rfind("copy box", 0) != 0) continue;
    ++copies;
    CHECK(g.width_bytes == width);
    const model::WarpAccess w = warp_access(g, 2, 0);
    for (int lane = 1; lane < 32; ++lane)
      if (w.lanes[lane] && w.lanes[lane - 1]) CHECK(*w.lanes[lane] == *w.lanes[lane - 1] + width);
  }
  return copies;
}
} // namespace

TEST_CASE("fdtd ring at odd nx: warps copy box rows by consecutive floats, one wavefront and 128 bytes a copy") {
  const auto& t = templates::fdtd_description();
  const Target target = h100_like();
  const model::BankConfig banks = model::BankConfig::for_target(target, 4);
  // 64x16 tile of 32x8 threads: box rows of 72 floats (3 segments of 32
  // lanes, the last 8 wide), 24 rows over 8 warps.
  const search::Config c = ring(32, 8, 2, 2, 4, 9, 0);
  const auto landing = [&](const Problem& p) {
    const AccessPattern a = t.hooks.access_pattern(c, p, target);
    for (const auto& i : model::replay_block(a.shared, a.block_threads / 32, banks).per_instruction)
      if (i.name == "copies land") return i;
    FAIL("no copies land instruction");
    return model::InstructionTotals{};
  };
  const model::InstructionTotals odd = landing(problem(301, 300, 300, 4)), aligned = landing(problem(300, 300, 300, 4));
  CHECK(odd.conflicts() == 0);
  CHECK(odd.wavefronts == odd.executions);
  CHECK(odd.executions == 8 * 3 * 3 * 300); // 8 warps, 3 rows each, 3 copies a row, 300 planes (one chunk)
  CHECK(aligned.conflicts() == 0);
  // The odd loop's copies read whole rows: each copy's lanes read consecutive floats.
  CHECK(row_copies(t.hooks.access_pattern(c, problem(301, 300, 300, 4), target), 4) == 9);
}

TEST_CASE("fdtd ring at nx % 4 == 2: warps copy box rows by consecutive pairs, 256 bytes a copy, no conflicts") {
  const auto& t = templates::fdtd_description();
  const Target target = h100_like();
  const model::BankConfig banks = model::BankConfig::for_target(target, 4);
  // 64x16 tile of 32x8 threads: box rows of 72 floats, 36 pairs (2
  // segments of 32 lanes, the last 4 wide), 24 rows over 8 warps.
  const search::Config c = ring(32, 8, 2, 2, 4, 9, 0);
  const AccessPattern a = t.hooks.access_pattern(c, problem(302, 300, 300, 4), target);
  model::InstructionTotals landing;
  for (const auto& i : model::replay_block(a.shared, a.block_threads / 32, banks).per_instruction)
    if (i.name == "copies land") landing = i;
  CHECK(landing.conflicts() == 0);
  CHECK(landing.executions == 8 * 3 * 2 * 300); // 8 warps, 3 rows each, 2 copies a row, 300 planes (one chunk)
  CHECK(row_copies(a, 8) == 6);
}

TEST_CASE("fdtd ring at odd nx, one tile column: the row copies start at the volume's first column") {
  const auto& t = templates::fdtd_description();
  const Target target = h100_like();
  // nx 37 inside one 64-float tile: the box starts 4 floats left of the
  // volume, and its rows are copied from column 0 on, 37 floats (a whole
  // segment of 32 lanes, then 5), as the kernel's bx_lo and bx_hi.
  const search::Config c = ring(32, 8, 2, 2, 4, 9, 0);
  const AccessPattern a = t.hooks.access_pattern(c, problem(37, 40, 20, 4), target);
  std::vector<model::WarpAccess> segments;
  for (const GlobalInstruction& g : a.global)
    if (g.name.rfind("copy box", 0) == 0) segments.push_back(warp_access(g, 2, 0));
  REQUIRE(segments.size() == 9); // 3 rows a warp, 3 segments a row
  const auto active = [](const model::WarpAccess& w) {
    return std::count_if(w.lanes.begin(), w.lanes.end(), [](const auto& l) { return l.has_value(); });
  };
  CHECK(active(segments[0]) == 32);
  CHECK(active(segments[1]) == 5);
  CHECK(active(segments[2]) == 0);
  REQUIRE(segments[0].lanes[0]);
  REQUIRE(segments[1].lanes[0]);
  CHECK(*segments[1].lanes[0] == *segments[0].lanes[0] + 4 * 32);
  CHECK(*segments[0].lanes[0] % (4 * 37) == 0); // the row's first float
}

TEST_CASE("fdtd halo padding: unpadded rows put the x halo's column stores on fewer banks") {
  const auto& t = templates::fdtd_description();
  const Problem p = default_problem();
  const Target target = h100_like();
  const auto wavefronts = [&](std::int64_t pad) {
    const AccessPattern a = t.hooks.access_pattern(config(32, 8, 1, 1, 0, 0, pad), p, target);
    return model::replay_block(a.shared, a.block_threads / 32, model::BankConfig::for_target(target, 4)).total.wavefronts;
  };
  CHECK(t.space(p, target).is_valid(config(32, 8, 1, 1, 0, 0, 0)));
  CHECK(wavefronts(0) > wavefronts(1));
}
