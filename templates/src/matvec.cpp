#include <memtune/templates/matvec.hpp>
#include "embedded_sources.hpp"

#include "matvec/matvec_geometry.hpp"
#include "matvec_workload.hpp"

#include <algorithm>
#include <cstdio>
#include <string>

namespace memtune::templates {

using search::Axis;
using search::axis;
using search::Expr;

namespace {
constexpr std::int64_t kMaxDim = (std::int64_t{1} << 31) - 1; // cuBLAS takes int sizes

// 1 when the categorical axis `name` equals `value`, else 0, as an expression
// (the constraint language has no conditionals): 1 - min(1, (a - v)^2).
Expr is(const std::string& name, std::int64_t value) {
  const Expr d = axis(name) - Expr(value);
  return Expr(1) - min(Expr(1), d * d);
}
Expr is_kernel(MatvecKernel k) { return is("kernel", static_cast<std::int64_t>(k)); }

// Rows per block as an expression (matvec_tile_rows).
Expr tile_rows_expr(MatvecLayout layout) {
  const Expr stream_rows = layout == MatvecLayout::col ? axis("block_size") * axis("vec") / axis("threads_per_row")
                                                       : axis("block_size") / axis("threads_per_row");
  // At least 1 for configurations other constraints reject (block 32 over 128 threads per row).
  return max(Expr(1), is_kernel(MatvecKernel::stream) * stream_rows + is_kernel(MatvecKernel::tiled) * axis("block_size"));
}
} // namespace

std::string MatvecTemplate::description() const {
  return "y = A x in fp32, A of rows x cols stored column- or row-major: A streamed through registers with wide "
         "loads and a split reduction, or the blog's shared-memory tile; --compare cublas times cublasSgemv";
}

std::vector<ProblemParameter> MatvecTemplate::problem_parameters() const {
  ProblemParameter layout{"layout", 0, 0, 1, "how the caller stores A: col (column-major, A(i,j) at i + j*rows) or "
                                             "row (row-major, A(i,j) at i*cols + j)", false};
  layout.labels = matvec_layout_labels();
  return {{"rows", 8192, 1, kMaxDim, "rows of A (length of y)", true},
          {"cols", 8192, 1, kMaxDim, "columns of A (length of x)", true},
          layout};
}

const std::string& MatvecTemplate::source() const {
  static const std::string source(embedded::matvec_cu);
  return source;
}

search::Space MatvecTemplate::space(const Problem& problem, const Target& target) const {
  const std::int64_t rows = problem.at("rows"), cols = problem.at("cols");
  const auto layout = static_cast<MatvecLayout>(problem.at("layout"));
  const bool col = layout == MatvecLayout::col;
  search::Space s;
  s.add(Axis::categorical("kernel", matvec_kernel_labels(),
                          "stream: A streamed through registers (vector loads, unroll loads in flight, no A tile); "
                          "tiled: the blog's kernel, an A tile of block_size x (block_size + pad) floats and an x "
                          "slice in shared memory, one thread per row"));
  s.add(Axis::ordinal("block_size", {32, 64, 128, 256},
                      "threads per block (tiled: also the tile width, 32 or 64; stream: 128 or 256)"));
  s.add(Axis::ordinal("threads_per_row", col ? std::vector<std::int64_t>{1, 4} : std::vector<std::int64_t>{1, 4, 32, 128},
                      col ? "threads sharing a row's dot product, each taking every threads_per_row-th column"
                          : "threads sharing a row's dot product (a sub-warp, a warp or several warps)"));
  s.add(Axis::ordinal("vec", {1, 2, 4}, col ? "floats per A load: consecutive rows of a column"
                                            : "floats per A and x load: consecutive columns of a row"));
  s.add(Axis::ordinal("unroll", {1, 2, 4, 8}, "A loads each thread issues before using the first (in flight)"));
  s.add(Axis::ordinal("prefetch", {0, 1},
                      "1: the next batch of unroll loads is issued before this batch's FMAs (software pipelining: "
                      "loads in flight guaranteed, twice the registers); 0: load a batch, then use it"));
  s.add(Axis::categorical("x_stage", matvec_x_stage_labels(),
                          "how x reaches the threads: ldg (read-only cache) or smem (staged in shared memory)"));
  s.add(Axis::ordinal("pad", {0, 1}, "tiled: extra floats per row of the shared A tile (1 = the blog's BLOCK+1)"));
  s.add(Axis::ordinal("splits", matvec_split_values(),
                      "blocks sharing a row tile's reduction over columns (partial sums, last block adds them)"));

  const Expr stream = is_kernel(MatvecKernel::stream), tiled = is_kernel(MatvecKernel::tiled);
  const Expr smem = is("x_stage", static_cast<std::int64_t>(MatvecXStage::smem));
  s.require((axis("block_size") <= target.max_threads_per_block).because("threads per block above the device limit"));
  s.require((stream * (Expr(128) - axis("block_size")) <= 0)
                .because("stream blocks have 128 or 256 threads (32 and 64 are the tiled kernel's tile widths)"));
  s.require((tiled * axis("block_size") <= 64)
                .because("the tiled kernel's tile is block_size x (block_size + pad) floats: 32 or 64 wide"));
  s.require((tiled * ((axis("threads_per_row") - 1) + (axis("vec") - 1) + (axis("unroll") - 1) + axis("prefetch") +
                       (Expr(1) - smem)) == 0)
                .because("the tiled kernel is the blog's: one thread per row, 4-byte loads, x in shared memory "
                         "(threads_per_row=1 vec=1 unroll=1 prefetch=0 x_stage=smem)"));
  s.require((stream * axis("pad") == 0).because("pad is the tiled kernel's shared tile padding"));
  if (col) {
    s.require((stream * (Expr(32) * axis("threads_per_row") - axis("block_size")) <= 0)
                  .because("column-major: a warp must lie along the rows of one column (block_size / "
                           "threads_per_row >= 32) so that its loads are contiguous"));
    s.require((stream * smem == 0)
                  .because("column-major: a warp reads one x element per column (a broadcast); shared memory has "
                           "nothing to coalesce"));
  } else {
    s.require((stream * (Expr(4) - axis("threads_per_row")) <= 0)
                  .because("row-major with one thread per row puts a warp's loads a row apart (uncoalesced); the "
                           "tiled kernel covers that case"));
  }
  const std::int64_t max_vec = matvec_max_vec(layout, rows, cols);
  s.require((axis("vec") <= max_vec)
                .because(col ? "float2/float4 loads along a column need rows to be a multiple of vec (each column "
                               "must start 8/16-byte aligned)"
                             : "float2/float4 loads along a row need cols to be a multiple of vec (each row must "
                               "start 8/16-byte aligned)"));
  s.require(((axis("vec") - 1) * (axis("vec") - max_vec) == 0)
                .because("vec is 1 or the widest aligned vector (float2 is float4's fallback where the size is not a "
                         "multiple of 4)"));
  s.require((axis("splits") <= matvec_max_splits(cols)).because("each column split must get at least 64 columns"));
  // A thread's share of its split: cols / (splits x tpr) columns (col-major)
  // or that over vec vectors (row-major); a batch larger than that is the
  // same kernel with dead loads.
  const Expr per_load = col ? axis("threads_per_row") : axis("threads_per_row") * axis("vec");
  s.require(((axis("splits") * axis("unroll") - 1) * per_load < cols)
                .because("a batch of unroll loads must not run past a thread's share of the columns ((splits x "
                         "unroll - 1) x threads_per_row x vec(row-major) < cols)"));
  s.require((axis("prefetch") * (Expr(2) - axis("unroll")) <= 0)
                .because("prefetch with unroll 1 keeps about as many loads in flight as unroll 2 without it"));
  // Splitting the reduction costs partial-sum traffic and a finish; it pays
  // while the row tiles alone leave the GPU without enough threads. Splits
  // stop at one wave of full occupancy.
  const std::int64_t sms = target.sm_count > 0 ? target.sm_count : 128;
  const std::int64_t threads_per_sm = target.max_threads_per_sm > 0 ? target.max_threads_per_sm : 2048;
  const Expr tile_rows = tile_rows_expr(layout);
  const Expr row_tiles = (Expr(rows) + tile_rows - 1) / tile_rows;
  s.require((row_tiles * (axis("splits") - 1) * axis("block_size") < threads_per_sm * sms)
                .because("more column splits than the GPU needs: row tiles x (splits - 1) x block_size must stay "
                         "below one wave of full occupancy"));
  return s;
}

LaunchSpec MatvecTemplate::launch(const search::Config& c, const Problem& problem) const {
  const MatvecGeometry g(c, problem);
  const std::string l = std::to_string(static_cast<int>(g.layout));
  LaunchSpec spec;
  if (g.kernel == MatvecKernel::stream) {
    spec.name_expression = "matvec_stream<" + l + ", " + std::to_string(g.block) + ", " + std::to_string(g.tpr) + ", " +
                           std::to_string(g.vec) + ", " + std::to_string(g.unroll) + ", " +
                           std::to_string(g.x_smem ? 1 : 0) + ", " + std::to_string(g.prefetch) + ">";
  } else {
    spec.name_expression = "matvec_tiled<" + l + ", " + std::to_string(g.block) + ", " + std::to_string(g.pad) + ">";
  }
  spec.block = {static_cast<unsigned>(g.block), 1, 1};
  spec.grid = {static_cast<unsigned>(g.row_tiles), static_cast<unsigned>(g.splits), 1};
  spec.dynamic_smem_bytes = 0; // all shared memory is static
  return spec;
}

search::Config MatvecTemplate::default_config(const Problem& problem, const Target& target) const {
  return matvec_description().default_config(problem, target);
}

AccessPattern MatvecTemplate::access_pattern(const search::Config& c, const Problem& problem,
                                             const Target& target) const {
  return matvec_access_pattern(c, problem, target);
}

std::string MatvecTemplate::explain(const TuningResult& result) const { return matvec_explain(result); }

std::uint64_t MatvecTemplate::bytes_moved(const Problem& problem) const {
  const auto m = static_cast<std::uint64_t>(problem.at("rows"));
  const auto n = static_cast<std::uint64_t>(problem.at("cols"));
  return (m * n + n + m) * sizeof(float);
}

std::unique_ptr<Workload> MatvecTemplate::make_workload(const Problem& problem, std::uint64_t seed) const {
  return std::make_unique<MatvecWorkload>(problem.at("rows"), problem.at("cols"),
                                          static_cast<MatvecLayout>(problem.at("layout")), seed);
}

const MatvecTemplate& matvec() {
  static const MatvecTemplate instance;
  return instance;
}

} // namespace memtune::templates
