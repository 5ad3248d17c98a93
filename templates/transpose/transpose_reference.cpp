#include <memtune/io/parallel_for.hpp>
#include <memtune/templates/transpose.hpp>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace memtune::templates {

std::vector<double> transpose_reference(std::span<const float> in, std::int64_t rows, std::int64_t cols) {
  if (rows < 1 || cols < 1 || static_cast<std::int64_t>(in.size()) != rows * cols)
    throw std::invalid_argument("transpose_reference: in must hold rows * cols floats (" + std::to_string(rows) +
                                " x " + std::to_string(cols) + ", got " + std::to_string(in.size()) + ")");
  std::vector<double> out(in.size());
  // Output rows (input columns) in parallel: each chunk writes its own rows.
  parallel_for(cols, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t j = begin; j < end; ++j)
      for (std::int64_t i = 0; i < rows; ++i)
        out[static_cast<std::size_t>(j * rows + i)] = in[static_cast<std::size_t>(i * cols + j)];
  }, std::max<std::int64_t>(1, (std::int64_t{1} << 16) / rows));
  return out;
}

} // namespace memtune::templates
