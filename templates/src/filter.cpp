#include <memtune/templates/filter.hpp>
#include "embedded_sources.hpp"

#include "filter/filter_geometry.hpp"
#include "filter_workload.hpp"

#include <string>

namespace memtune::templates {

using search::Axis;
using search::axis;

namespace {
constexpr std::int64_t kMaxTaps = 255;
// Block indices times the tile must stay inside int in the kernel.
constexpr std::int64_t kMaxN = (std::int64_t{1} << 31) - (std::int64_t{1} << 20);
} // namespace

std::string FilterTemplate::description() const {
  return "1D FIR filter (coefficients in constant memory, input tile plus halo staged in shared memory)";
}

std::vector<ProblemParameter> FilterTemplate::problem_parameters() const {
  return {{"n", std::int64_t{1} << 24, 1, kMaxN, "signal length (elements)", true},
          {"taps", 21, 1, kMaxTaps, "filter taps", false}};
}

const std::string& FilterTemplate::source() const {
  static const std::string source(embedded::filter_cu);
  return source;
}

search::Space FilterTemplate::space(const Problem& problem, const Target& target) const {
  const std::int64_t radius = problem.at("taps") / 2;
  search::Space s;
  s.add(Axis::ordinal("block_size", {32, 64, 128, 256, 512, 1024}, "threads per block"));
  s.add(Axis::ordinal("packing", {1, 2, 4},
                      "segments packed per shared element: 1 float, 2 = float2 (outputs n/2 apart), 4 = float4"));
  s.add(Axis::ordinal("items", {1, 2, 4, 8}, "consecutive outputs per thread and segment"));
  s.add(Axis::ordinal("vec", {1, 2, 4}, "floats per global load/store instruction"));
  s.add(Axis::ordinal("align", {0, 1}, "1 = halo rounded up to 4 elements: 16-byte aligned staged tile"));
  if (target.has_bank_mode_choice()) {
    s.add(Axis::ordinal("bank_mode", {4, 8}, "shared-memory bank width in bytes (cuFuncSetSharedMemConfig)"));
  } else {
    s.note_pruned({"bank_mode", target.arch() + " has fixed 4-byte shared-memory banks (the 8-byte mode existed on "
                                                "Kepler, sm_3x, only)"});
  }

  // halo = radius, or radius rounded up to 4 when align = 1.
  const search::Expr halo = search::Expr(radius) + axis("align") * search::Expr((radius + 3) / 4 * 4 - radius);
  s.require((halo % axis("vec") == 0).because("a vector access must not straddle the halo's start"));
  s.require((axis("items") % axis("vec") == 0).because("a thread stores its items in whole vectors"));
  s.require((axis("block_size") <= target.max_threads_per_block).because("threads per block above the device limit"));
  const search::Expr smem = (axis("block_size") * axis("items") + halo * 2) * axis("packing") * 4;
  const auto smem_limit = static_cast<std::int64_t>(target.smem_per_block_optin);
  s.require((smem <= smem_limit).because("staged tile exceeds shared memory per block"));
  return s;
}

LaunchSpec FilterTemplate::launch(const search::Config& c, const Problem& problem) const {
  const FilterGeometry g(c, problem);
  LaunchSpec l;
  l.name_expression = "filter_kernel<" + std::to_string(g.block) + ", " + std::to_string(g.packing) + ", " +
                      std::to_string(g.items) + ", " + std::to_string(g.vec) + ", " + std::to_string(g.align) + ">";
  l.options = {"-DMEMTUNE_TAPS=" + std::to_string(g.taps)};
  l.block = {static_cast<unsigned>(g.block), 1, 1};
  l.grid = {static_cast<unsigned>(g.blocks), 1, 1};
  l.dynamic_smem_bytes = g.smem_bytes();
  return l;
}

search::Config FilterTemplate::default_config(const Problem& problem, const Target& target) const {
  return filter_description().default_config(problem, target);
}

AccessPattern FilterTemplate::access_pattern(const search::Config& c, const Problem& problem,
                                             const Target& target) const {
  return filter_access_pattern(c, problem, target);
}

std::uint64_t FilterTemplate::bytes_moved(const Problem& problem) const {
  return 2 * static_cast<std::uint64_t>(problem.at("n")) * sizeof(float); // read the input, write the output
}

std::unique_ptr<Workload> FilterTemplate::make_workload(const Problem& problem, std::uint64_t seed) const {
  return std::make_unique<FilterWorkload>(problem.at("n"), static_cast<int>(problem.at("taps")), seed);
}

const FilterTemplate& filter() {
  static const FilterTemplate instance;
  return instance;
}

} // namespace memtune::templates
