#pragma once
// Which iterations of a loop the model replays, so that its cost does not grow
// with the problem: a loop of a million trips (a mat-vec row of 1M columns)
// is replayed as a few contiguous runs spread over the loop, each replayed
// iteration standing for `weight` of them.
//
//   IterationSample s = sample_iterations(1'000'000);   // 4 runs of 16 iterations
//   s.replayed() == 64; s.weight == 15625.0
//   sample_iterations(40).runs == {{0, 40}}; weight 1  (short loops: every iteration)
//
// Runs, not scattered iterations: what the model keeps between iterations of
// one warp (the L1 window of recently used lines, the store combiner) sees
// neighbouring iterations as the kernel issues them. The first and the last
// iterations are always replayed, so a loop's edge (a guard, a partial tile)
// is seen.
#include <cstdint>
#include <vector>

namespace memtune::model {

// Loops with more iterations than this are sampled.
inline constexpr std::int64_t replay_iteration_cap = 64;

struct IterationRun {
  std::int64_t first = 0;
  std::int64_t count = 0;
};

struct IterationSample {
  std::vector<IterationRun> runs;
  double weight = 1; // iterations of the loop per replayed iteration
  [[nodiscard]] std::int64_t replayed() const;
};

// Throws std::invalid_argument for negative iterations or a cap below 4.
[[nodiscard]] IterationSample sample_iterations(std::int64_t iterations, std::int64_t cap = replay_iteration_cap);

} // namespace memtune::model
