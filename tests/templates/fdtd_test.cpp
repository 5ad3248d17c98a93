#include <memtune/compile/compile_pool.hpp>
#include <memtune/description/random_data.hpp>
#include <memtune/templates/catalogue.hpp>
#include <memtune/templates/fdtd.hpp>
#include <memtune/output/tuning_result.hpp>

#include "fdtd_test_support.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <future>
#include <iostream>
#include <map>
#include <set>

using namespace memtune;
using namespace memtune::fdtd_test;

namespace {
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
  CHECK(rings == 936); // zfill 0 and each zfill that gives two or more chunks here, less the min_warps shared memory cannot host
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
                                             "64x8 vx2 ky2", "32x8 vx2 ky4", "64x8 vx2 ky4"});
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
        // The ring placed at the source's offset (32 bytes); bulk copies
        // where rows are 16 bytes off a multiple of 32 (nx % 8 == 4) and
        // planes are not (ny even) COPY 2, whose box rows are 4 floats longer.
        const bool bulk = c.at("copy") == 1, longer = bulk && p.at("nx") % 8 == 4 && p.at("ny") % 2 == 0;
        const std::int64_t copy = bulk ? (longer ? 2 : 1) : 0, pitch = tx + 2 * hb + (longer ? 4 : 0);
        const std::int64_t stage = ((ty + 2 * R) * pitch + 7) / 8 * 8;
        CHECK(l.dynamic_smem_bytes == static_cast<std::size_t>((R + 1 + c.at("prefetch")) * stage * 4 + 32));
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
