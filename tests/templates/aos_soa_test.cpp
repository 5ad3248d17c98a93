#include <memtune/compile/compile_pool.hpp>
#include <memtune/model/bank_replay.hpp>
#include <memtune/model/global_access.hpp>
#include <memtune/templates/aos_soa.hpp>
#include <memtune/output/tuning_result.hpp>
#include <memtune/templates/catalogue.hpp>

#include "../support/test_target.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <future>
#include <map>
#include <set>

using namespace memtune;
using templates::AosSoaLayout;
using templates::AosSoaOp;

namespace {
Target h100_like() { return test_target(90, 227 * 1024); }

Problem problem(std::int64_t n, AosSoaOp op, std::int64_t fields) {
  return {{"n", n}, {"op", static_cast<std::int64_t>(op)}, {"fields", fields}};
}
constexpr AosSoaOp kOps[] = {AosSoaOp::read, AosSoaOp::write, AosSoaOp::readwrite};
std::int64_t layout(AosSoaLayout l) { return static_cast<std::int64_t>(l); }

// Lane addresses of one warp instruction.
model::WarpAccess warp_access(const GlobalInstruction& g, int warp, std::int64_t it) {
  return model::WarpAccess::from_function([&](int lane) { return g.address(warp, lane, it); }, g.width_bytes, g.kind);
}
} // namespace

TEST_CASE("aos_soa is in the catalogue, with its problem parameters") {
  CHECK(&templates::find_description("aos_soa") == &templates::aos_soa_description());
  const auto params = templates::aos_soa_description().problem;
  REQUIRE(params.size() == 3);
  CHECK(params[0].name == "n");
  CHECK(params[0].default_value == (1 << 24));
  CHECK(params[1].name == "op");
  CHECK(params[1].labels == std::vector<std::string>{"read", "write", "readwrite"});
  CHECK(params[2].name == "fields");
  CHECK(params[2].default_value == 3);
  CHECK(params[2].min == 1);
  CHECK(params[2].max == 8);
  const Problem p = complete_problem(params, {});
  CHECK(p.at("op") == 0);
  CHECK_THROWS_AS(complete_problem(params, {{"fields", 9}}), std::invalid_argument);
}

TEST_CASE("aos_soa space: axes, pruned combinations, default config") {
  const auto& t = templates::aos_soa_description();
  for (AosSoaOp op : kOps) {
    for (std::int64_t f = 1; f <= 8; ++f) {
      CAPTURE(static_cast<int>(op));
      CAPTURE(f);
      const Problem p = problem(1 << 24, op, f);
      const search::Space s = t.space(p, h100_like());
      REQUIRE(s.axes().size() == 3);
      CHECK(s.axis("layout").labels == templates::aos_soa_layout_labels());
      CHECK(s.is_valid(t.default_config(p, h100_like())));
      std::set<std::int64_t> layouts;
      for (const auto& c : s.enumerate()) {
        layouts.insert(c.at("layout"));
        if (c.at("layout") == layout(AosSoaLayout::aos_vec)) CHECK((c.at("items") * f) % 2 == 0);
        if (c.at("layout") == layout(AosSoaLayout::aos_smem)) CHECK(c.at("block_size") * c.at("items") * f * 4 <= 227 * 1024);
        if (op == AosSoaOp::write) CHECK(c.at("layout") != layout(AosSoaLayout::aos_ldg));
        CHECK(c.at("block_size") * (c.at("items") * f + 40) <= 65536);
      }
      // Every layout is in the space (aos_vec with items >= 2), aos_ldg unless writing.
      CHECK(layouts.size() == (op == AosSoaOp::write ? 4U : 5U));
      // The configurations that can reach the copy ceiling are there.
      CHECK(s.is_valid({{"layout", layout(AosSoaLayout::soa)}, {"block_size", 256}, {"items", 8}}));
      CHECK(s.is_valid({{"layout", layout(AosSoaLayout::aos_smem)}, {"block_size", 256}, {"items", 4}}));
      CHECK(s.is_valid({{"layout", layout(AosSoaLayout::aos_vec)}, {"block_size", 256}, {"items", 4}}));
    }
  }
  const Problem p3 = problem(1 << 24, AosSoaOp::read, 3);
  const search::Space s3 = t.space(p3, h100_like());
  // 3 x 1 floats: odd, no aligned 8-byte vector.
  CHECK_FALSE(s3.is_valid({{"layout", layout(AosSoaLayout::aos_vec)}, {"block_size", 256}, {"items", 1}}));
  CHECK(s3.is_valid({{"layout", layout(AosSoaLayout::aos)}, {"block_size", 256}, {"items", 1}}));
  CHECK(s3.is_valid({{"layout", layout(AosSoaLayout::aos_ldg)}, {"block_size", 256}, {"items", 1}}));
  CHECK_FALSE(t.space(problem(100, AosSoaOp::write, 3), h100_like())
                  .is_valid({{"layout", layout(AosSoaLayout::aos_ldg)}, {"block_size", 256}, {"items", 1}}));
  // 5 layouts x 5 block sizes x 4 items, less aos_vec with items = 1.
  CHECK(s3.enumerate().size() == 100 - 5);
  // Shared memory: 1024 x 8 x 8 floats = 256 KiB does not fit in 227 KiB; on a
  // 48 KiB target neither does 1024 x 4 x 3 floats (48 KiB + 0) ... but 1024 x 8 x 3 (96 KiB) is pruned.
  const search::Space s8 = t.space(problem(1 << 24, AosSoaOp::read, 8), h100_like());
  CHECK_FALSE(s8.is_valid({{"layout", layout(AosSoaLayout::aos_smem)}, {"block_size", 1024}, {"items", 8}}));
  CHECK(s8.is_valid({{"layout", layout(AosSoaLayout::soa)}, {"block_size", 512}, {"items", 8}}));
  // 64 floats per thread at 1024 threads would spill (64 registers each).
  CHECK_FALSE(s8.is_valid({{"layout", layout(AosSoaLayout::soa)}, {"block_size", 1024}, {"items", 8}}));
  CHECK(s3.is_valid({{"layout", layout(AosSoaLayout::soa)}, {"block_size", 1024}, {"items", 8}}));
  const search::Space small = t.space(p3, test_target(75, 48 * 1024));
  CHECK_FALSE(small.is_valid({{"layout", layout(AosSoaLayout::aos_smem)}, {"block_size", 1024}, {"items", 8}}));
  CHECK(small.is_valid({{"layout", layout(AosSoaLayout::aos_smem)}, {"block_size", 1024}, {"items", 4}}));
  CHECK(small.is_valid({{"layout", layout(AosSoaLayout::aos)}, {"block_size", 1024}, {"items", 8}}));
  const auto why = small.violation({{"layout", layout(AosSoaLayout::aos_smem)}, {"block_size", 1024}, {"items", 8}});
  REQUIRE(why.has_value());
  CHECK(why->find("shared memory") != std::string::npos);
}

TEST_CASE("aos_soa launch: grid covers every element, shared memory only for aos_smem") {
  const auto& t = templates::aos_soa_description();
  for (std::int64_t n : {1LL, 31LL, 1000003LL}) {
    for (AosSoaOp op : kOps) {
      for (std::int64_t f : {1LL, 3LL, 4LL, 8LL}) {
        const Problem p = problem(n, op, f);
        for (const auto& c : t.space(p, h100_like()).enumerate()) {
          const LaunchSpec l = t.launch(c, p, h100_like());
          const std::int64_t tile = c.at("block_size") * c.at("items");
          CHECK(static_cast<std::int64_t>(l.grid.x) * tile >= n);
          CHECK(static_cast<std::int64_t>(l.grid.x - 1) * tile < n);
          CHECK(l.block.x == static_cast<unsigned>(c.at("block_size")));
          const bool smem = c.at("layout") == layout(AosSoaLayout::aos_smem);
          CHECK(l.dynamic_smem_bytes == (smem ? static_cast<std::size_t>(tile * f * 4) : 0U));
          CHECK(l.name_expression == "aos_soa_kernel<" + std::to_string(static_cast<int>(op)) + ", " +
                                         std::to_string(c.at("layout")) + ", " + std::to_string(f) + ", " +
                                         std::to_string(c.at("block_size")) + ", " + std::to_string(c.at("items")) + ">");
        }
      }
    }
  }
}

TEST_CASE("aos_soa bytes moved: the minimum for the op in any layout") {
  const auto& t = templates::aos_soa_description();
  const std::uint64_t n = 1 << 24;
  CHECK(t.bytes_moved(problem(n, AosSoaOp::read, 3)) == n * 3 * 4 + n * 4);
  CHECK(t.bytes_moved(problem(n, AosSoaOp::write, 3)) == n * 4 + n * 3 * 4);
  CHECK(t.bytes_moved(problem(n, AosSoaOp::readwrite, 3)) == 2 * n * 3 * 4);
  CHECK(t.bytes_moved(problem(5, AosSoaOp::read, 8)) == 5 * 8 * 4 + 5 * 4);
}

TEST_CASE("aos_soa reference matches a naive loop on odd sizes") {
  for (std::size_t n : {1U, 31U, 1000003U}) {
    for (int f : {1, 3, 4}) {
      CAPTURE(n);
      CAPTURE(f);
      std::vector<float> structs(n * static_cast<std::size_t>(f)), scalars(n);
      for (std::size_t i = 0; i < structs.size(); ++i) structs[i] = static_cast<float>((i * 7919) % 1000) / 997.0F - 0.4F;
      for (std::size_t i = 0; i < n; ++i) scalars[i] = static_cast<float>((i * 104729) % 1000) / 991.0F + 0.01F;

      const auto read = templates::aos_soa_reference(AosSoaOp::read, f, structs);
      const auto write = templates::aos_soa_reference(AosSoaOp::write, f, scalars);
      const auto rw = templates::aos_soa_reference(AosSoaOp::readwrite, f, structs);
      REQUIRE(read.size() == n);
      REQUIRE(write.size() == n * f);
      REQUIRE(rw.size() == n * f);
      bool all_ok = true; // one CHECK per case: a million CHECKs would swamp the report
      for (std::size_t i = 0; i < n; ++i) {
        double sum = 0;
        for (int k = 0; k < f; ++k) {
          const std::size_t j = i * f + k;
          sum += static_cast<double>(structs[j]);
          all_ok &= write[j] == static_cast<double>(scalars[i]) * (k + 1);
          all_ok &= rw[j] == static_cast<double>(structs[j]) * (0.5 + 0.25 * k) + 1.0;
        }
        all_ok &= std::fabs(read[i] - sum) <= 1e-12;
      }
      CHECK(all_ok);
    }
  }
  CHECK(templates::aos_soa_readwrite_scale(0) == 0.5);
  CHECK(templates::aos_soa_readwrite_scale(7) == 2.25);
  CHECK_THROWS_AS(templates::aos_soa_reference(AosSoaOp::read, 3, std::vector<float>(7)), std::invalid_argument);
}

TEST_CASE("SoA conversion: pitch rounded to 4 floats, round trip") {
  CHECK(templates::aos_soa_pitch(1) == 4);
  CHECK(templates::aos_soa_pitch(31) == 32);
  CHECK(templates::aos_soa_pitch(32) == 32);
  CHECK(templates::aos_soa_pitch(1000003) == 1000004);
  // The application's pitch (aos_soa_pitch) is the one the kernel gets (the description's derived pitch).
  for (std::int64_t n : {1LL, 31LL, 32LL, 1000003LL})
    CHECK(templates::aos_soa_description().environment({}, problem(n, AosSoaOp::read, 3), h100_like()).at("pitch") ==
          templates::aos_soa_pitch(n));
  std::vector<float> aos(31 * 3);
  for (std::size_t i = 0; i < aos.size(); ++i) aos[i] = static_cast<float>(i);
  const auto soa = templates::aos_to_soa<float>(aos, 3, -1.0F);
  REQUIRE(soa.size() == 3 * 32);
  CHECK(soa[0] == 0.0F);
  CHECK(soa[1] == 3.0F);
  CHECK(soa[32] == 1.0F);
  CHECK(soa[64 + 30] == 3.0F * 30 + 2);
  CHECK(soa[31] == -1.0F); // padding
  CHECK(templates::soa_to_aos<float>(soa, 31, 3) == aos);
}

TEST_CASE("aos_soa access pattern: sector efficiency per layout") {
  const auto& t = templates::aos_soa_description();
  const auto efficiency = [](const GlobalInstruction& g) {
    const auto a = model::analyze_global(warp_access(g, 0, 0));
    return a.efficiency;
  };
  const Problem p = problem(1 << 24, AosSoaOp::read, 3);
  {  // SoA float4: every sector fully used, field loads then the sum store.
    const AccessPattern a = t.hooks.access_pattern({{"layout", layout(AosSoaLayout::soa)}, {"block_size", 256}, {"items", 4}}, p, h100_like());
    REQUIRE(a.global.size() == 4);
    for (const auto& g : a.global) {
      CHECK(g.width_bytes == 16);
      CHECK(efficiency(g) == doctest::Approx(1.0));
    }
    CHECK(a.global.back().kind == model::AccessKind::store);
    CHECK(a.loads_in_flight_per_thread == 3);
    CHECK(a.bytes_per_load == 16);
    CHECK(a.shared.empty());
  }
  {  // AoS, 12-byte structs: a field load uses 1/3 of its sectors.
    const AccessPattern a = t.hooks.access_pattern({{"layout", layout(AosSoaLayout::aos)}, {"block_size", 256}, {"items", 1}}, p, h100_like());
    REQUIRE(a.global.size() == 4);
    for (int f = 0; f < 3; ++f) {
      CHECK(a.global[f].width_bytes == 4);
      const auto ga = model::analyze_global(warp_access(a.global[f], 3, 0));
      CHECK(ga.sectors == 12);
      CHECK(ga.efficiency == doctest::Approx(1.0 / 3.0));
    }
    CHECK(efficiency(a.global[3]) == doctest::Approx(1.0)); // the sums, coalesced
    // Requests: 3 loads each moving the whole struct array, then the sums once.
    REQUIRE(a.arrays.size() == 2);
    CHECK(a.arrays[0].requested_bytes == doctest::Approx(3.0 * a.arrays[0].footprint_bytes));
    CHECK(a.arrays[1].requested_bytes == doctest::Approx(a.arrays[1].footprint_bytes));
  }
  {  // aos_smem: 16-byte coalesced global accesses, conflict-free shared reads of 12-byte structs.
    const AccessPattern a = t.hooks.access_pattern({{"layout", layout(AosSoaLayout::aos_smem)}, {"block_size", 256}, {"items", 4}}, p, h100_like());
    REQUIRE(!a.global.empty());
    CHECK(a.global[0].width_bytes == 16);
    CHECK(a.global[0].iterations == 3); // 256*4*3 floats / 4 / 256 threads
    CHECK(efficiency(a.global[0]) == doctest::Approx(1.0));
    CHECK(a.arrays[0].requested_bytes == doctest::Approx(a.arrays[0].footprint_bytes));
    const auto replay = model::replay_block(a.shared, 8, model::BankConfig::fixed_4byte());
    CHECK(replay.total.conflicts() == 0);
  }
  {  // aos_vec, 4 structs of 3 floats per thread: three 16-byte loads that together use every byte.
    const AccessPattern a = t.hooks.access_pattern({{"layout", layout(AosSoaLayout::aos_vec)}, {"block_size", 256}, {"items", 4}}, p, h100_like());
    REQUIRE(a.global.size() == 2);
    CHECK(a.global[0].width_bytes == 16);
    CHECK(a.global[0].iterations == 3);
    CHECK(a.global[1].width_bytes == 16); // 4 sums per thread: one float4 store
    CHECK(efficiency(a.global[1]) == doctest::Approx(1.0));
    std::set<std::uint64_t> sectors;
    std::uint64_t used = 0;
    for (std::int64_t it = 0; it < 3; ++it) {
      const auto w = warp_access(a.global[0], 0, it);
      for (const auto& lane : w.lanes) {
        sectors.insert(*lane / 32);
        used += 16;
      }
    }
    CHECK(used == sectors.size() * 32); // across the three loads no byte of a sector is wasted
  }
  {  // The model's AoS F=4 read through 16-byte shared accesses: conflict-free.
    const Problem p4 = problem(1 << 20, AosSoaOp::readwrite, 4);
    const AccessPattern a = t.hooks.access_pattern({{"layout", layout(AosSoaLayout::aos_smem)}, {"block_size", 128}, {"items", 2}}, p4, h100_like());
    CHECK(model::replay_block(a.shared, 4, model::BankConfig::fixed_4byte()).total.conflicts() == 0);
  }
}

TEST_CASE("aos_soa access pattern: the stores of a block write its tile exactly once") {
  const auto& t = templates::aos_soa_description();
  for (AosSoaOp op : kOps) {
    for (std::int64_t f : {1LL, 3LL, 4LL, 6LL, 8LL}) {
      const Problem p = problem(1 << 20, op, f);
      for (const auto& c : t.space(p, h100_like()).enumerate()) {
        if (c.at("block_size") > 256) continue; // enough, and quick
        CAPTURE(static_cast<int>(op));
        CAPTURE(f);
        CAPTURE(t.space(p, h100_like()).format(c));
        const AccessPattern a = t.hooks.access_pattern(c, p, h100_like());
        // Which array (by name order) each store writes: count floats written per address and array.
        std::map<std::string, std::map<std::uint64_t, int>> written;
        for (const auto& g : a.global) {
          if (g.kind != model::AccessKind::store) continue;
          const bool is_sum = op == AosSoaOp::read;
          for (int w = 0; w < a.block_threads / 32; ++w)
            for (std::int64_t it = 0; it < g.iterations; ++it)
              for (int lane = 0; lane < 32; ++lane)
                if (auto addr = g.address(w, lane, it))
                  for (int b = 0; b < g.width_bytes; b += 4) ++written[is_sum ? "sums" : "structs"][*addr + b];
        }
        REQUIRE(written.size() == 1);
        const auto& floats = written.begin()->second;
        const std::int64_t tile = c.at("block_size") * c.at("items");
        const bool soa = c.at("layout") == layout(AosSoaLayout::soa);
        const std::int64_t expected = op == AosSoaOp::read ? tile : tile * f;
        CHECK(static_cast<std::int64_t>(floats.size()) == expected);
        bool once = true;
        for (const auto& [addr, count] : floats) once &= count == 1;
        CHECK(once);
        if (!soa || op == AosSoaOp::read) { // one contiguous range
          CHECK(floats.rbegin()->first - floats.begin()->first == static_cast<std::uint64_t>((expected - 1) * 4));
        }
        // Every global access is aligned to its width (the hardware faults otherwise).
        for (const auto& g : a.global)
          for (int w = 0; w < a.block_threads / 32; ++w)
            for (std::int64_t it = 0; it < g.iterations; ++it) CHECK_NOTHROW(model::check_warp_access(warp_access(g, w, it)));
      }
    }
  }
}

TEST_CASE("aos_soa layout note says what the layout buys") {
  const Problem p = problem(1 << 24, AosSoaOp::read, 3);
  const std::string note = templates::aos_soa_layout_note(p, {{"aos", 0.90e-3}, {"soa", 0.31e-3}, {"aos_smem", 0.32e-3}});
  CHECK(note.find("soa is 2.9x faster than aos") == 0);
  CHECK(note.find("12-byte structs") != std::string::npos);
  CHECK(note.find("3.0x the 32-byte sectors") != std::string::npos);
  CHECK(note.find("12 sectors for 128 bytes") != std::string::npos);
  CHECK(note.find("aos_smem: 0.32 ms") != std::string::npos);
  CHECK(templates::aos_soa_layout_note(p, {}).empty());
  const std::string aos_best = templates::aos_soa_layout_note(p, {{"aos", 0.30e-3}, {"soa", 0.31e-3}});
  CHECK(aos_best.find("aos is the fastest layout") == 0);
  const std::string one = templates::aos_soa_layout_note(problem(100, AosSoaOp::read, 1), {{"aos", 2e-3}, {"soa", 1e-3}});
  CHECK(one.find("same layout") != std::string::npos);
  const std::string write = templates::aos_soa_layout_note(problem(100, AosSoaOp::write, 4), {{"aos", 2e-3}, {"aos_vec", 1e-3}});
  CHECK(write.find("4-byte store of one field touches 4.0x") != std::string::npos);
}

TEST_CASE("every aos_soa candidate compiles for sm_90 and sm_75, without local memory") {
  const auto& t = templates::aos_soa_description();
  for (int cc : {90, 75}) {
    // Every candidate of every op at the default 3 fields, for both
    // architectures; on sm_90 also every readwrite candidate (struct loads and
    // stores) at 1, 4 and 8 fields: the other vector and shared-access widths,
    // and the most registers per thread. (All ops x fields 1, 3, 4, 8 on both
    // architectures passed once, 2,200 compiles, too slow for every run.)
    CompilePool pool(nullptr);
    struct Job {
      std::string what;
      std::future<CompileResult> result;
    };
    std::vector<Job> jobs;
    for (AosSoaOp op : kOps) {
      for (std::int64_t f : {1LL, 3LL, 4LL, 8LL}) {
        if (f != 3 && (cc != 90 || op != AosSoaOp::readwrite)) continue;
        const Problem p = problem(1000003, op, f);
        const Target target = test_target(cc, cc >= 90 ? 227 * 1024 : 64 * 1024);
        const search::Space space = t.space(p, target);
        for (const auto& c : space.enumerate())
          jobs.push_back({format_problem(p) + " " + space.format(c), pool.submit(t.compile_request(t.launch(c, p, target), cc))});
      }
    }
    CHECK(jobs.size() > (cc == 90 ? 500U : 250U));
    for (auto& j : jobs) {
      CAPTURE(cc);
      CAPTURE(j.what);
      const CompileResult r = j.result.get();
      CHECK_MESSAGE(r.ok, r.log);
      CHECK(r.lowered_name.find("aos_soa_kernel") != std::string::npos);
      CHECK(r.resources.registers > 0);
      CHECK(r.resources.stack_frame_bytes == 0); // register arrays stay in registers
      CHECK_FALSE(r.resources.spills());
    }
  }
}

TEST_CASE("aos_soa explains what a layout change buys, from each layout's best") {
  const auto& t = templates::find_description("aos_soa");
  TuningResult r;
  r.problem = {{"n", 1 << 24}, {"op", 0}, {"fields", 3}};
  r.space = t.space(r.problem, h100_like());
  const search::Axis& layout = r.space.axis("layout");
  auto eval = [&](const std::string& label, double seconds) {
    Evaluation e;
    e.config = t.default_config(r.problem, h100_like());
    e.config.set("layout", *layout.parse(label));
    Timing timing;
    timing.median_s = seconds;
    e.timing = timing;
    return e;
  };
  r.evaluations = {eval("soa", 1e-4), eval("aos", 3e-4), eval("aos", 2.9e-4)};
  const std::string note = t.hooks.explain(r);
  CHECK(note.find("soa") != std::string::npos);
  CHECK(note.find("aos") != std::string::npos);
  r.evaluations = {eval("soa", 1e-4)};
  CHECK(t.hooks.explain(r).empty()); // one layout measured: nothing to compare
}
