#include <memtune/model/iteration_sample.hpp>

#include <stdexcept>

namespace memtune::model {

std::int64_t IterationSample::replayed() const {
  std::int64_t n = 0;
  for (const auto& r : runs) n += r.count;
  return n;
}

IterationSample sample_iterations(std::int64_t iterations, std::int64_t cap) {
  if (iterations < 0) throw std::invalid_argument("sample_iterations: negative iteration count");
  if (cap < 4) throw std::invalid_argument("sample_iterations: the cap must be at least 4");
  IterationSample s;
  if (iterations == 0) return s;
  if (iterations <= cap) {
    s.runs.push_back({0, iterations});
    return s;
  }
  // Four runs: the start, two inside, the end.
  constexpr std::int64_t kRuns = 4;
  const std::int64_t length = cap / kRuns;
  for (std::int64_t r = 0; r < kRuns; ++r) {
    const std::int64_t first = (iterations - length) * r / (kRuns - 1);
    s.runs.push_back({first, length});
  }
  s.weight = static_cast<double>(iterations) / static_cast<double>(s.replayed());
  return s;
}

} // namespace memtune::model
