// The transpose template's description: its space on real targets, its
// launches at odd sizes, its reference, and the access pattern the model
// replays (the shared tile's column reads: 32-way conflicts unpadded, none
// padded, the lesson of NVIDIA's 2008 article).
#include <memtune/model/bank_replay.hpp>
#include <memtune/model/global_replay.hpp>
#include <memtune/model/target_catalog.hpp>
#include <memtune/model/time_model.hpp>
#include <memtune/templates/transpose.hpp>

#include "../support/catalogue_target.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

using namespace memtune;

namespace {

const Target& target(const std::string& name) {
  static const model::TargetCatalog c = model::TargetCatalog::load_directory(MEMTUNE_TEST_TARGETS_DIR);
  return c.find(name);
}

const KernelDescription& transpose() { return templates::transpose_description(); }

// Worst ways and total wavefronts of one shared instruction of a configuration, per block.
model::InstructionTotals shared_totals(const search::Config& c, const Problem& p, const std::string& instruction) {
  const AccessPattern a = transpose().hooks.access_pattern(c, p, target("h100-sxm"));
  const model::BankReplay r = model::replay_block(a.shared, a.block_threads / 32, model::BankConfig::fixed_4byte());
  for (const auto& i : r.per_instruction)
    if (i.name == instruction) return i;
  FAIL("no shared instruction named " << instruction);
  return {};
}

} // namespace

TEST_CASE("transpose space: tiles square or wider than tall, blocks of whole warps within the device limit, padded "
          "or not") {
  const Problem p = transpose().complete({});
  CHECK(p.at("rows") == 4096);
  CHECK(p.at("cols") == 4096);
  const search::Space s = transpose().space(p, target("h100-sxm"));
  REQUIRE(s.axes().size() == 4);
  CHECK(s.pruned().empty());
  const auto configs = s.enumerate();
  // tile 16 (16 threads in x): tile_rows 16, 32, 64 x block_rows 2..16; tile 32 and 64 (32 threads in x):
  // tile_rows 32, 64 x block_rows 1..32; each with pad 0 and 1.
  CHECK(configs.size() == (3 * 4 + 2 * 6 + 2 * 6) * 2);
  for (const auto& c : configs) {
    const std::int64_t block_x = std::min<std::int64_t>(c.at("tile"), 32);
    CHECK(c.at("tile_rows") % block_x == 0);
    CHECK(c.at("block_rows") <= std::min(c.at("tile"), c.at("tile_rows")));
    CHECK(block_x * c.at("block_rows") % 32 == 0);
    CHECK(block_x * c.at("block_rows") <= 1024);
  }
  // The same configurations where output rows start off sector boundaries.
  CHECK(transpose().space(transpose().complete({{"rows", 3001}, {"cols", 4096}}), target("h100-sxm")).enumerate() ==
        configs);
  CHECK(s.is_valid(transpose().default_config(p, target("h100-sxm"))));
  CHECK(transpose().default_config(p, target("k20")) ==
        search::Config{{"tile", 32}, {"tile_rows", 32}, {"block_rows", 8}, {"pad", 1}});
  CHECK(transpose().bytes_moved(p) == 2ULL * 4096 * 4096 * 4);
  CHECK(transpose().has_model());

  // A matrix taller than 65535 row tiles of 16 leaves only the taller tiles.
  const search::Space tall = transpose().space(transpose().complete({{"rows", 1048576}, {"cols", 1}}), target("a100"));
  for (const auto& c : tall.enumerate()) CHECK(c.at("tile_rows") >= 32);
  CHECK_FALSE(tall.enumerate().empty());
}

TEST_CASE("transpose launch: the grid covers every element of odd matrices with tiles, the block is min(tile, 32) x "
          "rows") {
  for (const auto& [rows, cols] : std::vector<std::pair<std::int64_t, std::int64_t>>{{1, 1}, {33, 17}, {100, 1000}}) {
    const Problem p = transpose().complete({{"rows", rows}, {"cols", cols}});
    for (const auto& c : transpose().space(p, target("h100-sxm")).enumerate()) {
      const LaunchSpec l = transpose().launch(c, p, target("h100-sxm"));
      const std::int64_t tile = c.at("tile"), tile_rows = c.at("tile_rows");
      const std::int64_t covered = rows + (rows % 8 != 0 ? 7 : 0); // shifted segments may end 7 rows later
      CHECK(l.name_expression == "transpose_kernel<" + std::to_string(tile) + ", " + std::to_string(tile_rows) + ", " +
                                     std::to_string(c.at("block_rows")) + ", " + std::to_string(c.at("pad")) + ">");
      CHECK(l.block == Dim3{static_cast<unsigned>(std::min<std::int64_t>(tile, 32)),
                            static_cast<unsigned>(c.at("block_rows")), 1});
      CHECK(static_cast<std::int64_t>(l.grid.x) * tile >= cols);
      CHECK(static_cast<std::int64_t>(l.grid.x - 1) * tile < cols);
      CHECK(static_cast<std::int64_t>(l.grid.y) * tile_rows >= covered);
      CHECK(static_cast<std::int64_t>(l.grid.y - 1) * tile_rows < covered);
      CHECK(l.dynamic_smem_bytes == 0); // the tile is a static __shared__ array
      CHECK(l.options.empty());
    }
  }
}

TEST_CASE("transpose reference: out(j, i) = in(i, j) on odd shapes, and its verification is exact") {
  for (const auto& [rows, cols] : std::vector<std::pair<std::int64_t, std::int64_t>>{{1, 1}, {1, 7}, {5, 1}, {3, 4}}) {
    std::vector<float> in(static_cast<std::size_t>(rows * cols));
    for (std::size_t k = 0; k < in.size(); ++k) in[k] = static_cast<float>(k) + 0.5F;
    const std::vector<double> out = templates::transpose_reference(in, rows, cols);
    REQUIRE(out.size() == in.size());
    for (std::int64_t i = 0; i < rows; ++i)
      for (std::int64_t j = 0; j < cols; ++j)
        CHECK(out[static_cast<std::size_t>(j * rows + i)] == in[static_cast<std::size_t>(i * cols + j)]);
  }
  CHECK_THROWS_AS(templates::transpose_reference(std::vector<float>(5), 2, 3), std::invalid_argument);

  // The candidates are verified against transpose.cu's transpose_reference
  // (tests/templates/transpose_emulation_test.cpp runs it), exactly: a copy.
  REQUIRE(transpose().verify.mode == VerifySpec::Mode::reference_kernel);
  CHECK(transpose().verify.tolerance.abs == 0.0);
  CHECK(transpose().verify.tolerance.rel == 0.0);
  const Problem p = transpose().complete({{"rows", 3000}, {"cols", 7}});
  const LaunchSpec l = transpose().reference_launch(p, catalogue_target("h100-sxm"));
  CHECK(l.name_expression == "transpose_reference");
  CHECK(l.grid.x == 83); // ceil(21000 / 256)
  CHECK(l.block.x == 256);
  const Problem huge = transpose().complete({{"rows", 1 << 20}, {"cols", 1 << 20}});
  CHECK(transpose().reference_launch(huge, catalogue_target("h100-sxm")).grid.x == 1U << 20); // a grid-stride loop
}

TEST_CASE("transpose access pattern: the tile's column reads conflict 32 ways unpadded and not at all padded") {
  const Problem p = transpose().complete({{"rows", 1024}, {"cols", 1024}});
  for (std::int64_t tile : {32, 64}) {
    CAPTURE(tile);
    const search::Config bare{{"tile", tile}, {"tile_rows", 32}, {"block_rows", 8}, {"pad", 0}};
    const search::Config padded{{"tile", tile}, {"tile_rows", 32}, {"block_rows", 8}, {"pad", 1}};
    CHECK(shared_totals(bare, p, "load tile columns").worst_ways == 32);
    CHECK(shared_totals(padded, p, "load tile columns").worst_ways == 1);
    // Row stores are conflict-free either way.
    CHECK(shared_totals(bare, p, "store tile rows").worst_ways == 1);
    CHECK(shared_totals(padded, p, "store tile rows").worst_ways == 1);
  }
  // 16-wide tiles: a warp spans two tile rows; unpadded, its column reads land
  // on 4 banks (8 ways), padded on 31 (one bank shared by the two rows' ends).
  const search::Config bare16{{"tile", 16}, {"tile_rows", 16}, {"block_rows", 4}, {"pad", 0}};
  const search::Config padded16{{"tile", 16}, {"tile_rows", 16}, {"block_rows", 4}, {"pad", 1}};
  CHECK(shared_totals(bare16, p, "load tile columns").worst_ways == 8);
  CHECK(shared_totals(padded16, p, "load tile columns").worst_ways == 2);

  // Global accesses: a warp of a 32-wide tile reads and writes 128 contiguous bytes.
  const search::Config c{{"tile", 32}, {"tile_rows", 32}, {"block_rows", 8}, {"pad", 1}};
  const AccessPattern a = transpose().hooks.access_pattern(c, p, target("h100-sxm"));
  CHECK(a.block_threads == 256);
  CHECK(a.blocks == 32 * 32);
  REQUIRE(a.arrays.size() == 2);
  CHECK(a.arrays[0].requested_bytes == doctest::Approx(1024.0 * 1024 * 4)); // fully used sectors
  CHECK(a.arrays[1].written);
  CHECK(a.loads_in_flight_per_thread == 4);
  // Rows of 1001 floats start off sector boundaries: the tile rows touch partial sectors.
  const Problem odd = transpose().complete({{"rows", 1001}, {"cols", 1001}});
  const AccessPattern square = transpose().hooks.access_pattern(c, odd, target("h100-sxm"));
  // The reads: partial sectors at each tile row's ends, and the 8 rows above
  // each 32-row tile read again. The writes: output segments shifted onto
  // sectors, whole sectors only.
  CHECK(square.arrays[0].requested_bytes > 1001.0 * 1001 * 4 * 1.1 * 40 / 32);
  CHECK(square.arrays[1].requested_bytes == doctest::Approx(square.arrays[1].footprint_bytes).epsilon(0.01));
  CHECK(square.loads_in_flight_per_thread == 5);
  // Rows a multiple of 8: nothing shifted, nothing read twice.
  const AccessPattern even = transpose().hooks.access_pattern(c, transpose().complete({{"rows", 1000}, {"cols", 1024}}),
                                                              target("h100-sxm"));
  CHECK(even.loads_in_flight_per_thread == 4);
  CHECK(even.arrays[0].requested_bytes == doctest::Approx(even.arrays[0].footprint_bytes).epsilon(0.01));
}

TEST_CASE("transpose instructions: the count follows what Nsight Compute issued, per load step and per output row") {
  // Warp instructions per warp issued on an H200 at 4096 x 4096 (ncu
  // smsp__inst_executed over the launch's warps; docs/model.md, "Known
  // misses"): a block of one warp over a 32x32 tile issues 3.6x as much per
  // warp as one of 8 warps over a 64x64 tile, though each of its threads
  // copies only twice as many elements; the old count (6 per copy) said 2.2x.
  struct Measured {
    std::int64_t tile, tile_rows, block_rows;
    double issued_per_warp;
  };
  const Problem p = transpose().complete({{"rows", 4096}, {"cols", 4096}});
  const double overhead = model::TimeModelParams{}.instruction_overhead; // the time model multiplies it back
  for (const Measured m : {Measured{64, 64, 8, 326}, {64, 64, 16, 183}, {32, 32, 1, 1184}, {64, 64, 1, 2881},
                           {32, 32, 2, 677}, {16, 64, 4, 421}, {32, 64, 2, 921}, {64, 32, 2, 995}}) {
    CAPTURE(m.tile);
    CAPTURE(m.tile_rows);
    CAPTURE(m.block_rows);
    const search::Config c{{"tile", m.tile}, {"tile_rows", m.tile_rows}, {"block_rows", m.block_rows}, {"pad", 1}};
    const AccessPattern a = transpose().hooks.access_pattern(c, p, target("h200"));
    const double per_warp = a.warp_instructions_per_block / ((a.block_threads + 31) / 32) * overhead;
    CHECK(per_warp == doctest::Approx(m.issued_per_warp).epsilon(0.12));
  }
}

TEST_CASE("transpose stores: a 64-wide tile sends a write request a line, a 16-wide tile two") {
  // Nsight Compute on an H200 at 4096 x 4096: 0.52 M write requests for the
  // 0.52 M output lines with 64x64 tiles, 0.92 M with 16x64 tiles, whose
  // half-warps write each line's halves in two instructions.
  const Problem p = transpose().complete({{"rows", 4096}, {"cols", 4096}});
  const auto requests_per_line = [&](std::int64_t tile, std::int64_t block_rows) {
    const search::Config c{{"tile", tile}, {"tile_rows", 64}, {"block_rows", block_rows}, {"pad", 1}};
    const AccessPattern a = transpose().hooks.access_pattern(c, p, target("h200"));
    const int warps = a.block_threads / 32;
    const GlobalTraffic t = replay_global(a, warps, GlobalCaching::for_target(target("h200"), 64, 0));
    const double lines = static_cast<double>(tile * 64 * 4) / 128; // the block's output, 128-byte lines
    return t.write_requests / lines;
  };
  CHECK(requests_per_line(64, 8) == doctest::Approx(1.0));
  CHECK(requests_per_line(16, 4) == doctest::Approx(2.0));
}
