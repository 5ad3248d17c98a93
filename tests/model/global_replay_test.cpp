// The global-memory replay (global_replay.hpp): what reaches L2 through each
// GPU's caches, and sampling that keeps a long loop's cost fixed.
#include <memtune/model/global_replay.hpp>
#include <memtune/model/iteration_sample.hpp>
#include <memtune/model/target_catalog.hpp>
#include <memtune/templates/matvec.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>

using namespace memtune;

namespace {

const Target& target(const std::string& name) {
  static const model::TargetCatalog c = model::TargetCatalog::load_directory(MEMTUNE_TEST_TARGETS_DIR);
  return c.find(name);
}

// A block of 8 warps reading an AoS array of three floats, one field per
// instruction, `items` structs per thread, a struct's fields one after another.
AccessPattern aos_read(int items, GlobalPath path) {
  AccessPattern a;
  a.block_threads = 256;
  a.loads_iteration_major = true;
  for (int f = 0; f < 3; ++f) {
    GlobalInstruction ins{"load field", 4, model::AccessKind::load, items,
                          [f](int warp, int lane, std::int64_t k) -> std::optional<std::uint64_t> {
                            return static_cast<std::uint64_t>(((k * 256 + warp * 32 + lane) * 3 + f) * 4);
                          }};
    ins.path = path;
    a.global.push_back(ins);
  }
  return a;
}

} // namespace

TEST_CASE("AoS fields: three times the sectors reach L2 on Kepler, once through __ldg or on an L1 that caches loads") {
  const auto kepler = GlobalCaching::for_target(target("k20"), 64, 0);
  const auto hopper = GlobalCaching::for_target(target("h100-sxm"), 64, 0);
  CHECK(kepler.l1_sectors_per_warp == 0);
  CHECK(kepler.read_only_sectors_per_warp == 48 * 1024 / 64 / 32);
  CHECK(kepler.write_combining_lines == 0);
  const double used = 8 * 2 * 3 * 128.0; // 8 warps x 2 items x 3 fields x 128 bytes
  CHECK(replay_global(aos_read(2, GlobalPath::standard), 8, kepler).l2_load_bytes == doctest::Approx(3 * used));
  CHECK(replay_global(aos_read(2, GlobalPath::read_only), 8, kepler).l2_load_bytes == doctest::Approx(used));
  CHECK(replay_global(aos_read(2, GlobalPath::standard), 8, hopper).l2_load_bytes == doctest::Approx(used));
  CHECK(replay_global(aos_read(2, GlobalPath::l2_only), 8, hopper).l2_load_bytes == doctest::Approx(3 * used));
  // Each field load spans 3 lines: 3 L1 wavefronts, against 1 for a coalesced float load.
  CHECK(replay_global(aos_read(2, GlobalPath::standard), 8, hopper).l1_wavefronts == doctest::Approx(8 * 2 * 3 * 3));
}

TEST_CASE("a long uniform loop is sampled: the same totals as the whole loop, at a fixed cost") {
  const auto hopper = GlobalCaching::for_target(target("h100-sxm"), 64, 0);
  const auto totals = [&](std::int64_t items) { return replay_global(aos_read(static_cast<int>(items), GlobalPath::standard), 8, hopper); };
  const GlobalTraffic whole = totals(model::replay_iteration_cap);
  const GlobalTraffic sampled = totals(64 * model::replay_iteration_cap);
  CHECK(sampled.moved == doctest::Approx(64 * whole.moved));
  CHECK(sampled.l2_load_bytes == doctest::Approx(64 * whole.l2_load_bytes));
}

TEST_CASE("a mat-vec of one row and 2^30 columns is modeled in well under a second (it once hung)") {
  const auto& mv = templates::matvec_description();
  const Problem problem = complete_problem(mv.problem, {{"rows", 1}, {"cols", std::int64_t{1} << 30}});
  const search::Space space = mv.space(problem, target("h100-sxm"));
  const auto start = std::chrono::steady_clock::now();
  std::size_t n = 0;
  for (const auto& c : space.enumerate()) {
    const AccessPattern a = mv.hooks.access_pattern(c, problem, target("h100-sxm"));
    (void)replay_global(a, std::max(1, a.block_threads / 32), GlobalCaching::for_target(target("h100-sxm"), 64, 0));
    if (++n == 20) break;
  }
  CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < 1.0);
}

TEST_CASE("loads every block shares: counted apart, with the block's distinct bytes") {
  // 4 warps each read the same 512 floats (a vector every row multiplies by),
  // one float per lane and iteration, 16 iterations; plus a private stream.
  AccessPattern a;
  a.block_threads = 128;
  GlobalInstruction x{"load x", 4, model::AccessKind::load, 16,
                      [](int, int lane, std::int64_t k) -> std::optional<std::uint64_t> {
                        return static_cast<std::uint64_t>((k * 32 + lane) * 4);
                      }};
  x.shared_by_blocks = 1;
  GlobalInstruction row{"load row", 4, model::AccessKind::load, 16,
                        [](int warp, int lane, std::int64_t k) -> std::optional<std::uint64_t> {
                          return static_cast<std::uint64_t>((1 << 20) + ((warp * 16 + k) * 32 + lane) * 4);
                        }};
  a.global = {x, row};
  const GlobalTraffic t = replay_global(a, 4, GlobalCaching::for_target(target("h100-sxm"), 64, 0));
  // Each warp's own share of L1 misses x once: 4 warps x 2 KiB; the block's distinct x is 2 KiB.
  CHECK(t.l2_load_bytes_shared_by_blocks == doctest::Approx(4 * 2048.0));
  CHECK(t.l2_load_bytes == doctest::Approx(4 * 2048.0 + 4 * 2048.0));
  CHECK(t.shared_by_blocks_footprint == doctest::Approx(2048.0));
}
