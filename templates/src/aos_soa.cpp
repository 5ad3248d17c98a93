#include <memtune/templates/aos_soa.hpp>
#include "embedded_sources.hpp"

#include "aos_soa/aos_soa_geometry.hpp"
#include "aos_soa_workload.hpp"

#include <algorithm>
#include <cstdio>
#include <string>

namespace memtune::templates {

using search::Axis;
using search::axis;
using search::Expr;

namespace {
// Block indices stay far inside the grid limit; element indices are 64-bit in the kernel.
constexpr std::int64_t kMaxN = (std::int64_t{1} << 31) - (std::int64_t{1} << 20);
constexpr std::int64_t kMaxFields = 8;

// 1 when the layout axis equals `layout`, else 0, as an expression (the
// constraint language has no conditionals): 1 - min(1, (l - v)^2).
Expr is_layout(AosSoaLayout layout) {
  const Expr d = axis("layout") - Expr(static_cast<std::int64_t>(layout));
  return Expr(1) - min(Expr(1), d * d);
}
} // namespace

std::string AosSoaTemplate::description() const {
  return "array of n structs of F floats (read: sum the fields; write: fields from a scalar; readwrite: scale in "
         "place) in AoS, SoA, AoS via __ldg, AoS staged in shared memory, or AoS with vector accesses";
}

std::vector<ProblemParameter> AosSoaTemplate::problem_parameters() const {
  ProblemParameter op{"op", 0, 0, 2, "read (out[i] = sum of the fields), write (field f = in[i]*(f+1)) or "
                                     "readwrite (field f = field f * c_f + 1)", false};
  op.labels = aos_soa_op_labels();
  return {{"n", std::int64_t{1} << 24, 1, kMaxN, "elements (structs)", true},
          op,
          {"fields", 3, 1, kMaxFields, "floats per struct", false}};
}

const std::string& AosSoaTemplate::source() const {
  static const std::string source(embedded::aos_soa_cu);
  return source;
}

search::Space AosSoaTemplate::space(const Problem& problem, const Target& target) const {
  const std::int64_t fields = problem.at("fields");
  const auto op = static_cast<AosSoaOp>(problem.at("op"));
  search::Space s;
  s.add(Axis::categorical("layout", aos_soa_layout_labels(),
                          "struct array layout and access: aos (4-byte field accesses), soa (field arrays, up to "
                          "16-byte accesses), aos_ldg (aos through the read-only cache), aos_smem (tile staged "
                          "through shared memory with 16-byte accesses), aos_vec (8/16-byte accesses over a "
                          "thread's consecutive structs)"));
  s.add(Axis::ordinal("block_size", {64, 128, 256, 512, 1024}, "threads per block"));
  s.add(Axis::ordinal("items", {1, 2, 4, 8}, "elements per thread (independent accesses in flight)"));

  s.require((axis("block_size") <= target.max_threads_per_block).because("threads per block above the device limit"));
  if (op == AosSoaOp::write) {
    s.require((is_layout(AosSoaLayout::aos_ldg) == 0)
                  .because("write reads no struct: the read-only path would only carry the scalar input"));
  }
  // aos_vec moves a thread's items*F consecutive floats in 8- or 16-byte
  // vectors; with an odd count it would be aos again.
  s.require((is_layout(AosSoaLayout::aos_vec) * ((axis("items") * fields) % 2) == 0)
                .because("aos_vec needs an even items*fields (8/16-byte accesses that stay aligned)"));
  // A thread keeps items*fields floats in registers; __launch_bounds__(block)
  // leaves it 65536/block of them (64K registers per block on every GPU since
  // Kepler), and about 40 go to addresses and guards. Beyond that NVRTC spills
  // to local memory (seen at block 1024 with 32 and 64 floats per thread).
  s.require((axis("block_size") * (axis("items") * fields + 40) <= 65536)
                .because("items*fields floats per thread do not fit in the registers a block_size block leaves each "
                         "thread (would spill)"));
  const auto smem_limit = static_cast<std::int64_t>(target.smem_per_block_optin);
  s.require((is_layout(AosSoaLayout::aos_smem) * axis("block_size") * axis("items") * (fields * 4) <= smem_limit)
                .because("aos_smem tile (block_size*items*fields floats) exceeds shared memory per block"));
  return s;
}

LaunchSpec AosSoaTemplate::launch(const search::Config& c, const Problem& problem) const {
  const AosSoaGeometry g(c, problem);
  LaunchSpec l;
  l.name_expression = "aos_soa_kernel<" + std::to_string(static_cast<int>(g.op)) + ", " +
                      std::to_string(static_cast<int>(g.layout)) + ", " + std::to_string(g.fields) + ", " +
                      std::to_string(g.block) + ", " + std::to_string(g.items) + ">";
  l.block = {static_cast<unsigned>(g.block), 1, 1};
  l.grid = {static_cast<unsigned>(g.blocks), 1, 1};
  l.dynamic_smem_bytes = g.smem_bytes();
  return l;
}

search::Config AosSoaTemplate::default_config(const Problem& problem, const Target& target) const {
  return aos_soa_description().default_config(problem, target);
}

AccessPattern AosSoaTemplate::access_pattern(const search::Config& c, const Problem& problem,
                                             const Target& target) const {
  return aos_soa_access_pattern(c, problem, target);
}

std::string AosSoaTemplate::explain(const TuningResult& result) const { return aos_soa_explain(result); }

std::uint64_t AosSoaTemplate::bytes_moved(const Problem& problem) const {
  const auto n = static_cast<std::uint64_t>(problem.at("n"));
  const auto f = static_cast<std::uint64_t>(problem.at("fields"));
  switch (static_cast<AosSoaOp>(problem.at("op"))) {
  case AosSoaOp::read: return (n * f + n) * sizeof(float);      // the structs in, the sums out
  case AosSoaOp::write: return (n + n * f) * sizeof(float);     // the scalars in, the structs out
  case AosSoaOp::readwrite: return 2 * n * f * sizeof(float);   // the structs in and out
  }
  return 0;
}

std::unique_ptr<Workload> AosSoaTemplate::make_workload(const Problem& problem, std::uint64_t seed) const {
  return std::make_unique<AosSoaWorkload>(problem.at("n"), static_cast<AosSoaOp>(problem.at("op")),
                                          static_cast<int>(problem.at("fields")), seed);
}

const AosSoaTemplate& aos_soa() {
  static const AosSoaTemplate instance;
  return instance;
}

} // namespace memtune::templates
