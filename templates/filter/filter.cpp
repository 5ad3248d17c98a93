// The filter template's kernel description: templates/filter/filter.cu as data.
#include <memtune/description/kernel_builder.hpp>
#include <memtune/templates/filter.hpp>
#include "embedded_sources.hpp"

#include "filter_geometry.hpp"
#include "geometry_environment.hpp"

#include <cfloat>
#include <string>

namespace memtune::templates {

using search::Axis;

namespace {
constexpr std::int64_t kMaxTaps = 255;
// Block indices times the tile must stay inside int in the kernel.
constexpr std::int64_t kMaxN = (std::int64_t{1} << 31) - (std::int64_t{1} << 20);

// filter.cu's filter_reference: one thread per output, the sum in double.
ReferenceKernel reference_kernel() {
  return {"filter_reference", {}, {search::parse_expr("256")}, {search::parse_expr("ceil_div(n, 256)")}, 0};
}

} // namespace

search::Config filter_geometry_environment(const search::Config& config, const Problem& problem,
                                           const Target& target) {
  return geometry_environment(filter_description(), config, problem, target,
                              {{"staging", static_cast<std::int64_t>(FilterStaging::smem)}, {"tiles", 1}, {"min_warps", 0}});
}

namespace {

search::Config default_configuration(const Problem&, const Target& target) {
  // One float4 per thread and access, 256 threads: fast on every GPU since
  // Kepler, and valid for any number of taps (align = 1 makes the halo a
  // multiple of 4).
  search::Config c{{"block_size", 256}, {"packing", 1}, {"items", 4}, {"vec", 4}, {"align", 1},
                   {"staging", static_cast<std::int64_t>(FilterStaging::smem)}, {"tiles", 1},
                   {"min_warps", 0}};
  if (target.has_bank_mode_choice()) c.set("bank_mode", 4);
  return c;
}

KernelDescription describe() {
  // The coefficients: random, never zero, scaled to sum |c| = 1, so outputs
  // stay in [-1, 1] (|in| <= 1) for every number of taps.
  Fill taps;
  taps.lo = -1.0;
  taps.hi = 1.0;
  taps.sum_abs = 1.0;
  return KernelBuilder("filter")
      .summary("1D FIR filter (coefficients in constant memory, input tile plus halo staged in shared memory)")
      .source("filter.cu", embedded::filter_cu)
      // direct and shfl: filter_direct (no shared memory); `items` are its CHUNKS groups of 4 outputs.
      .kernel_if("staging != \"smem\" && min_warps == 0",
                 "filter_direct<{block_size}, {items / 4}, {staging == \"shfl\"}, {tiles}>")
      .kernel_if("staging != \"smem\"",
                 "filter_direct_capped<{block_size}, {items / 4}, {staging == \"shfl\"}, {tiles}, {min_blocks}>")
      .kernel("filter_kernel<{block_size}, {packing}, {items}, {vec}, {align}>")
      .define("MEMTUNE_TAPS", "{taps}")
      .size("n", std::int64_t{1} << 24, "signal length (elements)", 1, kMaxN)
      .problem({"taps", 21, 1, kMaxTaps, "filter taps", false})
      .parameter(Axis::categorical("staging", filter_staging_labels(),
                                   "smem: the block's inputs plus halo staged in shared memory (the article's "
                                   "kernel); direct: no shared memory, each thread reads its window of float4s "
                                   "through the read-only path (L1 serves the neighbours' overlap); shfl: each "
                                   "thread reads its own float4, the window comes from neighbouring lanes by warp "
                                   "shuffles"))
      .parameter(Axis::ordinal("block_size", {32, 64, 128, 256, 512, 1024}, "threads per block"))
      .parameter(Axis::ordinal("packing", {1, 2, 4},
                               "segments packed per shared element: 1 float, 2 = float2 (outputs n/2 apart), 4 = float4"))
      .parameter(Axis::ordinal("items", {1, 2, 4, 8},
                               "smem: consecutive outputs per thread and segment; direct/shfl: outputs per "
                               "thread, in groups of 4 consecutive ones block_size*4 apart"))
      .parameter(Axis::ordinal("vec", {1, 2, 4}, "floats per global load/store instruction"))
      .parameter(Axis::ordinal("align", {0, 1}, "1 = halo rounded up to 4 elements: 16-byte aligned staged tile"))
      .parameter(Axis::ordinal("tiles", {1, 4},
                               "direct/shfl: consecutive tiles per block; above 1 the next tile's loads are issued "
                               "before this tile's FMAs (two register buffers), so warps keep loads in flight while "
                               "they compute"))
      .parameter(Axis::ordinal("min_warps", {0, 48, 64},
                               "direct/shfl: warps per SM the kernel must fit: __launch_bounds__(threads, "
                               "min_warps*32/threads) caps registers at 65536/(min_warps*32); 0 = no minimum"))
      .parameter_if(Axis::ordinal("bank_mode", {4, 8}, "shared-memory bank width in bytes (cuFuncSetSharedMemConfig)"),
                    "bank_mode_choice",
                    "sm_{compute_capability} has fixed 4-byte shared-memory banks (the 8-byte mode existed on "
                    "Kepler, sm_3x, only)")
      // filter.cu's arithmetic (FilterGeometry): the halo each side, the
      // outputs per block and segment, the staged elements, the segment length.
      .derived("radius", "taps / 2")
      .derived("halo", "align ? round_up(radius, 4) : radius")
      .derived("direct", "staging != \"smem\"")
      .derived("tile", "block_size * items")
      .derived("min_blocks", "max(1, min_warps * 32 / block_size)") // __launch_bounds__'s minimum blocks per SM
      .derived("ext", "tile + 2 * halo")
      .derived("seg", "packing == 1 ? n : round_up(ceil_div(n, packing), 4)")
      .derived("vectors", "ext / vec")                    // VEC-wide loads per segment and block
      .derived("rounds", "ceil_div(vectors, block_size)") // load rounds per thread and segment
      .derived("blocks", "ceil_div(seg, tile * tiles)")   // direct: seg = n, tile = outputs per block and tile
      // filter_direct: measured on the H100 and the H200, its best was always
      // at 128-512 threads with 1 or 2 groups of 4 outputs.
      .constraint("!direct || packing == 1 && vec == 4 && align == 1 && items >= 4 && block_size >= 64 && "
                  "block_size <= 512",
                  "direct/shfl: float4 accesses of one segment (packing=1 vec=4 align=1), 4 or 8 outputs per "
                  "thread, 64 to 512 threads")
      .constraint("direct || tiles == 1 && min_warps == 0",
                  "smem: one tile per block and no register cap (the prefetching loop and the cap are filter_direct's)")
      .constraint("min_warps % (block_size / 32) == 0 && (min_warps == 0 || min_warps >= 2 * block_size / 32)",
                  "min_warps: whole blocks, at least two (one block asks for nothing it does not already have)")
      .constraint("min_warps <= (max_warps_per_sm > 0 ? max_warps_per_sm : 64)", "more warps than an SM holds")
      .constraint("!direct || taps <= 129", "direct/shfl: a warp's shuffled halo is at most 32 float4s (taps <= 129)")
      .constraint("halo % vec == 0", "a vector access must not straddle the halo's start")
      .constraint("items % vec == 0", "a thread stores its items in whole vectors")
      .constraint("block_size <= max_threads_per_block", "threads per block above the device limit")
      .constraint("ext * packing * 4 <= max_shared_memory_per_block_optin",
                  "staged tile exceeds shared memory per block")
      .block("block_size")
      .grid("blocks")
      .shared_memory("direct ? 0 : ext * packing * 4")
      .buffer("in", ElementType::f32, "n", BufferRole::in)
      .buffer("out", ElementType::f32, "n", BufferRole::out)
      .scalar("n", ElementType::i32, "n")
      .scalar("seg", ElementType::i32, "seg")
      .constant("memtune_filter_taps", ElementType::f32, "taps", taps)
      .bytes_moved("2 * n * 4") // read the input, write the output
      // float FMAs in any order: each tap adds at most one rounding of a
      // running sum bounded by sum |c| * max |x| = 1. Twice that per tap.
      .verify_with_kernel(reference_kernel(), {2.0 * FLT_EPSILON, 0.0}, "taps")
      .access_pattern(filter_access_pattern)
      .default_config(default_configuration)
      .build();
}
} // namespace

const std::vector<std::string>& filter_staging_labels() {
  static const std::vector<std::string> labels{"smem", "direct", "shfl"};
  return labels;
}

const KernelDescription& filter_description() {
  static const KernelDescription description = describe();
  return description;
}

} // namespace memtune::templates
