#pragma once
// The matvec template: y = A x in fp32, A of rows x cols stored column-major
// or row-major (source: templates/matvec/matvec.cu, which defines the kernels
// and their summation order exactly).
// Problem: rows, cols (any sizes), layout (col / row: how the caller stores A).
//
// Axes: kernel (stream: A through registers with wide loads, many in flight;
// tiled: the blog's shared-memory tile of BLOCK x (BLOCK + pad) floats;
// col: column-major only, stream with 4-column groups, balanced splits and an
// unrolled finish), block_size, threads_per_row, vec, unroll, x_stage (ldg /
// smem), pad (tiled), hint (col: A's load qualifier), splits (the columns split across blocks, with a deterministic
// single-launch finish). Baseline: "cublas" (cublasSgemv, loaded at run time).
#include <memtune/description/kernel_description.hpp>

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

namespace memtune::templates {

enum class MatvecLayout : std::int64_t { col = 0, row = 1 };
enum class MatvecKernel : std::int64_t { stream = 0, tiled = 1, col = 2 };
enum class MatvecXStage : std::int64_t { ldg = 0, smem = 1 };

// The labels of the `layout` problem parameter and the `kernel`, `x_stage` axes, by value.
const std::vector<std::string>& matvec_layout_labels();
const std::vector<std::string>& matvec_kernel_labels();
const std::vector<std::string>& matvec_x_stage_labels();

// The matvec as a kernel description (templates/matvec/matvec.cpp). Its
// buffers, in matvec.cu's order: A, x, y, then the scalars M, N, chunk, then
// the split workspace (scratch: partial, counters).
const KernelDescription& matvec_description();

// Values of the splits axis. The description's derived values hold the rest
// of matvec.cu's arithmetic (chunk, tile_rows, row_tiles, max_vec, max_splits):
// matvec_description().environment(config, problem, target).
const std::vector<std::int64_t>& matvec_split_values();

// The CPU reference in double: y_i = sum_j A(i, j) x_j, A of rows x cols in
// `layout` (a.size() == rows * cols, x.size() == cols).
std::vector<double> matvec_reference(MatvecLayout layout, std::int64_t rows, std::int64_t cols,
                                     std::span<const float> a, std::span<const float> x);
// What any fp32 summation order may differ from the reference by: 4 eps cols
// max_i rms_i, rms_i the root mean square of row i's products (about twenty
// standard deviations of the random-walk rounding error of a sequential
// sum), plus a floor for exact zeros.
double matvec_tolerance(MatvecLayout layout, std::int64_t rows, std::int64_t cols, std::span<const float> a,
                        std::span<const float> x);

// The note explain() adds, from the best time ([seconds]) per kernel variant
// label ("stream", "tiled pad=0", "tiled pad=1"; missing ones skipped).
// Example: "stream is 4.7x faster than the blog's tiled kernel (best tiled:
// pad=1, 410 us vs 87 us): ..."
std::string matvec_note(const Problem& problem, const std::map<std::string, double>& best_seconds_by_variant);
// matvec_note over a run's best time per variant; empty with fewer than two variants timed.
std::string matvec_explain(const TuningResult& result);

} // namespace memtune::templates
