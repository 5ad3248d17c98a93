// The matvec template's kernel description: templates/matvec/matvec.cu (two
// kernels, stream and tiled, over one space) as data.
#include <memtune/description/kernel_builder.hpp>
#include <memtune/templates/matvec.hpp>
#include "embedded_sources.hpp"

#include "geometry_environment.hpp"
#include "matvec_geometry.hpp"

#include <algorithm>
#include <cfloat>
#include <stdexcept>

namespace memtune::templates {

using search::Axis;

namespace {
constexpr std::int64_t kMaxDim = (std::int64_t{1} << 31) - 1; // cuBLAS takes int sizes

MatvecLayout layout_of(const Problem& problem) { return static_cast<MatvecLayout>(problem.at("layout")); }

// matvec.cu's matvec_reference: a row per thread, the products summed in double.
ReferenceKernel reference_kernel() {
  return {"matvec_reference<{layout == \"row\"}>", {}, {search::parse_expr("256")},
          {search::parse_expr("ceil_div(rows, 256)")}, 0};
}

search::Config default_configuration(const Problem& problem, const Target& target) {
  // Stream with the widest aligned vector, 4 loads in flight and enough
  // column splits for about 4 blocks per SM: coalesced and latency-hiding on
  // every GPU. Falls back to the first valid configuration.
  const bool col = layout_of(problem) == MatvecLayout::col;
  const search::Space s = matvec_description().space(problem, target);
  const std::int64_t sms = target.sm_count > 0 ? target.sm_count : 128;
  const std::int64_t vec = matvec_description().environment({}, problem, target).at("max_vec"); // reads the problem only
  const auto& splits = matvec_split_values();
  for (auto it = splits.rbegin(); it != splits.rend(); ++it) {
    search::Config c{{"kernel", static_cast<std::int64_t>(MatvecKernel::stream)},
                     {"block_size", 256},
                     {"threads_per_row", col ? 4 : 32},
                     {"vec", vec},
                     {"unroll", 4},
                     {"prefetch", 0},
                     {"x_stage", static_cast<std::int64_t>(MatvecXStage::ldg)},
                     {"pad", 0},
                     {"splits", *it},
                     {"hint", 0}};
    if (s.is_valid(c) && (*it == 1 || matvec_geometry_environment(c, problem, target).at("row_tiles") * *it <= 4 * sms))
      return c;
  }
  const auto all = s.enumerate();
  if (all.empty()) throw std::logic_error("matvec: the space is empty for " + format_problem(problem));
  return all.front();
}

KernelDescription describe() {
  ProblemParameter layout{"layout", 0, 0, 1, "how the caller stores A: col (column-major, A(i,j) at i + j*rows) or "
                                             "row (row-major, A(i,j) at i*cols + j)", false};
  layout.labels = matvec_layout_labels();
  return KernelBuilder("matvec")
      .summary("y = A x in fp32, A of rows x cols stored column- or row-major: A streamed through registers with wide "
               "loads and a split reduction, or the blog's shared-memory tile; --compare cublas times cublasSgemv")
      .source("matvec.cu", embedded::matvec_cu)
      // Two kernels with different template parameters: the tiled kernel is the blog's.
      .kernel_if("kernel == \"stream\"", "matvec_stream<{layout == \"row\"}, {block_size}, {threads_per_row}, {vec}, {unroll}, "
                                         "{x_stage == \"smem\"}, {prefetch}>")
      .kernel_if("kernel == \"col\"", "matvec_col<{block_size}, {threads_per_row}, {vec}, {unroll}, {hint}>")
      .kernel("matvec_tiled<{layout == \"row\"}, {block_size}, {pad}>")
      .size("rows", 8192, "rows of A (length of y)", 1, kMaxDim)
      .size("cols", 8192, "columns of A (length of x)", 1, kMaxDim)
      .problem(layout)
      .parameter(Axis::categorical("kernel", matvec_kernel_labels(),
                                   "stream: A streamed through registers (vector loads, unroll loads in flight, no A "
                                   "tile); tiled: the blog's kernel, an A tile of block_size x (block_size + pad) "
                                   "floats and an x slice in shared memory, one thread per row; col (column-major "
                                   "only): stream's data flow with 4 consecutive columns per thread and group (x "
                                   "as one float4), balanced splits and an unrolled finish"))
      .parameter(Axis::ordinal("block_size", {32, 64, 128, 256},
                               "threads per block (tiled: also the tile width, 32 or 64; stream: 128 or 256)"))
      // Column-major A has no use for a warp or more per row (a warp lies along the rows of one column).
      .parameter_values_if(Axis::ordinal("threads_per_row", {1, 4, 32, 128},
                                         "threads sharing a row's dot product (col: each taking every "
                                         "threads_per_row-th column; row: a sub-warp, a warp or several warps)"),
                           "layout == \"row\" || threads_per_row <= 4")
      .parameter(Axis::ordinal("vec", {1, 2, 4},
                               "floats per A load: consecutive rows of a column (col) or columns of a row (row, x "
                               "too)"))
      .parameter(Axis::ordinal("unroll", {1, 2, 4, 8}, "A loads each thread issues before using the first (in flight)"))
      .parameter(Axis::ordinal("prefetch", {0, 1},
                               "1: the next batch of unroll loads is issued before this batch's FMAs (software "
                               "pipelining: loads in flight guaranteed, twice the registers); 0: load a batch, then "
                               "use it"))
      .parameter(Axis::categorical("x_stage", matvec_x_stage_labels(),
                                   "how x reaches the threads: ldg (read-only cache) or smem (staged in shared "
                                   "memory)"))
      .parameter(Axis::ordinal("pad", {0, 1}, "tiled: extra floats per row of the shared A tile (1 = the blog's "
                                              "BLOCK+1)"))
      .parameter(Axis::ordinal("hint", {0, 1, 2},
                               "col: how A is loaded: 0 plain, 1 ld.global.nc.L1::no_allocate.L2::256B (sm_80+; "
                               "a plain load before), 2 ld.global.cs (evict-first); stream and tiled: 0"))
      .parameter(Axis::ordinal("splits", matvec_split_values(),
                               "blocks sharing a row tile's reduction over columns (partial sums, last block adds "
                               "them)"))
      // matvec.cu's arithmetic (MatvecGeometry): rows per block, the column
      // chunk per split, the widest aligned vector, the most splits.
      .derived("stream_rows", "layout == \"col\" ? block_size * vec / threads_per_row : block_size / threads_per_row")
      // At least 1 for configurations other constraints reject (block 32 over 128 threads per row).
      .derived("tile_rows", "max(1, kernel == \"tiled\" ? block_size : stream_rows)")
      .derived("row_tiles", "ceil_div(rows, tile_rows)")
      .derived("chunk", "round_up(ceil_div(cols, splits), 4)")
      // [columns] of split 0: stream and tiled take `chunk`; col balances its
      // splits (matvec_col.cuh's split_begin: 4 floor((cols / 4) s / splits)).
      .derived("split0_cols", "splits == 1 ? cols : kernel == \"col\" ? cols / 4 / splits * 4 : min(chunk, cols)")
      .derived("along", "layout == \"col\" ? rows : cols")
      .derived("max_vec", "along % 4 == 0 ? 4 : along % 2 == 0 ? 2 : 1")
      .derived("max_splits", "min(64, max(1, cols / 64))")
      // Splits stop at one wave of full occupancy (below).
      .derived("wave_threads", "(max_threads_per_sm > 0 ? max_threads_per_sm : 2048) * (sm_count > 0 ? sm_count : "
                               "128)")
      .constraint("block_size <= max_threads_per_block", "threads per block above the device limit")
      .constraint("kernel == \"tiled\" || block_size >= 128",
                  "stream and col blocks have 128 or 256 threads (32 and 64 are the tiled kernel's tile widths)")
      // matvec_col: measured on the H100 and the H200, its best always had 4
      // threads per row, float4 columns and 1 to 4 groups in flight.
      .constraint("kernel != \"col\" || layout == \"col\"", "the col kernel reads column-major A only")
      .constraint("kernel != \"col\" || threads_per_row == 4 && unroll <= 4 && prefetch == 0 && x_stage == \"ldg\"",
                  "the col kernel's space: threads_per_row=4, unroll 1, 2 or 4 groups of 4 columns, no prefetch "
                  "(its batches are 4*unroll loads), x through the read-only cache")
      .constraint("kernel == \"col\" || hint == 0", "hint is the col kernel's load qualifier")
      .constraint("kernel != \"tiled\" || block_size <= 64",
                  "the tiled kernel's tile is block_size x (block_size + pad) floats: 32 or 64 wide")
      .constraint("kernel != \"tiled\" || threads_per_row == 1 && vec == 1 && unroll == 1 && prefetch == 0 && "
                  "x_stage == \"smem\"",
                  "the tiled kernel is the blog's: one thread per row, 4-byte loads, x in shared memory "
                  "(threads_per_row=1 vec=1 unroll=1 prefetch=0 x_stage=smem)")
      .constraint("kernel == \"tiled\" || pad == 0", "pad is the tiled kernel's shared tile padding")
      .constraint("layout != \"col\" || kernel == \"tiled\" || 32 * threads_per_row <= block_size",
                  "column-major: a warp must lie along the rows of one column (block_size / threads_per_row >= 32) "
                  "so that its loads are contiguous")
      .constraint("layout != \"col\" || kernel != \"stream\" || x_stage != \"smem\"",
                  "column-major: a warp reads one x element per column (a broadcast); shared memory has nothing to "
                  "coalesce")
      .constraint("layout != \"row\" || kernel != \"stream\" || threads_per_row >= 4",
                  "row-major with one thread per row puts a warp's loads a row apart (uncoalesced); the tiled kernel "
                  "covers that case")
      .constraint("vec <= max_vec",
                  "float2/float4 loads need the rows (column-major) or the cols (row-major) to be a multiple of vec "
                  "(each column or row must start 8/16-byte aligned)")
      .constraint("vec == 1 || vec == max_vec",
                  "vec is 1 or the widest aligned vector (float2 is float4's fallback where the size is not a "
                  "multiple of 4)")
      .constraint("splits <= max_splits", "each column split must get at least 64 columns")
      // A thread's share of its split: cols / (splits x tpr) columns (col-major)
      // or that over vec vectors (row-major); a batch larger than that is the
      // same kernel with dead loads.
      .constraint("(splits * unroll - 1) * (layout == \"col\" ? threads_per_row : threads_per_row * vec) < cols",
                  "a batch of unroll loads must not run past a thread's share of the columns ((splits x unroll - 1) "
                  "x threads_per_row x vec(row-major) < cols)")
      .constraint("prefetch == 0 || unroll >= 2",
                  "prefetch with unroll 1 keeps about as many loads in flight as unroll 2 without it")
      // Splitting the reduction costs partial-sum traffic and a finish; it pays
      // while the row tiles alone leave the GPU without enough threads.
      .constraint("row_tiles * (splits - 1) * block_size < wave_threads",
                  "more column splits than the GPU needs: row tiles x (splits - 1) x block_size must stay below one "
                  "wave of full occupancy")
      .block("block_size")
      .grid("row_tiles", "splits")
      .buffer("A", ElementType::f32, "rows * cols", BufferRole::in)
      .buffer("x", ElementType::f32, "cols", BufferRole::in)
      .buffer("y", ElementType::f32, "rows", BufferRole::out)
      .scalar("M", ElementType::i64, "rows")
      .scalar("N", ElementType::i64, "cols")
      .scalar("chunk", ElementType::i64, "chunk")
      // The split workspace: partial sums of up to max_splits splits, and one
      // counter per row tile (a tile has at least one row), which every launch
      // leaves at zero for the next.
      .buffer("partial", ElementType::f32, "max_splits * rows", BufferRole::scratch)
      .buffer("counters", ElementType::u32, "rows", BufferRole::scratch)
      .bytes_moved("(rows * cols + cols + rows) * 4") // A once, x once, y once
      // cols float products summed in any order and split: with A and x in
      // [-1, 1] a product's root mean square is about 1/3, and each adds at
      // most a rounding of partial sums that grow as sqrt(cols)/3; 2 eps a
      // term bounds what every kernel of the space was seen to need.
      .verify_with_kernel(reference_kernel(), {2.0 * FLT_EPSILON, 0.0}, "cols")
      .access_pattern(matvec_access_pattern)
      .explain(matvec_explain)
      .library_baseline("cublas", "cublas_sgemv", {{"A", "A"}, {"x", "x"}, {"y", "y"}},
                        {{"rows", "rows"}, {"cols", "cols"}, {"row_major", "layout == \"row\""}})
      .default_config(default_configuration)
      .build();
}
} // namespace

const std::vector<std::string>& matvec_layout_labels() {
  static const std::vector<std::string> labels{"col", "row"};
  return labels;
}
const std::vector<std::string>& matvec_kernel_labels() {
  static const std::vector<std::string> labels{"stream", "tiled", "col"};
  return labels;
}
const std::vector<std::string>& matvec_x_stage_labels() {
  static const std::vector<std::string> labels{"ldg", "smem"};
  return labels;
}
const std::vector<std::int64_t>& matvec_split_values() {
  static const std::vector<std::int64_t> values{1, 4, 16, 64};
  return values;
}

search::Config matvec_geometry_environment(const search::Config& config, const Problem& problem,
                                           const Target& target) {
  return geometry_environment(matvec_description(), config, problem, target, {{"hint", 0}});
}

const KernelDescription& matvec_description() {
  static const KernelDescription description = describe();
  return description;
}

} // namespace memtune::templates
