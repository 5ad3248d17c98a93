#include <memtune/compile/compile_pool.hpp>
#include <memtune/model/bank_replay.hpp>
#include <memtune/model/global_access.hpp>
#include <memtune/description/random_data.hpp>
#include <memtune/templates/catalogue.hpp>
#include <memtune/templates/fdtd.hpp>
#include <memtune/output/tuning_result.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <future>
#include <iostream>
#include <map>
#include <set>

using namespace memtune;

namespace {
Target target_for(int cc, std::size_t smem_optin) {
  Target t;
  t.name = "test";
  t.cc_major = cc / 10;
  t.cc_minor = cc % 10;
  t.max_threads_per_block = 1024;
  t.max_threads_per_sm = 2048;
  t.max_warps_per_sm = 64;
  t.regs_per_sm = 65536;
  t.smem_per_block = 48 * 1024;
  t.smem_per_block_optin = smem_optin;
  t.smem_per_sm = smem_optin + 1024; // the opt-in limit leaves the 1 KiB the driver reserves for a block
  t.sm_count = 132;
  return t;
}
Target h100_like() { return target_for(90, 227 * 1024); }

Problem problem(std::int64_t nx, std::int64_t ny, std::int64_t nz, std::int64_t radius) {
  return {{"nx", nx}, {"ny", ny}, {"nz", nz}, {"radius", radius}};
}
Problem default_problem() { return problem(512, 512, 256, 4); }

search::Config config(std::int64_t bx, std::int64_t by, std::int64_t vx, std::int64_t zsplit, std::int64_t prefetch,
                      std::int64_t min_warps, std::int64_t pad = 1) {
  return {{"bx", bx},           {"by", by},   {"vx", vx}, {"zsplit", zsplit}, {"prefetch", prefetch},
          {"min_warps", min_warps}, {"pad", pad}, {"scheme", 0}, {"ky", 1}, {"zu", 3}, {"copy", 0}, {"zfill", 0}};
}
// A ring configuration (scheme ring, pad 0; its z-chunks from zfill).
search::Config ring(std::int64_t bx, std::int64_t by, std::int64_t vx, std::int64_t ky, std::int64_t prefetch,
                    std::int64_t zu, std::int64_t copy, std::int64_t zfill = 0, std::int64_t min_warps = 0) {
  return {{"bx", bx},       {"by", by},     {"vx", vx}, {"zsplit", 1}, {"prefetch", prefetch},
          {"min_warps", min_warps}, {"pad", 0}, {"scheme", 1}, {"ky", ky}, {"zu", zu}, {"copy", copy}, {"zfill", zfill}};
}
bool is_ring(const search::Config& c) { return c.at("scheme") == 1; }

model::WarpAccess warp_access(const GlobalInstruction& g, int warp, std::int64_t it) {
  return model::WarpAccess::from_function([&](int lane) { return g.address(warp, lane, it); }, g.width_bytes, g.kind);
}

// The definition, written out once more: every output point, the 6R+1
// offsets of the star, zero outside.
std::vector<double> naive(const std::vector<float>& in, int nx, int ny, int nz, const std::vector<float>& c) {
  const int R = static_cast<int>(c.size()) - 1;
  std::vector<double> out(in.size(), 0.0);
  for (int z = 0; z < nz; ++z)
    for (int y = 0; y < ny; ++y)
      for (int x = 0; x < nx; ++x) {
        double acc = 0;
        for (int axis = 0; axis < 3; ++axis)
          for (int d = -R; d <= R; ++d) {
            if (d == 0 && axis > 0) continue; // the centre once
            const int xx = x + (axis == 0 ? d : 0), yy = y + (axis == 1 ? d : 0), zz = z + (axis == 2 ? d : 0);
            if (xx < 0 || xx >= nx || yy < 0 || yy >= ny || zz < 0 || zz >= nz) continue;
            acc += static_cast<double>(c[static_cast<std::size_t>(std::abs(d))]) *
                   in[static_cast<std::size_t>((zz * ny + yy) * nx + xx)];
          }
        out[static_cast<std::size_t>((z * ny + y) * nx + x)] = acc;
      }
  return out;
}
} // namespace

TEST_CASE("fdtd is in the catalogue, with its problem parameters") {
  CHECK(&templates::find_description("fdtd") == &templates::fdtd_description());
  const auto params = templates::fdtd_description().problem;
  REQUIRE(params.size() == 4);
  CHECK(params[0].name == "nx");
  CHECK(params[0].default_value == 512);
  CHECK(params[1].name == "ny");
  CHECK(params[1].default_value == 512);
  CHECK(params[2].name == "nz");
  CHECK(params[2].default_value == 256);
  CHECK(params[3].name == "radius");
  CHECK(params[3].default_value == 4);
  CHECK(params[3].min == 1);
  CHECK(params[3].max == 4);
  CHECK_THROWS_AS(complete_problem(params, {{"radius", 5}}), std::invalid_argument);
  CHECK(complete_problem(params, {}) == default_problem());
}

TEST_CASE("fdtd space: axes, a few hundred configurations, constraints with reasons") {
  const auto& t = templates::fdtd_description();
  const Problem p = default_problem();
  const search::Space s = t.space(p, h100_like());
  REQUIRE(s.axes().size() == 12);
  const auto configs = s.enumerate();
  const auto rings = std::count_if(configs.begin(), configs.end(), is_ring);
  MESSAGE("fdtd space at 512x512x256 r=4 on an sm_90-like target: " << configs.size() << " configurations, " << rings
                                                                      << " of them ring");
  CHECK(configs.size() - static_cast<std::size_t>(rings) == 896); // classic: the recorded space
  CHECK(rings == 736); // zfill 0 and each zfill that gives two or more chunks here, less the min_warps shared memory cannot host
  std::set<std::string> shapes, ring_shapes;
  for (const auto& c : configs) {
    if (is_ring(c)) {
      ring_shapes.insert(std::to_string(c.at("bx")) + "x" + std::to_string(c.at("by")) + " vx" +
                         std::to_string(c.at("vx")) + " ky" + std::to_string(c.at("ky")));
      CHECK(c.at("pad") == 0);
      CHECK(c.at("prefetch") >= 3);
      continue;
    }
    CHECK(c.at("ky") == 1);
    CHECK(c.at("copy") == 0);
    const std::int64_t threads = c.at("bx") * c.at("by");
    shapes.insert(std::to_string(c.at("bx")) + "x" + std::to_string(c.at("by")));
    CHECK(threads <= 512);
    CHECK(c.at("bx") * c.at("vx") <= 128);
    if (c.at("min_warps") > 0) {
      CHECK((c.at("min_warps") * 32) % threads == 0);
      CHECK(c.at("min_warps") * 32 >= 2 * threads); // at least two blocks: else a duplicate of 0
    }
  }
  CHECK(shapes == std::set<std::string>{"32x4", "32x8", "32x16", "64x8"});
  CHECK(ring_shapes == std::set<std::string>{"16x16 vx4 ky1", "32x8 vx2 ky1", "32x8 vx2 ky2", "32x8 vx4 ky1",
                                             "32x8 vx4 ky2", "32x16 vx2 ky1", "32x16 vx4 ky1", "64x8 vx2 ky1",
                                             "64x8 vx2 ky2"});
  // Ring configurations that measured best on the H100 (c1) and the H200 (c0), docs/results.md.
  CHECK(s.is_valid(ring(32, 16, 4, 1, 4, 9, 1)));
  CHECK(s.is_valid(ring(32, 16, 4, 1, 4, 9, 0)));
  // zfill: chunks for about zfill blocks an SM, floor(zfill x 132 SMs / tile columns). 376^3 in
  // 128x16 tiles is 72 columns: zfill 4 gives 7 chunks; 512x512 in 128x16 is 128 columns, where
  // zfill 1 would give one chunk: that is zfill 0.
  CHECK(t.environment(ring(32, 8, 4, 2, 4, 9, 0, 4), problem(376, 376, 376, 4), h100_like()).at("grid_z") == 7);
  CHECK(s.violation(ring(32, 8, 4, 2, 4, 9, 0, 1))->find("zfill 0") != std::string::npos);
  CHECK(s.is_valid(ring(32, 8, 4, 2, 4, 9, 0, 2)));
  // 256x256x64's best: 64x16 tiles, 64 tile columns, zfill 1: two chunks on 132 SMs.
  CHECK(t.space(problem(256, 256, 64, 4), h100_like()).is_valid(ring(16, 16, 4, 1, 3, 9, 0, 1, 16)));
  CHECK(t.environment(ring(16, 16, 4, 1, 3, 9, 0, 1, 16), problem(256, 256, 64, 4), h100_like()).at("grid_z") == 2);
  // min_warps 16 asks two 256-thread blocks an SM of the register cap; 128x16
  // tiles with 4 planes of look-ahead (117 KB a block) fit one in 228 KB, so
  // that cap would only spill; with 3 planes (105 KB) two fit.
  const auto why_smem = s.violation(ring(32, 8, 4, 2, 4, 9, 0, 0, 16));
  REQUIRE(why_smem.has_value());
  CHECK(why_smem->find("only spill") != std::string::npos);
  CHECK(s.is_valid(ring(32, 8, 4, 2, 3, 9, 0, 0, 16)));
  CHECK(s.is_valid(ring(32, 8, 4, 2, 4, 9, 0, 0, 0)));
  // Three 8-warp blocks an SM (min_warps 24): 64-float tiles with prefetch 4
  // (9 stages of 24 x 72 floats, 62 KB a block); not with prefetch 3, and no
  // four blocks.
  CHECK(s.is_valid(ring(16, 16, 4, 1, 4, 9, 1, 0, 24)));
  CHECK(s.is_valid(ring(32, 8, 2, 2, 4, 9, 0, 0, 24)));
  CHECK(s.violation(ring(16, 16, 4, 1, 3, 9, 1, 0, 24)).value_or("").find("prefetch 4") != std::string::npos);
  CHECK(s.violation(ring(32, 8, 2, 1, 4, 9, 1, 0, 32)).value_or("").find("0, 16, or 24") != std::string::npos);
  // 128x8 tiles with prefetch 4 (78 KB a block): three do not fit in 228 KB.
  CHECK(s.violation(ring(32, 8, 4, 1, 4, 9, 1, 0, 24)).value_or("").find("only spill") != std::string::npos);
  // bulk copies need sm_90; the ring sm_80.
  const Target a100 = target_for(80, 163 * 1024);
  CHECK(t.space(p, a100).violation(ring(32, 16, 4, 1, 4, 9, 1))->find("sm_90") != std::string::npos);
  CHECK(t.space(p, a100).is_valid(ring(32, 16, 4, 1, 4, 9, 0)));
  CHECK(t.space(p, target_for(75, 64 * 1024)).violation(ring(32, 16, 4, 1, 4, 9, 0))->find("sm_80") != std::string::npos);
  CHECK(s.is_valid(t.default_config(p, h100_like())));
  // The article's 32x4 with float columns, and the float4 shapes that can reach the ceiling.
  CHECK(s.is_valid(config(32, 4, 1, 1, 0, 0)));
  CHECK(s.is_valid(config(32, 8, 4, 4, 1, 0)));
  CHECK(s.is_valid(config(32, 16, 4, 8, 2, 0)));
  CHECK(s.is_valid(config(32, 8, 2, 4, 1, 16))); // two blocks of 256: at most 128 registers
  CHECK(s.is_valid(config(32, 8, 2, 4, 1, 24))); // three blocks: 85 // 16 warps: two blocks of 256
  // min_warps: whole blocks only, one block is no bound at all.
  const auto why_blocks = s.violation(config(32, 16, 1, 1, 1, 16));
  REQUIRE(why_blocks.has_value());
  CHECK(why_blocks->find("same kernel") != std::string::npos);
  // 32 warps of float4 columns: 64 registers cannot hold the queue of 9 float4 and the loads in flight.
  const auto why_regs = s.violation(config(32, 8, 4, 1, 2, 32));
  REQUIRE(why_regs.has_value());
  CHECK(why_regs->find("register") != std::string::npos);
  // 1024 threads and 256-float rows are out, with their reason.
  CHECK(s.violation(config(64, 16, 1, 1, 1, 0))->find("512 threads") != std::string::npos);
  CHECK(s.violation(config(64, 8, 4, 1, 1, 0))->find("128 floats") != std::string::npos);
  CHECK(s.violation(config(64, 4, 1, 1, 1, 0))->find("64x4") != std::string::npos);
}

TEST_CASE("fdtd space follows the problem: z-chunks need planes, small volumes keep every shape") {
  const auto& t = templates::fdtd_description();
  for (const Problem& p : {problem(1, 1, 1, 4), problem(31, 17, 9, 1), problem(67, 35, 20, 4), problem(512, 512, 3, 2)}) {
    CAPTURE(format_problem(p));
    const search::Space s = t.space(p, h100_like());
    const auto configs = s.enumerate();
    REQUIRE(!configs.empty());
    CHECK(s.is_valid(t.default_config(p, h100_like())));
    for (const auto& c : configs) CHECK(c.at("zsplit") <= p.at("nz"));
  }
  const auto classic = [&](const Problem& p, const Target& target) {
    const auto configs = t.space(p, target).enumerate();
    return configs.size() - static_cast<std::size_t>(std::count_if(configs.begin(), configs.end(), is_ring));
  };
  CHECK(classic(problem(1, 1, 1, 4), h100_like()) * 4 == classic(problem(1, 1, 8, 4), h100_like()));
  // A smaller radius needs fewer registers: nothing more is pruned.
  CHECK(classic(problem(512, 512, 256, 1), h100_like()) >= classic(default_problem(), h100_like()));
  // Kepler: the same limits that matter here (64 warps, 64K registers, 48 KiB), and no ring (sm_80).
  Target k = target_for(35, 48 * 1024);
  CHECK(t.space(default_problem(), k).enumerate().size() == classic(default_problem(), h100_like()));
}

TEST_CASE("fdtd launch: grid covers the volume, name expression, static shared memory only") {
  const auto& t = templates::fdtd_description();
  for (const Problem& p :
       {problem(1, 1, 1, 4), problem(31, 17, 9, 3), problem(100, 20, 6, 4), problem(100, 21, 6, 4),
        problem(512, 512, 256, 4)}) {
    const search::Space s = t.space(p, h100_like());
    for (const auto& c : s.enumerate()) {
      const LaunchSpec l = t.launch(c, p, h100_like());
      const std::int64_t tx = c.at("bx") * c.at("vx"), ty = c.at("by") * c.at("ky");
      const std::int64_t chunk = t.environment(c, p, h100_like()).at("chunk");
      CHECK(l.grid.x * tx >= static_cast<std::uint64_t>(p.at("nx")));
      CHECK((l.grid.x - 1) * tx < static_cast<std::uint64_t>(p.at("nx")));
      CHECK(l.grid.y * ty >= static_cast<std::uint64_t>(p.at("ny")));
      CHECK((l.grid.y - 1) * ty < static_cast<std::uint64_t>(p.at("ny")));
      CHECK(l.grid.z * chunk >= static_cast<std::uint64_t>(p.at("nz")));
      CHECK((l.grid.z - 1) * chunk < static_cast<std::uint64_t>(p.at("nz")));
      CHECK(l.block.x == static_cast<unsigned>(c.at("bx")));
      CHECK(l.block.y == static_cast<unsigned>(c.at("by")));
      const std::int64_t threads = c.at("bx") * c.at("by");
      const std::int64_t minb = c.at("min_warps") ? c.at("min_warps") * 32 / threads : 1;
      if (is_ring(c)) {
        const std::int64_t R = p.at("radius"), hb = (R + 3) / 4 * 4;
        // Bulk copies: the ring placed at the source's offset (32 bytes), and
        // where rows are 16 bytes off a multiple of 32 (nx % 8 == 4) and
        // planes are not (ny even) COPY 2, whose box rows are 4 floats longer.
        const bool bulk = c.at("copy") == 1, longer = bulk && p.at("nx") % 8 == 4 && p.at("ny") % 2 == 0;
        const std::int64_t copy = bulk ? (longer ? 2 : 1) : 0, pitch = tx + 2 * hb + (longer ? 4 : 0);
        const std::int64_t stage = ((ty + 2 * R) * pitch + 7) / 8 * 8;
        CHECK(l.dynamic_smem_bytes == static_cast<std::size_t>((R + 1 + c.at("prefetch")) * stage * 4 + (bulk ? 32 : 0)));
        CHECK(l.name_expression == "fdtd_ring<" + std::to_string(c.at("bx")) + ", " + std::to_string(c.at("by")) + ", " +
                                       std::to_string(c.at("vx")) + ", " + std::to_string(c.at("ky")) + ", " +
                                       std::to_string(c.at("prefetch")) + ", " + std::to_string(c.at("zu")) + ", " +
                                       std::to_string(minb) + ", " + std::to_string(copy) + ">");
        continue;
      }
      CHECK(l.dynamic_smem_bytes == 0U);
      CHECK(l.name_expression == "fdtd_kernel<" + std::to_string(c.at("bx")) + ", " + std::to_string(c.at("by")) + ", " +
                                     std::to_string(c.at("vx")) + ", " + std::to_string(c.at("prefetch")) + ", " +
                                     std::to_string(minb) + ", " + std::to_string(c.at("pad")) + ">");
      CHECK(l.options == std::vector<std::string>{"-DMEMTUNE_RADIUS=" + std::to_string(p.at("radius"))});
    }
  }
}

TEST_CASE("fdtd bytes moved: the volume in and out, and the coefficients") {
  const auto& t = templates::fdtd_description();
  CHECK(t.bytes_moved(default_problem()) == 2ULL * 512 * 512 * 256 * 4 + 5 * 4);
  CHECK(t.bytes_moved(problem(31, 17, 9, 1)) == 2ULL * 31 * 17 * 9 * 4 + 2 * 4);
}

TEST_CASE("fdtd coefficients: never zero, weighted sum of magnitudes 1") {
  for (int r = 1; r <= 4; ++r) {
    const auto c = templates::random_fdtd_coefficients(r, 11);
    REQUIRE(c.size() == static_cast<std::size_t>(r + 1));
    double w = 0;
    for (std::size_t i = 0; i < c.size(); ++i) {
      CHECK(c[i] != 0.0F);
      w += (i == 0 ? 1.0 : 6.0) * std::fabs(c[i]);
    }
    CHECK(w == doctest::Approx(1.0).epsilon(1e-6));
  }
}

TEST_CASE("fdtd reference matches the naive triple loop on small odd sizes") {
  struct Size {
    int nx, ny, nz;
  };
  for (const Size sz : {Size{1, 1, 1}, Size{31, 17, 9}, Size{5, 3, 11}, Size{2, 9, 1}, Size{67, 35, 20}}) {
    for (int r = 1; r <= 4; ++r) {
      CAPTURE(sz.nx);
      CAPTURE(sz.ny);
      CAPTURE(sz.nz);
      CAPTURE(r);
      std::vector<float> in(static_cast<std::size_t>(sz.nx) * sz.ny * sz.nz);
      fill_random(in, 3 + static_cast<std::uint64_t>(r));
      const auto c = templates::random_fdtd_coefficients(r, 5);
      const auto ref = templates::fdtd_reference(in, sz.nx, sz.ny, sz.nz, c);
      const auto expect = naive(in, sz.nx, sz.ny, sz.nz, c);
      REQUIRE(ref.size() == expect.size());
      double worst = 0;
      for (std::size_t i = 0; i < ref.size(); ++i) worst = std::max(worst, std::fabs(ref[i] - expect[i]));
      CHECK(worst <= 1e-12);
    }
  }
  // 1x1x1: only the centre.
  const std::vector<float> one{0.5F};
  const std::vector<float> c{0.25F, 0.125F};
  CHECK(templates::fdtd_reference(one, 1, 1, 1, c)[0] == 0.125);
  CHECK_THROWS_AS(templates::fdtd_reference(one, 2, 1, 1, c), std::invalid_argument);
}

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
  const AccessPattern a = t.hooks.access_pattern(c, problem(301, 300, 300, 4), target);
  int copies = 0;
  for (const GlobalInstruction& g : a.global) {
    if (g.name.rfind("copy box", 0) != 0) continue;
    ++copies;
    CHECK(g.width_bytes == 4);
    const model::WarpAccess w = warp_access(g, 2, 0);
    for (int lane = 1; lane < 32; ++lane)
      if (w.lanes[lane] && w.lanes[lane - 1]) CHECK(*w.lanes[lane] == *w.lanes[lane - 1] + 4);
  }
  CHECK(copies == 9);
}

TEST_CASE("fdtd explains each block shape's best: warps/SM and the limiter") {
  const auto& t = templates::fdtd_description();
  TuningResult r;
  r.problem = default_problem();
  r.measured = true;
  r.space = t.space(r.problem, h100_like());
  auto eval = [&](std::int64_t bx, std::int64_t by, double seconds, int warps, model::Limiter limiter) {
    Evaluation e;
    e.config = config(bx, by, 4, 4, 1, 0);
    Timing timing;
    timing.median_s = seconds;
    e.timing = timing;
    e.occupancy.warps_per_sm = warps;
    e.occupancy.max_warps_per_sm = 64;
    e.occupancy.limiters = {limiter};
    e.resources.registers = 128;
    return e;
  };
  r.evaluations = {eval(32, 8, 300e-6, 16, model::Limiter::registers), eval(32, 16, 250e-6, 16, model::Limiter::registers),
                   eval(32, 8, 280e-6, 16, model::Limiter::registers), eval(32, 4, 500e-6, 32, model::Limiter::registers)};
  const std::string note = t.hooks.explain(r);
  MESSAGE(note);
  CHECK(note.find("32x16: 250.0 us (1.00x), 16 warps/SM of 64 with 128 registers/thread, limited by registers") !=
        std::string::npos);
  CHECK(note.find("32x8: 280.0 us (1.12x)") != std::string::npos);
  CHECK(note.find("32x4: 500.0 us (2.00x), 32 warps/SM") != std::string::npos);
  CHECK(note.find("32x16") < note.find("32x8"));
  r.evaluations.resize(1);
  CHECK(t.hooks.explain(r).empty()); // one shape: nothing to compare
}

TEST_CASE("fdtd explains what rows that are not 16-byte aligned take, and the padding that avoids it") {
  Problem p = default_problem();
  CHECK(templates::fdtd_alignment_note(p).empty()); // nx = 512
  p["nx"] = 301;
  const std::string odd = templates::fdtd_alignment_note(p);
  CHECK(odd.find("nx = 301 is not a multiple of 4") == 0);
  CHECK(odd.find("4-byte pieces and stores single floats") != std::string::npos);
  CHECK(odd.find("padded by zero columns to nx = 304 gives the same outputs at x < 301") != std::string::npos);
  p["nx"] = 302;
  const std::string even = templates::fdtd_alignment_note(p);
  CHECK(even.find("8-byte pieces and stores float2 pairs") != std::string::npos);
  CHECK(even.find("to nx = 304") != std::string::npos);
  CHECK(templates::fdtd_alignment_note(Problem{}).empty());
  // One shape: the run's note is the alignment note alone.
  const auto& t = templates::fdtd_description();
  TuningResult r;
  r.problem = p;
  CHECK(t.hooks.explain(r) == even);
}

// Each distinct kernel once (zsplit is a kernel argument, not a compile-time value).
TEST_CASE("every fdtd candidate of the default space compiles for sm_90, and the ring's for sm_80") {
  const auto& t = templates::fdtd_description();
  const Problem p = default_problem();
  CompilePool pool(nullptr);
  struct Job {
    search::Config config;
    std::future<CompileResult> result;
  };
  for (const auto& [target, cc] : {std::pair{h100_like(), 90}, std::pair{target_for(80, 163 * 1024), 80}}) {
    CAPTURE(cc);
    const search::Space space = t.space(p, target);
    std::vector<Job> jobs;
    std::set<std::string> names;
    for (const auto& c : space.enumerate()) {
      if (cc == 80 && !is_ring(c)) continue; // classic is architecture-independent: sm_90 covers it
      const LaunchSpec l = t.launch(c, p, target);
      if (names.insert(l.name_expression).second) jobs.push_back({c, pool.submit(t.compile_request(l, cc))});
    }
    int spilling = 0;
    std::map<std::string, int> max_regs; // per vx/prefetch, uncapped
    for (auto& j : jobs) {
      CAPTURE(space.format(j.config));
      const CompileResult r = j.result.get();
      CHECK_MESSAGE(r.ok, r.log);
      CHECK(r.lowered_name.find(is_ring(j.config) ? "fdtd_ring" : "fdtd_kernel") != std::string::npos);
      CHECK(r.resources.registers > 0);
      if (!is_ring(j.config)) CHECK(r.resources.static_smem_bytes > 0);
      if (r.resources.spills()) ++spilling;
      if (j.config.at("min_warps") == 0 && j.config.at("bx") * j.config.at("by") <= 256) {
        if (!is_ring(j.config)) CHECK_FALSE(r.resources.spills()); // no cap below 255: the queue stays in registers
        auto& m = max_regs[std::string(is_ring(j.config) ? "ring ky=" + std::to_string(j.config.at("ky")) + " " : "") +
                           "vx=" + std::to_string(j.config.at("vx")) + " prefetch=" + std::to_string(j.config.at("prefetch"))];
        m = std::max(m, r.resources.registers);
      }
    }
    MESSAGE("sm_" << cc << ": " << jobs.size() << " distinct kernels compiled, " << spilling
                  << " spill under their register cap");
    for (const auto& [what, regs] : max_regs) MESSAGE("  uncapped " << what << ": up to " << regs << " registers");
  }
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
