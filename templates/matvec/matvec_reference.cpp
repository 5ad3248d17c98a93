#include <memtune/io/parallel_for.hpp>
#include <memtune/templates/matvec.hpp>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <stdexcept>

namespace memtune::templates {
namespace {

void check_sizes(std::int64_t rows, std::int64_t cols, std::span<const float> a, std::span<const float> x) {
  if (rows < 1 || cols < 1) throw std::invalid_argument("matvec_reference: rows and cols must be >= 1");
  if (static_cast<std::int64_t>(a.size()) != rows * cols || static_cast<std::int64_t>(x.size()) != cols)
    throw std::invalid_argument("matvec_reference: A must hold rows * cols floats and x cols floats");
}

// Calls f(i, j, a_ij * x_j) in double for every element of the rows [begin,
// end), in an order that reads A contiguously for its layout.
template <class F>
void for_each_product(MatvecLayout layout, std::int64_t rows, std::int64_t cols, std::span<const float> a,
                      std::span<const float> x, std::int64_t begin, std::int64_t end, F&& f) {
  if (layout == MatvecLayout::col) {
    for (std::int64_t j = 0; j < cols; ++j) {
      const double xj = x[static_cast<std::size_t>(j)];
      const float* column = a.data() + j * rows;
      for (std::int64_t i = begin; i < end; ++i) f(i, j, static_cast<double>(column[i]) * xj);
    }
  } else {
    for (std::int64_t i = begin; i < end; ++i) {
      const float* row = a.data() + i * cols;
      for (std::int64_t j = 0; j < cols; ++j) f(i, j, static_cast<double>(row[j]) * static_cast<double>(x[static_cast<std::size_t>(j)]));
    }
  }
}

// Rows per thread: about 64K products each, so wide matrices use every core.
std::int64_t min_rows(std::int64_t cols) { return std::max<std::int64_t>(1, (std::int64_t{1} << 16) / cols); }

} // namespace

std::vector<double> matvec_reference(MatvecLayout layout, std::int64_t rows, std::int64_t cols,
                                     std::span<const float> a, std::span<const float> x) {
  check_sizes(rows, cols, a, x);
  std::vector<double> y(static_cast<std::size_t>(rows), 0.0);
  parallel_for(rows, [&](std::int64_t begin, std::int64_t end) {
    for_each_product(layout, rows, cols, a, x, begin, end,
                     [&](std::int64_t i, std::int64_t, double p) { y[static_cast<std::size_t>(i)] += p; });
  }, min_rows(cols));
  return y;
}

double matvec_tolerance(MatvecLayout layout, std::int64_t rows, std::int64_t cols, std::span<const float> a,
                        std::span<const float> x) {
  check_sizes(rows, cols, a, x);
  std::vector<double> squares(static_cast<std::size_t>(rows), 0.0);
  parallel_for(rows, [&](std::int64_t begin, std::int64_t end) {
    for_each_product(layout, rows, cols, a, x, begin, end,
                     [&](std::int64_t i, std::int64_t, double p) { squares[static_cast<std::size_t>(i)] += p * p; });
  }, min_rows(cols));
  const double max_square = *std::max_element(squares.begin(), squares.end());
  const double max_rms = std::sqrt(max_square / static_cast<double>(cols));
  return 4.0 * FLT_EPSILON * static_cast<double>(cols) * max_rms + 1e-30;
}

} // namespace memtune::templates
