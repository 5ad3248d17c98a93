// What the model does on Kepler from its documented rules (docs/model.md,
// "Kepler"): global loads go to L2 in 32-byte transactions with L1 off, __ldg
// through the 48 KB read-only cache, no L1 write combining, dual issue, and
// the occupancy the registers of NVRTC 11.8 give the stencil. The articles
// behind the templates report, on a Tesla K20c: SoA faster than AoS for
// reading and for writing three floats per struct, __ldg recovering most of
// the gap, and a 32x8 stencil block fitting more warps than 32x16 and
// running faster. Registers are fixed here, so no compile is needed.
#include <memtune/model/target_catalog.hpp>
#include <memtune/tune/model_evaluator.hpp>
#include <memtune/templates/aos_soa.hpp>
#include <memtune/templates/fdtd.hpp>

#include <doctest/doctest.h>

using namespace memtune;

namespace {

const Target& k20() {
  static const Target t = model::TargetCatalog::load_directory(MEMTUNE_TEST_TARGETS_DIR).find("k20");
  return t;
}
const Target& h100() {
  static const Target t = model::TargetCatalog::load_directory(MEMTUNE_TEST_TARGETS_DIR).find("h100-sxm");
  return t;
}

Evaluation predict(const KernelDescription& kernel, const Problem& problem, const Target& target, const std::string& config,
                   int registers) {
  const search::Space space = kernel.space(problem, target);
  for (const search::Config& c : space.enumerate()) {
    if (space.format(c) != config) continue;
    Evaluation e;
    e.config = c;
    e.resources.registers = registers;
    e.resources.static_smem_bytes = 0;
    e.dynamic_smem_bytes = kernel.launch(c, problem, target).dynamic_smem_bytes;
    predict_candidate(e, kernel, problem, target, kernel.bytes_moved(problem));
    REQUIRE(e.timing.has_value());
    return e;
  }
  FAIL("no configuration " << config);
  return {};
}

double seconds(const Evaluation& e) { return e.timing->median_s; }

Problem aos_problem(int op) {
  return complete_problem(templates::aos_soa_description().problem, {{"n", 1 << 24}, {"op", op}, {"fields", 3}});
}

} // namespace

TEST_CASE("K20, reading structs of three floats: SoA beats AoS, and AoS through __ldg recovers the gap") {
  const auto& a = templates::aos_soa_description();
  const Problem read = aos_problem(0);
  const double soa = seconds(predict(a, read, k20(), "layout=soa block_size=256 items=2", 24));
  const Evaluation aos = predict(a, read, k20(), "layout=aos block_size=256 items=2", 24);
  const double ldg = seconds(predict(a, read, k20(), "layout=aos_ldg block_size=256 items=2", 24));
  CHECK(soa < 0.8 * seconds(aos)); // each field load moves all 12 sectors of the warp's structs from L2
  CHECK(aos.model->time.binding == model::Bound::l2);
  CHECK(ldg < 0.8 * seconds(aos)); // the read-only cache serves the second and third field
  CHECK(ldg < 1.05 * soa);
  // On the H100, L1 caches the first field's sectors for the other two: AoS costs what SoA does.
  const double soa_h = seconds(predict(a, read, h100(), "layout=soa block_size=256 items=2", 24));
  const double aos_h = seconds(predict(a, read, h100(), "layout=aos block_size=256 items=2", 24));
  CHECK(aos_h == doctest::Approx(soa_h).epsilon(0.03));
}

TEST_CASE("K20, writing structs of three floats: SoA beats AoS (no L1 write combining before Volta)") {
  const auto& a = templates::aos_soa_description();
  const Problem write = aos_problem(1);
  const double soa = seconds(predict(a, write, k20(), "layout=soa block_size=256 items=2", 24));
  const double aos = seconds(predict(a, write, k20(), "layout=aos block_size=256 items=2", 24));
  CHECK(soa < 0.8 * aos);
}

TEST_CASE("K20 stencil, the article's kernel: with NVRTC 11.8's registers 32x8 holds more warps than 32x16 and is faster") {
  const auto& f = templates::fdtd_description();
  const Problem problem = complete_problem(f.problem, {});
  // NVRTC 11.8 for sm_35: 45 registers (32x16) and 48 (32x8) for one float
  // per thread without look-ahead; a K20 SM's 65536 registers then hold 2
  // blocks of 512 threads (32 warps) or 5 of 256 (40 warps).
  const std::string rest = " vx=1 zsplit=1 prefetch=0 pad=1 min_warps=0 ky=1 zu=3 copy=cp_async zfill=0";
  const Evaluation big = predict(f, problem, k20(), "scheme=classic bx=32 by=16" + rest, 45);
  const Evaluation small = predict(f, problem, k20(), "scheme=classic bx=32 by=8" + rest, 48);
  CHECK(small.occupancy.warps_per_sm > big.occupancy.warps_per_sm);
  CHECK(seconds(small) < seconds(big));
}
