// The bank probe's addresses, replayed through the model's bank simulator, must
// give the textbook answers (linear 0 conflicts, a 32 x 32 column 31 extra
// wavefronts a warp, the padded column 0), and the probe kernels must compile.
#include <memtune/compile/nvrtc_compiler.hpp>
#include <memtune/model/bank_patterns.hpp>
#include <memtune/model/bank_sim.hpp>
#include <memtune/probe/bank_probe.hpp>
#include <memtune/probe/chase.hpp>
#include <memtune/probe/runner.hpp>

#include <doctest/doctest.h>

#include <set>
#include <string>

using namespace memtune;
using namespace memtune::probe;

namespace {
const BankVariant& variant(const char* name) {
  const BankVariant* v = find_bank_variant(name);
  REQUIRE_MESSAGE(v != nullptr, name);
  return *v;
}
model::WarpAccess loop_access(const BankVariant& v, int warp) {
  return model::WarpAccess::from_function([&](int lane) -> std::optional<std::uint64_t> { return bank_loop_address(v, warp, lane); },
                                          v.width_bytes);
}
} // namespace

TEST_CASE("bank variants: 2 widths x 5 strides, unique names, kernels in the embedded source") {
  REQUIRE(bank_variants().size() == 10);
  std::set<std::string> names, kernels;
  const std::string source = probe_source();
  for (const auto& v : bank_variants()) {
    names.insert(v.name);
    kernels.insert(v.kernel);
    CHECK(source.find("MEMTUNE_BANK_KERNEL(" + v.kernel + ",") != std::string::npos);
  }
  CHECK(names.size() == 10);
  CHECK(kernels.size() == 10);
  CHECK(find_bank_variant("f32-stride32")->kernel == "probe_bank_f32_stride32");
  CHECK(find_bank_variant("nope") == nullptr);
}

TEST_CASE("bank addresses are the textbook tile accesses") {
  for (int warp = 0; warp < bank_block_warps; ++warp) {
    CAPTURE(warp);
    const auto row = model::linear(static_cast<std::uint64_t>(warp) * 4, 4);
    const auto col = model::tile_column(0, warp, 0, 32, 4);
    const auto padded = model::tile_column(0, warp, 0, 33, 4);
    for (int lane = 0; lane < 32; ++lane) {
      CHECK(bank_loop_address(variant("f32-stride1"), warp, lane) == *row.lanes[static_cast<std::size_t>(lane)]);
      CHECK(bank_loop_address(variant("f32-stride32"), warp, lane) == *col.lanes[static_cast<std::size_t>(lane)]);
      CHECK(bank_loop_address(variant("f32-stride33"), warp, lane) == *padded.lanes[static_cast<std::size_t>(lane)]);
    }
  }
  // Every address lies inside the staged tile.
  for (const auto& v : bank_variants())
    CHECK(bank_loop_address(v, bank_block_warps - 1, 31) / static_cast<std::uint64_t>(v.width_bytes) <
          static_cast<std::uint64_t>(bank_tile_elems));
  // The staging loop covers the tile exactly once.
  std::set<std::uint64_t> filled;
  int active = 0;
  for (int it = 0; it < bank_fill_iterations; ++it)
    for (int w = 0; w < bank_block_warps; ++w)
      for (int l = 0; l < 32; ++l)
        if (auto a = bank_fill_address(variant("f32-stride1"), w, l, it)) {
          filled.insert(*a);
          ++active;
        }
  CHECK(active == bank_tile_elems);
  CHECK(filled.size() == static_cast<std::size_t>(bank_tile_elems));
}

TEST_CASE("bank simulation: linear 0, stride 32 is 31-way extra, padded 0 (4-byte elements)") {
  const std::int64_t reps = 1024;
  const std::int64_t warps = bank_block_warps;
  struct Expect {
    const char* name;
    int ways;
    std::int64_t conflicts_per_warp_load;
  };
  for (const Expect e : {Expect{"f32-stride1", 1, 0}, Expect{"f32-stride2", 2, 1}, Expect{"f32-stride16", 16, 15},
                         Expect{"f32-stride32", 32, 31}, Expect{"f32-stride33", 1, 0}, Expect{"f64-stride1", 1, 0},
                         Expect{"f64-stride2", 2, 2}, Expect{"f64-stride16", 16, 30}, Expect{"f64-stride32", 16, 30},
                         Expect{"f64-stride33", 1, 0}}) {
    CAPTURE(e.name);
    const BankVariant& v = variant(e.name);
    const BankSimulation s = simulate_bank_variant(v, reps);
    CHECK(s.load_ways == e.ways);
    CHECK(s.load_conflicts == e.conflicts_per_warp_load * warps * reps);
    // The staging stores are linear: conflict-free; the final store repeats the load pattern once.
    CHECK(s.store_conflicts == e.conflicts_per_warp_load * warps);
    // The same numbers straight from bank_sim, warp by warp.
    std::int64_t conflicts = 0;
    for (int w = 0; w < bank_block_warps; ++w)
      conflicts += model::simulate_banks(loop_access(v, w), model::BankConfig::fixed_4byte()).conflicts();
    CHECK(s.load_conflicts == conflicts * reps);
  }
  CHECK(simulate_bank_variant(variant("f64-stride1"), 1).load_wavefronts == 2 * warps); // two half-warps, no conflict
  CHECK(simulate_bank_variant(variant("f32-stride32"), 1).load_wavefronts == 32 * warps);
}

TEST_CASE("every probe kernel compiles with NVRTC for sm_90 and sm_75 under its own name") {
  std::vector<std::string> names{"probe_copy_float4", "probe_offset",  "probe_stride",
                                 "probe_pointer_chase", "probe_l2_read", "probe_empty_block"};
  for (const auto& v : bank_variants()) names.push_back(v.kernel);
  for (int cc : {90, 75})
    for (const auto& name : names) {
      CAPTURE(cc);
      CAPTURE(name);
      const CompileResult r = nvrtc_compile({probe_source(), "probes.cu", name, {}, cc});
      REQUIRE_MESSAGE(r.ok, r.log);
      CHECK(r.lowered_name == name); // extern "C": what ncu --kernel-name matches
      CHECK(!r.resources.spills());
      // probe_l2_read must fit 2048 threads per SM (its __launch_bounds__(256, 8)).
      if (name == "probe_l2_read") CHECK(r.resources.registers <= 32);
    }
}

TEST_CASE("chase buffer: one random cycle through every slot") {
  const ChaseBuffer b = make_chase_buffer(1 << 16, 128, 7);
  REQUIRE(b.slots == (1u << 16) / 128);
  CHECK(b.next.size() == (1u << 16) / 4);
  std::set<std::uint32_t> seen;
  std::uint32_t j = b.start;
  for (std::size_t s = 0; s < b.slots; ++s) {
    CHECK(j % 32 == 0); // slot heads only
    seen.insert(j);
    j = b.next[j];
  }
  CHECK(j == b.start);
  CHECK(seen.size() == b.slots);
  CHECK(chase(b, b.start, static_cast<std::int64_t>(b.slots)) == b.start);
  CHECK(chase(b, b.start, 1) != b.start);
  CHECK(make_chase_buffer(1 << 16, 128, 8).next != b.next); // the seed matters
  CHECK_THROWS_AS((void)make_chase_buffer(1 << 16, 6, 1), std::invalid_argument);
  CHECK_THROWS_AS((void)make_chase_buffer(128, 128, 1), std::invalid_argument);
}

TEST_CASE("probe options: L2 read passes and launch grid sizes are range-checked") {
  ProbeOptions o;
  CHECK_NOTHROW(check_options(o));
  o.l2_read_passes = -1;
  CHECK_THROWS_AS(check_options(o), std::invalid_argument);
  o.l2_read_passes = (1 << 20) + 1;
  CHECK_THROWS_AS(check_options(o), std::invalid_argument);
  o.l2_read_passes = 64;
  CHECK_NOTHROW(check_options(o));
  o.launch_blocks = 63; // the smallest grid is launch_blocks / 64
  CHECK_THROWS_AS(check_options(o), std::invalid_argument);
  o.launch_blocks = (std::int64_t{1} << 28) + 1;
  CHECK_THROWS_AS(check_options(o), std::invalid_argument);
  o.launch_blocks = 64;
  CHECK_NOTHROW(check_options(o));
}

TEST_CASE("probe selectors") {
  CHECK_NOTHROW(check_selectors({"copy", "coalescing", "offset:0", "stride:32", "bank:f64-stride33", "latency:l2"}));
  CHECK_THROWS_AS(check_selectors({"banks"}), std::invalid_argument);
  CHECK_THROWS_AS(check_selectors({"offset:33"}), std::invalid_argument);
  CHECK_THROWS_AS(check_selectors({"stride:0"}), std::invalid_argument);
  CHECK_THROWS_AS(check_selectors({"bank:f32-stride3"}), std::invalid_argument);
  CHECK_THROWS_AS(check_selectors({"latency:l1"}), std::invalid_argument);
  CHECK_NOTHROW(check_selectors({"l2", "launch"}));
  CHECK_THROWS_AS(check_selectors({"l2:read"}), std::invalid_argument);  // whole probes only
  CHECK_THROWS_AS(check_selectors({"launch:32"}), std::invalid_argument);
  CHECK(selected({"l2"}, "l2"));
  CHECK_FALSE(selected({"latency:l2"}, "l2")); // the L2 latency item is not the L2 bandwidth probe
  CHECK_FALSE(selected({"l2"}, "latency", "l2"));
  CHECK(selected({}, "launch"));
  CHECK(selected({}, "bank", "f32-stride1"));
  CHECK(selected({"bank:f32-stride32"}, "bank"));
  CHECK(selected({"bank:f32-stride32"}, "bank", "f32-stride32"));
  CHECK_FALSE(selected({"bank:f32-stride32"}, "bank", "f32-stride33"));
  CHECK_FALSE(selected({"bank:f32-stride32"}, "copy"));
  CHECK(selected({"coalescing"}, "offset", "3"));
  CHECK(selected({"coalescing"}, "stride"));
  CHECK_FALSE(selected({"offset:3"}, "stride"));
}
